//! AgentToolService end to end: the real gateway over gRPC/TCP.

use std::collections::HashMap;

use onebot_gateway_client::pb;
use onebot_gateway_config::Config;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, config_for, reason, sandbox};
use onebot_sandbox::{ChatRef, EXAMPLE_GROUP, Fault, SANDBOX_GROUP};
use serde_json::{Value, json};
use tonic::Code;

/// Seed 000's sample history rendering.
const SEED_LINES: &str = "[09:58:12] 张三(10001): 大家好\n\
                          [09:58:40] 李四(10002): 早上好[图片]\n\
                          [10:00:05] 王五(10003): 昨天开会的记录发一下 [合并转发]";

/// ListTools' details schemas by tool name and alias.
async fn details_schemas(gw: &TestGateway) -> HashMap<String, Value> {
    let listed = gw
        .tools()
        .list_tools(pb::ListToolsRequest {})
        .await
        .expect("ListTools")
        .into_inner()
        .tools;
    let mut schemas = HashMap::new();
    for tool in listed {
        let schema: Value = serde_json::from_str(&tool.details_schema_json).expect("JSON");
        for alias in &tool.aliases {
            schemas.insert(alias.clone(), schema.clone());
        }
        schemas.insert(tool.name, schema);
    }
    schemas
}

/// Calls a tool over gRPC; checks `text == details.error` on failures and
/// the details against the tool's listed details schema. Returns the text,
/// the details and `is_error`.
async fn call(gw: &TestGateway, name: &str, args: Value) -> (String, Value, bool) {
    let out = gw
        .tools()
        .call_tool(pb::CallToolRequest {
            name: name.into(),
            arguments_json: args.to_string(),
        })
        .await
        .unwrap_or_else(|s| panic!("{name} {args}: a gRPC error {s:?}"))
        .into_inner();
    let details: Value = serde_json::from_str(&out.details_json).expect("details are JSON");
    let schemas = details_schemas(gw).await;
    let schema = schemas.get(name).expect("a listed tool");
    let validator = jsonschema::draft202012::new(schema).expect("schema compiles");
    if let Err(e) = validator.validate(&details) {
        panic!("{name} {args}: details do not match the schema: {e}\n{details}");
    }
    if out.is_error {
        assert_eq!(details, json!({"status": "failed", "error": out.text}));
    }
    (out.text, details, out.is_error)
}

/// The seeds' two sample calls, through the real gateway to a NapCat
/// sandbox, produce the seed's sample outputs exactly.
#[tokio::test]
async fn seed_sample_calls_against_the_sandbox() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;

    for name in ["qq_get_history", "snowluma_get_history"] {
        let (text, details, failed) =
            call(&gw, name, json!({"target": "group:20000002", "count": 30})).await;
        assert!(!failed, "{text}");
        assert_eq!(text, SEED_LINES);
        assert_eq!(details["target"], "group:20000002");
        assert_eq!(details["count"], 3);
        let ids: Vec<i64> = peer
            .control()
            .messages(ChatRef::Group(EXAMPLE_GROUP))
            .iter()
            .filter_map(|m| m["message_id"].as_i64())
            .collect();
        let got: Vec<i64> = details["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .filter_map(|m| m["messageId"].as_i64())
            .collect();
        assert_eq!(got, ids);
        assert_eq!(details["messages"][0]["text"], "大家好");
        assert_eq!(details["senders"][0]["userId"], 10001);
        assert_eq!(details["senders"][0]["nickname"], "张三");
    }

    for name in ["qq_get_group_members", "snowluma_get_group_members"] {
        let (text, details, failed) = call(
            &gw,
            name,
            json!({"groupId": 20000002, "noCache": true, "limit": 50}),
        )
        .await;
        assert!(!failed, "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 51, "{text}");
        assert_eq!(
            lines[..3],
            [
                "群主张三(10001) — owner",
                "管理员李四(10002) — admin",
                "王五(10003) — member"
            ]
        );
        assert_eq!(lines[50], "（仅显示前 50 / 共 120 名成员）");
        assert_eq!(details["status"], "ok");
        assert_eq!(details["groupId"], 20000002);
        assert_eq!(details["total"], 120);
        assert_eq!(details["shown"], 50);
        let members = details["members"].as_array().expect("members");
        assert_eq!(members.len(), 50);
        assert_eq!(members[0]["userId"], 10001);
        assert_eq!(members[0]["card"], "群主张三");
        assert_eq!(members[0]["role"], "owner");
        assert_no_onebot_fields(&details);
    }
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

/// A bad target fails without any call reaching the peer; the peer's own
/// failure, its auth refusal and its silence come back as results.
#[tokio::test]
async fn failures_against_the_sandbox_are_results() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&peer, &[EXAMPLE_GROUP]);
    if let Some(account) = config.accounts.get_mut("default") {
        account.request_timeout_ms = 300;
    }
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;

    peer.control().clear_actions();
    let (text, _, failed) = call(&gw, "qq_get_history", json!({"target": "group:x"})).await;
    assert!(failed);
    assert!(text.contains("target「group:x」无法解析"), "{text}");
    let (text, _, failed) = call(&gw, "qq_get_group_members", json!({"groupId": "abc"})).await;
    assert!(failed);
    assert_eq!(text, "参数不合法：groupId \"abc\" 无法转换成有限数字。");
    let (text, _, failed) = call(
        &gw,
        "qq_get_history",
        json!({"target": "group:20000002", "accountId": "other"}),
    )
    .await;
    assert!(failed);
    assert_eq!(
        text,
        "账号「other」未配置 ws_url/http_url，无法执行该操作。"
    );
    assert_eq!(peer.control().actions(), vec![], "no call reached the peer");

    // The peer says nothing within request_timeout_ms.
    peer.control().set_fault(Fault::Stall {
        action: Some("get_group_member_list".into()),
    });
    let (text, _, failed) = call(&gw, "qq_get_group_members", json!({"groupId": 20000002})).await;
    assert!(failed);
    assert_eq!(text, "请求超时：OneBot 实现在 300 毫秒内没有响应。");
    peer.control().clear_faults();

    // A group the bot is not in: a failure naming it.
    let (text, _, failed) = call(&gw, "qq_get_group_members", json!({"groupId": 123})).await;
    assert!(failed, "{text}");
    assert!(text.contains("123"), "{text}");

    // The peer refuses the token: the account ends in AUTH_FAILED.
    peer.control().set_fault(Fault::RejectAuth);
    peer.control().drop_connections();
    gw.wait_state("default", pb::ConnectionState::AuthFailed)
        .await;
    let (text, _, failed) = call(&gw, "qq_get_history", json!({"target": "group:20000002"})).await;
    assert!(failed);
    assert!(text.starts_with("账号「default」鉴权失败"), "{text}");
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

/// `tools.enabled = false` turns the whole service off: UNIMPLEMENTED with
/// reason TOOLS_DISABLED for both RPCs.
#[tokio::test]
async fn disabled_service_is_unimplemented() {
    let mut config = Config::default();
    config.tools.enabled = false;
    let gw = TestGateway::start(config).await;
    let mut tools = gw.tools();
    let err = tools.list_tools(pb::ListToolsRequest {}).await.unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);
    assert_eq!(reason(&err), "TOOLS_DISABLED");
    let err = tools
        .call_tool(pb::CallToolRequest {
            name: "qq_get_history".into(),
            arguments_json: r#"{"target":"group:20000002"}"#.into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);
    assert_eq!(reason(&err), "TOOLS_DISABLED");
    gw.stop().await.unwrap();
}

/// ListTools shows each tool with its aliases, hints and both schemas as
/// JSON documents; a call about nothing the gateway knows is a result.
#[tokio::test]
async fn list_and_call_over_grpc() {
    let gw = TestGateway::start(Config::default()).await;
    let mut tools = gw.tools();
    let listed = tools
        .list_tools(pb::ListToolsRequest {})
        .await
        .unwrap()
        .into_inner()
        .tools;
    let history = listed
        .iter()
        .find(|t| t.name == "qq_get_history")
        .expect("qq_get_history listed");
    assert_eq!(history.aliases, ["snowluma_get_history"]);
    assert!(history.read_only && !history.destructive);
    let members = listed
        .iter()
        .find(|t| t.name == "qq_get_group_members")
        .expect("qq_get_group_members listed");
    assert_eq!(members.aliases, ["snowluma_get_group_members"]);
    let names: Vec<&str> = listed.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        onebot_gateway_domain::tools::ToolName::ALL
            .map(onebot_gateway_domain::tools::ToolName::name)
    );
    for tool in &listed[2..] {
        let writes = matches!(
            tool.name.as_str(),
            "qq_send"
                | "qq_poke"
                | "qq_recall"
                | "qq_react"
                | "qq_set_essence"
                | "qq_mute"
                | "qq_kick"
                | "qq_set_card"
        );
        assert_eq!(
            (tool.read_only, tool.destructive),
            (!writes, writes),
            "{}",
            tool.name
        );
        assert!(tool.aliases.is_empty(), "{}", tool.name);
    }
    assert!(listed[4].read_only && !listed[4].destructive);
    for tool in &listed {
        for schema in [&tool.input_schema_json, &tool.details_schema_json] {
            let schema: Value = serde_json::from_str(schema).expect("schema is JSON");
            assert_eq!(
                schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{}",
                tool.name
            );
        }
        assert!(tool.description.contains("Never throws"), "{}", tool.name);
    }

    let out = tools
        .call_tool(pb::CallToolRequest {
            name: "qq_nope".into(),
            arguments_json: String::new(),
        })
        .await
        .expect("an unknown tool is a result, not a gRPC error")
        .into_inner();
    assert!(out.is_error);
    let details: Value = serde_json::from_str(&out.details_json).unwrap();
    assert_eq!(details["status"], "failed");
    assert_eq!(details["error"], out.text.as_str());
    assert!(out.text.starts_with("未知工具「qq_nope」"), "{}", out.text);

    let out = tools
        .call_tool(pb::CallToolRequest {
            name: "snowluma_get_history".into(),
            arguments_json: r#"{"target":"group:abc"}"#.into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(out.is_error);
    assert!(
        out.text.contains("target「group:abc」无法解析"),
        "{}",
        out.text
    );
    gw.stop().await.unwrap();
}

/// A PNG: the magic header, then deterministic noise.
fn png(len: usize) -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    while v.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        v.extend_from_slice(&state.to_le_bytes());
    }
    v.truncate(len);
    v
}

/// Seed 004's sample calls through the real gateway to a NapCat sandbox:
/// `qq_send` with text and an uploaded image (`media:<id>`), then
/// `qq_poke`.
#[tokio::test]
async fn send_and_poke_against_the_sandbox() {
    use pb::upload_media_request::Payload;
    use sha2::{Digest, Sha256};

    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;
    let bytes = png(4096);
    let upload = gw
        .media()
        .upload_media(tokio_stream::iter([
            pb::UploadMediaRequest {
                payload: Some(Payload::Header(pb::UploadMediaHeader {
                    account_id: String::new(),
                    kind: pb::MediaKind::Image as i32,
                    file_name: "chart.png".into(),
                    size: Some(bytes.len() as i64),
                    sha256: None,
                })),
            },
            pb::UploadMediaRequest {
                payload: Some(Payload::Chunk(bytes.clone())),
            },
        ]))
        .await
        .expect("UploadMedia")
        .into_inner();
    peer.control().clear_actions();

    let media = format!("media:{}", upload.media_id);
    let (text, details, failed) = call(
        &gw,
        "qq_send",
        json!({"text": "测试推送", "images": [media]}),
    )
    .await;
    assert!(!failed, "{text}");
    let ids = details["messageIds"].as_array().expect("ids").clone();
    assert_eq!(ids.len(), 2, "{details}");
    assert_eq!(
        details,
        json!({
            "status": "ok",
            "groupId": EXAMPLE_GROUP,
            "chunks": 1,
            "queued": false,
            "messageIds": ids,
            "rateLimitWaitMs": details["rateLimitWaitMs"].as_u64().expect("a wait"),
            "media": {"images": 1, "videos": 0, "file": "", "voices": 0},
        })
    );
    assert!(
        text.starts_with("已发送到群 20000002：文本 1 段，图片 1 张。"),
        "{text}"
    );
    let sends: Vec<Value> = peer
        .control()
        .actions()
        .into_iter()
        .filter(|a| a.action == "send_group_msg")
        .map(|a| a.params)
        .collect();
    assert_eq!(sends.len(), 2, "{sends:?}");
    assert_eq!(sends[0]["group_id"], EXAMPLE_GROUP);
    assert_eq!(sends[0]["message"][0]["data"]["text"], "测试推送");
    assert_eq!(sends[1]["message"][0]["type"], "image");
    let sha = hex::encode(Sha256::digest(&bytes));
    assert!(
        peer.control()
            .received_media()
            .iter()
            .any(|m| m.sha256.as_deref() == Some(sha.as_str())),
        "the image's bytes reached the peer"
    );

    peer.control().clear_actions();
    let (text, details, failed) = call(&gw, "qq_poke", json!({"userId": 10003})).await;
    assert!(!failed, "{text}");
    assert_eq!(
        details,
        json!({"status": "ok", "groupId": EXAMPLE_GROUP, "userId": 10003})
    );
    assert_eq!(text, "已在群 20000002 戳了 10003。");
    let pokes: Vec<String> = peer
        .control()
        .actions()
        .into_iter()
        .map(|a| a.action)
        .collect();
    assert_eq!(pokes, ["group_poke"]);

    // Not whitelisted: refused before the peer.
    peer.control().clear_actions();
    let (text, _, failed) = call(
        &gw,
        "qq_poke",
        json!({"userId": 10003, "groupId": 20000003}),
    )
    .await;
    assert!(failed);
    assert_eq!(text, "群 20000003 不在账号「default」的白名单中。");
    assert_eq!(peer.control().actions(), vec![]);
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

/// The conversation tools through the real gateway to a NapCat sandbox:
/// `qq_send` quoting and mentioning, then privately; `qq_get_message` with
/// the quote resolved; `qq_get_forward` with a nested bundle; `qq_recall`
/// inside QQ's window and outside it.
#[tokio::test]
async fn conversation_tools_against_the_sandbox() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&peer, &[EXAMPLE_GROUP]);
    if let Some(account) = config.accounts.get_mut("default") {
        account.users = vec![10001];
    }
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let first = peer.control().messages(ChatRef::Group(EXAMPLE_GROUP))[0]["message_id"]
        .as_i64()
        .unwrap();
    let (text, details, failed) = call(
        &gw,
        "qq_send",
        json!({"text": "同意", "replyTo": first, "mentions": [10002]}),
    )
    .await;
    assert!(!failed, "{text}");
    let sent = details["messageIds"][0].as_i64().unwrap();
    let (text, details, failed) = call(&gw, "qq_get_message", json!({"messageId": sent})).await;
    assert!(!failed, "{text}");
    assert!(
        text.ends_with("[回复 张三: 大家好]@管理员李四同意"),
        "{text}"
    );
    let segments = &details["message"]["segments"];
    assert_eq!(
        segments[0]["reply"]["quoted"]["messageId"], first,
        "{details}"
    );
    assert_eq!(segments[1]["at"]["userId"], 10002, "{details}");
    assert_eq!(segments[1]["at"]["name"], "管理员李四", "{details}");
    let (text, _, failed) = call(
        &gw,
        "qq_get_forward",
        json!({"forwardId": onebot_sandbox::EXAMPLE_FORWARD}),
    )
    .await;
    assert!(!failed, "{text}");
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.ends_with("王五(10003): [合并转发]"), "{text}");
    let (text, _, failed) = call(&gw, "qq_recall", json!({"messageId": sent})).await;
    assert!(!failed, "{text}");
    assert_eq!(text, format!("已撤回群 20000002 中的消息 {sent}。"));
    let (text, details, failed) =
        call(&gw, "qq_send", json!({"userId": 10001, "text": "私聊"})).await;
    assert!(!failed, "{text}");
    assert_eq!(details["userId"], 10001);
    // Outside the window: QQ's refusal, in its words.
    let old = details["messageIds"][0].as_i64().unwrap();
    assert!(peer.control().age_message(old, 600));
    let (text, _, failed) = call(&gw, "qq_recall", json!({"messageId": old})).await;
    assert!(failed);
    assert!(text.starts_with("OneBot 实现返回失败"), "{text}");
    assert!(text.contains("超过可撤回时间"), "{text}");
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

/// Keys of the peer's own (OneBot) objects that tool details never show.
const ONEBOT_FIELDS: &[&str] = &[
    "raw_message",
    "font",
    "real_seq",
    "real_id",
    "message_format",
    "message_id",
    "user_id",
    "post_type",
    "url",
    "base64",
];

/// Fails when any object inside `v` has a key of the peer's own objects.
fn assert_no_onebot_fields(v: &Value) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                assert!(
                    !ONEBOT_FIELDS.contains(&k.as_str()),
                    "OneBot field {k} in {v}"
                );
                assert_no_onebot_fields(child);
            }
        }
        Value::Array(items) => items.iter().for_each(assert_no_onebot_fields),
        _ => {}
    }
}

/// The proto3 JSON of a GetHistory response (camelCase names, 64-bit
/// integers as numbers, default fields kept), through the API's descriptors.
fn proto_json(response: &pb::GetHistoryResponse) -> Value {
    use prost::Message as _;
    use prost_reflect::{DescriptorPool, DynamicMessage, SerializeOptions};
    let pool = DescriptorPool::decode(pb::FILE_DESCRIPTOR_SET).expect("descriptors");
    let descriptor = pool
        .get_message_by_name("onebot.gateway.v1.GetHistoryResponse")
        .expect("GetHistoryResponse");
    let dynamic = DynamicMessage::decode(descriptor, response.encode_to_vec().as_slice())
        .expect("re-decoded");
    let options = SerializeOptions::new()
        .stringify_64_bit_integers(false)
        .skip_default_fields(false);
    dynamic
        .serialize_with_options(serde_json::value::Serializer, &options)
        .expect("JSON")
}

/// Every key of `tool` is at the same place in `proto` with the same value
/// (times compared as instants): the tool's JSON is the gRPC JSON, compacted.
fn same_names(tool: &Value, proto: &Value, path: &str) {
    match (tool, proto) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in t {
                let Some(pv) = p.get(k) else {
                    panic!("{path}.{k}: not a field of the gRPC JSON {proto}");
                };
                same_names(v, pv, &format!("{path}.{k}"));
            }
        }
        (Value::Array(t), Value::Array(p)) => {
            assert_eq!(t.len(), p.len(), "{path}: lengths");
            for (i, (tv, pv)) in t.iter().zip(p).enumerate() {
                same_names(tv, pv, &format!("{path}[{i}]"));
            }
        }
        (Value::String(t), Value::String(p)) if path.ends_with(".time") => {
            let t: jiff::Timestamp = t.parse().expect("an RFC 3339 time");
            let p: jiff::Timestamp = p.parse().expect("an RFC 3339 time");
            assert_eq!(t, p, "{path}");
        }
        _ => assert_eq!(tool, proto, "{path}"),
    }
}

/// qq_get_history's details and GetHistory's proto3 JSON for the same page
/// name every field alike: messages key by key, each sender of `senders`
/// as a message of that sender has it; and no OneBot field anywhere.
async fn assert_history_matches_grpc(gw: &TestGateway, group: i64, count: i32) {
    let (text, details, failed) = call(
        gw,
        "qq_get_history",
        json!({"target": format!("group:{group}"), "count": count}),
    )
    .await;
    assert!(!failed, "{text}");
    assert_no_onebot_fields(&details);
    let response = gw
        .messages()
        .get_history(pb::GetHistoryRequest {
            chat: Some(pb::Chat {
                kind: Some(pb::chat::Kind::GroupId(group)),
            }),
            count,
            ..Default::default()
        })
        .await
        .expect("GetHistory")
        .into_inner();
    let proto = proto_json(&response);
    same_names(&details["messages"], &proto["messages"], "messages");
    if let Some(next) = details.get("nextAnchorMessageId") {
        assert_eq!(next, &proto["nextAnchorMessageId"]);
    }
    for sender in details["senders"].as_array().expect("senders") {
        let of_sender = proto["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| {
                let mut senders = vec![m["sender"].clone()];
                for seg in m["segments"].as_array().unwrap() {
                    if let Some(q) = seg.get("reply").and_then(|r| r.get("quoted")) {
                        senders.push(q["sender"].clone());
                    }
                }
                senders
            })
            .find(|s| s["userId"] == sender["userId"])
            .expect("a message of the sender");
        same_names(sender, &of_sender, "senders[]");
    }
    // Every kind the page has is named the gRPC way.
    let kinds: std::collections::BTreeSet<String> = details["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["segments"].as_array())
        .flatten()
        .filter_map(|s| s.as_object()?.keys().next().cloned())
        .collect();
    if group == SANDBOX_GROUP {
        for kind in [
            "at", "face", "image", "record", "video", "file", "reply", "forward",
        ] {
            assert!(kinds.contains(kind), "{kind} missing from {kinds:?}");
        }
    }
}

/// The tools' details are the gateway's message model with the gRPC API's
/// JSON names, on the sandbox's group of every kind and the example group.
#[tokio::test]
async fn details_use_the_grpc_names() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP, SANDBOX_GROUP]).await;
    assert_history_matches_grpc(&gw, SANDBOX_GROUP, 40).await;
    assert_history_matches_grpc(&gw, EXAMPLE_GROUP, 20).await;
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

/// For qq_get_history with 20 messages of a conversation (text, a quote,
/// a mention, a picture), the details (JSON bytes) stay within 2.5 × the
/// result's text (bytes).
#[tokio::test]
async fn history_details_stay_within_two_and_a_half_times_the_text() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;
    let control = peer.control();
    let lines = [
        "明天下午三点的评审会议室改到 B302 了，大家记得带电脑",
        "收到，我把上周的数据也整理一下带过去",
        "评审材料放群文件了吗？我这边还没看到最新版本",
        "刚上传，文件名是 评审材料-v3，麻烦大家提前看一眼",
        "第二页的图表数据是不是有点问题，环比增长看起来不太对",
        "对，环比那一列算错了，我今晚改完再发一版",
        "好的，另外演示的时候谁来讲技术方案部分？",
        "技术方案我来讲吧，大概需要十五分钟左右",
    ];
    for i in 0..20 {
        let user = 10_001 + (i % 3);
        let text = lines[i as usize % lines.len()];
        let message = match i {
            7 => json!([
                {"type": "at", "data": {"qq": "10002"}},
                {"type": "text", "data": {"text": format!(" {text}")}}
            ]),
            13 => json!([
                {"type": "text", "data": {"text": text}},
                {"type": "image", "data": {"file": "a.png", "url": "http://127.0.0.1:9/a.png"}}
            ]),
            _ => json!([{"type": "text", "data": {"text": text}}]),
        };
        let id = control.inject_group_message(EXAMPLE_GROUP, user, message);
        if i == 15 {
            control.inject_group_message(
                EXAMPLE_GROUP,
                10_003,
                json!([
                    {"type": "reply", "data": {"id": id.to_string()}},
                    {"type": "text", "data": {"text": "同意，就按这个来"}}
                ]),
            );
        }
    }
    let (text, details, failed) = call(
        &gw,
        "qq_get_history",
        json!({"target": format!("group:{EXAMPLE_GROUP}"), "count": 20}),
    )
    .await;
    assert!(!failed, "{text}");
    assert_eq!(details["count"], 20, "{details}");
    assert!(text.contains("[回复 "), "{text}");
    assert!(text.contains("@管理员李四"), "{text}");
    let (details_len, text_len) = (details.to_string().len(), text.len());
    assert!(
        details_len * 2 <= text_len * 5,
        "details {details_len} B, text {text_len} B: {details}"
    );
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

/// THE regression of issue 41: `target` on qq_send names the chat. On an
/// account whose only whitelisted group is 20000003, a send to
/// group:20000002 is refused (not whitelisted) and nothing is sent; a send
/// to group:20000003 lands there; an unknown argument is refused before the
/// peer; string ids work.
#[tokio::test]
async fn send_goes_to_its_target_or_nowhere() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[SANDBOX_GROUP]).await;
    let sends = || -> Vec<Value> {
        peer.control()
            .actions()
            .into_iter()
            .filter(|a| a.action.starts_with("send_"))
            .map(|a| a.params)
            .collect()
    };
    peer.control().clear_actions();
    let (text, _, failed) = call(
        &gw,
        "qq_send",
        json!({"target": "group:20000002", "text": "hi"}),
    )
    .await;
    assert!(failed, "{text}");
    assert_eq!(text, "群 20000002 不在账号「default」的白名单中。");
    assert_eq!(sends(), Vec::<Value>::new(), "nothing was sent");
    // A chat argument given as nothing is refused, never the fallback.
    for args in [
        json!({"target": null, "text": "hi"}),
        json!({"target": "", "text": "hi"}),
        json!({"groupId": null, "text": "hi"}),
    ] {
        let (text, _, failed) = call(&gw, "qq_send", args.clone()).await;
        assert!(failed, "{args}: {text}");
        assert!(text.contains("不能为 null 或空字符串"), "{text}");
    }
    // target and an alias that disagree.
    let (text, _, failed) = call(
        &gw,
        "qq_send",
        json!({"target": "group:20000003", "groupId": 20000002, "text": "hi"}),
    )
    .await;
    assert!(failed);
    assert_eq!(
        text,
        "参数不合法：target \"group:20000003\" 与 groupId 20000002 指向不同的目标，请只给一个。"
    );
    // An argument the tool does not take.
    let (text, _, failed) = call(
        &gw,
        "qq_send",
        json!({"target": "group:20000003", "text": "hi", "chat": "group:20000002"}),
    )
    .await;
    assert!(failed);
    assert!(
        text.starts_with("参数不合法：qq_send 不接受参数 chat。它接受的参数："),
        "{text}"
    );
    assert_eq!(sends(), Vec::<Value>::new(), "nothing was sent");

    // The named group, with ids as strings.
    let (text, details, failed) = call(
        &gw,
        "qq_send",
        json!({"target": "group:20000003", "text": "到这里", "mentions": ["10002"]}),
    )
    .await;
    assert!(!failed, "{text}");
    assert_eq!(details["groupId"], SANDBOX_GROUP);
    let sent = sends();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["group_id"], SANDBOX_GROUP);
    let (text, details, failed) = call(
        &gw,
        "qq_poke",
        json!({"target": "group:20000003", "userId": "10003"}),
    )
    .await;
    assert!(!failed, "{text}");
    assert_eq!(
        details,
        json!({"status": "ok", "groupId": SANDBOX_GROUP, "userId": 10003})
    );
    let (text, _, failed) = call(
        &gw,
        "qq_get_group_members",
        json!({"target": "group:20000003", "limit": 5}),
    )
    .await;
    assert!(!failed, "{text}");
    assert_eq!(text.lines().count(), 6, "{text}");
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}
