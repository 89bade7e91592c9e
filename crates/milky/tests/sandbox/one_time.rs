//! Media by one-time `http://` URLs on the account's media listener
//! (`milky_media = "http"`), and by `base64://` (`milky_media = "base64"`).

use super::*;
use onebot_gateway_config::MilkyMedia;
use onebot_gateway_milky::media::{MediaServer, MediaUris};
use onebot_sandbox::{MediaSource, ReceivedMedia};
use sha2::Digest as _;

fn sha256(bytes: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(bytes))
}

/// A payload behind an open file, as staged uploads are.
fn file_payload(kind: MediaKind, mime: &str, bytes: &[u8]) -> MediaPayload {
    let mut tmp = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut tmp, bytes).unwrap();
    MediaPayload::file(kind, mime.into(), "x".into(), bytes.len() as u64, tmp, None)
}

/// A sample PNG of `len` bytes, inline.
fn png_payload(len: usize) -> (Vec<u8>, MediaPayload) {
    let png = onebot_sandbox::sample_media(onebot_sandbox::MediaKind::Image, len);
    let image = MediaPayload::inline(
        MediaKind::Image,
        "image/png".into(),
        "a.png".into(),
        Bytes::from(png.clone()),
    );
    (png, image)
}

/// Sends `image` alone to the sandbox group.
async fn send_image(rig: &Rig, image: &MediaPayload) {
    rig.client
        .send_message(
            ChatRef::Group(SANDBOX_GROUP),
            &[OutSegment::Image(image)],
            deadline(),
        )
        .await
        .unwrap();
}

/// The URL `received` was fetched from, checked to be one of `server`'s,
/// and that its bytes are `bytes`.
fn fetched_url(received: &ReceivedMedia, server: &MediaServer, bytes: &[u8]) -> String {
    let MediaSource::Url(url) = &received.source else {
        panic!("not sent by URL: {received:?}")
    };
    assert!(
        url.starts_with(&format!("{}/media/", server.base())),
        "{url}"
    );
    assert_eq!(received.sha256.as_deref(), Some(sha256(bytes).as_str()));
    assert_eq!(received.len, Some(bytes.len() as u64));
    url.clone()
}

async fn status_of(url: &str) -> u16 {
    reqwest::get(url).await.expect("GET").status().as_u16()
}

#[tokio::test]
async fn http_mode_sends_images_videos_and_files_by_one_time_urls() {
    let rig = rig_config("one-time-urls", MilkyEvents::WebSocket, 1 << 20, |c| {
        c.milky_media = Some(MilkyMedia::Http);
    })
    .await;
    let control = rig.sandbox.control();
    let server = rig.client.media_server().expect("a media listener").clone();
    assert!(server.local_addr().ip().is_loopback());
    let (png, image) = png_payload(300);
    // Several blocks of the listener's reads.
    let mp4: Vec<u8> = (0..700_001u32).map(|i| (i % 253) as u8).collect();
    let video = file_payload(MediaKind::Video, "video/mp4", &mp4);
    rig.client
        .send_message(
            ChatRef::Group(SANDBOX_GROUP),
            &[
                OutSegment::Text("看"),
                OutSegment::Image(&image),
                OutSegment::Video(&video),
            ],
            deadline(),
        )
        .await
        .unwrap();
    assert_eq!(server.pending(), 0, "the call's URLs are gone");
    let got = control.received_media();
    let [.., img, vid] = got.as_slice() else {
        panic!("{got:?}")
    };
    let image_url = fetched_url(img, &server, &png);
    let video_url = fetched_url(vid, &server, &mp4);
    assert_ne!(image_url, video_url);
    // One-time: a second GET finds nothing.
    assert_eq!(status_of(&image_url).await, 404);
    assert_eq!(status_of(&video_url).await, 404);

    // Files, group and private.
    let pdf = b"%PDF-1.4 minutes".repeat(40_000);
    let file = file_payload(MediaKind::File, "application/pdf", &pdf);
    rig.client
        .upload_file(ChatRef::Group(SANDBOX_GROUP), &file, "会议.pdf", deadline())
        .await
        .unwrap();
    rig.client
        .upload_file(ChatRef::Private(10001), &file, "m.pdf", deadline())
        .await
        .unwrap();
    let got = control.received_media();
    let [.., group_file, private_file] = got.as_slice() else {
        panic!("{got:?}")
    };
    let url = fetched_url(group_file, &server, &pdf);
    assert_eq!(group_file.name.as_deref(), Some("会议.pdf"));
    fetched_url(private_file, &server, &pdf);
    assert_eq!(status_of(&url).await, 404);
    assert_eq!(server.pending(), 0);

    // A call that fails before the peer fetches: its URL is gone all the same.
    let e = rig
        .client
        .upload_file(ChatRef::Group(20009999), &file, "x.pdf", deadline())
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::OnebotActionFailed, "{e:?}");
    assert_eq!(server.pending(), 0);
    let lines = recorded("one-time-urls");
    let unfetched = lines
        .iter()
        .rev()
        .find(|l| l["api"] == "upload_group_file")
        .and_then(|l| l["request"]["file_uri"].as_str())
        .expect("the failed upload was recorded")
        .to_string();
    assert!(
        unfetched.starts_with(&server.base().to_string()),
        "{unfetched}"
    );
    assert_eq!(status_of(&unfetched).await, 404);
}

#[tokio::test]
async fn base64_mode_still_sends_base64() {
    let rig = rig_config("base64-media", MilkyEvents::WebSocket, 1 << 20, |c| {
        c.milky_media = Some(MilkyMedia::Base64);
    })
    .await;
    assert!(rig.client.media_server().is_none());
    let control = rig.sandbox.control();
    let (png, image) = png_payload(300);
    send_image(&rig, &image).await;
    let file = file_payload(MediaKind::File, "text/plain", b"hello");
    rig.client
        .upload_file(ChatRef::Group(SANDBOX_GROUP), &file, "a.txt", deadline())
        .await
        .unwrap();
    let got = control.received_media();
    let [.., img, txt] = got.as_slice() else {
        panic!("{got:?}")
    };
    assert_eq!(img.source, MediaSource::Base64);
    assert_eq!(img.sha256.as_deref(), Some(sha256(&png).as_str()));
    assert_eq!(txt.source, MediaSource::Base64);
    assert_eq!(txt.sha256.as_deref(), Some(sha256(b"hello").as_str()));
}

#[tokio::test]
async fn a_url_answers_once_with_its_type_and_length_and_dies_with_its_request() {
    let stop = CancellationToken::new();
    let server = MediaServer::start("127.0.0.1:0".parse().unwrap(), None, stop.clone()).unwrap();
    assert_eq!(
        server.base(),
        format!("http://{}", server.local_addr()).as_str()
    );
    let bytes: Vec<u8> = (0..600_000u32).map(|i| (i % 7) as u8).collect();
    let video = file_payload(MediaKind::Video, "video/mp4", &bytes);
    let MediaUris::Http(mut lease) = server.uris() else {
        panic!("a server hands out URLs")
    };
    let url = lease.url(&video);
    let unfetched = lease.url(&video);
    let http = reqwest::Client::new();
    // HEAD takes nothing.
    let head = http.head(&url).send().await.unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(head.headers()["content-type"], "video/mp4");
    assert_eq!(head.headers()["content-length"], "600000");
    // Only GET and HEAD.
    assert_eq!(http.post(&url).send().await.unwrap().status(), 405);
    let get = http.get(&url).send().await.unwrap();
    assert_eq!(get.status(), 200);
    assert_eq!(get.headers()["content-type"], "video/mp4");
    assert_eq!(get.content_length(), Some(600_000));
    assert_eq!(get.bytes().await.unwrap().as_ref(), bytes.as_slice());
    assert_eq!(http.get(&url).send().await.unwrap().status(), 404);
    assert_eq!(http.head(&url).send().await.unwrap().status(), 404);
    // Unknown paths.
    let base = server.base();
    for path in ["/", "/media/", "/media/0123", "/other/x"] {
        let status = http
            .get(format!("{base}{path}"))
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, 404, "{path}");
    }
    assert_eq!(server.pending(), 1);
    drop(lease);
    assert_eq!(server.pending(), 0);
    assert_eq!(http.get(&unfetched).send().await.unwrap().status(), 404);
    // Stopped with its shutdown token: the port is closed.
    stop.cancel();
    let addr = server.local_addr();
    tokio::time::timeout(WAIT, async {
        while tokio::net::TcpStream::connect(addr).await.is_ok() {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the listener closes");
}

#[tokio::test]
async fn a_listener_that_cannot_bind_falls_back_to_base64() {
    // The port is taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let rig = rig_config("media-bind-fails", MilkyEvents::WebSocket, 1 << 20, |c| {
        c.milky_media = Some(MilkyMedia::Http);
        c.milky_media_listen = Some(taken.local_addr().unwrap().to_string());
    })
    .await;
    assert!(rig.client.media_server().is_none());
    let (_, image) = png_payload(100);
    send_image(&rig, &image).await;
    let got = rig.sandbox.control().received_media();
    assert_eq!(got.last().map(|m| &m.source), Some(&MediaSource::Base64));
}
