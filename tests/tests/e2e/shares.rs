//! Fair shares of the shared budgets, and MCP sessions owned by their
//! token: one client (a token) holding its whole share of stalled calls or
//! MCP sessions leaves the others served; a unary call whose request
//! message never arrives is dropped; an upload leases the quota its bytes
//! take, not what it declares; another token cannot use, follow or close a
//! session; MCP tool calls take slots of the same concurrency limit as
//! gRPC calls. Real gRPC and MCP over TCP to a gateway with a sandbox peer.

use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_gateway_config::{Access, Config, TokenConfig};
use onebot_gateway_tests::{SandboxFlavor, TestGateway, config_for, reason, sandbox};
use onebot_sandbox::SANDBOX_GROUP;
use serde_json::{Value, json};
use tonic::transport::Channel;
use tonic::{Code, Request, Status};
use tonic_types::StatusExt;

const A: &str = "reader-a-0123456789abcdef";
const B: &str = "reader-b-0123456789abcdef";
const PROTOCOL: &str = "2025-11-25";

/// Two read-only tokens, `a` and `b`, on every account.
fn two_readers(mut config: Config) -> Config {
    config.auth.tokens = vec![
        TokenConfig::inline("a", A, &["*"], Access::ReadOnly),
        TokenConfig::inline("b", B, &["*"], Access::ReadOnly),
    ];
    config
}

fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut req = Request::new(message);
    req.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    req
}

/// A ListGroups call whose request message never comes: the HTTP/2 stream
/// is opened (headers sent) and its body stays open and empty.
async fn stalled_list_groups(
    channel: Channel,
    token: &str,
) -> Result<tonic::Response<pb::ListGroupsResponse>, Status> {
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let body = futures_util::stream::pending::<pb::ListGroupsRequest>();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static(
        "/onebot.gateway.v1.GroupService/ListGroups",
    );
    grpc.client_streaming(
        authed(body, token),
        path,
        tonic_prost::ProstCodec::default(),
    )
    .await
}

async fn list_groups(gw: &TestGateway, token: &str) -> Result<pb::ListGroupsResponse, Status> {
    tokio::time::timeout(
        Duration::from_secs(5),
        gw.groups()
            .list_groups(authed(pb::ListGroupsRequest::default(), token)),
    )
    .await
    .expect("answered within 5 s")
    .map(tonic::Response::into_inner)
}

/// Waits until the `default` account is connected, re-reading its state
/// at each announcement of its health name (both with token `b`: account
/// health names are hidden from callers without a token).
async fn connected(gw: &TestGateway) {
    let wait = async {
        let mut watch = gw
            .health()
            .watch(authed(
                tonic_health::pb::HealthCheckRequest {
                    service: "onebot.gateway.v1.account.default".into(),
                },
                B,
            ))
            .await
            .expect("health watch")
            .into_inner();
        loop {
            let accounts = gw
                .accounts()
                .list_accounts(authed(pb::ListAccountsRequest {}, B))
                .await
                .expect("ListAccounts")
                .into_inner()
                .accounts;
            if accounts
                .iter()
                .any(|a| a.state == pb::ConnectionState::Connected as i32)
            {
                return;
            }
            if !matches!(watch.message().await, Ok(Some(_))) {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), wait)
        .await
        .expect("the account connects");
}

fn limit(status: &Status) -> String {
    status
        .get_error_details()
        .error_info()
        .and_then(|i| i.metadata.get("limit").cloned())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_token_holding_its_share_of_stalled_calls_leaves_another_served() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let mut config = two_readers(config_for(&peer, &[SANDBOX_GROUP]));
    // Every stalled call on one connection; none dropped while the test runs.
    config.limits.max_concurrent_streams_per_connection = 1024;
    config.limits.first_message_timeout_ms = 600_000;
    let gw = TestGateway::start(config).await;
    connected(&gw).await;
    let total = onebot_gateway_config::LimitsConfig::default().max_concurrent_requests;

    // a opens as many stalled calls as the whole limit: those past its
    // share (half) are refused at once, the rest hold their slots.
    let (tx, mut refused) = tokio::sync::mpsc::unbounded_channel();
    let mut held = Vec::new();
    for _ in 0..total {
        let (channel, tx) = (gw.channel.clone(), tx.clone());
        held.push(tokio::spawn(async move {
            let _ = tx.send(stalled_list_groups(channel, A).await);
        }));
    }
    let share = total / 2;
    for _ in 0..total - share {
        let result = tokio::time::timeout(Duration::from_secs(30), refused.recv())
            .await
            .expect("a's calls past its share are refused at once")
            .expect("a result");
        let status = result.expect_err("refused");
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
        assert_eq!(reason(&status), "OVERLOADED");
        assert_eq!(limit(&status), "concurrency_per_client");
        assert!(status.get_error_details().retry_info().is_some());
    }
    // b is served at once, while a holds its share.
    list_groups(&gw, B).await.expect("b is served");
    // a itself is at its share.
    let status = list_groups(&gw, A).await.unwrap_err();
    assert_eq!(limit(&status), "concurrency_per_client", "{status:?}");
    assert!(refused.try_recv().is_err(), "a's admitted calls still held");
    for h in held {
        h.abort();
    }
}

#[tokio::test]
async fn a_unary_call_whose_message_never_arrives_is_dropped_and_frees_its_slot() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let mut config = two_readers(config_for(&peer, &[SANDBOX_GROUP]));
    config.limits.max_concurrent_requests = 1;
    config.limits.max_share_per_client = 1.0;
    config.limits.first_message_timeout_ms = 300;
    let gw = TestGateway::start(config).await;
    connected(&gw).await;
    let status = tokio::time::timeout(
        Duration::from_secs(30),
        stalled_list_groups(gw.channel.clone(), A),
    )
    .await
    .expect("the stalled call is dropped well before the request timeout")
    .unwrap_err();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert_eq!(reason(&status), "DEADLINE_EXCEEDED");
    let info = status.get_error_details().error_info().unwrap().clone();
    assert_eq!(info.metadata["first_message_timeout_ms"], "300");
    // Its only slot is free again.
    list_groups(&gw, B).await.expect("served");
}

/// Waits until a temporary upload file exists in `dir` (an upload has
/// begun), woken by the kernel's notices of changes there.
async fn upload_begun(dir: &std::path::Path) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |_: notify::Result<notify::Event>| {
        let _ = tx.send(());
    })
    .expect("an inotify watcher");
    notify::Watcher::watch(&mut watcher, dir, notify::RecursiveMode::NonRecursive)
        .expect("watch the staging directory");
    let begun = || {
        std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
    };
    while !begun() {
        tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("the upload begins")
            .expect("the watcher lives");
    }
}

fn upload_header(size: i64) -> pb::UploadMediaRequest {
    pb::UploadMediaRequest {
        payload: Some(pb::upload_media_request::Payload::Header(
            pb::UploadMediaHeader {
                account_id: String::new(),
                kind: pb::MediaKind::File as i32,
                file_name: "f.bin".into(),
                size: Some(size),
                sha256: None,
            },
        )),
    }
}

fn chunk(bytes: Vec<u8>) -> pb::UploadMediaRequest {
    pb::UploadMediaRequest {
        payload: Some(pb::upload_media_request::Payload::Chunk(bytes)),
    }
}

#[tokio::test]
async fn an_upload_leases_the_bytes_that_arrived_not_what_it_declares() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&peer, &[SANDBOX_GROUP]);
    // Room for one largest upload (30 MiB) and 1 MiB more.
    config.media.staging_quota_bytes = 31 << 20;
    config.limits.max_share_per_client = 1.0;
    let gw = TestGateway::start(config).await;

    // Declares the largest size, sends 10 bytes, and stalls.
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tx.send(upload_header(30 << 20)).await.unwrap();
    tx.send(chunk(vec![0; 10])).await.unwrap();
    let mut media = gw.media();
    let stalled = tokio::spawn(async move {
        media
            .upload_media(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
    });
    upload_begun(&gw.data_dir.join("staging")).await;

    // 2 MiB more fit: the stalled upload holds 10 bytes, not 30 MiB.
    let content = vec![7u8; 2 << 20];
    let staged = gw
        .media()
        .upload_media(tokio_stream::iter(vec![
            upload_header(content.len() as i64),
            chunk(content),
        ]))
        .await
        .expect("the second upload fits")
        .into_inner();
    assert_eq!(staged.size, 2 << 20);
    drop(tx);
    let _ = stalled.await;
}

/// An MCP client over HTTP/1.1 with a token.
struct Mcp {
    http: reqwest::Client,
    url: String,
    token: &'static str,
}

impl Mcp {
    fn new(gw: &TestGateway, token: &'static str) -> Mcp {
        Mcp {
            http: reqwest::Client::builder().http1_only().build().unwrap(),
            url: format!("http://{}/mcp", gw.addr),
            token,
        }
    }

    fn request(&self, method: reqwest::Method, session: Option<&str>) -> reqwest::RequestBuilder {
        let mut r = self
            .http
            .request(method, &self.url)
            .bearer_auth(self.token)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", PROTOCOL);
        if let Some(id) = session {
            r = r.header("mcp-session-id", id);
        }
        r
    }

    /// `initialize`: the session id, or the refusal's status and
    /// `Retry-After`.
    async fn open(&self) -> Result<String, (u16, Option<String>)> {
        let init = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}
        });
        let r = self
            .request(reqwest::Method::POST, None)
            .body(init.to_string())
            .send()
            .await
            .expect("initialize");
        if r.status() != 200 {
            let retry = r
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().to_owned());
            return Err((r.status().as_u16(), retry));
        }
        let id = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        r.text().await.unwrap();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = self
            .request(reqwest::Method::POST, Some(&id))
            .body(note.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 202);
        Ok(id)
    }

    fn rpc(&self, session: &str, method: &str, params: Value) -> reqwest::RequestBuilder {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
        self.request(reqwest::Method::POST, Some(session))
            .body(body.to_string())
    }
}

/// The JSON-RPC answer with id 9 of an SSE (or JSON) body.
fn answer(text: &str) -> Value {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .chain(std::iter::once(text))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| m["id"] == 9)
        .unwrap_or_else(|| panic!("no answer: {text}"))
}

#[tokio::test]
async fn one_token_holding_its_share_of_mcp_sessions_leaves_another_served() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::start(two_readers(config_for(&peer, &[SANDBOX_GROUP]))).await;
    let budget = onebot_gateway_config::McpConfig::default().max_sessions;
    let (a, b) = (Mcp::new(&gw, A), Mcp::new(&gw, B));
    // a tries to open every session there is: half are its share.
    let mut opened = Vec::new();
    let mut refusals = Vec::new();
    for _ in 0..budget {
        match a.open().await {
            Ok(id) => opened.push(id),
            Err(refusal) => refusals.push(refusal),
        }
    }
    assert_eq!(opened.len(), budget / 2, "a holds exactly its share");
    assert!(
        refusals.iter().all(|r| *r == (503, Some("1".to_owned()))),
        "{refusals:?}"
    );
    // b opens its sessions at once and is served in them.
    let id = b.open().await.expect("b gets a session");
    let text = b
        .rpc(&id, "tools/list", json!({}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(answer(&text)["result"]["tools"].is_array(), "{text}");
    // Closing one of a's sessions gives a its slot back.
    let r = a
        .request(reqwest::Method::DELETE, Some(&opened[0]))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    a.open().await.expect("a's freed slot");
}

#[tokio::test]
async fn a_session_belongs_to_the_token_that_opened_it() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::start(two_readers(config_for(&peer, &[SANDBOX_GROUP]))).await;
    let (a, b) = (Mcp::new(&gw, A), Mcp::new(&gw, B));
    let id = a.open().await.expect("a's session");

    // b naming a's session: 404 on POST, GET and DELETE.
    let post = b.rpc(&id, "tools/list", json!({})).send().await.unwrap();
    assert_eq!(post.status(), 404);
    let get = b
        .request(reqwest::Method::GET, Some(&id))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 404);
    let delete = b
        .request(reqwest::Method::DELETE, Some(&id))
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), 404);

    // The session is a's still, and open.
    let text = a
        .rpc(&id, "tools/list", json!({}))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(answer(&text)["result"]["tools"].is_array(), "{text}");
}

#[tokio::test]
async fn mcp_tool_calls_take_slots_of_the_concurrency_limit() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let mut config = two_readers(config_for(&peer, &[SANDBOX_GROUP]));
    config.limits.max_concurrent_requests = 1;
    config.limits.max_share_per_client = 1.0;
    let gw = TestGateway::start(config).await;
    connected(&gw).await;
    let control = peer.control();
    let a = Mcp::new(&gw, A);
    let id = a.open().await.expect("a session");
    control.inject_group_message(SANDBOX_GROUP, 10001, json!("first"));
    let first = answer(
        &a.rpc(
            &id,
            "tools/call",
            json!({"name": "qq_wait_messages", "arguments": {"afterSequence": 0, "timeoutSecs": 60}}),
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap(),
    );
    let last = first["result"]["structuredContent"]["lastSequence"]
        .as_u64()
        .unwrap_or_else(|| panic!("{first}"));

    // A tool call waiting for the next message holds the only slot (its
    // response has begun: the slot was taken before it).
    let waiting = a
        .rpc(
            &id,
            "tools/call",
            json!({"name": "qq_wait_messages", "arguments": {"afterSequence": last, "timeoutSecs": 60}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(waiting.status(), 200);
    let status = list_groups(&gw, B).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(limit(&status), "concurrency");
    // Another tool call meanwhile: 503 with Retry-After.
    let refused = a
        .rpc(
            &id,
            "tools/call",
            json!({"name": "qq_list_groups", "arguments": {}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 503);
    assert_eq!(refused.headers()["retry-after"], "1");

    control.inject_group_message(SANDBOX_GROUP, 10001, json!("next"));
    let woke = answer(&waiting.text().await.unwrap());
    assert_eq!(woke["result"]["isError"], false, "{woke}");
}
