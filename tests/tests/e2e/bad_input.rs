//! Bad input from both sides, with no panic and the right answers:
//!
//! - property tests of the OneBot frame decoders (events, messages,
//!   segments, members, groups, answers and history pages), the CQ-code
//!   parser, the text renderer, the wire serializer of action parameters and
//!   the agent-tool argument parser, over generated, mostly-OneBot-shaped
//!   JSON (and deeply nested or out-of-range arguments);
//! - a raw WebSocket peer that sends generated garbage frames before every
//!   real reply, through the gateway's real session: every call still gets
//!   its own answer and the connection stays up;
//! - hostile gRPC requests (huge counts, negative ids, path traversal, SSRF
//!   targets, oversized, truncated and mislabelled uploads, wrong sha256,
//!   unknown tools, deeply nested JSON), each answered with the right code
//!   and `ErrorInfo.reason` (tools: a failed result) before any peer is
//!   called.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::{SinkExt, StreamExt};
use onebot_gateway_client::pb;
use onebot_gateway_config::{AccountConfig, Config};
use onebot_gateway_domain::model::{ChatRef, GroupMember, Message, RawJson, Segment};
use onebot_gateway_domain::render;
use onebot_gateway_domain::tools::args::{Args, parse_media, parse_target};
use onebot_gateway_domain::tools::history::HistoryArgs;
use onebot_gateway_domain::tools::js::js_number;
use onebot_gateway_domain::tools::members::MembersArgs;
use onebot_gateway_domain::tools::poke::PokeArgs;
use onebot_gateway_domain::tools::send::SendArgs;
use onebot_gateway_onebot::frame::{Data, Frame};
use onebot_gateway_onebot::history::probe::Mark;
use onebot_gateway_onebot::history::profile::HistoryProfile;
use onebot_gateway_onebot::model::{
    PeerMessage, decode_group, decode_member, decode_message, decode_segment, segments_of,
};
use onebot_gateway_onebot::retcode::{self, Via};
use onebot_gateway_onebot::transport::body::ParamsJson;
use onebot_gateway_onebot::{Flavor, cq, events, history};
use onebot_gateway_tests::{SandboxFlavor, TestGateway, reason, sandbox};
use onebot_sandbox::SANDBOX_GROUP;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config as PropConfig, FileFailurePersistence, TestRunner};
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

/// The message with its `raw` text left out.
fn without_raw(m: Option<Message>) -> Option<Message> {
    m.map(|m| Message {
        raw: RawJson::null(),
        ..m
    })
}

/// A frame-like object: post_type or echo/status at the top, OneBot keys.
pub(crate) fn frame() -> impl Strategy<Value = Value> {
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

/// Argument names of the four tools.
const TOOL_KEYS: &[&str] = &[
    "target",
    "count",
    "messageSeq",
    "accountId",
    "groupId",
    "noCache",
    "limit",
    "text",
    "images",
    "videos",
    "file",
    "fileName",
    "userId",
];

/// An arguments text: tool-shaped objects, any JSON, or any text.
pub(crate) fn tool_arguments() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::collection::vec(
            (
                proptest::sample::select(TOOL_KEYS),
                prop_oneof![
                    json_leaf(),
                    onebot_json(),
                    "(group:|private:)?-?[0-9]{0,22}(\\.[0-9])?".prop_map(Value::String),
                    "(/|\\.\\./|https?://|file://|base64://)[a-z0-9/._-]{0,20}".prop_map(Value::String),
                ],
            ),
            0..8,
        )
        .prop_map(|kv| {
            let m: Map<String, Value> = kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            Value::Object(m).to_string()
        }),
        1 => onebot_json().prop_map(|v| v.to_string()),
        1 => ".{0,40}",
        1 => (1usize..20_000).prop_map(|n| format!("{{\"target\":{}{}}}", "[".repeat(n), "]".repeat(n))),
        1 => (0usize..3).prop_map(|i| ["{\"count\":1e999}", "{\"groupId\":[1e400]}", "{\"userId\":-0}"][i].to_string()),
    ]
}

// ------------------------------------------------------- decoder properties

proptest! {
    // Seeds of past failures are replayed from `bad_input.proptest-regressions`
    // beside this file. (Proptest's default, `SourceParallel`, would read
    // `../proptest-regressions/bad_input.txt` instead, since this directory
    // holds the binary's `main.rs`.)
    #![proptest_config(PropConfig {
        cases: 400,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..PropConfig::default()
    })]

    /// Whatever a peer sends as an event frame decodes (possibly to
    /// `Unknown`) and renders without panicking.
    #[test]
    fn event_frames_decode_without_panic(frame in frame()) {
        let _ = events::is_event(&frame);
        match events::decode(&frame) {
            events::Decoded::Event(_) | events::Decoded::Heartbeat { .. } => {}
        }
        // What the peer sent, and the tree the gateway used to decode it into.
        let text = serde_json::value::to_raw_value(&frame).expect("a Value serializes");
        let tree: Value = serde_json::from_str(text.get()).expect("valid JSON");
        for c in [None, Some(ChatRef::Group(1)), Some(ChatRef::Private(1))] {
            let m = decode_message(&frame, c);
            // Read from the text (history pages): the same message, and
            // `raw` is the text as it came.
            let direct = serde_json::from_str::<PeerMessage<'_>>(text.get())
                .ok()
                .and_then(|p| p.into_message(c, || RawJson::from_text(text.get())));
            prop_assert_eq!(direct.as_ref().map(|d| d.raw.text()), m.as_ref().map(|_| text.get()));
            prop_assert_eq!(without_raw(direct), without_raw(decode_message(&tree, c)));
            if let Some(m) = m {
                let _ = render::history_line(&m, &tz());
                let _ = render::segments(&m.segments);
            }
        }
        // The frame as the transport reads it: `data` kept as text.
        let read = Frame::parse(text.get()).map(Frame::into_value);
        prop_assert_eq!(read.ok(), Some(tree));
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
        if let Some(s) = decode_segment(&v) {
            let _ = render::segment(&s);
        }
        let member = decode_member(&v);
        let _ = render::member_line(&member);
        let _ = render::members(std::slice::from_ref(&member), usize::MAX);
        let _ = decode_group(&v);
        if let Value::Array(items) = &v {
            let members: Vec<GroupMember> = items.iter().map(decode_member).collect();
            let _ = render::members(&members, members.len());
        }
    }

    /// Any answer frame classifies into data or a domain error, for every
    /// flavor and transport, read off the wire or built from a tree.
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
        let _ = retcode::peer_text(&frame);
        // As read off the wire and as built from a tree.
        let text = frame.to_string();
        let read = Frame::parse(&text).expect("an object is a frame");
        let _ = retcode::classify_frame(flavor, via, action, read).map(Data::into_value);
        let _ = retcode::classify_frame(flavor, via, action, Frame::from_value(frame))
            .map(Data::into_value);
    }

    /// Parameters serialized for the wire (long media strings moved, not
    /// copied) are byte for byte `serde_json`'s text.
    #[test]
    fn params_serialize_exactly_as_serde_json(
        v in onebot_json(),
        media in proptest::option::of("[A-Za-z0-9+/=]{4,8}"),
    ) {
        let mut v = v;
        if let (Some(m), Value::Object(map)) = (media, &mut v) {
            map.insert("file".into(), json!(format!("base64://{}", m.repeat(20_000))));
        }
        prop_assert_eq!(ParamsJson::new(v.clone()).to_vec(), serde_json::to_vec(&v).unwrap_or_default());
    }

    /// The tool-argument parser takes any text (deeply nested, numbers out
    /// of range, wrong types) and every tool's argument rules answer.
    #[test]
    fn tool_arguments_parse_without_panic(text in tool_arguments(), raw in ".{0,40}") {
        if let Ok(args) = Args::parse(&text) {
            let _ = HistoryArgs::parse(&args);
            let _ = MembersArgs::parse(&args);
            let _ = SendArgs::parse(&args);
            let _ = PokeArgs::parse(&args);
            let _ = args.account_id();
            let _ = args.chat(true);
            let _ = args.anchor();
            let _ = args.qq_id("groupId");
            let _ = args.qq_id("userId");
            let _ = args.clamped("count", 20, 100);
            let _ = args.flag("noCache");
            let _ = args.string_array("images");
            let _ = args.optional_string("text");
        }
        let _ = parse_target(&raw);
        let _ = js_number(&raw);
        let _ = parse_media(&raw);
    }

    /// Any history answer becomes a page or an error, and the page renders.
    #[test]
    fn history_pages_from_any_answer(
        data in prop_oneof![onebot_json(), proptest::collection::vec(frame(), 0..6)
            .prop_map(|m| json!({ "messages": m }))],
        flavor in flavor(),
        chat in chat(),
        count in 0u32..300,
        anchor in proptest::option::of((any::<i64>(), any::<i64>(), any::<i64>())),
    ) {
        let profile = HistoryProfile::assumed(flavor);
        let anchor = anchor.map(|(id, seq, time)| Mark {
            id,
            peer_seq: Some(seq),
            real_seq: Some(seq),
            time,
        });
        if let Ok(fetched) = history::page(&profile, chat, count, anchor.as_ref(), Ok(Data::from_value(&data))) {
            let page = fetched.page;
            let _ = render::history(&page.messages, &tz());
            // Nothing at or above the anchor comes back.
            if let Some(a) = &anchor {
                prop_assert!(page.messages.iter().all(|m| m.message_id != a.id));
            }
            // Each message's raw text is its own entry of the page.
            for m in &page.messages {
                let raw: Value = serde_json::from_str(m.raw.text()).unwrap_or(Value::Null);
                let again = decode_message(&raw, Some(chat));
                prop_assert_eq!(without_raw(again), without_raw(Some(m.clone())));
            }
        }
        let _ = history::request(&profile, chat, count, anchor.as_ref());
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
        "get_group_list" => json!([
            { "group_id": SANDBOX_GROUP, "group_name": "沙盒群", "member_count": 36, "max_member_count": 200 }
        ]),
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
        until: None,
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

fn sha_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

fn mp4(len: usize) -> Vec<u8> {
    let mut v = vec![0, 0, 0, 0x18];
    v.extend_from_slice(b"ftypmp42\0\0\0\0mp42isom");
    v.resize(len, 7);
    v
}

/// One upload stream: the header, then `bytes` in 64 KiB chunks.
fn upload_stream(
    kind: pb::MediaKind,
    size: Option<i64>,
    sha256: Option<String>,
    bytes: &[u8],
) -> impl futures_util::Stream<Item = pb::UploadMediaRequest> + use<> {
    let mut msgs = vec![pb::UploadMediaRequest {
        payload: Some(pb::upload_media_request::Payload::Header(
            pb::UploadMediaHeader {
                account_id: String::new(),
                kind: kind as i32,
                file_name: "x.mp4".into(),
                size,
                sha256,
            },
        )),
    }];
    for c in bytes.chunks(64 * 1024) {
        msgs.push(pb::UploadMediaRequest {
            payload: Some(pb::upload_media_request::Payload::Chunk(c.to_vec())),
        });
    }
    futures_util::stream::iter(msgs)
}

#[tokio::test]
async fn hostile_write_and_tool_requests_get_the_right_answer() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(root.path().join("ok.mp4"), mp4(1000)).expect("write");
    let mut config = onebot_gateway_tests::config_for(&sandbox, &[SANDBOX_GROUP]);
    config.media.media_roots = vec![root.path().to_path_buf()];
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let control = sandbox.control();
    control.clear_actions();
    let mut messages = gw.messages();
    let mut media = gw.media();

    let send = |f: fn(&mut pb::SendMessageRequest)| {
        let mut r = pb::SendMessageRequest {
            group_id: Some(SANDBOX_GROUP),
            ..Default::default()
        };
        f(&mut r);
        r
    };
    let src = |s: pb::media_source::Source| pb::MediaSource { source: Some(s) };
    let escape = format!("{}/../../../../etc/passwd", root.path().display());
    let hostile_sends: Vec<(&str, pb::SendMessageRequest, Code, &str)> = vec![
        (
            "path traversal out of the media root",
            pb::SendMessageRequest {
                videos: vec![src(pb::media_source::Source::Path(escape))],
                ..send(|_| {})
            },
            Code::PermissionDenied,
            "PATH_FORBIDDEN",
        ),
        (
            "SSRF: cloud metadata address",
            pb::SendMessageRequest {
                images: vec![src(pb::media_source::Source::Url(
                    "http://169.254.169.254/latest/meta-data/".into(),
                ))],
                ..send(|_| {})
            },
            Code::PermissionDenied,
            "URL_FORBIDDEN",
        ),
        (
            "SSRF: loopback",
            pb::SendMessageRequest {
                images: vec![src(pb::media_source::Source::Url(
                    "http://127.0.0.1:1/a.png".into(),
                ))],
                ..send(|_| {})
            },
            Code::PermissionDenied,
            "URL_FORBIDDEN",
        ),
        (
            "unknown media id",
            pb::SendMessageRequest {
                videos: vec![src(pb::media_source::Source::MediaId("../../x".into()))],
                ..send(|_| {})
            },
            Code::NotFound,
            "MEDIA_NOT_FOUND",
        ),
        (
            "negative group id",
            send(|r| {
                r.group_id = Some(-1);
                r.text = "x".into();
            }),
            Code::InvalidArgument,
            "INVALID_REQUEST",
        ),
        (
            "group outside the whitelist",
            send(|r| {
                r.group_id = Some(onebot_sandbox::EXAMPLE_GROUP);
                r.text = "x".into();
            }),
            Code::PermissionDenied,
            "GROUP_NOT_ALLOWED",
        ),
        (
            "text over 20000 characters",
            send(|r| r.text = "字".repeat(20_001)),
            Code::InvalidArgument,
            "TEXT_TOO_LONG",
        ),
        (
            "five images",
            pb::SendMessageRequest {
                images: (0..5)
                    .map(|_| src(pb::media_source::Source::Data(vec![1, 2, 3])))
                    .collect(),
                ..send(|_| {})
            },
            Code::InvalidArgument,
            "TOO_MANY_IMAGES",
        ),
        (
            "nothing to send",
            send(|_| {}),
            Code::InvalidArgument,
            "EMPTY_MESSAGE",
        ),
    ];
    for (what, req, code, why) in hostile_sends {
        let status = messages.send_message(req).await.expect_err(what);
        assert_eq!(status.code(), code, "{what}: {status:?}");
        assert_eq!(reason(&status), why, "{what}: {status:?}");
    }
    assert!(
        control
            .actions()
            .iter()
            .all(|a| a.action != "send_group_msg"),
        "a hostile send reached the peer"
    );

    let body = mp4(4096);
    // (what, declared size, declared sha256, bytes, code, reason)
    type UploadCase = (
        &'static str,
        Option<i64>,
        Option<String>,
        Vec<u8>,
        Code,
        &'static str,
    );
    let hostile_uploads: Vec<UploadCase> = vec![
        (
            "declared size over the limit",
            Some(31 * 1024 * 1024),
            None,
            body.clone(),
            Code::ResourceExhausted,
            "MEDIA_TOO_LARGE",
        ),
        (
            "truncated: fewer bytes than declared",
            Some(8192),
            None,
            body.clone(),
            Code::InvalidArgument,
            "MEDIA_SIZE_MISMATCH",
        ),
        (
            "wrong sha256",
            Some(4096),
            Some(sha_hex(b"something else")),
            body.clone(),
            Code::InvalidArgument,
            "MEDIA_CHECKSUM_MISMATCH",
        ),
        (
            "not a video",
            None,
            None,
            b"#!/bin/sh\nrm -rf /\n".to_vec(),
            Code::InvalidArgument,
            "MEDIA_TYPE_MISMATCH",
        ),
        (
            "negative declared size",
            Some(-1),
            None,
            body.clone(),
            Code::InvalidArgument,
            "INVALID_REQUEST",
        ),
    ];
    for (what, size, sha, bytes, code, why) in hostile_uploads {
        let status = media
            .upload_media(upload_stream(pb::MediaKind::Video, size, sha, &bytes))
            .await
            .expect_err(what);
        assert_eq!(status.code(), code, "{what}: {status:?}");
        assert_eq!(reason(&status), why, "{what}: {status:?}");
    }
    // The honest upload still works.
    media
        .upload_media(upload_stream(
            pb::MediaKind::Video,
            Some(4096),
            Some(sha_hex(&body)),
            &body,
        ))
        .await
        .expect("a good upload");

    // Tools never throw: bad calls come back as failed results.
    let mut tools = gw.tools();
    for (what, name, args) in [
        ("unknown tool", "rm_rf".to_string(), "{}".to_string()),
        ("empty name", String::new(), "{}".to_string()),
        (
            "deeply nested arguments",
            "snowluma_get_history".to_string(),
            format!(
                "{{\"target\":{}1{}}}",
                "[".repeat(100_000),
                "]".repeat(100_000)
            ),
        ),
        (
            "not JSON",
            "snowluma_get_history".to_string(),
            "{\"target\":".to_string(),
        ),
        (
            "number out of range",
            "snowluma_get_group_members".to_string(),
            "{\"groupId\":1e999}".to_string(),
        ),
        (
            "path-like target",
            "snowluma_get_history".to_string(),
            "{\"target\":\"group:../../etc\"}".to_string(),
        ),
    ] {
        let r = tools
            .call_tool(pb::CallToolRequest {
                name,
                arguments_json: args,
            })
            .await
            .unwrap_or_else(|s| panic!("{what}: {s:?}"))
            .into_inner();
        assert!(r.is_error, "{what}: {r:?}");
        let details: Value = serde_json::from_str(&r.details_json).expect("details JSON");
        assert_eq!(details["status"], "failed", "{what}: {details}");
        assert_eq!(details["error"].as_str(), Some(r.text.as_str()), "{what}");
    }
    // A huge count through the tool is clamped, as the seeds say.
    let r = tools
        .call_tool(pb::CallToolRequest {
            name: "snowluma_get_history".into(),
            arguments_json: format!("{{\"target\":\"group:{SANDBOX_GROUP}\",\"count\":1e300}}"),
        })
        .await
        .expect("history tool")
        .into_inner();
    assert!(!r.is_error, "{r:?}");
    let details: Value = serde_json::from_str(&r.details_json).expect("details JSON");
    assert_eq!(details["count"], 100, "{details}");
}
