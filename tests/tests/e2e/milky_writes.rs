//! The write side and the agent tools on a Milky account, over real gRPC
//! against the sandbox's Milky face: sends with a quote, a mention, images
//! and a file, GetMessage and RecallMessage of a sent message, pokes,
//! private sends, idempotent retries, and `qq_get_history` / `qq_send`.

use onebot_gateway_client::pb;
use onebot_gateway_config::MilkyEvents;
use onebot_gateway_tests::{TestGateway, reason};
use onebot_sandbox::{ChatRef, EXAMPLE_GROUP, MediaKind, sample_media};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tonic::Code;

use crate::milky::{MilkyPeer, SEED_LINES, gateway_ids, milky_config, start};

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn source(s: pb::media_source::Source) -> pb::MediaSource {
    pb::MediaSource { source: Some(s) }
}

fn text(t: &str) -> pb::SendMessageRequest {
    pb::SendMessageRequest {
        text: t.into(),
        ..pb::SendMessageRequest::default()
    }
}

async fn upload(gw: &TestGateway, bytes: &[u8], name: &str) -> pb::UploadMediaResponse {
    use pb::upload_media_request::Payload;
    gw.media()
        .upload_media(tokio_stream::iter([
            pb::UploadMediaRequest {
                payload: Some(Payload::Header(pb::UploadMediaHeader {
                    account_id: String::new(),
                    kind: pb::MediaKind::Image as i32,
                    file_name: name.into(),
                    size: Some(bytes.len() as i64),
                    sha256: None,
                })),
            },
            pb::UploadMediaRequest {
                payload: Some(Payload::Chunk(bytes.to_vec())),
            },
        ]))
        .await
        .expect("UploadMedia")
        .into_inner()
}

/// GetMessage of `id`: its rendered line and the message.
async fn get_message(gw: &TestGateway, id: i64) -> (String, pb::ChatMessage) {
    let got = gw
        .messages()
        .get_message(pb::GetMessageRequest {
            account_id: String::new(),
            message_id: id,
        })
        .await
        .unwrap_or_else(|s| panic!("GetMessage {id}: {s:?}"))
        .into_inner();
    (got.rendered, got.message.expect("message"))
}

/// How many calls of `api` the sandbox recorded.
fn call_count(peer: &MilkyPeer, api: &str) -> usize {
    peer.calls(api).len()
}

#[tokio::test]
async fn sends_quotes_mentions_media_and_recalls() {
    let peer = MilkyPeer::start().await;
    let gw = start(milky_config(
        &peer.sb,
        &[EXAMPLE_GROUP],
        MilkyEvents::WebSocket,
    ))
    .await;
    let mut recalled = gw
        .events()
        .stream_events(pb::StreamEventsRequest {
            kinds: vec![pb::EventKind::MessageRecalled as i32],
            ..pb::StreamEventsRequest::default()
        })
        .await
        .expect("StreamEvents")
        .into_inner();
    let first = gateway_ids(&peer.sb, ChatRef::Group(EXAMPLE_GROUP))[0];
    let sent = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            reply_to_message_id: Some(first),
            mention_user_ids: vec![10002],
            ..text("同意")
        })
        .await
        .expect("SendMessage")
        .into_inner();
    assert_eq!(sent.group_id, EXAMPLE_GROUP);
    assert_eq!(sent.message_ids.len(), 1);
    let request = &peer.calls("send_group_message")[0];
    assert_eq!(request["group_id"], EXAMPLE_GROUP);
    let types: Vec<&str> = request["message"]
        .as_array()
        .expect("segments")
        .iter()
        .filter_map(|s| s["type"].as_str())
        .collect();
    assert_eq!(types, ["reply", "mention", "text"], "{request}");

    let got = get_message(&gw, sent.message_ids[0]).await;
    assert!(
        got.0.ends_with("[回复 群主张三: 大家好]@管理员李四同意"),
        "{}",
        got.0
    );
    let segments = &got.1.segments;
    assert!(
        matches!(&segments[0].kind, Some(pb::segment::Kind::Reply(r)) if r.quoted.as_ref().map(|q| q.message_id) == Some(first)),
        "{segments:?}"
    );
    assert!(
        matches!(&segments[1].kind, Some(pb::segment::Kind::At(a)) if a.user_id == 10002 && a.name == "管理员李四"),
        "{segments:?}"
    );

    // Images (bytes and an upload) and a file.
    let inline = sample_media(MediaKind::Image, 2_000);
    let staged_bytes = sample_media(MediaKind::Image, 3_000);
    let staged = upload(&gw, &staged_bytes, "chart.png").await;
    let doc = b"quarterly numbers".to_vec();
    let media = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            images: vec![
                source(pb::media_source::Source::Data(inline.clone())),
                source(pb::media_source::Source::MediaId(staged.media_id)),
            ],
            file: Some(source(pb::media_source::Source::Data(doc.clone()))),
            file_name: "报告.txt".into(),
            ..text("图表")
        })
        .await
        .expect("SendMessage with media")
        .into_inner();
    assert_eq!(
        media.media,
        Some(pb::MediaSummary {
            images: 2,
            videos: 0,
            file: "报告.txt".into(),
            voices: 0,
        })
    );
    assert!(!media.message_ids.is_empty());
    let received = peer.sb.control().received_media();
    let shas: Vec<Option<&str>> = received.iter().map(|m| m.sha256.as_deref()).collect();
    for bytes in [&inline, &staged_bytes, &doc] {
        assert!(shas.contains(&Some(sha(bytes).as_str())), "{received:?}");
    }
    let file = received
        .iter()
        .find(|m| m.sha256.as_deref() == Some(sha(&doc).as_str()))
        .expect("the file");
    assert_eq!(file.name.as_deref(), Some("报告.txt"));
    assert_eq!(peer.calls("upload_group_file").len(), 1);

    // Recall: gone from GetMessage, one MESSAGE_RECALLED event.
    gw.messages()
        .recall_message(pb::RecallMessageRequest {
            account_id: String::new(),
            message_id: sent.message_ids[0],
            on_behalf_of: None,
        })
        .await
        .expect("RecallMessage");
    assert_eq!(peer.calls("recall_group_message").len(), 1);
    let event = crate::events::next_event(&mut recalled).await;
    let Some(pb::event::Kind::MessageRecalled(r)) = event.kind else {
        panic!("not a recall: {event:?}");
    };
    assert_eq!(r.message_id, sent.message_ids[0]);
    assert_eq!(r.chat, Some(pb::Chat::group(EXAMPLE_GROUP)));
    // The next recall event is another message's: the first came once.
    let other = peer.sb.control().inject_group_message(
        EXAMPLE_GROUP,
        10003,
        json!([{"type": "text", "data": {"text": "说错了"}}]),
    );
    assert!(peer.sb.control().recall_message(other, 10003));
    let event = crate::events::next_event(&mut recalled).await;
    let Some(pb::event::Kind::MessageRecalled(r)) = event.kind else {
        panic!("not a recall: {event:?}");
    };
    assert_eq!(
        r.message_id,
        crate::milky::gateway_id(&peer.sb, ChatRef::Group(EXAMPLE_GROUP), other)
    );
    assert_eq!(r.operator_id, 10003);
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}

#[tokio::test]
async fn pokes_private_sends_and_idempotent_retries() {
    let peer = MilkyPeer::start().await;
    let mut config = milky_config(&peer.sb, &[EXAMPLE_GROUP], MilkyEvents::WebSocket);
    if let Some(account) = config.accounts.get_mut("default") {
        account.users = vec![10001];
    }
    let gw = start(config).await;

    let poke = gw
        .groups()
        .poke_member(pb::PokeMemberRequest {
            account_id: String::new(),
            group_id: None,
            user_id: 10_003,
            on_behalf_of: None,
        })
        .await
        .expect("PokeMember")
        .into_inner();
    assert_eq!((poke.group_id, poke.user_id), (EXAMPLE_GROUP, 10_003));
    assert_eq!(
        peer.calls("send_group_nudge"),
        [json!({"group_id": EXAMPLE_GROUP, "user_id": 10_003})]
    );

    let private = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            user_id: Some(10001),
            ..text("私聊")
        })
        .await
        .expect("a private send")
        .into_inner();
    assert_eq!(private.user_id, 10001);
    let calls = peer.calls("send_private_message");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["user_id"], 10001);
    let (rendered, message) = get_message(&gw, private.message_ids[0]).await;
    assert_eq!(message.text, "私聊");
    assert_eq!(message.chat, Some(pb::Chat::private(10001)));
    assert!(rendered.ends_with("私聊"), "{rendered}");
    let refused = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            user_id: Some(10003),
            ..text("不在白名单")
        })
        .await
        .expect_err("a user not whitelisted");
    assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
    assert_eq!(call_count(&peer, "send_private_message"), 1);

    let req = pb::SendMessageRequest {
        idempotency_key: "order-42".into(),
        ..text("exactly once")
    };
    let before = call_count(&peer, "send_group_message");
    let first = gw
        .messages()
        .send_message(req.clone())
        .await
        .unwrap()
        .into_inner();
    let again = gw.messages().send_message(req).await.unwrap().into_inner();
    assert!(!first.replayed && again.replayed);
    assert_eq!(first.message_ids, again.message_ids);
    assert_eq!(call_count(&peer, "send_group_message"), before + 1);
    let status = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            idempotency_key: "order-42".into(),
            ..text("something else")
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(reason(&status), "IDEMPOTENCY_KEY_REUSED");
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}

async fn call_tool(gw: &TestGateway, name: &str, args: Value) -> (String, Value, bool) {
    let out = gw
        .tools()
        .call_tool(pb::CallToolRequest {
            name: name.into(),
            arguments_json: args.to_string(),
        })
        .await
        .unwrap_or_else(|s| panic!("{name}: {s:?}"))
        .into_inner();
    let details = serde_json::from_str(&out.details_json).expect("details are JSON");
    (out.text, details, out.is_error)
}

#[tokio::test]
async fn the_agent_tools_read_and_send() {
    let peer = MilkyPeer::start().await;
    let gw = start(milky_config(&peer.sb, &[EXAMPLE_GROUP], MilkyEvents::Sse)).await;
    let (text, details, failed) = call_tool(
        &gw,
        "qq_get_history",
        json!({"target": "group:20000002", "count": 30}),
    )
    .await;
    assert!(!failed, "{text}");
    assert_eq!(text, SEED_LINES);
    assert_eq!(details["count"], 3);

    let (text, details, failed) = call_tool(&gw, "qq_send", json!({"text": "测试推送"})).await;
    assert!(!failed, "{text}");
    assert_eq!(details["status"], "ok");
    assert_eq!(details["groupId"], EXAMPLE_GROUP);
    let id = details["messageIds"][0].as_i64().expect("an id");
    let sends = peer.calls("send_group_message");
    assert_eq!(sends.len(), 1);
    assert_eq!(sends[0]["message"][0]["data"]["text"], "测试推送");
    let (rendered, _) = get_message(&gw, id).await;
    assert!(rendered.ends_with(": 测试推送"), "{rendered}");
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}
