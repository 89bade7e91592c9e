//! Test helpers: a raw WebSocket client (tokio-tungstenite) and a raw HTTP/1.1 client.
#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use onebot_sandbox::{Flavor, Sandbox, SandboxConfig};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub async fn start(flavor: Flavor) -> Sandbox {
    start_with(SandboxConfig::for_flavor(flavor)).await
}

pub async fn start_with(cfg: SandboxConfig) -> Sandbox {
    Sandbox::start(cfg).await.expect("sandbox starts")
}

/// A raw OneBot WebSocket client.
pub struct Client<S> {
    pub ws: WebSocketStream<S>,
    next_echo: u64,
    /// Event frames read while waiting for replies.
    pub events: Vec<Value>,
}

pub type TcpClient = Client<MaybeTlsStream<TcpStream>>;

/// Connects to `url`, optionally with an `Authorization` header.
pub async fn connect(
    url: &str,
    auth: Option<&str>,
) -> Result<TcpClient, tokio_tungstenite::tungstenite::Error> {
    let mut req = url.into_client_request()?;
    if let Some(a) = auth {
        req.headers_mut()
            .insert("Authorization", HeaderValue::from_str(a).unwrap());
    }
    let (ws, _) = tokio_tungstenite::connect_async(req).await?;
    Ok(Client::new(ws))
}

/// Connects to the sandbox's Universal endpoint and consumes the greeting frames.
pub async fn universal(sb: &Sandbox) -> TcpClient {
    let mut c = connect(&sb.ws_url(), None).await.expect("ws connects");
    let first = c.recv().await.expect("greeting");
    assert_eq!(first["meta_event_type"], "lifecycle");
    assert_eq!(first["sub_type"], "connect");
    if sb.control().flavor() == Flavor::SnowLuma {
        assert_eq!(c.recv().await.unwrap()["sub_type"], "enable");
        assert_eq!(c.recv().await.unwrap()["meta_event_type"], "heartbeat");
    }
    c
}

impl<S: AsyncRead + AsyncWrite + Unpin> Client<S> {
    pub fn new(ws: WebSocketStream<S>) -> Self {
        Client {
            ws,
            next_echo: 1,
            events: Vec::new(),
        }
    }

    pub async fn send_json(&mut self, v: &Value) {
        self.ws
            .send(Message::Text(v.to_string().into()))
            .await
            .expect("send");
    }

    pub async fn send_raw(&mut self, m: Message) {
        self.ws.send(m).await.expect("send");
    }

    /// Next text frame as JSON; `None` when the connection ended.
    pub async fn recv(&mut self) -> Option<Value> {
        loop {
            match self.ws.next().await? {
                Ok(Message::Text(t)) => {
                    return Some(serde_json::from_str(&t).expect("peer sends JSON"));
                }
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => continue,
            }
        }
    }

    /// Next raw message (including close frames); `None` when the stream ended.
    pub async fn recv_message(&mut self) -> Option<Message> {
        self.ws.next().await?.ok()
    }

    /// Next frame that is not an event.
    pub async fn recv_reply(&mut self) -> Option<Value> {
        loop {
            let v = self.recv().await?;
            if v.get("post_type").is_some() {
                self.events.push(v);
                continue;
            }
            return Some(v);
        }
    }

    /// Next event frame (buffered ones first), skipping heartbeats.
    pub async fn recv_event(&mut self) -> Option<Value> {
        if let Some(i) = self
            .events
            .iter()
            .position(|e| e["meta_event_type"] != "heartbeat")
        {
            return Some(self.events.remove(i));
        }
        loop {
            let v = self.recv().await?;
            if v.get("post_type").is_some() && v["meta_event_type"] != "heartbeat" {
                return Some(v);
            }
        }
    }

    /// Sends an action with a fresh numeric echo and waits for the reply carrying it
    /// (numeric or stringified).
    pub async fn call(&mut self, action: &str, params: Value) -> Value {
        let echo = self.next_echo;
        self.next_echo += 1;
        self.send_json(&json!({"action": action, "params": params, "echo": echo}))
            .await;
        loop {
            let v = self.recv_reply().await.expect("reply before close");
            if v["echo"] == json!(echo) || v["echo"] == json!(echo.to_string()) {
                return v;
            }
        }
    }

    /// `call`, asserting success, returning `data`.
    pub async fn ok(&mut self, action: &str, params: Value) -> Value {
        let r = self.call(action, params).await;
        assert_eq!(r["status"], "ok", "{action} failed: {r}");
        assert_eq!(r["retcode"], 0);
        r["data"].clone()
    }
}

/// A minimal HTTP/1.1 request over a fresh TCP connection; returns (status, body).
pub async fn http(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).await.expect("tcp connects");
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8(out).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, body.to_owned())
}

/// POST JSON, parse the JSON answer.
pub async fn post(addr: std::net::SocketAddr, path: &str, body: Value) -> (u16, Value) {
    let (status, text) = http(
        addr,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        &body.to_string(),
    )
    .await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}
