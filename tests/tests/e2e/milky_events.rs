//! Events on a Milky account, over real gRPC against the sandbox's Milky
//! face, with the account's event connection over WebSocket and over SSE:
//! messages with their rendered line, pokes, recalls and the bot's own
//! sends; no message lost while the event connection is down (healed as
//! backfilled message events); received media downloaded, also after its
//! URL expired.

use onebot_gateway_client::pb;
use onebot_gateway_config::MilkyEvents;
use onebot_gateway_tests::TestGateway;
use onebot_sandbox::{ChatRef, EXAMPLE_GROUP, MediaKind, SANDBOX_GROUP, sample_media};
use serde_json::json;
use sha2::{Digest, Sha256};
use tonic::Streaming;

use crate::events::next_event;
use crate::milky::{MilkyPeer, gateway_id, milky_config, start};

async fn stream(gw: &TestGateway, kinds: &[pb::EventKind]) -> Streaming<pb::StreamEventsResponse> {
    gw.events()
        .stream_events(pb::StreamEventsRequest {
            kinds: kinds.iter().map(|k| *k as i32).collect(),
            ..pb::StreamEventsRequest::default()
        })
        .await
        .expect("StreamEvents")
        .into_inner()
}

fn text(t: &str) -> serde_json::Value {
    json!([{"type": "text", "data": {"text": t}}])
}

/// The next event of one of the kinds asked for, as a message event.
async fn next_message(events: &mut Streaming<pb::StreamEventsResponse>) -> pb::MessageEvent {
    match next_event(events).await.kind {
        Some(pb::event::Kind::Message(m)) => m,
        other => panic!("not a message: {other:?}"),
    }
}

async fn messages_pokes_recalls_and_own_sends(events_over: MilkyEvents) {
    let peer = MilkyPeer::start().await;
    let gw = start(milky_config(&peer.sb, &[EXAMPLE_GROUP], events_over)).await;
    let control = peer.sb.control();
    let mut events = stream(
        &gw,
        &[
            pb::EventKind::Message,
            pb::EventKind::Poke,
            pb::EventKind::MessageRecalled,
        ],
    )
    .await;
    let chat = ChatRef::Group(EXAMPLE_GROUP);

    let hello = control.inject_group_message(EXAMPLE_GROUP, 10001, text("你好"));
    let hello = gateway_id(&peer.sb, chat, hello);
    let m = next_message(&mut events).await;
    let message = m.message.as_ref().expect("message");
    assert_eq!(message.message_id, hello);
    assert_eq!(message.text, "你好");
    assert!(!m.self_sent && !m.backfilled);
    assert!(m.rendered.ends_with("(10001): 你好"), "{}", m.rendered);
    // The line is GetHistory's.
    let page = gw
        .messages()
        .get_history(crate::milky::history_req(
            pb::Chat::group(EXAMPLE_GROUP),
            1,
            None,
        ))
        .await
        .expect("GetHistory")
        .into_inner();
    assert_eq!(page.rendered, m.rendered);

    peer.inject_event(json!({
        "time": 1_700_000_000,
        "self_id": onebot_sandbox::DEFAULT_SELF_ID,
        "event_type": "group_nudge",
        "data": {
            "group_id": EXAMPLE_GROUP,
            "sender_id": 10002,
            "receiver_id": 10003,
            "display_action": "戳了戳",
            "display_suffix": "",
            "display_action_img_url": "",
        },
    }));
    let event = next_event(&mut events).await;
    let Some(pb::event::Kind::Poke(poke)) = event.kind else {
        panic!("not a poke: {event:?}");
    };
    assert_eq!(
        (poke.group_id, poke.user_id, poke.target_id),
        (EXAMPLE_GROUP, 10002, 10003)
    );
    // Recorded, so the schema check at the end validates it.
    let nudges = peer.events("group_nudge");
    assert_eq!(nudges.len(), 1, "{nudges:?}");
    assert_eq!(nudges[0]["data"]["sender_id"], 10002);

    let sandbox_id = control.inject_group_message(EXAMPLE_GROUP, 10003, text("撤回我"));
    let id = gateway_id(&peer.sb, chat, sandbox_id);
    assert_eq!(
        next_message(&mut events)
            .await
            .message
            .expect("m")
            .message_id,
        id
    );
    assert!(control.recall_message(sandbox_id, 10002));
    let event = next_event(&mut events).await;
    let Some(pb::event::Kind::MessageRecalled(r)) = event.kind else {
        panic!("not a recall: {event:?}");
    };
    assert_eq!((r.message_id, r.operator_id), (id, 10002));
    assert_eq!(r.chat, Some(pb::Chat::group(EXAMPLE_GROUP)));

    let sent = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            text: "机器人说".into(),
            ..pb::SendMessageRequest::default()
        })
        .await
        .expect("SendMessage")
        .into_inner();
    let own = next_message(&mut events).await;
    assert!(own.self_sent, "{own:?}");
    let message = own.message.expect("message");
    assert_eq!(message.message_id, sent.message_ids[0]);
    assert_eq!(message.text, "机器人说");
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}

#[tokio::test]
async fn events_over_websocket() {
    messages_pokes_recalls_and_own_sends(MilkyEvents::WebSocket).await;
}

#[tokio::test]
async fn events_over_sse() {
    messages_pokes_recalls_and_own_sends(MilkyEvents::Sse).await;
}

/// The next message event (`Ok`) or connection state change (`Err`).
async fn next(events: &mut Streaming<pb::StreamEventsResponse>) -> Result<pb::MessageEvent, i32> {
    match next_event(events).await.kind {
        Some(pb::event::Kind::Message(m)) => Ok(m),
        Some(pb::event::Kind::Connection(c)) => Err(c.state),
        other => panic!("not asked for: {other:?}"),
    }
}

async fn a_dropped_event_connection_loses_no_message(events_over: MilkyEvents) {
    let peer = MilkyPeer::start().await;
    let gw = start(milky_config(&peer.sb, &[SANDBOX_GROUP], events_over)).await;
    let control = peer.sb.control();
    let chat = ChatRef::Group(SANDBOX_GROUP);
    let mut events = stream(&gw, &[pb::EventKind::Message, pb::EventKind::Connection]).await;
    let before = control.inject_group_message(SANDBOX_GROUP, 10001, text("断线前的最后一句"));
    let before = gateway_id(&peer.sb, chat, before);
    loop {
        if let Ok(m) = next(&mut events).await {
            assert_eq!(m.message.expect("m").message_id, before);
            break;
        }
    }

    peer.sb.stop_listening().await;
    loop {
        match next(&mut events).await {
            Err(state) if state != pb::ConnectionState::Connected as i32 => break,
            Err(_) => {}
            Ok(m) => panic!("a message while going down: {m:?}"),
        }
    }
    let missed: Vec<i64> = (0..5)
        .map(|i| {
            let id = control.inject_group_message(
                SANDBOX_GROUP,
                10002,
                text(&format!("断线期间的消息{i}")),
            );
            gateway_id(&peer.sb, chat, id)
        })
        .collect();
    peer.sb.start_listening().await.expect("listen again");

    let mut delivered = Vec::new();
    while delivered.len() < missed.len() {
        if let Ok(m) = next(&mut events).await {
            let message = m.message.expect("message");
            assert!(m.backfilled, "{message:?}");
            delivered.push(message.message_id);
        }
    }
    assert_eq!(delivered, missed, "the gap once and in order");
    let after = control.inject_group_message(SANDBOX_GROUP, 10001, text("重连之后"));
    let after = gateway_id(&peer.sb, chat, after);
    loop {
        if let Ok(m) = next(&mut events).await {
            assert!(!m.backfilled);
            assert_eq!(m.message.expect("m").message_id, after, "no repeat");
            break;
        }
    }
    waited_messages_mark_the_backfilled(&gw, &missed, [before, after]).await;
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}

/// `qq_wait_messages` returns the healed messages in order between the
/// live ones, each marked: `backfilled: true` in its details entry and
/// ` （重连后补回）` after its line; the live ones carry neither.
async fn waited_messages_mark_the_backfilled(gw: &TestGateway, missed: &[i64], live: [i64; 2]) {
    let out = gw
        .tools()
        .call_tool(pb::CallToolRequest {
            name: "qq_wait_messages".into(),
            arguments_json: json!({"afterSequence": 0, "target": format!("group:{SANDBOX_GROUP}")})
                .to_string(),
        })
        .await
        .expect("CallTool")
        .into_inner();
    assert!(!out.is_error, "{}", out.text);
    let details: serde_json::Value = serde_json::from_str(&out.details_json).expect("JSON");
    let entries = details["messages"].as_array().expect("messages");
    let ids: Vec<i64> = entries
        .iter()
        .map(|e| e["message"]["messageId"].as_i64().expect("an id"))
        .collect();
    let mut expected = vec![live[0]];
    expected.extend_from_slice(missed);
    expected.push(live[1]);
    assert_eq!(ids, expected);
    let lines: Vec<&str> = out.text.lines().skip(1).collect();
    assert_eq!(lines.len(), entries.len(), "{}", out.text);
    for ((entry, line), id) in entries.iter().zip(&lines).zip(&ids) {
        let backfilled = missed.contains(id);
        assert_eq!(
            entry.get("backfilled"),
            backfilled.then_some(&json!(true)),
            "{entry}"
        );
        assert_eq!(line.ends_with(" （重连后补回）"), backfilled, "{line}");
    }
}

#[tokio::test]
async fn a_dropped_websocket_loses_no_message() {
    a_dropped_event_connection_loses_no_message(MilkyEvents::WebSocket).await;
}

#[tokio::test]
async fn a_dropped_sse_stream_loses_no_message() {
    a_dropped_event_connection_loses_no_message(MilkyEvents::Sse).await;
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn image_media_id(message: &pb::ChatMessage) -> String {
    message
        .segments
        .iter()
        .find_map(|s| match &s.kind {
            Some(pb::segment::Kind::Image(i)) => Some(i.media_id.clone()),
            _ => None,
        })
        .expect("an image segment")
}

async fn download(gw: &TestGateway, media_id: &str) -> (pb::DownloadMediaHeader, Vec<u8>) {
    use pb::download_media_response::Payload;
    let mut stream = gw
        .media()
        .download_media(pb::DownloadMediaRequest {
            account_id: String::new(),
            target: Some(pb::download_media_request::Target::MediaId(
                media_id.to_owned(),
            )),
        })
        .await
        .unwrap_or_else(|s| panic!("DownloadMedia {media_id}: {s:?}"))
        .into_inner();
    let header = match stream
        .message()
        .await
        .expect("header")
        .and_then(|m| m.payload)
    {
        Some(Payload::Header(h)) => h,
        other => panic!("no header first: {other:?}"),
    };
    let mut bytes = Vec::new();
    while let Some(m) = stream.message().await.expect("chunk") {
        match m.payload {
            Some(Payload::Chunk(c)) => bytes.extend_from_slice(&c),
            other => panic!("not a chunk: {other:?}"),
        }
    }
    assert_eq!(sha(&bytes), header.sha256);
    (header, bytes)
}

#[tokio::test]
async fn received_images_download_also_after_their_url_expired() {
    let peer = MilkyPeer::start().await;
    // SANDBOX_GROUP is whitelisted (captured on receipt); EXAMPLE_GROUP is
    // not (fetched when asked for).
    let gw = start(milky_config(
        &peer.sb,
        &[SANDBOX_GROUP],
        MilkyEvents::WebSocket,
    ))
    .await;
    let control = peer.sb.control();
    let mut events = stream(&gw, &[pb::EventKind::Message]).await;

    let png = sample_media(MediaKind::Image, 40_000);
    let image = control.store_media(MediaKind::Image, png.clone(), "cat.png");
    control.inject_group_message(SANDBOX_GROUP, 10001, json!([image]));
    let message = next_message(&mut events).await.message.expect("message");
    assert_eq!(message.text, "[图片]");
    let (header, bytes) = download(&gw, &image_media_id(&message)).await;
    assert_eq!(bytes, png);
    assert_eq!(header.kind, pb::MediaKind::Image as i32);
    assert_eq!(header.mime_type, "image/png");

    // Not captured, and its URL expires before anyone asks: the gateway
    // reads the message again for a fresh URL.
    let png2 = sample_media(MediaKind::Image, 41_000);
    let image2 = control.store_media(MediaKind::Image, png2.clone(), "dog.png");
    control.inject_group_message(EXAMPLE_GROUP, 10002, json!([image2]));
    let got = next_message(&mut events).await.message.expect("message");
    control.expire_media_urls();
    let reads = peer.calls("get_message").len();
    let (_, bytes) = download(&gw, &image_media_id(&got)).await;
    assert_eq!(bytes, png2);
    assert_eq!(peer.calls("get_message").len(), reads + 1, "read again");
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}

fn record_media_id(message: &pb::ChatMessage) -> String {
    message
        .segments
        .iter()
        .find_map(|s| match &s.kind {
            Some(pb::segment::Kind::Record(r)) => Some(r.media_id.clone()),
            _ => None,
        })
        .expect("a record segment")
}

/// A voice received on a Milky account arrives in QQ's own codec and
/// downloads as it came, with its true MIME type: SILK v3 (with QQ's
/// leading 0x02 byte) as `audio/silk`, AMR as `audio/amr`; captured on
/// receipt in a whitelisted group, fetched by its temp URL in another.
#[tokio::test]
async fn received_voice_downloads_with_its_true_mime_type() {
    let peer = MilkyPeer::start().await;
    let gw = start(milky_config(
        &peer.sb,
        &[SANDBOX_GROUP],
        MilkyEvents::WebSocket,
    ))
    .await;
    let control = peer.sb.control();
    let mut events = stream(&gw, &[pb::EventKind::Message]).await;

    let mut silk = b"\x02#!SILK_V3".to_vec();
    silk.extend((0..6_000u32).map(|i| (i % 251) as u8));
    let amr = sample_media(MediaKind::Record, 3_000);
    for (group, bytes, name, mime) in [
        (SANDBOX_GROUP, &silk, "voice.silk", "audio/silk"),
        (EXAMPLE_GROUP, &amr, "voice.amr", "audio/amr"),
    ] {
        let voice = control.store_media(MediaKind::Record, bytes.clone(), name);
        control.inject_group_message(group, 10001, json!([voice]));
        let message = next_message(&mut events).await.message.expect("message");
        assert_eq!(message.text, "[语音]", "{name}");
        let (header, got) = download(&gw, &record_media_id(&message)).await;
        assert_eq!(&got, bytes, "{name}: the bytes as received");
        assert_eq!(header.kind, pb::MediaKind::Record as i32, "{name}");
        assert_eq!(header.mime_type, mime, "{name}");
        assert_eq!(header.size, bytes.len() as i64, "{name}");
    }
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}
