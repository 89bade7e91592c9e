//! The Streamable HTTP transport driven in process (its `handle`, no
//! sockets) over a gateway on the test kit's fake peer: the Origin check,
//! the bearer tokens and their scopes, the unknown-tool error, and the
//! session budget with idle expiry (under paused time).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::{McpBody, McpHttp, McpHttpParts, McpResponse};
use onebot_gateway_config::{Access, AccountConfig, Config, TokenConfig};
use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::auth::Authenticator;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::model::{ChatRef, InboundEvent, Message, Segment, Sender};
use onebot_gateway_domain::ports::{EventSink, PeerApi};
use onebot_gateway_domain::tools::ToolName;
use onebot_gateway_onebot::Flavor;
use onebot_gateway_testkit::{FakeApi, GatewayBuilder};

const RW: &str = "rw-token-0123456789abcdef";
const RO: &str = "ro-token-0123456789abcdef";
const PROTOCOL: &str = "2025-11-25";

struct Env {
    mcp: McpHttp,
    gw: Arc<Gateway>,
    peer: Arc<FakeApi>,
    _dir: tempfile::TempDir,
    _stop: tokio_util::sync::DropGuard,
}

fn env(tweak: impl FnOnce(&mut Config)) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.server.data_dir = dir.path().join("data");
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: Some("ws://127.0.0.1:1/".into()),
            groups: vec![20_000_003],
            ..AccountConfig::default()
        },
    );
    tweak(&mut config);
    let fake = FakeApi::new(Flavor::NapCat);
    let accounts = config
        .accounts
        .iter()
        .map(|(id, c)| Account {
            id: id.clone(),
            config: c.clone(),
            peer: fake.clone() as Arc<dyn PeerApi>,
        })
        .collect();
    let peer = fake.clone();
    let stop = CancellationToken::new();
    let auth = Authenticator::from_config(&config.auth, &|_| None)
        .unwrap()
        .map(Arc::new);
    let mcp_config = config.mcp.clone();
    let limits = config.limits.clone();
    // With the archive on (the default) the gateway has its journal and
    // archive in the data directory, so qq_search_messages is served too.
    let archive = config.archive.enabled;
    let gw = Arc::new(
        GatewayBuilder::new(config, accounts, stop.clone())
            .archive(archive)
            .build(),
    );
    let mcp = McpHttp::new(McpHttpParts {
        gw: gw.clone(),
        auth,
        config: &mcp_config,
        limits: &limits,
        requests: onebot_gateway_domain::shares::Shares::new(
            limits.max_concurrent_requests as u64,
            limits.share_of(limits.max_concurrent_requests as u64),
        ),
        loopback: true,
        shutdown: stop.child_token(),
    });
    Env {
        mcp,
        gw,
        peer,
        _dir: dir,
        _stop: stop.drop_guard(),
    }
}

fn with_tokens(config: &mut Config) {
    config.auth.tokens = vec![
        TokenConfig::inline("agent", RW, &["*"], Access::ReadWrite),
        TokenConfig::inline("reader", RO, &["*"], Access::ReadOnly),
    ];
}

fn body(value: &Value) -> McpBody {
    Full::new(Bytes::from(value.to_string()))
        .map_err(|never: Infallible| match never {})
        .boxed_unsync()
}

/// A request to the endpoint with the headers every MCP client sends.
fn request(method: http::Method, json: Option<&Value>) -> http::request::Builder {
    let builder = Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", "127.0.0.1:50051")
        .header("accept", "application/json, text/event-stream");
    match json {
        Some(_) => builder.header("content-type", "application/json"),
        None => builder,
    }
}

fn send(builder: http::request::Builder, json: Option<&Value>) -> Request<McpBody> {
    let b = match json {
        Some(v) => body(v),
        None => body(&Value::Null),
    };
    builder.body(b).unwrap()
}

fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }
    })
}

/// The JSON-RPC messages of an SSE (or JSON) answer.
async fn messages(response: McpResponse) -> Vec<Value> {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    if text.starts_with('{') {
        return vec![serde_json::from_str(&text).unwrap()];
    }
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

/// Opens a session (initialize, then initialized); returns its id.
async fn open(mcp: &McpHttp, token: Option<&str>) -> Result<String, Box<McpResponse>> {
    let init = initialize();
    let mut b = request(http::Method::POST, Some(&init));
    if let Some(t) = token {
        b = b.header("authorization", format!("Bearer {t}"));
    }
    let response = mcp.handle(send(b, Some(&init))).await;
    if response.status() != StatusCode::OK {
        return Err(Box::new(response));
    }
    let id = response
        .headers()
        .get("mcp-session-id")
        .expect("a session id")
        .to_str()
        .unwrap()
        .to_owned();
    let answer = messages(response).await;
    assert_eq!(
        answer.last().unwrap()["result"]["serverInfo"]["name"],
        "onebot-gateway"
    );
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let r = mcp
        .handle(send(in_session(&id, token, Some(&note)), Some(&note)))
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    Ok(id)
}

fn in_session(id: &str, token: Option<&str>, json: Option<&Value>) -> http::request::Builder {
    let mut b = request(http::Method::POST, json)
        .header("mcp-session-id", id)
        .header("mcp-protocol-version", PROTOCOL);
    if let Some(t) = token {
        b = b.header("authorization", format!("Bearer {t}"));
    }
    b
}

/// One request of a session; returns its answer (the last message).
async fn rpc(mcp: &McpHttp, id: &str, token: Option<&str>, method: &str, params: Value) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let response = mcp
        .handle(send(in_session(id, token, Some(&call)), Some(&call)))
        .await;
    assert_eq!(response.status(), StatusCode::OK, "{method}");
    messages(response)
        .await
        .into_iter()
        .rfind(|m| m.get("id") == Some(&json!(7)))
        .expect("an answer")
}

fn names(tools_list: &Value) -> Vec<String> {
    tools_list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_foreign_origin_gets_403_and_none_is_served() {
    let e = env(|c| c.mcp.allowed_origins = vec!["http://localhost:5173".into()]);
    assert!(open(&e.mcp, None).await.is_ok(), "no Origin: served");
    for (origin, served) in [
        ("http://localhost:5173", true),
        ("HTTP://LOCALHOST:5173", true),
        ("http://localhost:5174", false),
        ("https://evil.example", false),
        ("null", false),
    ] {
        let init = initialize();
        let r = e
            .mcp
            .handle(send(
                request(http::Method::POST, Some(&init)).header("origin", origin),
                Some(&init),
            ))
            .await;
        let expected = if served {
            StatusCode::OK
        } else {
            StatusCode::FORBIDDEN
        };
        assert_eq!(r.status(), expected, "{origin}");
    }
    // With no allowed origins every Origin is refused, before any token check.
    let e = env(with_tokens);
    let init = initialize();
    let r = e
        .mcp
        .handle(send(
            request(http::Method::POST, Some(&init)).header("origin", "http://127.0.0.1:8080"),
            Some(&init),
        ))
        .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn tokens_are_required_and_scope_the_tools() {
    let e = env(with_tokens);
    for auth in [
        None,
        Some("Bearer wrong-token-0123456789"),
        Some("Basic abc"),
    ] {
        let init = initialize();
        let mut b = request(http::Method::POST, Some(&init));
        if let Some(a) = auth {
            b = b.header("authorization", a);
        }
        let r = e.mcp.handle(send(b, Some(&init))).await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{auth:?}");
        assert_eq!(
            r.headers().get("www-authenticate").unwrap(),
            "Bearer realm=\"onebot-gateway\""
        );
    }
    let rw = open(&e.mcp, Some(RW)).await.unwrap();
    let listed = rpc(&e.mcp, &rw, Some(RW), "tools/list", json!({})).await;
    assert_eq!(names(&listed), ToolName::ALL.map(ToolName::name));
    let ro = open(&e.mcp, Some(RO)).await.unwrap();
    let listed = rpc(&e.mcp, &ro, Some(RO), "tools/list", json!({})).await;
    let reads: Vec<&str> = ToolName::ALL
        .into_iter()
        .filter(|t| !t.writes())
        .map(ToolName::name)
        .collect();
    assert_eq!(names(&listed), reads);
    // A tool not listed to the caller is the protocol's unknown tool.
    let answer = rpc(
        &e.mcp,
        &ro,
        Some(RO),
        "tools/call",
        json!({"name": "qq_send", "arguments": {"text": "hi"}}),
    )
    .await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(answer["error"]["message"], "Unknown tool: qq_send");
    // Each request carries its own token: the session id is no credential.
    let init = initialize();
    let r = e
        .mcp
        .handle(send(in_session(&rw, None, Some(&init)), Some(&init)))
        .await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn tools_carry_titles_hints_and_schemas() {
    let e = env(|_| {});
    let id = open(&e.mcp, None).await.unwrap();
    let listed = rpc(&e.mcp, &id, None, "tools/list", json!({})).await;
    let tools = listed["result"]["tools"].as_array().unwrap();
    let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap().clone();
    let history = by_name("qq_get_history");
    assert_eq!(history["title"], "Read QQ chat history");
    assert_eq!(
        history["annotations"],
        json!({"title": "Read QQ chat history", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true})
    );
    assert_eq!(history["outputSchema"]["type"], "object");
    assert_eq!(history["inputSchema"]["required"], json!([]));
    let send = by_name("qq_send");
    assert_eq!(
        send["annotations"],
        json!({"title": "Send a QQ message", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true})
    );
    let recall = by_name("qq_recall");
    assert_eq!(
        recall["annotations"],
        json!({"title": "Recall a QQ message", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": true})
    );
    // The group writes may remove or overwrite; a mute repeated starts
    // again, a kick or card repeated changes nothing more.
    for (name, title, idempotent) in [
        ("qq_react", "React to a QQ group message", true),
        ("qq_set_essence", "Mark a QQ group message as essence", true),
        (
            "qq_mute",
            "Mute a QQ group member or the whole group",
            false,
        ),
        ("qq_kick", "Remove a member from a QQ group", true),
        ("qq_set_card", "Set a QQ group member's card", true),
    ] {
        let tool = by_name(name);
        assert_eq!(
            tool["annotations"],
            json!({"title": title, "readOnlyHint": false, "destructiveHint": true, "idempotentHint": idempotent, "openWorldHint": true}),
            "{name}"
        );
        // A held action's shape is one of the output shapes.
        let shapes = tool["outputSchema"]["oneOf"].as_array().unwrap();
        assert!(
            shapes
                .iter()
                .any(|s| s["properties"]["status"]["enum"][0] == "pending_approval"),
            "{name}"
        );
    }
    let search = by_name("qq_search_messages");
    assert_eq!(
        search["annotations"],
        json!({"title": "Search archived QQ messages", "readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(
        search["outputSchema"]["oneOf"][0]["required"],
        json!(["status", "count", "senders", "messages"])
    );
    for name in [
        "qq_get_message",
        "qq_get_forward",
        "qq_get_media",
        "qq_search_messages",
        "qq_wait_messages",
        "qq_list_essence",
        "qq_list_group_files",
        "qq_get_group_file",
    ] {
        let tool = by_name(name);
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{name}");
        assert_eq!(tool["annotations"]["destructiveHint"], false, "{name}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
    }
    // A failed call: isError, structured content, the text first.
    let answer = rpc(
        &e.mcp,
        &id,
        None,
        "tools/call",
        json!({"name": "qq_poke", "arguments": {"userId": 10003, "groupId": 20000002}}),
    )
    .await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert_eq!(result["structuredContent"]["status"], "failed");
    assert_eq!(
        result["content"][0],
        json!({"type": "text", "text": result["structuredContent"]["error"]})
    );
    let unknown = rpc(
        &e.mcp,
        &id,
        None,
        "tools/call",
        json!({"name": "qq_nope", "arguments": {}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602);
}

/// qq_wait_messages over MCP marks a message the gateway read back after a
/// reconnect as the registry does: `backfilled: true` in its
/// structuredContent entry and ` （重连后补回）` after its line; a live
/// message carries neither.
#[tokio::test]
async fn backfilled_messages_are_marked_in_wait_results() {
    let e = env(|c| c.archive.enabled = false);
    let said = |id: i64, text: &str, backfilled: bool| InboundEvent::Message {
        message: Message {
            message_id: id,
            message_seq: None,
            peer_seq: None,
            time: 1_792_375_260,
            sender: Sender {
                user_id: 10001,
                nickname: "张三".into(),
                ..Sender::default()
            },
            segments: vec![Segment::Text(text.into())],
            chat: ChatRef::Group(20_000_003),
            raw: Default::default(),
        },
        self_sent: false,
        backfilled,
    };
    e.gw.events.publish("default", said(1, "断线时说的", true));
    e.gw.events.publish("default", said(2, "重连后", false));
    let id = open(&e.mcp, None).await.unwrap();
    let answer = rpc(
        &e.mcp,
        &id,
        None,
        "tools/call",
        json!({"name": "qq_wait_messages", "arguments": {"afterSequence": 0}}),
    )
    .await;
    let result = &answer["result"];
    assert_eq!(result["isError"], false, "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], "group:20000003:");
    assert!(
        lines[1].ends_with(" 张三(10001): 断线时说的 （重连后补回）"),
        "{text}"
    );
    assert!(lines[2].ends_with(" 张三(10001): 重连后"), "{text}");
    let messages = &result["structuredContent"]["messages"];
    assert_eq!(messages[0]["backfilled"], true, "{answer}");
    assert_eq!(messages[1].get("backfilled"), None, "{answer}");
}

#[tokio::test(start_paused = true)]
async fn the_session_budget_and_idle_expiry() {
    let e = env(|c| {
        c.mcp.max_sessions = 2;
        c.mcp.session_idle_timeout_ms = 1000;
        // Sessions only: no archive tasks under paused time.
        c.archive.enabled = false;
    });
    let a = open(&e.mcp, None).await.unwrap();
    let b = open(&e.mcp, None).await.unwrap();
    assert_eq!(e.mcp.open_sessions(), 2);
    let refused = open(&e.mcp, None).await.unwrap_err();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers().get("retry-after").unwrap(), "1");
    // Sessions already open go on serving.
    let listed = rpc(&e.mcp, &a, None, "tools/list", json!({})).await;
    assert!(listed["result"]["tools"].is_array());
    // A closed session gives its permit back.
    let r = e
        .mcp
        .handle(send(
            request(http::Method::DELETE, None)
                .header("mcp-session-id", &a)
                .header("mcp-protocol-version", PROTOCOL),
            None,
        ))
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let c = open(&e.mcp, None).await.unwrap();
    // Idle sessions expire and give theirs back too.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(e.mcp.open_sessions(), 0);
    for gone in [&b, &c] {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let r = e
            .mcp
            .handle(send(in_session(gone, None, Some(&call)), Some(&call)))
            .await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
    }
    assert!(open(&e.mcp, None).await.is_ok());
}

#[tokio::test]
async fn request_bodies_are_capped() {
    let e = env(|c| c.mcp.max_request_bytes = 1024);
    let id = open(&e.mcp, None).await.unwrap();
    let big = json!({
        "jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "qq_send", "arguments": {"text": "长".repeat(1000)}}
    });
    let r = e
        .mcp
        .handle(send(in_session(&id, None, Some(&big)), Some(&big)))
        .await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    // The session is unharmed.
    let listed = rpc(&e.mcp, &id, None, "tools/list", json!({})).await;
    assert!(listed["result"]["tools"].is_array());
}

/// JSON-RPC batches are not part of MCP (since 2025-06-18): a batch of tool
/// calls is refused whole, runs nothing and sends nothing, so it can never
/// run several calls on one slot of the concurrency limit.
#[tokio::test]
async fn a_batch_of_tool_calls_is_refused_and_runs_nothing() {
    let e = env(|_| {});
    let id = open(&e.mcp, None).await.unwrap();
    let call = |n: u64| {
        json!({
            "jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "qq_send", "arguments": {"target": "group:20000003", "text": "hi"}}
        })
    };
    let batch = json!([call(3), call(4)]);
    let r = e
        .mcp
        .handle(send(in_session(&id, None, Some(&batch)), Some(&batch)))
        .await;
    assert!(r.status().is_client_error(), "{}", r.status());
    assert!(e.peer.calls().is_empty(), "nothing reached the peer");
    // One call at a time is served.
    let one = rpc(&e.mcp, &id, None, "tools/call", call(5)["params"].clone()).await;
    assert_eq!(one["result"]["isError"], json!(false), "{one}");
    assert_eq!(e.peer.calls().len(), 1);
}

/// A tool's images become MCP image content after the text block, in
/// order, base64 of exactly the bytes; the details stay the structured
/// content.
#[test]
fn images_follow_the_text_as_image_content() {
    use onebot_gateway_domain::tools::ToolOutput;
    let png = bytes::Bytes::from_static(b"\x89PNG\r\n\x1a\nnot really");
    let jpeg = bytes::Bytes::from_static(b"\xff\xd8\xff\xe0jfif");
    let out = ToolOutput::ok("[图片#1][图片#2]".into(), json!({"status": "ok"})).with_images([
        ("image/png".to_owned(), png.clone()),
        ("image/jpeg".to_owned(), jpeg.clone()),
    ]);
    let result = super::handler::call_result(super::local::tool_result(out));
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(
        value["content"],
        json!([
            {"type": "text", "text": "[图片#1][图片#2]"},
            {"type": "image", "data": "iVBORw0KGgpub3QgcmVhbGx5", "mimeType": "image/png"},
            {"type": "image", "data": "/9j/4GpmaWY=", "mimeType": "image/jpeg"}
        ])
    );
    assert_eq!(value["structuredContent"], json!({"status": "ok"}));
    assert_eq!(value["isError"], false);
}

/// A group file that is an image comes over MCP as image content after
/// its line, like qq_get_media's images; a moderation tool no rule names
/// is a failed result, and nothing reaches the peer.
#[tokio::test]
async fn group_tools_over_mcp() {
    let picture = onebot_gateway_testkit::png(2048);
    let server =
        onebot_gateway_testkit::FileServer::start(vec![("/p.png".into(), picture.clone())]).await;
    let e = env(|c| {
        c.archive.enabled = false;
        c.media.allow_private_urls = true;
        c.media.peer_url_hosts.push("127.0.0.1".into());
    });
    e.peer.set_groups(Some(&[20_000_003]));
    e.peer.set_members(Some(vec![
        onebot_gateway_testkit::member(10_001, "admin"),
        onebot_gateway_testkit::member(10_003, "member"),
    ]));
    e.peer.set_file_url("pic", &server.url("/p.png"));
    let id = open(&e.mcp, None).await.unwrap();
    let answer = rpc(
        &e.mcp,
        &id,
        None,
        "tools/call",
        json!({"name": "qq_get_group_file", "arguments": {"fileId": "pic"}}),
    )
    .await;
    let result = &answer["result"];
    assert_eq!(result["isError"], false, "{answer}");
    assert_eq!(result["structuredContent"]["content"], "image", "{answer}");
    use base64::Engine as _;
    assert_eq!(
        result["content"][1],
        json!({"type": "image", "mimeType": "image/png", "data": base64::engine::general_purpose::STANDARD.encode(&picture)})
    );
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("[文件] 群文件 pic：image/png"),
        "{answer}"
    );
    let answer = rpc(
        &e.mcp,
        &id,
        None,
        "tools/call",
        json!({"name": "qq_kick", "arguments": {"userId": 10003}}),
    )
    .await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert!(
        result["structuredContent"]["error"]
            .as_str()
            .unwrap()
            .contains("[[policy.rules]]"),
        "{answer}"
    );
    assert!(e.peer.group_actions().is_empty());
}
