use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use std::sync::Arc;

use onebot_gateway_config::MediaConfig;
use onebot_gateway_domain::error::{Kind, Result};
use onebot_gateway_domain::media::resolve::{MediaSource, Resolver};
use onebot_gateway_domain::media::staging::{MediaOwner, MediaStore};
use onebot_gateway_domain::model::{MediaKind, MediaPayload};
use onebot_gateway_fetch::{Fetcher, SystemLookup};
use onebot_gateway_onebot::outgoing::base64_uri;
use onebot_gateway_store::state::StateStore;
use onebot_gateway_testkit::{png, sample};

struct Setup {
    resolver: Resolver,
    root: PathBuf,
    outside: PathBuf,
    _dirs: (tempfile::TempDir, tempfile::TempDir, tempfile::TempDir),
}

fn setup(with_roots: bool) -> Setup {
    let data = tempfile::tempdir().unwrap();
    let root_dir = tempfile::tempdir().unwrap();
    let outside_dir = tempfile::tempdir().unwrap();
    let root = root_dir.path().to_path_buf();
    let outside = outside_dir.path().to_path_buf();
    let config = MediaConfig {
        image_max_bytes: 1000,
        media_roots: if with_roots {
            vec![root.clone()]
        } else {
            vec![]
        },
        ..MediaConfig::default()
    };
    let store = std::sync::Arc::new(StateStore::open(data.path()).unwrap());
    let media = MediaStore::open(data.path(), store, config.clone()).unwrap();
    let fetcher = Fetcher::new(&config, media.clone(), Arc::new(SystemLookup));
    Setup {
        resolver: Resolver::new(media, Arc::new(fetcher), &config.media_roots),
        root,
        outside,
        _dirs: (data, root_dir, outside_dir),
    }
}

async fn resolve(s: &Setup, kind: MediaKind, path: &Path) -> Result<MediaPayload> {
    s.resolver
        .resolve(
            &MediaOwner::account("default"),
            &onebot_gateway_domain::caller::Caller::anonymous(),
            kind,
            &MediaSource::Path(path.to_string_lossy().into_owned()),
            "images[0]",
        )
        .await
}

#[tokio::test]
async fn paths_are_off_by_default() {
    let s = setup(false);
    std::fs::write(s.root.join("a.png"), png(100)).unwrap();
    let e = resolve(&s, MediaKind::Image, &s.root.join("a.png"))
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::MediaSourceDisabled);
}

#[tokio::test]
async fn paths_under_the_roots_resolve_and_escapes_are_refused() {
    let s = setup(true);
    std::fs::create_dir(s.root.join("sub")).unwrap();
    std::fs::write(s.root.join("sub/a.png"), png(100)).unwrap();
    std::fs::write(s.outside.join("secret.png"), png(100)).unwrap();
    std::os::unix::fs::symlink(s.outside.join("secret.png"), s.root.join("link.png")).unwrap();
    std::os::unix::fs::symlink(&s.outside, s.root.join("linkdir")).unwrap();
    std::os::unix::fs::symlink(s.root.join("sub/a.png"), s.root.join("inner.png")).unwrap();

    let m = resolve(&s, MediaKind::Image, &s.root.join("sub/a.png"))
        .await
        .unwrap();
    assert_eq!(
        (m.size, m.mime.as_str(), m.source_name.as_str()),
        (100, "image/png", "a.png")
    );
    let uri = base64_uri(&m).await.unwrap();
    assert!(uri.starts_with("base64://iVBORw0KGgo"));
    // A symlink that stays inside is fine.
    resolve(&s, MediaKind::Image, &s.root.join("inner.png"))
        .await
        .unwrap();

    for escape in [
        s.root
            .join("sub/../../")
            .join(s.outside.file_name().unwrap())
            .join("secret.png"),
        s.root.join("link.png"),
        s.root.join("linkdir/secret.png"),
        s.outside.join("secret.png"),
        PathBuf::from("/etc/hostname"),
    ] {
        let e = resolve(&s, MediaKind::Image, &escape).await.unwrap_err();
        assert_eq!(e.kind, Kind::PathForbidden, "{}: {e:?}", escape.display());
    }
    // Missing, inside the roots or outside: the answer of a path outside
    // (no existence oracle).
    let outside_existing = resolve(&s, MediaKind::Image, &s.outside.join("secret.png"))
        .await
        .unwrap_err();
    for missing in [s.root.join("missing.png"), s.outside.join("missing.png")] {
        let e = resolve(&s, MediaKind::Image, &missing).await.unwrap_err();
        assert_eq!(e.kind, Kind::PathForbidden, "{}", missing.display());
        assert_eq!(e.message, outside_existing.message);
    }
    let e = resolve(&s, MediaKind::Image, &s.root.join("sub"))
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::PathNotFound);
    let e = resolve(&s, MediaKind::Image, Path::new("sub/a.png"))
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::InvalidRequest);
}

/// A FIFO under the roots (or a symlink to one) is refused without being opened: the
/// resolve returns although no writer ever opens the FIFO.
#[tokio::test]
async fn special_files_are_refused_before_opening() {
    let s = setup(true);
    let fifo = s.root.join("pipe.png");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    std::os::unix::fs::symlink(&fifo, s.root.join("to-pipe.png")).unwrap();
    for path in [fifo.clone(), s.root.join("to-pipe.png")] {
        let answer = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            resolve(&s, MediaKind::Image, &path),
        )
        .await;
        let Ok(answer) = answer else {
            // Unblock the reader stuck in open(2) so the runtime can stop.
            let _writer = std::fs::OpenOptions::new().write(true).open(&fifo);
            panic!("resolving {} blocked on the FIFO", path.display());
        };
        let e = answer.unwrap_err();
        assert_eq!(e.kind, Kind::PathNotFound, "{}: {e:?}", path.display());
    }
}

#[tokio::test]
async fn path_limits_and_types() {
    let s = setup(true);
    std::fs::write(s.root.join("edge.png"), png(1000)).unwrap();
    std::fs::write(s.root.join("big.png"), png(1001)).unwrap();
    std::fs::write(s.root.join("clip.png"), sample("mp4", 100)).unwrap();
    resolve(&s, MediaKind::Image, &s.root.join("edge.png"))
        .await
        .unwrap();
    let e = resolve(&s, MediaKind::Image, &s.root.join("big.png"))
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::MediaTooLarge);
    // Named .png, but an MP4 by its bytes.
    let e = resolve(&s, MediaKind::Image, &s.root.join("clip.png"))
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::MediaTypeMismatch);
    let m = resolve(&s, MediaKind::Video, &s.root.join("clip.png"))
        .await
        .unwrap();
    assert_eq!(m.mime, "video/mp4");
}

#[tokio::test]
async fn base64_of_a_file_matches_a_whole_encoding() {
    let s = setup(true);
    for len in [1, 2, 3, 767 * 1024 + 1, 3 * 256 * 1024, 3 * 256 * 1024 + 2] {
        let bytes = sample("mp4", len.max(40));
        let path = s.root.join(format!("v{len}.mp4"));
        std::fs::write(&path, &bytes).unwrap();
        let m = resolve(&s, MediaKind::Video, &path).await.unwrap();
        let uri = base64_uri(&m).await.unwrap();
        assert_eq!(uri, format!("base64://{}", STANDARD.encode(&bytes)));
        assert_eq!(uri.capacity(), uri.len(), "exactly sized, no regrowth");
    }
}
