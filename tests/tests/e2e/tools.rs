//! AgentToolService end to end: the real gateway over gRPC/TCP.

use std::collections::HashMap;

use onebot_gateway::config::Config;
use onebot_gateway_client::pb;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, config_for, reason, sandbox};
use onebot_sandbox::{ChatRef, EXAMPLE_GROUP, Fault};
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
        assert_eq!(
            details,
            json!({
                "status": "ok",
                "target": "group:20000002",
                "count": 3,
                "messages": peer.control().messages(ChatRef::Group(EXAMPLE_GROUP)),
            })
        );
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
        assert_eq!(members[0]["user_id"], 10001);
        assert_eq!(members[0]["card"], "群主张三");
        assert_eq!(members[0]["role"], "owner");
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

    // The peer's own failure text, verbatim: an unknown group.
    let (text, _, failed) = call(&gw, "qq_get_group_members", json!({"groupId": 123})).await;
    assert!(failed, "{text}");
    assert_eq!(text, "OneBot 实现返回失败（retcode 1200）：群123不存在");

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
        [
            "qq_get_history",
            "qq_get_group_members",
            "qq_send",
            "qq_poke",
            "qq_get_message",
            "qq_recall",
            "qq_get_forward",
            "qq_get_media",
            "qq_search_messages",
            "qq_wait_messages"
        ]
    );
    for tool in &listed[2..] {
        let writes = matches!(tool.name.as_str(), "qq_send" | "qq_poke" | "qq_recall");
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
            "media": {"images": 1, "videos": 0, "file": ""},
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
    assert_eq!(details["quoted"]["message_id"], first);
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
