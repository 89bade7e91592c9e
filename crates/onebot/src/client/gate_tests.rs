//! A gated account against peers on loopback sockets: nothing reaches the
//! peer while the gate is closed (no dial, no HTTP request, calls fail
//! offline at once), the account connects when it opens, its link closes
//! when it closes (the peer sees the close), and it connects again when it
//! opens again, owing no back-off delay (the back-off here is a minute,
//! longer than any wait). Reverse handshakes are refused 503 while it is
//! closed.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_util::sync::CancellationToken;

use super::AccountClient;
use super::inner::STANDBY;
use crate::transport::reverse::{self, ReverseAccounts};
use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::lease::Gate;
use onebot_gateway_domain::model::{AccountStatus, ConnState, InboundEvent, TransportKind};
use onebot_gateway_domain::ports::{EventSink, PeerApi};

/// Longest wait for something to happen (a failure guard, not a pause).
const WAIT: Duration = Duration::from_secs(10);

struct NoSink;

impl EventSink for NoSink {
    fn publish(&self, _: &str, _: InboundEvent) {}
}

/// What a peer saw.
#[derive(Clone, Default)]
struct Seen {
    /// Connections accepted (TCP).
    accepted: Arc<watch::Sender<usize>>,
    /// Connections (WebSocket sessions) that ended.
    closed: Arc<watch::Sender<usize>>,
    /// Actions received, identity calls included.
    actions: Arc<Mutex<Vec<String>>>,
}

impl Seen {
    fn accepted(&self) -> usize {
        *self.accepted.borrow()
    }

    fn actions(&self) -> Vec<String> {
        self.actions.lock().clone()
    }

    async fn closed_at_least(&self, n: usize) {
        let mut rx = self.closed.subscribe();
        tokio::time::timeout(WAIT, rx.wait_for(|c| *c >= n))
            .await
            .expect("the peer sees the close in time")
            .expect("watch");
    }
}

/// The answer to `action`, with `echo`.
fn answer(action: &str, echo: &Value) -> Value {
    let data = match action {
        "get_login_info" => json!({"user_id": 42, "nickname": "bot"}),
        "get_version_info" => json!({"app_name": "NapCat.Onebot"}),
        _ => json!([{"group_id": 1}]),
    };
    json!({"status": "ok", "retcode": 0, "data": data, "echo": echo})
}

/// Plays the implementation on an accepted WebSocket until it ends.
async fn serve_ws<S>(mut ws: tokio_tungstenite::WebSocketStream<S>, seen: Seen)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    while let Some(Ok(msg)) = ws.next().await {
        let WsMessage::Text(text) = msg else {
            continue;
        };
        let req: Value = serde_json::from_str(text.as_str()).expect("request json");
        let action = req["action"].as_str().unwrap_or_default().to_string();
        seen.actions.lock().push(action.clone());
        let reply = answer(&action, &req["echo"]);
        if ws.send(WsMessage::text(reply.to_string())).await.is_err() {
            break;
        }
    }
    seen.closed.send_modify(|c| *c += 1);
}

/// A forward WebSocket peer on loopback.
async fn ws_peer() -> (SocketAddr, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Seen::default();
    let s = seen.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            s.accepted.send_modify(|c| *c += 1);
            let s = s.clone();
            tokio::spawn(async move {
                if let Ok(ws) = tokio_tungstenite::accept_async(tcp).await {
                    serve_ws(ws, s).await;
                }
            });
        }
    });
    (addr, seen)
}

/// An HTTP peer on loopback: `POST /<action>`, answered with keep-alive.
async fn http_peer() -> (SocketAddr, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Seen::default();
    let s = seen.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            s.accepted.send_modify(|c| *c += 1);
            tokio::spawn(serve_http(tcp, s.clone()));
        }
    });
    (addr, seen)
}

async fn serve_http(mut tcp: TcpStream, seen: Seen) {
    let mut buf = Vec::new();
    loop {
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let mut chunk = [0u8; 4096];
            match tcp.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
        let length = head
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse::<usize>().ok())?
            })
            .unwrap_or(0);
        while buf.len() < head_end + length {
            let mut chunk = [0u8; 4096];
            match tcp.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        buf.drain(..head_end + length);
        let path = head.split_whitespace().nth(1).unwrap_or("/");
        let action = path.trim_start_matches('/').to_string();
        seen.actions.lock().push(action.clone());
        let body = answer(&action, &Value::Null).to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        if tcp.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// An account config whose back-off (a minute) is longer than any wait.
fn slow_backoff(cfg: AccountConfig) -> AccountConfig {
    AccountConfig {
        // A fixed anchor and flavor: no history probe on connect.
        history_anchor: "message_seq".into(),
        flavor: "napcat".into(),
        backoff_min_ms: 60_000,
        backoff_max_ms: 60_000,
        connect_wait_ms: 5_000,
        ..cfg
    }
}

fn start(cfg: AccountConfig, gate: Gate) -> (Arc<AccountClient>, CancellationToken) {
    let cancel = CancellationToken::new();
    let client = AccountClient::start_gated(
        "default",
        cfg,
        1024 * 1024,
        Arc::new(NoSink),
        cancel.clone(),
        None,
        gate,
    )
    .expect("start");
    (client, cancel)
}

async fn until(client: &AccountClient, what: &str, done: impl Fn(&AccountStatus) -> bool) {
    let mut rx = client.watch_status();
    tokio::time::timeout(WAIT, rx.wait_for(|s| done(s)))
        .await
        .unwrap_or_else(|_| panic!("{what}: not reached, status {:?}", client.status()))
        .expect("status watch");
}

fn standing_by(s: &AccountStatus) -> bool {
    s.state == ConnState::Connecting && !s.online && s.last_error == STANDBY
}

fn connected(s: &AccountStatus) -> bool {
    s.state == ConnState::Connected && s.online
}

fn dl() -> Deadline {
    Deadline::after(Duration::from_secs(5))
}

/// A call while the gate is closed fails offline at once, reaching no peer.
async fn fails_offline(client: &AccountClient) {
    let started = tokio::time::Instant::now();
    let err = client.get_groups(dl()).await.unwrap_err();
    assert_eq!(err.kind, Kind::AccountOffline, "{err:?}");
    assert!(err.message.contains("standby"), "{err:?}");
    // Not after `connect_wait_ms` (5 s): at once.
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn forward_websocket_connects_only_while_the_gate_is_open() {
    let (addr, seen) = ws_peer().await;
    let gate = watch::Sender::new(false);
    let (client, cancel) = start(
        slow_backoff(AccountConfig {
            ws_url: Some(format!("ws://{addr}/")),
            ..AccountConfig::default()
        }),
        Gate::Watch(gate.subscribe()),
    );
    assert!(!client.gate_open());
    until(&client, "standby", standing_by).await;
    fails_offline(&client).await;
    assert_eq!(seen.accepted(), 0, "no dial while the gate is closed");

    gate.send_replace(true);
    until(&client, "connected", connected).await;
    assert_eq!(client.status().transport, TransportKind::ForwardWs);
    assert!(client.status().last_error.is_empty());
    assert_eq!(client.get_groups(dl()).await.unwrap().len(), 1);
    assert_eq!(seen.accepted(), 1);

    gate.send_replace(false);
    seen.closed_at_least(1).await;
    until(&client, "standby again", standing_by).await;
    let before = seen.actions();
    fails_offline(&client).await;
    assert_eq!(seen.actions(), before, "nothing sent while closed");
    assert_eq!(seen.accepted(), 1);

    gate.send_replace(true);
    until(&client, "connected again", connected).await;
    assert_eq!(seen.accepted(), 2);
    assert_eq!(client.get_groups(dl()).await.unwrap().len(), 1);
    cancel.cancel();
}

#[tokio::test]
async fn http_is_asked_only_while_the_gate_is_open() {
    let (addr, seen) = http_peer().await;
    let gate = watch::Sender::new(false);
    let (client, cancel) = start(
        slow_backoff(AccountConfig {
            http_url: Some(format!("http://{addr}/")),
            ..AccountConfig::default()
        }),
        Gate::Watch(gate.subscribe()),
    );
    until(&client, "standby", standing_by).await;
    fails_offline(&client).await;
    assert_eq!(seen.accepted(), 0, "no request while the gate is closed");

    gate.send_replace(true);
    until(&client, "connected", connected).await;
    assert_eq!(client.status().transport, TransportKind::Http);
    assert_eq!(client.get_groups(dl()).await.unwrap().len(), 1);
    assert_eq!(seen.actions().last().unwrap(), "get_group_list");

    gate.send_replace(false);
    until(&client, "standby again", standing_by).await;
    let before = seen.actions();
    fails_offline(&client).await;
    assert_eq!(seen.actions(), before, "no request while closed");

    gate.send_replace(true);
    until(&client, "connected again", connected).await;
    // Identified again over HTTP.
    let after = seen.actions();
    assert_eq!(
        &after[before.len()..],
        ["get_login_info", "get_version_info"]
    );
    assert_eq!(client.get_groups(dl()).await.unwrap().len(), 1);
    cancel.cancel();
}

/// Dials the reverse listener as an implementation would; the HTTP status
/// when the handshake is refused.
async fn dial_reverse(
    addr: SocketAddr,
) -> Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
    (u16, String),
> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{addr}/onebot/v11/ws")
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("X-Self-ID", "42".parse().unwrap());
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            let body = resp
                .body()
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).to_string())
                .unwrap_or_default();
            Err((resp.status().as_u16(), body))
        }
        Err(e) => panic!("dial failed: {e}"),
    }
}

#[tokio::test]
async fn reverse_handshakes_are_refused_while_the_gate_is_closed() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let gate = watch::Sender::new(false);
    let (client, cancel) = start(
        slow_backoff(AccountConfig {
            reverse: true,
            self_id: Some(42),
            ..AccountConfig::default()
        }),
        Gate::Watch(gate.subscribe()),
    );
    let mut accounts = ReverseAccounts::new();
    accounts.insert(42, client.clone());
    reverse::spawn(
        listener,
        "/onebot/v11/ws".into(),
        accounts,
        Duration::from_secs(5),
        cancel.clone(),
    );
    until(&client, "standby", standing_by).await;
    let Err((status, reason)) = dial_reverse(addr).await else {
        panic!("accepted while the gate is closed");
    };
    assert_eq!(status, 503);
    assert!(reason.contains("standby"), "{reason}");
    fails_offline(&client).await;

    let seen = Seen::default();
    for round in 1..=2 {
        gate.send_replace(true);
        until(&client, "waiting for the dial", |s| {
            s.state == ConnState::Connecting && s.last_error.is_empty()
        })
        .await;
        let ws = dial_reverse(addr).await.expect("accepted while open");
        let peer = tokio::spawn(serve_ws(ws, seen.clone()));
        until(&client, "reverse connected", connected).await;
        assert_eq!(client.status().transport, TransportKind::ReverseWs);
        assert_eq!(client.get_groups(dl()).await.unwrap().len(), 1);

        gate.send_replace(false);
        seen.closed_at_least(round).await;
        peer.await.unwrap();
        until(&client, "standby again", standing_by).await;
        let before = seen.actions();
        fails_offline(&client).await;
        assert_eq!(seen.actions(), before);
        assert_eq!(dial_reverse(addr).await.err().map(|(s, _)| s), Some(503));
    }
    cancel.cancel();
}
