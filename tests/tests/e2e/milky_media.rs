//! Media by one-time `http://` URLs on a Milky account in `auto` mode (the
//! sandbox listens on loopback, so `auto` picks `http`): a staged 1.5 MiB
//! video goes through UploadMedia and SendMessage, the implementation
//! fetches it from the account's media listener, and the URL serves once.

use onebot_gateway_client::pb;
use onebot_gateway_config::MilkyEvents;
use onebot_sandbox::{EXAMPLE_GROUP, MediaKind, MediaSource, sample_media};
use sha2::{Digest, Sha256};

use crate::milky::{MilkyPeer, milky_config, start};

#[tokio::test]
async fn a_staged_video_goes_by_a_one_time_url_in_auto_mode() {
    use pb::upload_media_request::Payload;
    let peer = MilkyPeer::start().await;
    let config = milky_config(&peer.sb, &[EXAMPLE_GROUP], MilkyEvents::WebSocket);
    let account = &config.accounts["default"];
    assert!(account.milky_media.is_none() && account.milky_media_by_http());
    let gw = start(config).await;

    let video = sample_media(MediaKind::Video, 1_536 * 1024 + 7);
    let mut stream = vec![pb::UploadMediaRequest {
        payload: Some(Payload::Header(pb::UploadMediaHeader {
            account_id: String::new(),
            kind: pb::MediaKind::Video as i32,
            file_name: "clip.mp4".into(),
            size: Some(video.len() as i64),
            sha256: None,
        })),
    }];
    stream.extend(video.chunks(256 * 1024).map(|c| pb::UploadMediaRequest {
        payload: Some(Payload::Chunk(c.to_vec())),
    }));
    let staged = gw
        .media()
        .upload_media(tokio_stream::iter(stream))
        .await
        .expect("UploadMedia")
        .into_inner();
    let sent = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            text: "录像".into(),
            videos: vec![pb::MediaSource {
                source: Some(pb::media_source::Source::MediaId(staged.media_id)),
            }],
            ..pb::SendMessageRequest::default()
        })
        .await
        .expect("SendMessage with a video")
        .into_inner();
    assert!(!sent.message_ids.is_empty());
    assert_eq!(sent.media.map(|m| m.videos), Some(1));

    // The request named the video by URL, and the sandbox fetched the bytes.
    let sends = peer.calls("send_group_message");
    let uri = sends
        .iter()
        .flat_map(|r| r["message"].as_array().cloned().unwrap_or_default())
        .find(|s| s["type"] == "video")
        .and_then(|s| s["data"]["uri"].as_str().map(str::to_string))
        .expect("a video segment was sent");
    assert!(
        uri.starts_with("http://127.0.0.1:") && uri.contains("/media/"),
        "{uri}"
    );
    let received = peer.sb.control().received_media();
    let got = received
        .iter()
        .find(|m| m.source == MediaSource::Url(uri.clone()))
        .expect("the sandbox fetched the URL");
    assert_eq!(
        got.sha256.as_deref(),
        Some(hex::encode(Sha256::digest(&video)).as_str())
    );
    assert_eq!(got.len, Some(video.len() as u64));
    // One-time: taken by the implementation's fetch.
    let again = reqwest::get(&uri).await.expect("GET the URL again");
    assert_eq!(again.status(), 404);

    gw.stop().await.expect("clean stop");
    peer.finish().await;
}
