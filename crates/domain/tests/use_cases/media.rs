use std::path::Path;

use onebot_gateway_config::MediaConfig;
use onebot_gateway_domain::error::{Kind, Result};
use onebot_gateway_domain::media::kind::{OCTET_STREAM, SNIFF_BYTES, sanitize_file_name};
use onebot_gateway_domain::media::staging::{
    MediaOwner, MediaStore, STAGING_DIR, StagedMedia, TEMP_PREFIX,
};
use onebot_gateway_domain::media::upload::UploadHeader;
use onebot_gateway_domain::model::MediaKind;
use onebot_gateway_store::state::StateStore;
use onebot_gateway_testkit::{png, sample, sha_hex};

fn config() -> MediaConfig {
    MediaConfig {
        image_max_bytes: 64 * 1024,
        video_max_bytes: 256 * 1024,
        file_max_bytes: 256 * 1024,
        staging_quota_bytes: 512 * 1024,
        ..MediaConfig::default()
    }
}

fn open(dir: &Path, config: MediaConfig) -> MediaStore {
    let store = std::sync::Arc::new(StateStore::open(dir).unwrap());
    MediaStore::open(dir, store, config).unwrap()
}

fn header(kind: MediaKind) -> UploadHeader {
    UploadHeader {
        kind,
        file_name: "a.png".into(),
        size: None,
        sha256: None,
    }
}

fn owner() -> MediaOwner {
    MediaOwner::account("default")
}

fn staging_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join(STAGING_DIR))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

async fn upload(
    media: &MediaStore,
    header: UploadHeader,
    bytes: &[u8],
    chunk: usize,
) -> Result<StagedMedia> {
    let mut up = media.begin(owner(), header)?;
    for part in bytes.chunks(chunk) {
        up.write(part.to_vec()).await?;
    }
    up.finish().await
}

#[tokio::test]
async fn upload_in_odd_chunks_is_staged_with_hash_and_mime() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let bytes = png(50_000);
    let staged = upload(&media, header(MediaKind::Image), &bytes, 777)
        .await
        .unwrap();
    assert_eq!(staged.size, 50_000);
    assert_eq!(staged.sha256, sha_hex(&bytes));
    assert_eq!(staged.mime, "image/png");
    assert_eq!(staged.file_name, "a.png");
    assert_eq!(std::fs::read(&staged.path).unwrap(), bytes);
    assert_eq!(media.used_bytes(), 50_000);
    assert_eq!(staging_files(dir.path()), vec![staged.id.clone()]);
    let got = media.get(&staged.id, &owner()).unwrap();
    assert_eq!(got, staged);
}

#[tokio::test]
async fn limit_is_inclusive_and_one_byte_more_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let at_limit = png(64 * 1024);
    upload(&media, header(MediaKind::Image), &at_limit, 4096)
        .await
        .unwrap();

    let mut up = media.begin(owner(), header(MediaKind::Image)).unwrap();
    up.write(png(64 * 1024)).await.unwrap();
    let err = up.write(vec![0]).await.unwrap_err();
    assert_eq!(err.kind, Kind::MediaTooLarge);
    assert_eq!(err.meta("limit_bytes"), Some("65536"));
    drop(up);
    assert_eq!(
        staging_files(dir.path()).len(),
        1,
        "the refused upload left a file"
    );
    assert_eq!(media.used_bytes(), 64 * 1024);
}

#[tokio::test]
async fn declared_size_over_limit_is_refused_before_any_byte() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let err = media
        .begin(
            owner(),
            UploadHeader {
                size: Some(64 * 1024 + 1),
                ..header(MediaKind::Image)
            },
        )
        .unwrap_err();
    assert_eq!(err.kind, Kind::MediaTooLarge);
    assert!(staging_files(dir.path()).is_empty());
}

#[tokio::test]
async fn size_and_checksum_mismatches() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let bytes = png(1000);

    let short = UploadHeader {
        size: Some(1001),
        ..header(MediaKind::Image)
    };
    let err = upload(&media, short, &bytes, 100).await.unwrap_err();
    assert_eq!(err.kind, Kind::MediaSizeMismatch);

    let long = UploadHeader {
        size: Some(999),
        ..header(MediaKind::Image)
    };
    let err = upload(&media, long, &bytes, 100).await.unwrap_err();
    assert_eq!(err.kind, Kind::MediaSizeMismatch);

    let wrong_sha = UploadHeader {
        sha256: Some(sha_hex(b"other")),
        ..header(MediaKind::Image)
    };
    let err = upload(&media, wrong_sha, &bytes, 100).await.unwrap_err();
    assert_eq!(err.kind, Kind::MediaChecksumMismatch);

    let right = UploadHeader {
        size: Some(1000),
        sha256: Some(sha_hex(&bytes)),
        ..header(MediaKind::Image)
    };
    upload(&media, right, &bytes, 100).await.unwrap();

    let bad_hex = UploadHeader {
        sha256: Some("ABC".into()),
        ..header(MediaKind::Image)
    };
    assert_eq!(
        media.begin(owner(), bad_hex).unwrap_err().kind,
        Kind::InvalidRequest
    );
    assert_eq!(staging_files(dir.path()).len(), 1);
    assert_eq!(media.used_bytes(), 1000);
}

#[tokio::test]
async fn content_is_checked_by_magic_numbers_not_names() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    for (kind, name) in [
        ("jpeg", "image/jpeg"),
        ("png", "image/png"),
        ("gif", "image/gif"),
        ("bmp", "image/bmp"),
        ("webp", "image/webp"),
    ] {
        let s = upload(
            &media,
            header(MediaKind::Image),
            &sample(kind, 20_000),
            3000,
        )
        .await
        .unwrap();
        assert_eq!(s.mime, name);
    }
    for (kind, name) in [
        ("mp4", "video/mp4"),
        ("mov", "video/quicktime"),
        ("webm", "video/webm"),
        ("flv", "video/x-flv"),
        ("avi", "video/x-msvideo"),
        ("mkv", "video/x-matroska"),
    ] {
        let s = upload(
            &media,
            header(MediaKind::Video),
            &sample(kind, 20_000),
            3000,
        )
        .await
        .unwrap();
        assert_eq!(s.mime, name, "{kind}");
    }
    // A video declared as an image, text declared as a video.
    let err = upload(
        &media,
        header(MediaKind::Image),
        &sample("mp4", 20_000),
        3000,
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind, Kind::MediaTypeMismatch);
    assert_eq!(err.meta("detected"), Some("video/mp4"));
    let err = upload(&media, header(MediaKind::Video), &sample("text", 100), 30)
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::MediaTypeMismatch);
    // Files take anything.
    let s = upload(&media, header(MediaKind::File), &sample("text", 100), 30)
        .await
        .unwrap();
    assert_eq!(s.mime, OCTET_STREAM);
    let s = upload(&media, header(MediaKind::File), &sample("png", 100), 30)
        .await
        .unwrap();
    assert_eq!(s.mime, "image/png");
}

#[tokio::test]
async fn mismatch_is_detected_from_the_first_bytes_without_reading_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let mut up = media.begin(owner(), header(MediaKind::Video)).unwrap();
    let err = up.write(sample("text", SNIFF_BYTES)).await.unwrap_err();
    assert_eq!(err.kind, Kind::MediaTypeMismatch);
}

#[tokio::test]
async fn empty_upload_is_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let up = media.begin(owner(), header(MediaKind::File)).unwrap();
    assert_eq!(up.finish().await.unwrap_err().kind, Kind::InvalidRequest);
    assert!(staging_files(dir.path()).is_empty());
}

#[tokio::test]
async fn dropped_upload_leaves_nothing_and_returns_quota() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let mut up = media.begin(owner(), header(MediaKind::Video)).unwrap();
    up.write(sample("mp4", 100_000)).await.unwrap();
    assert_eq!(staging_files(dir.path()).len(), 1);
    assert_eq!(media.used_bytes(), 100_000);
    drop(up);
    assert!(staging_files(dir.path()).is_empty());
    assert_eq!(media.used_bytes(), 0);
}

#[tokio::test]
async fn quota_counts_staged_and_in_flight_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let a = upload(
        &media,
        header(MediaKind::Video),
        &sample("mp4", 256 * 1024),
        65536,
    )
    .await
    .unwrap();
    let mut b = media.begin(owner(), header(MediaKind::Video)).unwrap();
    b.write(sample("mp4", 200 * 1024)).await.unwrap();
    // 456 KiB used of 512 KiB: a declared 100 KiB upload cannot start.
    let err = media
        .begin(
            owner(),
            UploadHeader {
                size: Some(100 * 1024),
                ..header(MediaKind::Video)
            },
        )
        .unwrap_err();
    assert_eq!(err.kind, Kind::StagingQuotaExceeded);
    assert!(err.retry_after.is_some());
    // Nor can an undeclared upload grow past it.
    let mut c = media.begin(owner(), header(MediaKind::File)).unwrap();
    let err = c.write(vec![0; 60 * 1024]).await.unwrap_err();
    assert_eq!(err.kind, Kind::StagingQuotaExceeded);
    drop(c);
    drop(b);
    media.sweep(a.expires_at_ms).await.unwrap();
    assert_eq!(media.used_bytes(), 0);
}

#[tokio::test]
async fn media_belong_to_their_account_and_expire() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let s = upload(&media, header(MediaKind::Image), &png(100), 100)
        .await
        .unwrap();
    let other = MediaOwner::account("other");
    assert_eq!(
        media.get(&s.id, &other).unwrap_err().kind,
        Kind::MediaNotFound
    );
    let with_token = MediaOwner {
        token: Some("t".into()),
        ..owner()
    };
    assert_eq!(
        media.get(&s.id, &with_token).unwrap_err().kind,
        Kind::MediaNotFound
    );
    assert_eq!(
        media.get("m0", &owner()).unwrap_err().kind,
        Kind::MediaNotFound
    );

    assert_eq!(media.sweep(s.expires_at_ms - 1).await.unwrap(), 0);
    assert!(media.get(&s.id, &owner()).is_ok());
    assert_eq!(media.sweep(s.expires_at_ms).await.unwrap(), 1);
    assert_eq!(
        media.get(&s.id, &owner()).unwrap_err().kind,
        Kind::MediaNotFound
    );
    assert!(staging_files(dir.path()).is_empty());
    assert_eq!(media.used_bytes(), 0);
}

#[tokio::test]
async fn staged_media_survive_reopen_and_leftovers_are_cleaned() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let media = open(dir.path(), config());
        let s = upload(&media, header(MediaKind::Image), &png(300), 100)
            .await
            .unwrap();
        // What a kill -9 leaves: a temporary file of an upload in progress,
        // and a stray file.
        let staging = dir.path().join(STAGING_DIR);
        std::fs::write(staging.join(format!("{TEMP_PREFIX}0123")), png(100)).unwrap();
        std::fs::write(staging.join("stray"), b"x").unwrap();
        s.id
    };
    let media = open(dir.path(), config());
    assert_eq!(staging_files(dir.path()), vec![id.clone()]);
    assert_eq!(media.get(&id, &owner()).unwrap().size, 300);
    assert_eq!(media.used_bytes(), 300);
}

/// A staged item keeps its client's share across a restart, for a client
/// known by its address (no authentication) as for a token.
#[tokio::test]
async fn a_staged_item_holds_its_clients_share_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let client: std::sync::Arc<str> = std::sync::Arc::from("addr:127.0.0.1");
    {
        let media = open(dir.path(), config());
        let mut up = media
            .begin_as(owner(), Some(client.clone()), header(MediaKind::Image))
            .unwrap();
        up.write(png(300)).await.unwrap();
        up.finish().await.unwrap();
        assert_eq!(media.used_by(&client), 300);
    }
    let media = open(dir.path(), config());
    assert_eq!(media.used_by(&client), 300);
    assert_eq!(media.used_bytes(), 300);
}

#[tokio::test]
async fn transient_media_are_removed_when_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let mut up = media.begin(owner(), header(MediaKind::Image)).unwrap();
    up.write(png(500)).await.unwrap();
    let t = up.finish_transient().await.unwrap();
    assert_eq!(t.size, 500);
    assert_eq!(std::fs::read(&t.path).unwrap().len(), 500);
    assert_eq!(media.used_bytes(), 500);
    drop(t);
    assert!(staging_files(dir.path()).is_empty());
    assert_eq!(media.used_bytes(), 0);
}

#[test]
fn file_names_are_sanitised() {
    assert_eq!(sanitize_file_name("../../etc/passwd"), "passwd");
    assert_eq!(sanitize_file_name("C:\\x\\报告.pdf"), "报告.pdf");
    assert_eq!(sanitize_file_name("a\nb\u{0}.txt"), "ab.txt");
    assert_eq!(sanitize_file_name(".."), "");
    assert_eq!(sanitize_file_name(&"é".repeat(300)).len(), 254);
}

#[tokio::test]
async fn an_upload_leases_the_bytes_that_arrived_not_what_it_declares() {
    let dir = tempfile::tempdir().unwrap();
    let media = open(dir.path(), config());
    let declared = UploadHeader {
        size: Some(256 * 1024),
        ..header(MediaKind::File)
    };
    let mut a = media.begin(owner(), declared.clone()).unwrap();
    a.write(vec![0; 10]).await.unwrap();
    assert_eq!(media.used_bytes(), 10);
    // Declared sizes hold nothing: both fit while their bytes do.
    let mut b = media.begin(owner(), declared).unwrap();
    b.write(vec![0; 10]).await.unwrap();
    assert_eq!(media.used_bytes(), 20);
    drop((a, b));
    assert_eq!(media.used_bytes(), 0);
}

#[tokio::test]
async fn one_client_stages_at_most_its_share_of_the_quota() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(StateStore::open(dir.path()).unwrap());
    // 512 KiB of quota, 128 KiB per client.
    let media = MediaStore::open_shared(dir.path(), store, config(), 128 * 1024).unwrap();
    let token = |name: &str| MediaOwner {
        account_id: "default".into(),
        token: Some(name.into()),
    };
    let mut a = media.begin(token("a"), header(MediaKind::File)).unwrap();
    a.write(vec![0; 100 * 1024]).await.unwrap();
    let err = a.write(vec![0; 50 * 1024]).await.unwrap_err();
    assert_eq!(err.kind, Kind::StagingQuotaExceeded);
    assert_eq!(err.meta("share_bytes"), Some("131072"));
    let declared = UploadHeader {
        size: Some(50 * 1024),
        ..header(MediaKind::File)
    };
    let err = media.begin(token("a"), declared.clone()).unwrap_err();
    assert_eq!(err.kind, Kind::StagingQuotaExceeded);
    // Another client still has its share.
    let mut b = media.begin(token("b"), declared).unwrap();
    b.write(vec![0; 50 * 1024]).await.unwrap();
    assert_eq!(media.used_by("token:a"), 100 * 1024);
    assert_eq!(media.used_by("token:b"), 50 * 1024);
}
