//! Helpers of the Milky tests: API calls over HTTP, history walks, event streams (WebSocket
//! and SSE), the schema validator.
#![allow(dead_code)]

use std::path::Path;

use futures_util::StreamExt as _;
use onebot_sandbox::{Sandbox, SandboxConfig};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

pub async fn start() -> Sandbox {
    start_with(SandboxConfig::milky()).await
}

pub async fn start_with(cfg: SandboxConfig) -> Sandbox {
    Sandbox::start(cfg).await.expect("sandbox starts")
}

/// Calls `api` and returns the envelope (the answer must be HTTP 200).
pub async fn call(sb: &Sandbox, api: &str, body: Value) -> Value {
    let resp = reqwest::Client::new()
        .post(format!("{}/api/{api}", sb.milky_url()))
        .json(&body)
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 200, "{api}");
    resp.json().await.expect("json envelope")
}

/// Calls `api` and returns its `data` (the call must succeed).
pub async fn ok(sb: &Sandbox, api: &str, body: Value) -> Value {
    let env = call(sb, api, body).await;
    assert_eq!(env["status"], "ok", "{api}: {env}");
    assert_eq!(env["retcode"], 0);
    env["data"].clone()
}

/// Calls `api`, which must fail with `retcode`; returns its message.
pub async fn failed(sb: &Sandbox, api: &str, body: Value, retcode: i64) -> String {
    let env = call(sb, api, body).await;
    assert_eq!(env["status"], "failed", "{api}: {env}");
    assert_eq!(env["retcode"], retcode, "{api}: {env}");
    env["message"].as_str().expect("message").to_owned()
}

pub async fn download(url: &str) -> (u16, Vec<u8>) {
    let resp = reqwest::get(url).await.expect("download");
    let status = resp.status().as_u16();
    (status, resp.bytes().await.expect("body").to_vec())
}

/// Walks a chat's history from the newest message back; every seq once, pages ascending.
pub async fn walk(sb: &Sandbox, scene: &str, peer: i64, limit: i64) -> Vec<i64> {
    let mut seen = Vec::new();
    let mut start: Option<i64> = None;
    loop {
        let mut body = json!({"message_scene": scene, "peer_id": peer, "limit": limit});
        if let Some(s) = start {
            body["start_message_seq"] = json!(s);
        }
        let page = ok(sb, "get_history_messages", body).await;
        let seqs: Vec<i64> = page["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["message_seq"].as_i64().unwrap())
            .collect();
        assert!(seqs.len() <= 30, "at most 30 a page");
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "ascending: {seqs:?}");
        if let (Some(s), Some(last)) = (start, seqs.last()) {
            assert_eq!(*last, s, "the page starts at start_message_seq");
        }
        seen.splice(0..0, seqs);
        match page["next_message_seq"].as_i64() {
            Some(next) => start = Some(next),
            None => return seen,
        }
    }
}

/// A WebSocket on `/event`.
pub async fn ws_events(
    sb: &Sandbox,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>> {
    let url = format!("ws://{}/event", sb.addr());
    let (ws, _) = tokio_tungstenite::connect_async(url).await.expect("ws");
    ws
}

pub async fn next_ws_event(
    ws: &mut tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
) -> Value {
    loop {
        match ws.next().await.expect("open").expect("frame") {
            Message::Text(t) => return serde_json::from_str(t.as_str()).expect("json"),
            Message::Close(_) => panic!("closed"),
            _ => {}
        }
    }
}

/// An SSE stream on `/event`, read event by event.
pub struct Sse {
    stream: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buf: String,
}

impl Sse {
    pub async fn open(sb: &Sandbox) -> Sse {
        let resp = reqwest::get(format!("{}/event", sb.milky_url()))
            .await
            .expect("sse");
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.headers()["content-type"], "text/event-stream");
        Sse {
            stream: resp.bytes_stream().boxed(),
            buf: String::new(),
        }
    }

    /// The next `milky_event` (comments skipped).
    pub async fn next(&mut self) -> Value {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                let data: Vec<&str> = block
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .collect();
                if block.contains("event: milky_event") {
                    return serde_json::from_str(&data.join("\n")).expect("json");
                }
                continue;
            }
            let chunk = self.stream.next().await.expect("open").expect("chunk");
            self.buf
                .push_str(std::str::from_utf8(&chunk).expect("utf-8"));
        }
    }
}

/// Runs the schema validator on `record`; `None` when node or its modules are missing.
pub fn validate(record: &Path) -> Option<std::process::Output> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/milky-schema");
    if !dir.join("node_modules/@saltify/milky-types").exists() {
        return None;
    }
    std::process::Command::new("node")
        .arg(dir.join("validate.mjs"))
        .arg(record)
        .current_dir(&dir)
        .output()
        .ok()
}
