//! A gated account: nothing reaches the peer while the gate is closed (no
//! event connection, no API request; calls fail offline at once), the event
//! connection opens when it opens, is dropped when it closes (the peer sees
//! the close), and opens again when it opens again, owing no back-off delay
//! (the back-off here is a minute, longer than any wait). The sandbox is
//! reached through a relay on loopback that counts the connections.

use std::net::SocketAddr;

use onebot_gateway_domain::lease::Gate;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::*;

/// What the relay saw.
#[derive(Clone, Default)]
struct Seen {
    /// Connections accepted (event and API).
    accepted: Arc<watch::Sender<usize>>,
    /// Connections the client closed.
    closed: Arc<watch::Sender<usize>>,
}

impl Seen {
    async fn closed_at_least(&self, n: usize) {
        let mut rx = self.closed.subscribe();
        tokio::time::timeout(WAIT, rx.wait_for(|c| *c >= n))
            .await
            .expect("the peer sees the close in time")
            .expect("watch");
    }
}

/// Relays every connection to `upstream`, counting them. The event
/// connection ends only when the client drops it (API connections stay
/// pooled), so a close seen here is the event connection's. An
/// HTTP/1.1 connection may carry API calls and then the event stream.
async fn relay(upstream: SocketAddr) -> (SocketAddr, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Seen::default();
    let s = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            s.accepted.send_modify(|c| *c += 1);
            let s = s.clone();
            tokio::spawn(async move {
                let Ok(mut server) = TcpStream::connect(upstream).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                s.closed.send_modify(|c| *c += 1);
            });
        }
    });
    (addr, seen)
}

fn calls(name: &str) -> usize {
    recorded(name)
        .iter()
        .filter(|l| l["kind"] == "call")
        .count()
}

/// A call while the gate is closed fails offline at once, sending nothing.
async fn fails_offline(client: &MilkyClient, name: &str) {
    let before = calls(name);
    let e = client.get_groups(deadline()).await.unwrap_err();
    assert_eq!(e.kind, Kind::AccountOffline, "{e:?}");
    assert!(e.message.contains("standby"), "{e:?}");
    assert_eq!(calls(name), before, "no API request while closed");
}

fn standing_by(s: &AccountStatus) -> bool {
    s.state == ConnState::Connecting
        && !s.online
        && s.last_error == "standby: another gateway leads this account"
}

async fn gated(events: MilkyEvents, name: &'static str) {
    let record = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("milky-adapter-{name}.jsonl"));
    let _ = std::fs::remove_file(&record);
    let sandbox = Sandbox::start(SandboxConfig {
        milky_record: Some(record),
        ..SandboxConfig::milky()
    })
    .await
    .expect("sandbox starts");
    let upstream: SocketAddr = sandbox
        .milky_url()
        .trim_start_matches("http://")
        .parse()
        .unwrap();
    let (addr, seen) = relay(upstream).await;
    let gate = watch::Sender::new(false);
    let (tx, _rx) = mpsc::unbounded_channel();
    let shutdown = CancellationToken::new();
    let client = MilkyClient::start_gated(
        "milky",
        AccountConfig {
            milky_url: Some(format!("http://{addr}")),
            milky_events: events,
            backoff_min_ms: 60_000,
            backoff_max_ms: 60_000,
            ..AccountConfig::default()
        },
        1024 * 1024,
        Arc::new(Sink(tx)),
        shutdown.clone(),
        Gate::Watch(gate.subscribe()),
    )
    .expect("client starts");

    status_until(&client, standing_by).await;
    fails_offline(&client, name).await;
    assert_eq!(*seen.accepted.borrow(), 0, "no connection while closed");

    let peer = sandbox.control();
    assert_eq!(peer.connections(), 0, "no event stream while closed");
    for round in 1..=2 {
        gate.send_replace(true);
        status_until(&client, |s| s.state == ConnState::Connected && s.online).await;
        // Round 2: the first stream may still be counted while it winds down.
        assert!(peer.connections() >= 1, "the event stream is open");
        assert!(!client.get_groups(deadline()).await.unwrap().is_empty());

        gate.send_replace(false);
        seen.closed_at_least(round).await;
        status_until(&client, standing_by).await;
        fails_offline(&client, name).await;
    }
    shutdown.cancel();
}

#[tokio::test]
async fn gated_over_websocket() {
    gated(MilkyEvents::WebSocket, "gate-ws").await;
}

#[tokio::test]
async fn gated_over_sse() {
    gated(MilkyEvents::Sse, "gate-sse").await;
}
