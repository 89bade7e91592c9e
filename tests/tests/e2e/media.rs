//! Received media through MediaService.DownloadMedia against the sandbox's
//! media host: capture on receipt outliving the URL (and the peer), each
//! way of getting bytes (the segment's URL, `get_image`, a stream
//! download), the errors, quota eviction, a client cancelling mid-stream,
//! forwarding a received picture, and the agent tools' image content.

use onebot_gateway_client::pb;
use onebot_gateway_config::Config;
use onebot_gateway_tests::{TestGateway, config_for, reason, sandbox};
use onebot_sandbox::{
    EXAMPLE_GROUP, Flavor, MediaKind, SANDBOX_GROUP, Sandbox, SandboxConfig, sample_media,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tonic::Streaming;

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The gateway's config for `sb`: `SANDBOX_GROUP` whitelisted (captured),
/// the sandbox's loopback media host reachable.
fn media_config(sb: &Sandbox) -> Config {
    let mut config = config_for(sb, &[SANDBOX_GROUP]);
    config.media.allow_private_urls = true;
    config
}

async fn start(config: Config) -> TestGateway {
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    gw
}

async fn events(gw: &TestGateway) -> Streaming<pb::StreamEventsResponse> {
    gw.events()
        .stream_events(pb::StreamEventsRequest {
            account_id: String::new(),
            chats: Vec::new(),
            kinds: vec![pb::EventKind::Message as i32],
            after_sequence: None,
        })
        .await
        .expect("stream events")
        .into_inner()
}

async fn next_message(stream: &mut Streaming<pb::StreamEventsResponse>) -> pb::ChatMessage {
    // Skips heartbeats.
    let event = crate::events::next_event(stream).await;
    match event.kind {
        Some(pb::event::Kind::Message(m)) => m.message.expect("message"),
        other => panic!("not a message: {other:?}"),
    }
}

fn media_id(seg: &pb::Segment) -> String {
    use pb::segment::Kind;
    match &seg.kind {
        Some(Kind::Image(s)) => s.media_id.clone(),
        Some(Kind::Record(s)) => s.media_id.clone(),
        Some(Kind::Video(s)) => s.media_id.clone(),
        Some(Kind::File(s)) => s.media_id.clone(),
        other => panic!("not media: {other:?}"),
    }
}

fn by_id(id: &str) -> pb::DownloadMediaRequest {
    pb::DownloadMediaRequest {
        account_id: String::new(),
        target: Some(pb::download_media_request::Target::MediaId(id.to_owned())),
    }
}

fn by_ref(message_id: i64, segment_index: i32) -> pb::DownloadMediaRequest {
    pb::DownloadMediaRequest {
        account_id: String::new(),
        target: Some(pb::download_media_request::Target::Message(
            pb::MessageMediaRef {
                message_id,
                segment_index,
            },
        )),
    }
}

/// Downloads whole: the header and the bytes (checked against it).
async fn download(
    gw: &TestGateway,
    req: pb::DownloadMediaRequest,
) -> Result<(pb::DownloadMediaHeader, Vec<u8>), tonic::Status> {
    use pb::download_media_response::Payload;
    let mut stream = gw.media().download_media(req).await?.into_inner();
    let header = match stream.message().await?.and_then(|m| m.payload) {
        Some(Payload::Header(h)) => h,
        other => panic!("no header first: {other:?}"),
    };
    let mut bytes = Vec::new();
    while let Some(m) = stream.message().await? {
        match m.payload {
            Some(Payload::Chunk(c)) => {
                assert!(c.len() <= 256 * 1024, "chunk of {} bytes", c.len());
                bytes.extend_from_slice(&c);
            }
            other => panic!("not a chunk: {other:?}"),
        }
    }
    assert_eq!(bytes.len() as i64, header.size);
    assert_eq!(sha(&bytes), header.sha256);
    Ok((header, bytes))
}

fn actions(sb: &Sandbox) -> Vec<String> {
    sb.control()
        .actions()
        .into_iter()
        .map(|a| a.action)
        .collect()
}

#[tokio::test]
async fn a_captured_image_outlives_its_url_and_the_peer() {
    let sb = sandbox(Flavor::NapCat).await;
    let gw = start(media_config(&sb)).await;
    let control = sb.control();
    let png = sample_media(MediaKind::Image, 40_000);
    let voice = sample_media(MediaKind::Record, 3_000);
    let image = control.store_media(MediaKind::Image, png.clone(), "cat.png");
    let record = control.store_media(MediaKind::Record, voice.clone(), "voice.amr");
    let file = control.store_media(MediaKind::File, b"%PDF-1.4 minutes".to_vec(), "纪要.pdf");
    let mut stream = events(&gw).await;
    control.clear_actions();
    let id = control.inject_group_message(
        SANDBOX_GROUP,
        10001,
        json!([{"type": "text", "data": {"text": "看图"}}, image, record, file]),
    );
    let msg = next_message(&mut stream).await;
    assert_eq!(msg.message_id, id);
    assert_eq!(msg.text, "看图[图片][语音][文件]");
    // The live event carries the ids before any byte is in.
    let ids: Vec<String> = msg.segments[1..].iter().map(media_id).collect();
    assert!(ids.iter().all(|i| i.starts_with("r_")), "{ids:?}");
    assert_ne!(ids[0], ids[1]);

    // The download waits for the capture (or finds it done).
    let (header, bytes) = download(&gw, by_id(&ids[0])).await.expect("image");
    assert_eq!(bytes, png);
    assert_eq!(header.kind, pb::MediaKind::Image as i32);
    assert_eq!(header.mime_type, "image/png");
    assert_eq!(header.media_id, ids[0]);
    // Voice comes converted (NapCat get_record, mp3).
    let (header, voice_mp3) = download(&gw, by_id(&ids[1])).await.expect("record");
    assert_eq!(header.kind, pb::MediaKind::Record as i32);
    assert_eq!(header.mime_type, "audio/mpeg");
    assert!(header.file_name.ends_with(".mp3"), "{}", header.file_name);
    assert!(voice_mp3.ends_with(&voice));
    // Captured from the event itself: the message was never read again.
    let seen = actions(&sb);
    assert!(seen.iter().all(|a| a != "get_msg"), "{seen:?}");
    assert!(seen.iter().any(|a| a == "get_record"), "{seen:?}");

    // The URL expires, then the peer goes away: the capture remains.
    control.expire_media_urls();
    sb.stop_listening().await;
    let (again, bytes) = download(&gw, by_id(&ids[0])).await.expect("kept");
    assert_eq!(again.sha256, sha(&png));
    assert_eq!(bytes, png);
    // By message and index too.
    let (by_message, _) = download(&gw, by_ref(id, 1)).await.expect("kept by ref");
    assert_eq!(by_message.media_id, ids[0]);
    gw.stop().await.expect("clean stop");
}

#[tokio::test]
async fn each_way_of_getting_the_bytes() {
    let sb = Sandbox::start(SandboxConfig {
        local_file_to_url: true,
        ..SandboxConfig::for_flavor(Flavor::NapCat)
    })
    .await
    .expect("sandbox");
    // EXAMPLE_GROUP is not whitelisted: nothing is captured, every download
    // fetches now.
    let gw = start(media_config(&sb)).await;
    let control = sb.control();
    let png = sample_media(MediaKind::Image, 30_000);
    let image = control.store_media(MediaKind::Image, png.clone(), "a.png");
    let doc = sample_media(MediaKind::File, 700_000);
    let file = control.store_media(MediaKind::File, doc.clone(), "big.pdf");
    let id = control.inject_group_message(EXAMPLE_GROUP, 10002, json!([image, file]));

    // 1. The segment's own URL: no peer action needed.
    control.clear_actions();
    let (_, bytes) = download(&gw, by_ref(id, 0)).await.expect("by URL");
    assert_eq!(bytes, png);
    let seen = actions(&sb);
    assert!(seen.iter().all(|a| a != "get_image"), "{seen:?}");

    // 2. The CDN is down: get_image answers the bytes themselves (NapCat
    //    with enableLocalFile2Url, below).
    let png2 = sample_media(MediaKind::Image, 31_000);
    let image2 = control.store_media(MediaKind::Image, png2.clone(), "b.png");
    let id2 = control.inject_group_message(EXAMPLE_GROUP, 10002, json!([image2]));
    control.set_media_host_down(true);
    control.clear_actions();
    let (_, bytes) = download(&gw, by_ref(id2, 0)).await.expect("by get_image");
    assert_eq!(bytes, png2);
    assert!(actions(&sb).iter().any(|a| a == "get_image"));
    control.set_media_host_down(false);

    // 3. A NapCat file has no URL: the stream download (in several chunks).
    control.clear_actions();
    let (header, bytes) = download(&gw, by_ref(id, 1)).await.expect("by stream");
    assert_eq!(bytes, doc);
    assert_eq!(header.kind, pb::MediaKind::File as i32);
    assert_eq!(header.file_name, "big.pdf");
    assert_eq!(header.mime_type, "application/pdf");
    assert!(actions(&sb).iter().any(|a| a == "download_file_stream"));

    // The same bytes are stored once, and a second download is served kept.
    control.clear_actions();
    let (again, _) = download(&gw, by_ref(id, 1)).await.expect("kept");
    assert_eq!(again.sha256, sha(&doc));
    assert!(actions(&sb).is_empty(), "{:?}", actions(&sb));
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

#[tokio::test]
async fn unknown_ids_text_segments_and_missing_segments() {
    let sb = sandbox(Flavor::SnowLuma).await;
    let gw = start(media_config(&sb)).await;
    let control = sb.control();
    for id in [
        "r_0123456789abcdef_1_0",
        "m00000000000000000000000000000000",
    ] {
        let e = download(&gw, by_id(id)).await.unwrap_err();
        assert_eq!(e.code(), tonic::Code::NotFound, "{id}: {e:?}");
        assert_eq!(reason(&e), "MEDIA_NOT_FOUND");
    }
    let id = control.inject_group_message(EXAMPLE_GROUP, 10001, json!("只有文字"));
    let e = download(&gw, by_ref(id, 0)).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("text segment"), "{}", e.message());
    let e = download(&gw, by_ref(id, 5)).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound, "{e:?}");
    let e = download(&gw, by_ref(id, -1)).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
    let e = download(
        &gw,
        pb::DownloadMediaRequest {
            account_id: String::new(),
            target: None,
        },
    )
    .await
    .unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    // A message the peer never had.
    let e = download(&gw, by_ref(987_654_321, 0)).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound, "{e:?}");
    assert_eq!(reason(&e), "MEDIA_NOT_FOUND");
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

#[tokio::test]
async fn what_no_step_can_fetch_fails_with_the_peer_s_text() {
    // Lagrange has no media actions: with its CDN down nothing works.
    let sb = sandbox(Flavor::Lagrange).await;
    let gw = start(media_config(&sb)).await;
    let control = sb.control();
    let image = control.store_media(
        MediaKind::Image,
        sample_media(MediaKind::Image, 5000),
        "x.png",
    );
    let id = control.inject_group_message(EXAMPLE_GROUP, 10001, json!([image]));
    control.set_media_host_down(true);
    let e = download(&gw, by_ref(id, 0)).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::FailedPrecondition, "{e:?}");
    assert_eq!(reason(&e), "MEDIA_TRANSFER_FAILED");
    assert!(
        e.message().contains("media service unavailable"),
        "{}",
        e.message()
    );
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

#[tokio::test]
async fn the_quota_evicts_the_oldest_capture() {
    let sb = sandbox(Flavor::NapCat).await;
    let mut config = media_config(&sb);
    config.media.capture.quota_bytes = 100_000;
    config.media.capture.max_bytes = 40_000;
    let gw = start(config).await;
    let control = sb.control();
    let mut stream = events(&gw).await;
    let mut ids = Vec::new();
    for n in 0..3 {
        let png = sample_media(MediaKind::Image, 35_000 + n);
        let seg = control.store_media(MediaKind::Image, png, &format!("{n}.png"));
        control.inject_group_message(SANDBOX_GROUP, 10001, json!([seg]));
        let msg = next_message(&mut stream).await;
        let id = media_id(&msg.segments[0]);
        // Waits for the capture.
        download(&gw, by_id(&id)).await.expect("captured");
        ids.push((msg.message_id, id));
    }
    // 3 × 35 kB > 100 kB: the first went.
    let e = download(&gw, by_id(&ids[0].1)).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound, "{e:?}");
    assert_eq!(reason(&e), "MEDIA_NOT_FOUND");
    assert!(e.message().contains("evicted"), "{}", e.message());
    download(&gw, by_id(&ids[2].1))
        .await
        .expect("the newest is kept");
    // By message and index it is fetched from the peer again.
    download(&gw, by_ref(ids[0].0, 0))
        .await
        .expect("fetched again");
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

#[tokio::test]
async fn a_client_that_cancels_mid_download_leaves_nothing_behind() {
    use pb::download_media_response::Payload;
    let sb = sandbox(Flavor::NapCat).await;
    let gw = start(media_config(&sb)).await;
    let control = sb.control();
    let doc = sample_media(MediaKind::File, 3 * 1024 * 1024);
    let file = control.store_media(MediaKind::File, doc.clone(), "big.bin");
    let id = control.inject_group_message(EXAMPLE_GROUP, 10002, json!([file]));
    {
        let mut stream = gw
            .media()
            .download_media(by_ref(id, 0))
            .await
            .unwrap()
            .into_inner();
        let first = stream.message().await.unwrap().unwrap();
        assert!(matches!(first.payload, Some(Payload::Header(_))));
        let chunk = stream.message().await.unwrap().unwrap();
        assert!(matches!(chunk.payload, Some(Payload::Chunk(_))));
        // Dropped here: the client cancels.
    }
    // The gateway still serves the same item whole, and kept only blobs.
    let (_, bytes) = download(&gw, by_ref(id, 0)).await.expect("after a cancel");
    assert_eq!(bytes, doc);
    let dir = gw.data_dir.join("received");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| n.len() == 64 && !n.starts_with('.')),
        "{names:?}"
    );
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

#[tokio::test]
async fn a_received_picture_can_be_forwarded() {
    let sb = sandbox(Flavor::NapCat).await;
    let gw = start(media_config(&sb)).await;
    let control = sb.control();
    let png = sample_media(MediaKind::Image, 20_000);
    let image = control.store_media(MediaKind::Image, png.clone(), "fwd.png");
    let mut stream = events(&gw).await;
    control.inject_group_message(SANDBOX_GROUP, 10003, json!([image]));
    let id = media_id(&next_message(&mut stream).await.segments[0]);
    download(&gw, by_id(&id)).await.expect("captured");
    control.clear_media();
    gw.messages()
        .send_message(pb::SendMessageRequest {
            group_id: Some(SANDBOX_GROUP),
            images: vec![pb::MediaSource {
                source: Some(pb::media_source::Source::MediaId(id)),
            }],
            ..pb::SendMessageRequest::default()
        })
        .await
        .expect("forwarded");
    let got = control.received_media();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].sha256.as_deref(), Some(sha(&png).as_str()));
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

/// A whitelisted private chat's media are captured like a group's, and
/// GetMessage and a later quote of the message carry the ids the event did.
#[tokio::test]
async fn private_chats_get_message_and_quotes_carry_media_ids() {
    const FRIEND: i64 = 10_001;
    let sb = sandbox(Flavor::NapCat).await;
    let mut config = media_config(&sb);
    config.accounts.get_mut("default").expect("default").users = vec![FRIEND];
    let gw = start(config).await;
    let control = sb.control();
    let png = sample_media(MediaKind::Image, 24_000);
    let image = control.store_media(MediaKind::Image, png.clone(), "dm.png");
    let mut stream = events(&gw).await;
    control.clear_actions();
    let id = control.inject_private_message(FRIEND, json!([image]));
    let msg = next_message(&mut stream).await;
    assert_eq!(msg.message_id, id);
    let media = media_id(&msg.segments[0]);
    assert!(media.starts_with("r_"), "{media}");
    let (header, bytes) = download(&gw, by_id(&media)).await.expect("private image");
    assert_eq!(bytes, png);
    assert_eq!(header.media_id, media);
    // Captured from the event: the message was never read again.
    let seen = actions(&sb);
    assert!(seen.iter().all(|a| a != "get_msg"), "{seen:?}");

    let got = gw
        .messages()
        .get_message(pb::GetMessageRequest {
            account_id: String::new(),
            message_id: id,
        })
        .await
        .expect("get message")
        .into_inner();
    assert_eq!(media_id(&got.message.expect("message").segments[0]), media);

    control.inject_private_message(
        FRIEND,
        json!([{"type": "reply", "data": {"id": id.to_string()}},
               {"type": "text", "data": {"text": "这张"}}]),
    );
    let reply = next_message(&mut stream).await;
    let quoted = reply
        .segments
        .iter()
        .find_map(|s| match &s.kind {
            Some(pb::segment::Kind::Reply(r)) => r.quoted.clone(),
            _ => None,
        })
        .expect("the quote resolved");
    assert_eq!(quoted.message_id, id);
    assert_eq!(media_id(&quoted.segments[0]), media);
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

async fn call_tool(gw: &TestGateway, name: &str, args: Value) -> pb::CallToolResponse {
    gw.tools()
        .call_tool(pb::CallToolRequest {
            name: name.into(),
            arguments_json: args.to_string(),
        })
        .await
        .expect("call tool")
        .into_inner()
}

#[tokio::test]
async fn the_tools_return_image_content() {
    use pb::tool_content::Kind;
    let sb = sandbox(Flavor::NapCat).await;
    let gw = start(media_config(&sb)).await;
    let control = sb.control();
    let png = sample_media(MediaKind::Image, 12_345);
    let image = control.store_media(MediaKind::Image, png.clone(), "t.png");
    let id = control.inject_group_message(
        EXAMPLE_GROUP,
        10001,
        json!([{"type": "text", "data": {"text": "图来了"}}, image]),
    );

    let r = call_tool(
        &gw,
        "qq_get_media",
        json!({"messageId": id, "segmentIndex": 1}),
    )
    .await;
    assert!(!r.is_error, "{}", r.text);
    assert!(r.text.starts_with("[图片] 媒体 r_"), "{}", r.text);
    assert_eq!(r.content.len(), 2);
    assert!(matches!(&r.content[0].kind, Some(Kind::Text(t)) if *t == r.text));
    match &r.content[1].kind {
        Some(Kind::Image(img)) => {
            assert_eq!(img.mime_type, "image/png");
            assert_eq!(img.data, png);
        }
        other => panic!("{other:?}"),
    }
    let details: Value = serde_json::from_str(&r.details_json).unwrap();
    assert_eq!(details["sha256"], sha(&png));

    // A text segment: an error result, never a throw.
    let r = call_tool(
        &gw,
        "qq_get_media",
        json!({"messageId": id, "segmentIndex": 0}),
    )
    .await;
    assert!(r.is_error);
    assert_eq!(r.content.len(), 1);

    let r = call_tool(
        &gw,
        "qq_get_history",
        json!({"target": format!("group:{EXAMPLE_GROUP}"), "count": 5, "includeImages": true}),
    )
    .await;
    assert!(!r.is_error, "{}", r.text);
    let last = r.text.lines().last().unwrap();
    assert!(last.ends_with("图来了[图片#1]"), "{}", r.text);
    let images: Vec<&pb::ToolImage> = r
        .content
        .iter()
        .filter_map(|c| match &c.kind {
            Some(Kind::Image(i)) => Some(i),
            _ => None,
        })
        .collect();
    // The new image and the seed's morning picture, newest first.
    assert_eq!(images.len(), 2, "{}", r.text);
    assert_eq!(images[0].data, png);
    assert!(r.text.contains("早上好[图片#2]"), "{}", r.text);
    let plain = call_tool(
        &gw,
        "qq_get_history",
        json!({"target": format!("group:{EXAMPLE_GROUP}"), "count": 5}),
    )
    .await;
    assert_eq!(plain.content.len(), 1);
    assert!(plain.text.contains("早上好[图片]"));
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

#[tokio::test]
async fn other_flavors_take_their_own_paths() {
    // SnowLuma, its CDN down: get_image and the re-signed URL point at the
    // same host, the image stream download brings the bytes over the link.
    let sb = sandbox(Flavor::SnowLuma).await;
    let gw = start(media_config(&sb)).await;
    let control = sb.control();
    let png = sample_media(MediaKind::Image, 9_000);
    let image = control.store_media(MediaKind::Image, png.clone(), "s.png");
    let voice = sample_media(MediaKind::Record, 800);
    let record = control.store_media(MediaKind::Record, voice.clone(), "s.amr");
    let id = control.inject_group_message(EXAMPLE_GROUP, 10001, json!([image, record]));
    control.set_media_host_down(true);
    control.clear_actions();
    let (_, bytes) = download(&gw, by_ref(id, 0)).await.expect("by stream");
    assert_eq!(bytes, png);
    let seen = actions(&sb);
    for step in ["get_image", "get_rkey", "download_file_image_stream"] {
        assert!(seen.iter().any(|a| a == step), "{step}: {seen:?}");
    }
    // Voice: get_record with out_format answers converted base64.
    let (header, mp3) = download(&gw, by_ref(id, 1)).await.expect("voice");
    assert_eq!(header.mime_type, "audio/mpeg");
    assert!(mp3.ends_with(&voice));
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;

    // go-cqhttp: the segment URL, else get_image's URL; it has no get_record.
    let sb = sandbox(Flavor::GoCqhttp).await;
    let gw = start(media_config(&sb)).await;
    let control = sb.control();
    let png = sample_media(MediaKind::Image, 7_000);
    let image = control.store_media(MediaKind::Image, png.clone(), "g.png");
    let id = control.inject_group_message(EXAMPLE_GROUP, 10001, json!([image]));
    let (header, bytes) = download(&gw, by_ref(id, 0)).await.expect("go-cqhttp image");
    assert_eq!(bytes, png);
    assert_eq!(header.mime_type, "image/png");
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

#[tokio::test]
async fn a_stream_download_over_http() {
    // NapCat over HTTP only: the stream's frames come in one response.
    let sb = sandbox(Flavor::NapCat).await;
    let mut config = media_config(&sb);
    if let Some(account) = config.accounts.get_mut("default") {
        account.ws_url = None;
        account.http_url = Some(sb.http_url());
    }
    let gw = start(config).await;
    let control = sb.control();
    let doc = sample_media(MediaKind::File, 600_000);
    let file = control.store_media(MediaKind::File, doc.clone(), "http.pdf");
    let id = control.inject_group_message(EXAMPLE_GROUP, 10002, json!([file]));
    control.clear_actions();
    let (header, bytes) = download(&gw, by_ref(id, 0))
        .await
        .expect("by stream over HTTP");
    assert_eq!(bytes, doc);
    assert_eq!(header.file_name, "http.pdf");
    let streamed = sb
        .control()
        .actions()
        .into_iter()
        .find(|a| a.action == "download_file_stream")
        .expect("a stream download");
    assert_eq!(streamed.transport, onebot_sandbox::Transport::Http);
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}

/// `request` routed for `account` by its metadata, the body naming none.
fn routed<T>(account: &str, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("x-onebot-account", account.parse().expect("ascii"));
    request
}

/// Media ids minted by GetHistory and GetMessage belong to the account the
/// call context resolved: a read routed for account `second` by
/// `x-onebot-account`, with an empty body `account_id`, returns ids that
/// DownloadMedia routed the same way serves.
#[tokio::test]
async fn media_ids_of_a_routed_read_belong_to_the_routed_account() {
    let sb = sandbox(Flavor::NapCat).await;
    let mut config = media_config(&sb);
    let account = config.accounts.remove("default").expect("default account");
    config.accounts.insert("second".into(), account);
    let gw = TestGateway::start(config).await;
    gw.wait_state("second", pb::ConnectionState::Connected)
        .await;
    let control = sb.control();
    let png = sample_media(MediaKind::Image, 20_000);
    let image = control.store_media(MediaKind::Image, png.clone(), "routed.png");
    let message_id = control.inject_group_message(SANDBOX_GROUP, 10003, json!([image]));

    let history = gw
        .messages()
        .get_history(routed(
            "second",
            pb::GetHistoryRequest {
                chat: Some(pb::Chat::group(SANDBOX_GROUP)),
                count: 5,
                ..Default::default()
            },
        ))
        .await
        .expect("history of the routed account")
        .into_inner();
    let from_history = history
        .messages
        .iter()
        .find(|m| m.message_id == message_id)
        .map(|m| media_id(&m.segments[0]))
        .expect("the injected message in the history");
    let from_get = gw
        .messages()
        .get_message(routed(
            "second",
            pb::GetMessageRequest {
                account_id: String::new(),
                message_id,
            },
        ))
        .await
        .expect("the message of the routed account")
        .into_inner()
        .message
        .map(|m| media_id(&m.segments[0]))
        .expect("a message");
    for id in [from_history, from_get] {
        let mut stream = gw
            .media()
            .download_media(routed("second", by_id(&id)))
            .await
            .unwrap_or_else(|e| panic!("{id} downloads on the routed account: {e:?}"))
            .into_inner();
        let mut bytes = Vec::new();
        while let Some(m) = stream.message().await.expect("the download goes on") {
            if let Some(pb::download_media_response::Payload::Chunk(c)) = m.payload {
                bytes.extend_from_slice(&c);
            }
        }
        assert_eq!(sha(&bytes), sha(&png), "{id} serves the picture");
    }
}
