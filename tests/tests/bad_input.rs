//! Bad input from both sides, with no panic and the right answers:
//!
//! - property tests of the OneBot frame decoders (events, messages,
//!   segments, members, groups, answers and history pages), the CQ-code
//!   parser and the text renderer over generated, mostly-OneBot-shaped JSON;
//! - a raw WebSocket peer that sends generated garbage frames before every
//!   real reply, through the gateway's real session: every call still gets
//!   its own answer and the connection stays up;
//! - hostile gRPC requests, each answered with the right code and
//!   `ErrorInfo.reason` before any peer is called.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::{SinkExt, StreamExt};
use onebot_gateway::config::{AccountConfig, Config};
use onebot_gateway::onebot::model::{GroupInfo, GroupMember, Message, Segment, segments_of};
use onebot_gateway::onebot::retcode::{self, Via};
use onebot_gateway::onebot::{ChatRef, Flavor, cq, events, history};
use onebot_gateway::render;
use onebot_gateway_client::pb;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, reason, sandbox};
use onebot_sandbox::SANDBOX_GROUP;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config as PropConfig, TestRunner};
use serde_json::{Map, Value, json};
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tonic::Code;

// ---------------------------------------------------------------- strategies

/// Keys OneBot frames use, so generated objects hit the decoders' paths.
const KEYS: &[&str] = &[
    "post_type",
    "message_type",
    "notice_type",
    "request_type",
    "meta_event_type",
    "sub_type",
    "message",
    "raw_message",
    "message_id",
    "message_seq",
    "real_seq",
    "real_id",
    "time",
    "self_id",
    "user_id",
    "group_id",
    "target_id",
    "operator_id",
    "sender",
    "nickname",
    "card",
    "role",
    "title",
    "level",
    "join_time",
    "last_sent_time",
    "group_name",
    "member_count",
    "max_member_count",
    "interval",
    "status",
    "retcode",
    "data",
    "messages",
    "echo",
    "msg",
    "wording",
    "type",
    "text",
    "qq",
    "id",
    "file",
    "url",
    "file_size",
    "name",
    "summary",
    "card_new",
    "card_old",
];

/// Values OneBot fields take, and the ones they should not.
const WORDS: &[&str] = &[
    "message",
    "message_sent",
    "notice",
    "meta_event",
    "request",
    "heartbeat",
    "lifecycle",
    "group",
    "private",
    "group_increase",
    "group_decrease",
    "group_card",
    "notify",
    "poke",
    "ok",
    "failed",
    "async",
    "text",
    "image",
    "at",
    "face",
    "reply",
    "forward",
    "video",
    "record",
    "file",
    "json",
    "xml",
    "all",
    "owner",
    "admin",
    "member",
    "[CQ:at,qq=1]",
    "[CQ:",
    "&#91;",
    "",
    "-1",
    "9223372036854775807",
    "1e400",
    "NaN",
    "\u{0}",
    "\n\r\t",
    "𝓤𝓷𝓲𝓬𝓸𝓭𝓮",
];

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![
            Just(i64::MIN),
            Just(i64::MAX),
            Just(-1i64),
            Just(0i64),
            Just(1_700_000_000i64),
            Just(253_402_300_800i64),
            Just(-377_705_116_800i64),
        ]
        .prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        proptest::sample::select(WORDS).prop_map(|w| Value::String(w.to_string())),
        ".{0,24}".prop_map(Value::String),
        any::<i64>().prop_map(|n| Value::String(n.to_string())),
    ]
}

/// JSON shaped like OneBot frames: objects with OneBot keys, nested.
fn onebot_json() -> impl Strategy<Value = Value> {
    json_leaf().prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    prop_oneof![
                        4 => proptest::sample::select(KEYS).prop_map(str::to_string),
                        1 => "[a-z_]{1,8}",
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A frame-like object: post_type or echo/status at the top, OneBot keys.
fn frame() -> impl Strategy<Value = Value> {
    (
        proptest::collection::vec(
            (
                proptest::sample::select(KEYS).prop_map(str::to_string),
                onebot_json(),
            ),
            0..12,
        ),
        proptest::option::of(proptest::sample::select(
            &[
                "message",
                "message_sent",
                "notice",
                "meta_event",
                "request",
                "weird",
            ][..],
        )),
    )
        .prop_map(|(kv, post_type)| {
            let mut m: Map<String, Value> = kv.into_iter().collect();
            if let Some(p) = post_type {
                m.insert("post_type".into(), json!(p));
            }
            Value::Object(m)
        })
}

fn chat() -> impl Strategy<Value = ChatRef> {
    prop_oneof![
        any::<i64>().prop_map(ChatRef::Group),
        any::<i64>().prop_map(ChatRef::Private)
    ]
}

fn flavor() -> impl Strategy<Value = Flavor> {
    proptest::sample::select(Flavor::ALL.to_vec())
}

fn tz() -> jiff::tz::TimeZone {
    jiff::tz::TimeZone::get("Asia/Shanghai").expect("bundled tz")
}

// ------------------------------------------------------- decoder properties

proptest! {
    #![proptest_config(PropConfig { cases: 400, ..PropConfig::default() })]

    /// Whatever a peer sends as an event frame decodes (possibly to
    /// `Unknown`) and renders without panicking.
    #[test]
    fn event_frames_decode_without_panic(frame in frame()) {
        let _ = events::is_event(&frame);
        match events::decode(&frame) {
            events::Decoded::Event(_) | events::Decoded::Heartbeat { .. } => {}
        }
        for c in [None, Some(ChatRef::Group(1)), Some(ChatRef::Private(1))] {
            if let Some(m) = Message::from_value(&frame, c) {
                let _ = render::history_line(&m, &tz());
                let _ = render::segments(&m.segments);
            }
        }
    }

    /// Any value decodes as segments, members and groups without panic, and
    /// the renderer takes whatever came out.
    #[test]
    fn segments_members_and_groups_decode_and_render(v in onebot_json(), raw in ".{0,40}") {
        let segs: Vec<Segment> = segments_of(&v, Some(&raw));
        let _ = render::segments(&segs);
        for s in &segs {
            let _ = render::segment(s);
            let _ = s.kind();
        }
        if let Some(s) = Segment::from_value(&v) {
            let _ = render::segment(&s);
        }
        let member = GroupMember::from_value(&v);
        let _ = render::member_line(&member);
        let _ = render::members(std::slice::from_ref(&member), usize::MAX);
        let _ = GroupInfo::from_value(&v);
        if let Value::Array(items) = &v {
            let members: Vec<GroupMember> = items.iter().map(GroupMember::from_value).collect();
            let _ = render::members(&members, members.len());
        }
    }

    /// Any answer frame classifies into data or a domain error, for every
    /// flavor and transport, the same by reference and by value.
    #[test]
    fn answers_classify_without_panic(
        frame in frame(),
        flavor in flavor(),
        http in proptest::option::of(any::<u16>()),
        action in proptest::sample::select(&[
            "send_group_msg", "get_group_msg_history", "group_poke", "get_msg", "x_async",
        ][..]),
    ) {
        let via = http.map_or(Via::Ws, Via::Http);
        let by_ref = retcode::classify(flavor, via, action, &frame).map_err(|e| (e.kind, e.message));
        let _ = retcode::peer_text(&frame);
        let by_value = retcode::classify_owned(flavor, via, action, frame).map_err(|e| (e.kind, e.message));
        prop_assert_eq!(by_ref, by_value);
    }

    /// Any history answer becomes a page or an error, and the page renders.
    #[test]
    fn history_pages_from_any_answer(
        data in prop_oneof![onebot_json(), proptest::collection::vec(frame(), 0..6)
            .prop_map(|m| json!({ "messages": m }))],
        flavor in flavor(),
        chat in chat(),
        count in 0u32..300,
        anchor in proptest::option::of(any::<i64>()),
    ) {
        if let Ok(page) = history::page(flavor, chat, count, anchor, Ok(data)) {
            let _ = render::history(&page.messages, &tz());
        }
        let _ = history::request(flavor, chat, count, anchor, anchor);
    }

    /// The CQ parser takes any text; escaped text parses back to itself.
    #[test]
    fn cq_parser_takes_any_text(s in ".{0,80}", t in "(.|\\[|\\]|&|,|\\[CQ:){0,40}") {
        let _ = cq::parse(&s);
        let _ = cq::unescape(&s);
        let parsed = cq::parse(&cq::escape_text(&t));
        if t.is_empty() {
            prop_assert!(parsed.is_empty());
        } else {
            prop_assert_eq!(parsed, vec![json!({"type": "text", "data": {"text": t}})]);
        }
        prop_assert_eq!(cq::unescape(&cq::escape_param(&t)), t);
    }

    /// Segments encoded as CQ codes parse back to the same segments.
    #[test]
    fn cq_codes_round_trip(
        parts in proptest::collection::vec(
            (
                "[a-z_]{1,8}".prop_filter("not text", |k| k != "text"),
                proptest::collection::btree_map("[a-z_]{1,6}", "(.|,|=|\\[|\\]|&){0,12}", 0..4),
                proptest::option::of("(.|\\[|\\]|&){1,12}"),
            ),
            0..6,
        )
    ) {
        let mut segs = Vec::new();
        for (kind, data, text) in parts {
            segs.push(json!({ "type": kind, "data": data }));
            if let Some(text) = text {
                segs.push(json!({ "type": "text", "data": { "text": text } }));
            }
        }
        prop_assert_eq!(cq::parse(&cq::encode(&segs)), segs);
    }
}

// ------------------------------------------- garbage through a real session

/// Garbage frames, generated once per reply.
fn garbage_batch() -> impl Strategy<Value = Vec<WsMessage>> {
    proptest::collection::vec(
        prop_oneof![
            frame().prop_map(|f| WsMessage::text(f.to_string())),
            onebot_json().prop_map(|v| WsMessage::text(v.to_string())),
            ".{0,64}".prop_map(WsMessage::text),
            proptest::collection::vec(any::<u8>(), 0..64).prop_map(WsMessage::binary),
            frame().prop_map(|mut f| {
                // An answer to a call nobody made.
                if let Some(o) = f.as_object_mut() {
                    o.insert("echo".into(), json!("never-sent"));
                }
                WsMessage::text(f.to_string())
            }),
            Just(WsMessage::text("{\"echo\":")),
            Just(WsMessage::text("[]".to_string())),
            Just(WsMessage::text("[".repeat(10_000))),
            Just(WsMessage::Ping(vec![1, 2, 3].into())),
        ],
        0..6,
    )
}

/// The answer of the raw peer to `action`.
fn answer(action: &str, params: &Value) -> Value {
    match action {
        "get_login_info" => json!({ "user_id": 3_889_000_000i64, "nickname": "raw" }),
        "get_version_info" => {
            json!({ "app_name": "NapCat.Onebot", "app_version": "4.0", "protocol_version": "v11" })
        }
        "get_group_msg_history" => {
            let count = params.get("count").and_then(Value::as_i64).unwrap_or(20);
            let messages: Vec<Value> = (1..=count)
                .map(|i| {
                    json!({
                        "message_id": i, "message_seq": i, "time": 1_700_000_000 + i,
                        "message_type": "group", "group_id": SANDBOX_GROUP, "user_id": 10001,
                        "sender": { "user_id": 10001, "nickname": "张三", "card": "" },
                        "message": [{ "type": "text", "data": { "text": format!("m{i}") } }],
                        "raw_message": format!("m{i}"),
                    })
                })
                .collect();
            json!({ "messages": messages })
        }
        _ => Value::Null,
    }
}

#[tokio::test]
async fn generated_garbage_frames_beside_real_replies_leave_every_call_intact() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let accepted = Arc::new(AtomicUsize::new(0));
    let batches = {
        let mut runner = TestRunner::deterministic();
        let strategy = garbage_batch();
        (0..64)
            .map(|_| {
                strategy
                    .new_tree(&mut runner)
                    .map(|t| t.current())
                    .unwrap_or_default()
            })
            .collect::<Vec<_>>()
    };
    let peer = {
        let accepted = accepted.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                accepted.fetch_add(1, Ordering::SeqCst);
                let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                    continue;
                };
                let mut batches = batches.clone().into_iter().cycle();
                while let Some(Ok(msg)) = ws.next().await {
                    let WsMessage::Text(text) = msg else { continue };
                    let Ok(req) = serde_json::from_str::<Value>(&text) else {
                        continue;
                    };
                    let action = req["action"].as_str().unwrap_or_default().to_string();
                    for g in batches.next().unwrap_or_default() {
                        if ws.send(g).await.is_err() {
                            return;
                        }
                    }
                    let reply = json!({
                        "status": "ok", "retcode": 0,
                        "data": answer(&action, &req["params"]),
                        "echo": req["echo"],
                    });
                    if ws.send(WsMessage::text(reply.to_string())).await.is_err() {
                        return;
                    }
                }
            }
        })
    };

    let mut config = Config::default();
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: Some(format!("ws://{addr}/")),
            groups: vec![SANDBOX_GROUP],
            ..AccountConfig::default()
        },
    );
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut client = gw.messages();
    for count in 1..=40 {
        let page = client
            .get_history(pb::GetHistoryRequest {
                chat: Some(pb::Chat {
                    kind: Some(pb::chat::Kind::GroupId(SANDBOX_GROUP)),
                }),
                count,
                ..Default::default()
            })
            .await
            .unwrap_or_else(|s| panic!("history {count} beside garbage: {s:?}"))
            .into_inner();
        assert_eq!(page.messages.len(), count as usize);
        assert_eq!(
            page.messages.last().map(|m| m.text.as_str()),
            Some(format!("m{}", count + 1).as_str())
        );
    }
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "the gateway reconnected"
    );
    assert_eq!(
        gw.account("default").await.state,
        pb::ConnectionState::Connected as i32
    );
    drop(gw);
    peer.abort();
}

// ------------------------------------------------------ hostile requests

fn group_chat(id: i64) -> Option<pb::Chat> {
    Some(pb::Chat {
        kind: Some(pb::chat::Kind::GroupId(id)),
    })
}

#[tokio::test]
async fn hostile_read_requests_get_the_right_code_and_reason() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sandbox, &[SANDBOX_GROUP]).await;
    let control = sandbox.control();
    control.clear_actions();
    let mut messages = gw.messages();
    let mut groups = gw.groups();

    let history = |chat: Option<pb::Chat>, count: i32, account: &str| pb::GetHistoryRequest {
        account_id: account.into(),
        chat,
        count,
        anchor_message_id: None,
    };
    // (what, result, code, reason)
    let mut cases: Vec<(&str, tonic::Status, Code, &str)> = Vec::new();
    let mut expect_err = |what: &'static str, r: Result<(), tonic::Status>, code, why| match r {
        Ok(()) => panic!("{what}: accepted"),
        Err(s) => cases.push((what, s, code, why)),
    };
    expect_err(
        "negative group id",
        messages
            .get_history(history(group_chat(-20_000_003), 5, ""))
            .await
            .map(drop),
        Code::InvalidArgument,
        "INVALID_REQUEST",
    );
    expect_err(
        "zero user id",
        messages
            .get_history(history(
                Some(pb::Chat {
                    kind: Some(pb::chat::Kind::UserId(0)),
                }),
                5,
                "",
            ))
            .await
            .map(drop),
        Code::InvalidArgument,
        "INVALID_REQUEST",
    );
    expect_err(
        "no chat",
        messages.get_history(history(None, 5, "")).await.map(drop),
        Code::InvalidArgument,
        "INVALID_REQUEST",
    );
    expect_err(
        "chat with no kind",
        messages
            .get_history(history(Some(pb::Chat { kind: None }), 5, ""))
            .await
            .map(drop),
        Code::InvalidArgument,
        "INVALID_REQUEST",
    );
    expect_err(
        "unknown account (path-like)",
        messages
            .get_history(history(group_chat(SANDBOX_GROUP), 5, "../../etc/passwd"))
            .await
            .map(drop),
        Code::FailedPrecondition,
        "ACCOUNT_NOT_CONFIGURED",
    );
    expect_err(
        "huge account id",
        messages
            .get_history(history(group_chat(SANDBOX_GROUP), 5, &"a".repeat(100_000)))
            .await
            .map(drop),
        Code::FailedPrecondition,
        "ACCOUNT_NOT_CONFIGURED",
    );
    expect_err(
        "negative member group",
        groups
            .list_group_members(pb::ListGroupMembersRequest {
                group_id: i64::MIN,
                ..Default::default()
            })
            .await
            .map(drop),
        Code::InvalidArgument,
        "INVALID_REQUEST",
    );
    for (what, status, code, why) in &cases {
        assert_eq!(status.code(), *code, "{what}: {status:?}");
        assert_eq!(reason(status), *why, "{what}: {status:?}");
    }
    // None of them reached the peer.
    assert!(
        control
            .actions()
            .iter()
            .all(|a| a.action != "get_group_msg_history"
                && a.action != "get_friend_msg_history"
                && a.action != "get_group_member_list"),
        "{:?}",
        control.actions()
    );

    // Huge and negative counts and limits are clamped, per the seeds, not
    // refused: the peer is asked for at most 100 (+1) messages / all
    // members, and the answer holds at most the clamp.
    for count in [i32::MAX, 1_000_000, -5, i32::MIN] {
        let page = messages
            .get_history(history(group_chat(SANDBOX_GROUP), count, ""))
            .await
            .unwrap_or_else(|s| panic!("count {count}: {s:?}"))
            .into_inner();
        let expected = if count > 0 { 100 } else { 1 };
        assert_eq!(page.messages.len(), expected, "count {count}");
    }
    let asked: Vec<i64> = control
        .actions()
        .iter()
        .filter(|a| a.action == "get_group_msg_history")
        .filter_map(|a| a.params.get("count").and_then(Value::as_i64))
        .collect();
    assert!(asked.iter().all(|&c| c <= 101), "peer asked for {asked:?}");
    for limit in [i32::MAX, -1] {
        let members = groups
            .list_group_members(pb::ListGroupMembersRequest {
                group_id: onebot_sandbox::EXAMPLE_GROUP,
                limit,
                ..Default::default()
            })
            .await
            .unwrap_or_else(|s| panic!("limit {limit}: {s:?}"))
            .into_inner();
        assert_eq!(members.total, 120);
        assert_eq!(
            members.shown,
            if limit > 0 { 120 } else { 1 },
            "limit {limit}"
        );
    }
    // An anchor that does not exist is not a crash.
    let r = messages
        .get_history(pb::GetHistoryRequest {
            anchor_message_id: Some(i64::MIN),
            ..history(group_chat(SANDBOX_GROUP), 5, "")
        })
        .await;
    if let Err(s) = r {
        assert_ne!(s.code(), Code::Internal, "{s:?}");
        assert_ne!(s.code(), Code::Unknown, "{s:?}");
    }
}
