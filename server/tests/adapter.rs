//! The OneBot adapter against the sandbox peer: calls, echoes, timeouts,
//! drops, auth failures, heartbeats, history anchors and pokes per flavor,
//! HTTP fallback, reconnects and the reverse WebSocket.
//!
//! Tests that need no socket run the sandbox over `tokio::io::duplex`
//! streams under paused time (the forward WebSocket dials through an
//! injected [`Connector`]); the others use real loopback sockets and real
//! time, waiting on the status watch, never sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use onebot_gateway_config::{AccountConfig, Secret};
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::model::{
    AccountStatus, ChatRef, ConnState, InboundEvent, Segment, TransportKind,
};
use onebot_gateway_domain::ports::{EventSink, OutSegment, PeerApi};
use onebot_gateway_onebot::Flavor;
use onebot_gateway_onebot::client::AccountClient;
use onebot_gateway_onebot::transport::{BoxIo, Connector};
use onebot_sandbox::{
    EXAMPLE_FORWARD, EXAMPLE_GROUP, EXAMPLE_NESTED_FORWARD, FRIEND_WITH_HISTORY, Fault, FaultKind,
    Flavor as PeerFlavor, MISSING_QUOTE, SANDBOX_GROUP, Sandbox, SandboxConfig, SandboxControl,
    Transport,
};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_util::sync::CancellationToken;

#[path = "adapter/compat.rs"]
mod compat;

// ----- helpers -----

/// Serves each dial with a fresh in-memory connection to the sandbox.
struct SandboxConnector {
    control: SandboxControl,
    dials: Arc<AtomicUsize>,
    refuse: Arc<AtomicBool>,
}

#[async_trait::async_trait]
impl Connector for SandboxConnector {
    async fn connect(&self) -> std::io::Result<BoxIo> {
        self.dials.fetch_add(1, Ordering::SeqCst);
        if self.refuse.load(Ordering::SeqCst) {
            return Err(std::io::ErrorKind::ConnectionRefused.into());
        }
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let control = self.control.clone();
        tokio::spawn(async move { control.serve_io(theirs).await });
        Ok(Box::new(ours))
    }
}

/// Collects published events.
struct ChannelSink(mpsc::UnboundedSender<(String, InboundEvent)>);

impl EventSink for ChannelSink {
    fn publish(&self, account_id: &str, event: InboundEvent) {
        let _ = self.0.send((account_id.to_string(), event));
    }
}

struct Peer {
    control: SandboxControl,
    client: Arc<AccountClient>,
    dials: Arc<AtomicUsize>,
    refuse: Arc<AtomicBool>,
    events: mpsc::UnboundedReceiver<(String, InboundEvent)>,
    cancel: CancellationToken,
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

fn gateway_flavor(f: PeerFlavor) -> Flavor {
    Flavor::from_name(f.as_str()).expect("same flavor names")
}

fn in_memory_account() -> AccountConfig {
    AccountConfig {
        ws_url: Some("ws://sandbox.test/".into()),
        ..AccountConfig::default()
    }
}

/// A client over in-memory connections to a standalone sandbox.
fn peer(cfg: SandboxConfig, account: AccountConfig) -> Peer {
    peer_capped(cfg, account, 4 * 1024 * 1024)
}

/// [`peer`] dropping event frames above `max_event_bytes`.
fn peer_capped(cfg: SandboxConfig, account: AccountConfig, max_event_bytes: usize) -> Peer {
    let control = SandboxControl::standalone(cfg);
    let dials = Arc::new(AtomicUsize::new(0));
    let refuse = Arc::new(AtomicBool::new(false));
    let (tx, events) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let connector = SandboxConnector {
        control: control.clone(),
        dials: dials.clone(),
        refuse: refuse.clone(),
    };
    let client = AccountClient::start_with(
        "default",
        account,
        max_event_bytes,
        Arc::new(ChannelSink(tx)),
        cancel.clone(),
        Some(Arc::new(connector)),
    )
    .expect("start");
    Peer {
        control,
        client,
        dials,
        refuse,
        events,
        cancel,
    }
}

async fn until(
    rx: &mut watch::Receiver<AccountStatus>,
    what: &str,
    f: impl FnMut(&AccountStatus) -> bool,
) -> AccountStatus {
    let reached = match tokio::time::timeout(Duration::from_secs(600), rx.wait_for(f)).await {
        Ok(Ok(s)) => Some(s.clone()),
        _ => None,
    };
    reached.unwrap_or_else(|| panic!("never reached: {what}; status {:?}", rx.borrow().clone()))
}

async fn connected(client: &AccountClient) -> AccountStatus {
    let mut rx = client.watch_status();
    until(&mut rx, "connected", |s| s.state == ConnState::Connected).await
}

fn ctx() -> Deadline {
    Deadline::NONE
}

// ----- calls -----

#[tokio::test(start_paused = true)]
async fn every_flavor_connects_identifies_and_calls() {
    for f in PeerFlavor::ALL {
        let p = peer(SandboxConfig::for_flavor(f), in_memory_account());
        let s = connected(&p.client).await;
        assert_eq!(s.profile, Some(gateway_flavor(f).name()), "{f}");
        assert_eq!(s.self_id, onebot_sandbox::DEFAULT_SELF_ID);
        assert_eq!(s.implementation, f.app_name());
        assert!(s.online);
        assert_eq!(s.transport, TransportKind::ForwardWs);
        let groups = p.client.get_groups(ctx()).await.expect("groups");
        assert!(
            groups.iter().any(|g| g.group_id == SANDBOX_GROUP),
            "{f}: {groups:?}"
        );
        // Lagrange stringifies echoes; every flavor must still match them.
        let echoes: Vec<_> = p.control.actions().into_iter().map(|a| a.echo).collect();
        assert!(echoes.iter().all(Option::is_some), "{f}: {echoes:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn out_of_order_replies_reach_their_callers() {
    let p = peer(SandboxConfig::default(), in_memory_account());
    connected(&p.client).await;
    p.control.set_fault(Fault::OutOfOrder { batch: 3 });
    let c = &p.client;
    let (login, version, groups) = tokio::join!(
        c.call("get_login_info", json!({}), ctx()),
        c.call("get_version_info", json!({}), ctx()),
        c.call("get_group_list", json!({}), ctx()),
    );
    assert_eq!(
        login.unwrap()["user_id"],
        json!(onebot_sandbox::DEFAULT_SELF_ID)
    );
    assert_eq!(version.unwrap()["app_name"], json!("NapCat.Onebot"));
    assert!(groups.unwrap().is_array());
}

/// A scripted peer over one in-memory WebSocket: answers the identity calls,
/// then every request with its echo transformed by `echo_back`.
struct ScriptedConnector {
    echo_back: fn(&str) -> Value,
}

#[async_trait::async_trait]
impl Connector for ScriptedConnector {
    async fn connect(&self) -> std::io::Result<BoxIo> {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let echo_back = self.echo_back;
        tokio::spawn(async move {
            let Ok(mut ws) = tokio_tungstenite::accept_async(theirs).await else {
                return;
            };
            while let Some(Ok(WsMessage::Text(text))) = ws.next().await {
                let req: Value = serde_json::from_str(text.as_str()).expect("request json");
                let echo = req["echo"].as_str().expect("string echo").to_string();
                let data = match req["action"].as_str() {
                    Some("get_login_info") => json!({"user_id": 42, "nickname": "bot"}),
                    Some("get_version_info") => json!({"app_name": "Lagrange.OneBot"}),
                    _ => json!({"echoed": echo}),
                };
                let reply =
                    json!({"status": "ok", "retcode": 0, "data": data, "echo": echo_back(&echo)});
                if ws.send(WsMessage::text(reply.to_string())).await.is_err() {
                    return;
                }
            }
        });
        Ok(Box::new(ours))
    }
}

#[tokio::test(start_paused = true)]
async fn echoes_match_whatever_json_type_comes_back() {
    let forms: [fn(&str) -> Value; 4] = [
        |e| json!(e),
        |e| json!(e.parse::<i64>().expect("numeric echo")),
        |e| json!(json!(e).to_string()),
        |e| json!(e.parse::<i64>().expect("numeric echo").to_string()),
    ];
    for echo_back in forms {
        let (tx, _rx) = mpsc::unbounded_channel();
        let cancel = CancellationToken::new();
        let client = AccountClient::start(
            "default",
            in_memory_account(),
            Arc::new(ChannelSink(tx)),
            cancel.clone(),
            Some(Arc::new(ScriptedConnector { echo_back })),
        )
        .unwrap();
        let s = connected(&client).await;
        assert_eq!(s.profile, Some(Flavor::Lagrange.name()));
        let data = client.call("anything", json!({}), ctx()).await.unwrap();
        assert!(data["echoed"].is_string(), "{data}");
        cancel.cancel();
    }
}

#[tokio::test(start_paused = true)]
async fn a_stall_hits_the_deadline_and_an_expired_call_sends_nothing() {
    let p = peer(SandboxConfig::default(), in_memory_account());
    connected(&p.client).await;
    p.control.set_fault(Fault::Stall {
        action: Some("get_group_list".into()),
    });
    let start = Instant::now();
    let err = p
        .client
        .get_groups(Deadline::after(Duration::from_secs(2)))
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::OnebotTimeout, "{err:?}");
    assert_eq!(start.elapsed(), Duration::from_secs(2));
    assert_eq!(err.meta("timeout_ms"), Some("2000"));

    // request_timeout_ms bounds a call without a deadline.
    let start = Instant::now();
    let err = p.client.get_groups(ctx()).await.unwrap_err();
    assert_eq!(err.kind, Kind::OnebotTimeout);
    assert_eq!(start.elapsed(), Duration::from_millis(30_000));

    // A deadline already past: nothing reaches the peer.
    p.control.clear_actions();
    let past = Deadline::at(Instant::now());
    let err = p
        .client
        .call("get_status", json!({}), past)
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::DeadlineExceeded);
    assert!(p.control.actions().is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_drop_fails_every_pending_call_at_once() {
    let p = peer(SandboxConfig::default(), in_memory_account());
    connected(&p.client).await;
    p.control.set_fault(Fault::Stall { action: None });
    let c = p.client.clone();
    let calls = tokio::spawn(async move {
        tokio::join!(
            c.get_groups(ctx()),
            c.call("get_status", json!({}), ctx()),
            c.send_message(
                ChatRef::Group(SANDBOX_GROUP),
                &[OutSegment::Text("hi")],
                ctx()
            ),
        )
    });
    p.control.wait_for_action("send_group_msg").await;
    p.control.wait_for_action("get_status").await;
    p.control.wait_for_action("get_group_list").await;
    let start = Instant::now();
    p.control.drop_connections();
    let (a, b, send) = calls.await.unwrap();
    assert!(start.elapsed() < Duration::from_secs(1));
    let a = a.unwrap_err();
    assert_eq!(a.kind, Kind::OnebotConnectionLost, "{a:?}");
    assert!(a.retry_after.is_some());
    assert_eq!(b.unwrap_err().kind, Kind::OnebotConnectionLost);
    // A send whose frame left may have been delivered.
    let send = send.unwrap_err();
    assert_eq!(send.kind, Kind::SendOutcomeUnknown);
    assert_eq!(send.meta("cause"), Some("connection_lost"));
}

#[tokio::test(start_paused = true)]
async fn the_pending_map_is_bounded() {
    let p = peer(
        SandboxConfig::default(),
        AccountConfig {
            max_pending_calls: 2,
            ..in_memory_account()
        },
    );
    connected(&p.client).await;
    p.control.set_fault(Fault::Stall { action: None });
    let c = p.client.clone();
    let stalled =
        tokio::spawn(async move { tokio::join!(c.get_groups(ctx()), c.get_groups(ctx())) });
    while p
        .control
        .actions()
        .iter()
        .filter(|a| a.action == "get_group_list")
        .count()
        < 2
    {
        p.control.wait_for_action("get_group_list").await;
        tokio::task::yield_now().await;
    }
    let start = Instant::now();
    let err = p.client.get_groups(ctx()).await.unwrap_err();
    assert_eq!(err.kind, Kind::Overloaded);
    assert_eq!(err.meta("max_pending_calls"), Some("2"));
    assert_eq!(start.elapsed(), Duration::ZERO);
    stalled.abort();
}

#[tokio::test(start_paused = true)]
async fn malformed_frames_are_dropped_and_the_link_stays() {
    let p = peer(SandboxConfig::default(), in_memory_account());
    connected(&p.client).await;
    p.control.set_fault(Fault::MalformedFrames);
    for _ in 0..4 {
        p.client.get_groups(ctx()).await.expect("still answering");
    }
    assert_eq!(p.dials.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn an_offline_account_waits_connect_wait_then_fails_unavailable() {
    let p = peer(SandboxConfig::default(), in_memory_account());
    p.refuse.store(true, Ordering::SeqCst);
    let mut rx = p.client.watch_status();
    until(&mut rx, "backoff", |s| s.state == ConnState::Backoff).await;
    let start = Instant::now();
    let err = p.client.get_groups(ctx()).await.unwrap_err();
    assert_eq!(err.kind, Kind::AccountOffline);
    assert!(err.retry_after.is_some());
    assert_eq!(start.elapsed(), Duration::from_millis(3_000));
    // Never past the caller's deadline.
    let start = Instant::now();
    let err = p
        .client
        .get_groups(Deadline::after(Duration::from_millis(700)))
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::AccountOffline);
    assert_eq!(start.elapsed(), Duration::from_millis(700));
    p.refuse.store(false, Ordering::SeqCst);
    until(&mut rx, "reconnected", |s| s.state == ConnState::Connected).await;
    p.client.get_groups(ctx()).await.expect("after reconnect");
}

// ----- connection life -----

#[tokio::test(start_paused = true)]
async fn refused_tokens_go_auth_failed_in_all_three_forms_and_retry_once_a_minute() {
    // go-cqhttp: 403 at the upgrade; NapCat/LLOneBot: 1403 frame + close;
    // SnowLuma: close 1008.
    for f in [
        PeerFlavor::GoCqhttp,
        PeerFlavor::NapCat,
        PeerFlavor::SnowLuma,
    ] {
        let p = peer(
            SandboxConfig {
                access_token: Some("right".into()),
                ..SandboxConfig::for_flavor(f)
            },
            AccountConfig {
                access_token: Some(Secret::new("wrong")),
                ..in_memory_account()
            },
        );
        let mut rx = p.client.watch_status();
        let s = until(&mut rx, "auth failed", |s| s.state == ConnState::AuthFailed).await;
        assert!(!s.last_error.is_empty(), "{f}");
        let start = Instant::now();
        let err = p.client.get_groups(ctx()).await.unwrap_err();
        assert_eq!(err.kind, Kind::OnebotAuthFailed, "{f}: {err:?}");
        assert_eq!(start.elapsed(), Duration::ZERO, "fails at once");
        assert_eq!(p.dials.load(Ordering::SeqCst), 1, "{f}");
        tokio::time::sleep(Duration::from_secs(59)).await;
        assert_eq!(p.dials.load(Ordering::SeqCst), 1, "{f}: no hot loop");
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(
            p.dials.load(Ordering::SeqCst),
            2,
            "{f}: retried after a minute"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn the_right_token_connects() {
    for f in [PeerFlavor::GoCqhttp, PeerFlavor::SnowLuma] {
        for in_query in [false, true] {
            let p = peer(
                SandboxConfig {
                    access_token: Some("s3cret".into()),
                    ..SandboxConfig::for_flavor(f)
                },
                AccountConfig {
                    access_token: Some(Secret::new("s3cret")),
                    token_in_query: in_query,
                    ..in_memory_account()
                },
            );
            connected(&p.client).await;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn missed_heartbeats_force_a_reconnect() {
    let mut p = peer(
        SandboxConfig {
            heartbeat_interval: Some(Duration::from_secs(5)),
            ..SandboxConfig::default()
        },
        in_memory_account(),
    );
    let mut rx = p.client.watch_status();
    until(&mut rx, "first heartbeat", |s| {
        s.state == ConnState::Connected && s.last_heartbeat_ms.is_some()
    })
    .await;
    p.control.set_fault(Fault::SilenceHeartbeats);
    let silent_since = Instant::now();
    until(&mut rx, "backoff", |s| s.state == ConnState::Backoff).await;
    let waited = silent_since.elapsed();
    assert!(
        // 2.5 × 5 s after the last heartbeat, which came at most 5 s before.
        waited >= Duration::from_millis(7_500) && waited <= Duration::from_millis(12_500),
        "declared dead after {waited:?}"
    );
    p.control.clear_fault(FaultKind::SilenceHeartbeats);
    until(&mut rx, "reconnected", |s| s.state == ConnState::Connected).await;
    assert_eq!(p.dials.load(Ordering::SeqCst), 2);
    // The state changes were published as connection events.
    let mut states = Vec::new();
    while let Ok((_, ev)) = p.events.try_recv() {
        if let InboundEvent::Connection { state, .. } = ev {
            states.push(state);
        }
    }
    let wanted = [
        ConnState::Connected,
        ConnState::Backoff,
        ConnState::Connecting,
        ConnState::Connected,
    ];
    assert!(
        states.windows(4).any(|w| w == wanted),
        "connection events {states:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn without_heartbeats_pings_keep_the_link_and_detect_a_dead_one() {
    let mut account = in_memory_account();
    account.ping_interval_ms = 1_000;
    let p = peer(
        SandboxConfig {
            heartbeat_interval: None,
            ..SandboxConfig::for_flavor(PeerFlavor::GoCqhttp)
        },
        account,
    );
    let mut rx = p.client.watch_status();
    until(&mut rx, "connected", |s| s.state == ConnState::Connected).await;
    // Idle for a minute: pongs keep the link alive.
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(rx.borrow().state, ConnState::Connected);
    assert_eq!(p.dials.load(Ordering::SeqCst), 1);
    // A peer that stops reading answers no ping: dead after 2.5 intervals.
    p.control.set_fault(Fault::SilenceHeartbeats);
    let silent_since = Instant::now();
    until(&mut rx, "backoff", |s| s.state == ConnState::Backoff).await;
    assert!(silent_since.elapsed() <= Duration::from_millis(2_500));
}

// ----- events -----

#[tokio::test(start_paused = true)]
async fn inbound_events_are_decoded_and_published() {
    let mut p = peer(SandboxConfig::default(), in_memory_account());
    connected(&p.client).await;
    let id = p
        .control
        .inject_group_message(SANDBOX_GROUP, 10001, json!("hello [CQ:face,id=1]"));
    p.control.remove_member(SANDBOX_GROUP, 10003);
    p.control
        .inject_event(json!({"post_type": "request", "request_type": "friend"}));
    let mut got = Vec::new();
    while got.len() < 3 {
        let (account, ev) = p.events.recv().await.expect("event");
        assert_eq!(account, "default");
        if !matches!(
            ev,
            InboundEvent::Connection { .. } | InboundEvent::Lifecycle { .. }
        ) {
            got.push(ev);
        }
    }
    match &got[0] {
        InboundEvent::Message {
            message, self_sent, ..
        } => {
            assert_eq!(message.message_id, id);
            assert_eq!(message.chat, ChatRef::Group(SANDBOX_GROUP));
            assert!(!self_sent);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        got[1],
        InboundEvent::MemberLeft {
            group_id: SANDBOX_GROUP,
            user_id: 10003,
            ..
        }
    ));
    assert!(matches!(&got[2], InboundEvent::Unknown { post_type, .. } if post_type == "request"));
}

#[tokio::test(start_paused = true)]
async fn an_event_frame_above_the_cap_is_dropped_undecoded_and_replies_keep_the_large_cap() {
    const CAP: usize = 64 * 1024;
    let mut p = peer_capped(SandboxConfig::default(), in_memory_account(), CAP);
    connected(&p.client).await;
    // A hostile event (no echo, above the cap), then one an implementation
    // would send with `echo` among its members (still no waiting call).
    let big = "大".repeat(CAP);
    let huge = p
        .control
        .inject_group_message(SANDBOX_GROUP, 10001, json!(big.clone()));
    p.control.inject_event(json!({
        "post_type": "message", "message_type": "group", "group_id": SANDBOX_GROUP,
        "user_id": 10001, "message_id": 424242, "message": big, "raw_message": "",
        "time": 1, "self_id": 1, "echo": "7", "sender": {"user_id": 10001}
    }));
    let small = p
        .control
        .inject_group_message(SANDBOX_GROUP, 10001, json!("after the flood"));
    let message = loop {
        let (_, ev) = p.events.recv().await.expect("event");
        if let InboundEvent::Message { message, .. } = ev {
            break message;
        }
    };
    assert_eq!(
        message.message_id, small,
        "the oversized events were dropped"
    );
    assert_eq!(p.dials.load(Ordering::SeqCst), 1, "the link stayed up");
    // A reply above the event cap still reaches its call.
    let got = p
        .client
        .get_message(huge, Some(ChatRef::Group(SANDBOX_GROUP)), ctx())
        .await
        .expect("a large reply is no event");
    let text: usize = got
        .segments
        .iter()
        .map(|s| match s {
            Segment::Text(t) => t.len(),
            _ => 0,
        })
        .sum();
    assert!(text > CAP, "the whole reply arrived: {text} bytes of text");
}

// ----- history and poke per flavor -----

fn seqs(page: &onebot_gateway_domain::ports::HistoryPage) -> Vec<i64> {
    page.messages
        .iter()
        .map(|m| m.message_seq.expect("every flavor reports a seq"))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn history_pages_backwards_with_each_flavors_anchor() {
    for f in PeerFlavor::ALL {
        let p = peer(SandboxConfig::for_flavor(f), in_memory_account());
        connected(&p.client).await;
        if f == PeerFlavor::SnowLuma {
            // SnowLuma answers [] until it has seen traffic in the chat.
            p.control
                .inject_group_message(SANDBOX_GROUP, 10001, json!("traffic"));
        }
        let chat = ChatRef::Group(SANDBOX_GROUP);
        let first = p.client.get_history(chat, 10, None, ctx()).await.unwrap();
        assert_eq!(first.messages.len(), 10, "{f}");
        assert!(first.has_more, "{f}");
        let s1 = seqs(&first);
        assert!(s1.windows(2).all(|w| w[1] == w[0] + 1), "{f}: {s1:?}");

        let anchor = first.messages[0].message_id;
        let second = p
            .client
            .get_history(chat, 10, Some(anchor), ctx())
            .await
            .unwrap();
        assert_eq!(second.messages.len(), 10, "{f}");
        let s2 = seqs(&second);
        assert_eq!(
            s2.last().copied(),
            Some(s1[0] - 1),
            "{f}: {s2:?} then {s1:?}"
        );
        assert!(
            second.messages.iter().all(|m| m.message_id != anchor),
            "{f}"
        );

        // The anchor went out in the flavor's parameter.
        let sent = p
            .control
            .actions()
            .into_iter()
            .rfind(|a| a.action == "get_group_msg_history")
            .expect("history request");
        let key = match f {
            PeerFlavor::NapCat => ("message_seq", json!(anchor)),
            PeerFlavor::Lagrange | PeerFlavor::SnowLuma => ("message_id", json!(anchor)),
            PeerFlavor::LlOneBot | PeerFlavor::GoCqhttp => ("message_seq", json!(s1[0])),
        };
        assert_eq!(sent.params[key.0], key.1, "{f}: {}", sent.params);
    }
}

#[tokio::test(start_paused = true)]
async fn history_edges_per_flavor() {
    // go-cqhttp: no private history; a page is at most the 19 older
    // messages of its fixed window.
    let p = peer(
        SandboxConfig::for_flavor(PeerFlavor::GoCqhttp),
        in_memory_account(),
    );
    connected(&p.client).await;
    let err = p
        .client
        .get_history(ChatRef::Private(FRIEND_WITH_HISTORY), 10, None, ctx())
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::HistoryUnsupported);
    let chat = ChatRef::Group(SANDBOX_GROUP);
    let newest = p.client.get_history(chat, 5, None, ctx()).await.unwrap();
    let anchor = newest.messages[0].message_id;
    let page = p
        .client
        .get_history(chat, 50, Some(anchor), ctx())
        .await
        .unwrap();
    assert_eq!(page.messages.len(), 19);
    assert!(page.has_more);
    // The anchor's seq came from the cache: no get_msg was needed.
    assert!(p.control.actions().iter().all(|a| a.action != "get_msg"));

    // LLOneBot: an anchor never seen is translated with get_msg.
    let p = peer(
        SandboxConfig::for_flavor(PeerFlavor::LlOneBot),
        in_memory_account(),
    );
    connected(&p.client).await;
    let other = peer(
        SandboxConfig::for_flavor(PeerFlavor::LlOneBot),
        in_memory_account(),
    );
    connected(&other.client).await;
    let newest = other
        .client
        .get_history(chat, 3, None, ctx())
        .await
        .unwrap();
    let anchor = newest.messages[0].message_id;
    let page = p
        .client
        .get_history(chat, 3, Some(anchor), ctx())
        .await
        .unwrap();
    assert_eq!(page.messages.len(), 3);
    assert!(p.control.actions().iter().any(|a| a.action == "get_msg"));

    // NapCat: "消息…不存在" for an empty chat is an empty page; private
    // history works.
    let p = peer(SandboxConfig::default(), in_memory_account());
    connected(&p.client).await;
    let empty = p
        .client
        .get_history(
            ChatRef::Private(onebot_sandbox::FRIEND_WITHOUT_HISTORY),
            10,
            None,
            ctx(),
        )
        .await
        .unwrap();
    assert!(empty.messages.is_empty() && !empty.has_more);
    let private = p
        .client
        .get_history(ChatRef::Private(FRIEND_WITH_HISTORY), 10, None, ctx())
        .await
        .unwrap();
    assert_eq!(private.messages.len(), 10);
}

#[tokio::test(start_paused = true)]
async fn poke_goes_the_flavors_way() {
    for f in PeerFlavor::ALL {
        let p = peer(SandboxConfig::for_flavor(f), in_memory_account());
        connected(&p.client).await;
        p.client.poke(SANDBOX_GROUP, 10001, ctx()).await.unwrap();
        let actions = p.control.actions();
        let last = actions.last().expect("poke action");
        if f == PeerFlavor::GoCqhttp {
            assert_eq!(last.action, "send_group_msg");
            assert_eq!(last.params["message"][0]["type"], json!("poke"));
        } else {
            assert_eq!(last.action, "group_poke", "{f}");
            assert_eq!(last.params["user_id"], json!(10001));
        }
    }
    let p = peer(SandboxConfig::default(), in_memory_account());
    connected(&p.client).await;
    p.control.set_fault(Fault::PokeUnsupported);
    let err = p
        .client
        .poke(SANDBOX_GROUP, 10001, ctx())
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::PokeUnsupported);
    assert!(err.meta("peer_message").unwrap().contains("packetBackend"));
}

#[tokio::test(start_paused = true)]
async fn send_failures_are_classified() {
    let msg = [OutSegment::Text("hi")];
    let p = peer(SandboxConfig::default(), in_memory_account());
    connected(&p.client).await;
    let id = p
        .client
        .send_message(ChatRef::Group(SANDBOX_GROUP), &msg, ctx())
        .await
        .unwrap();
    assert_ne!(id, 0);
    let cases = [
        (
            Fault::SendEventChecker {
                result: 110,
                err_msg: "发送失败，你已被移出该群，请重新加群。".into(),
            },
            Kind::RemovedFromGroup,
        ),
        (
            Fault::SendEventChecker {
                result: -1,
                err_msg: "rich media transfer failed".into(),
            },
            Kind::MediaTransferFailed,
        ),
        (Fault::SendTimeout, Kind::SendOutcomeUnknown),
    ];
    for (fault, kind) in cases {
        p.control.set_fault(fault.clone());
        let err = p
            .client
            .send_message(ChatRef::Group(SANDBOX_GROUP), &msg, ctx())
            .await
            .unwrap_err();
        assert_eq!(err.kind, kind, "{fault:?}");
        assert_eq!(err.meta("retcode"), Some("1200"));
        assert!(
            err.meta("peer_message")
                .is_some_and(|m| m.contains("EventRet"))
        );
        p.control.clear_faults();
    }
    let p = peer(
        SandboxConfig::for_flavor(PeerFlavor::GoCqhttp),
        in_memory_account(),
    );
    connected(&p.client).await;
    p.control.set_fault(Fault::RiskControl);
    let err = p
        .client
        .send_message(ChatRef::Group(SANDBOX_GROUP), &msg, ctx())
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::RiskControlled);
    let err = p
        .client
        .call("no_such_action", json!({}), ctx())
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::OnebotActionUnsupported);
}

// ----- real sockets -----

fn fast(account: AccountConfig) -> AccountConfig {
    AccountConfig {
        backoff_min_ms: 20,
        backoff_max_ms: 100,
        connect_wait_ms: 200,
        ..account
    }
}

fn start_real(account: AccountConfig) -> (Arc<AccountClient>, CancellationToken) {
    let (tx, _rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let client = AccountClient::start(
        "default",
        account,
        Arc::new(ChannelSink(tx)),
        cancel.clone(),
        None,
    )
    .expect("start");
    (client, cancel)
}

#[tokio::test]
async fn reconnects_after_the_peer_restarts_and_no_call_hangs() {
    let sandbox = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let (client, cancel) = start_real(fast(AccountConfig {
        ws_url: Some(sandbox.ws_url()),
        ..AccountConfig::default()
    }));
    let mut rx = client.watch_status();
    until(&mut rx, "connected", |s| s.state == ConnState::Connected).await;

    sandbox.control().set_fault(Fault::Stall { action: None });
    let c = client.clone();
    let in_flight = tokio::spawn(async move { c.get_groups(ctx()).await });
    sandbox.control().wait_for_action("get_group_list").await;
    sandbox.stop_listening().await;
    let err = in_flight.await.unwrap().unwrap_err();
    assert_eq!(err.kind, Kind::OnebotConnectionLost);
    until(&mut rx, "backoff", |s| s.state == ConnState::Backoff).await;
    let err = client.get_groups(ctx()).await.unwrap_err();
    assert_eq!(err.kind, Kind::AccountOffline);

    sandbox.control().clear_faults();
    sandbox.start_listening().await.unwrap();
    until(&mut rx, "reconnected", |s| s.state == ConnState::Connected).await;
    client.get_groups(ctx()).await.expect("after restart");
    cancel.cancel();
}

/// A loopback address nothing listens on.
async fn dead_ws_url() -> String {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    format!("ws://{addr}/")
}

#[tokio::test]
async fn http_carries_actions_while_the_websocket_is_down() {
    let sandbox = Sandbox::start(SandboxConfig::for_flavor(PeerFlavor::LlOneBot))
        .await
        .unwrap();
    let (client, cancel) = start_real(fast(AccountConfig {
        ws_url: Some(dead_ws_url().await),
        http_url: Some(sandbox.http_url()),
        ..AccountConfig::default()
    }));
    let mut rx = client.watch_status();
    let s = until(&mut rx, "online over HTTP", |s| s.online).await;
    assert_eq!(s.transport, TransportKind::Http);
    assert_ne!(s.state, ConnState::Connected, "the WebSocket is down");
    assert_eq!(
        s.profile,
        Some(Flavor::LlOneBot.name()),
        "identified over HTTP"
    );
    let groups = client.get_groups(ctx()).await.expect("via HTTP");
    assert!(!groups.is_empty());
    let last = sandbox.control().actions().pop().unwrap();
    assert_eq!(
        (last.action.as_str(), last.transport),
        ("get_group_list", Transport::Http)
    );
    cancel.cancel();

    // HTTP alone: connected through HTTP, offline when the peer goes away.
    let (client, cancel) = start_real(fast(AccountConfig {
        http_url: Some(sandbox.http_url()),
        ..AccountConfig::default()
    }));
    let mut rx = client.watch_status();
    until(&mut rx, "connected", |s| s.state == ConnState::Connected).await;
    sandbox.stop_listening().await;
    // The first call finds the pooled connection dead (lost) or cannot
    // connect (offline); either way the account goes offline.
    let err = client.get_groups(ctx()).await.unwrap_err();
    assert!(
        matches!(err.kind, Kind::AccountOffline | Kind::OnebotConnectionLost),
        "{err:?}"
    );
    until(&mut rx, "offline", |s| !s.online).await;
    let err = client.get_groups(ctx()).await.unwrap_err();
    assert_eq!(err.kind, Kind::AccountOffline, "{err:?}");
    sandbox.start_listening().await.unwrap();
    until(&mut rx, "back", |s| {
        s.state == ConnState::Connected && s.online
    })
    .await;
    cancel.cancel();
}

/// Dials the reverse listener as an implementation would.
async fn dial_reverse(
    addr: std::net::SocketAddr,
    headers: &[(&str, &str)],
) -> Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    u16,
> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{addr}/onebot/v11/ws")
        .into_client_request()
        .unwrap();
    for (k, v) in headers {
        req.headers_mut().insert(
            tokio_tungstenite::tungstenite::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
            v.parse().unwrap(),
        );
    }
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
        Err(e) => panic!("dial failed: {e}"),
    }
}

#[tokio::test]
async fn reverse_websocket_accepts_both_token_schemes_and_refuses_bad_ones() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (client, cancel) = start_real(AccountConfig {
        reverse: true,
        self_id: Some(42),
        access_token: Some(Secret::new("t0k")),
        ..AccountConfig::default()
    });
    let mut accounts = onebot_gateway_onebot::transport::reverse::ReverseAccounts::new();
    accounts.insert(42, client.clone());
    onebot_gateway_onebot::transport::reverse::spawn(
        listener,
        "/onebot/v11/ws".into(),
        accounts,
        Duration::from_secs(5),
        cancel.clone(),
    );

    assert_eq!(
        dial_reverse(addr, &[("X-Self-ID", "42")]).await.err(),
        Some(401)
    );
    assert_eq!(
        dial_reverse(
            addr,
            &[("X-Self-ID", "42"), ("Authorization", "Bearer nope")]
        )
        .await
        .err(),
        Some(403)
    );
    assert_eq!(
        dial_reverse(addr, &[("X-Self-ID", "7"), ("Authorization", "Bearer t0k")])
            .await
            .err(),
        Some(403)
    );

    let mut rx = client.watch_status();
    for (scheme, role) in [("Token t0k", "Universal"), ("bearer t0k", "api")] {
        let mut ws = dial_reverse(
            addr,
            &[
                ("x-self-id", "42"),
                ("authorization", scheme),
                ("X-Client-Role", role),
            ],
        )
        .await
        .unwrap_or_else(|s| panic!("{scheme}: HTTP {s}"));
        // Play the implementation: answer whatever the gateway asks.
        let peer = tokio::spawn(async move {
            while let Some(Ok(WsMessage::Text(text))) = ws.next().await {
                let req: Value = serde_json::from_str(text.as_str()).unwrap();
                let data = match req["action"].as_str() {
                    Some("get_login_info") => json!({"user_id": 42, "nickname": "rev"}),
                    Some("get_version_info") => json!({"app_name": "NapCat.Onebot"}),
                    _ => json!([{"group_id": 1}]),
                };
                let reply = json!({"status":"ok","retcode":0,"data":data,"echo":req["echo"]});
                if ws.send(WsMessage::text(reply.to_string())).await.is_err() {
                    break;
                }
            }
            ws
        });
        let s = until(&mut rx, "reverse connected", |s| {
            s.state == ConnState::Connected
        })
        .await;
        assert_eq!(s.transport, TransportKind::ReverseWs);
        assert_eq!(s.profile, Some(Flavor::NapCat.name()));
        let groups = client.get_groups(ctx()).await.unwrap();
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].group_id, 1);
        assert_eq!(groups[0].raw.text(), r#"{"group_id":1}"#);
        peer.abort();
        until(&mut rx, "waiting for the next dial", |s| {
            s.state == ConnState::Connecting && !s.online
        })
        .await;
    }
    cancel.cancel();
}

// ----- the conversation -----

/// Every flavor: a sent message read back with `get_msg` in its chat (which
/// Lagrange's answer does not name), recalled (and reported by the peer's
/// notice), then not found; forward bundles in each shape, the nested one a
/// `Forward` segment; quotes and mentions as segments, and a quote of an
/// unknown message refused where the peer would mishandle it.
#[tokio::test(start_paused = true)]
async fn every_flavor_reads_recalls_opens_bundles_and_quotes() {
    for f in PeerFlavor::ALL {
        let mut p = peer(SandboxConfig::for_flavor(f), in_memory_account());
        connected(&p.client).await;
        let group = ChatRef::Group(EXAMPLE_GROUP);
        let id = p
            .client
            .send_message(group, &[OutSegment::Text("撤回我")], ctx())
            .await
            .unwrap_or_else(|e| panic!("{f}: {e:?}"));
        let m = p.client.get_message(id, None, ctx()).await.unwrap();
        assert_eq!((m.chat, m.message_id), (group, id), "{f}");
        p.client
            .recall(id, ctx())
            .await
            .unwrap_or_else(|e| panic!("{f}: {e:?}"));
        let recalled = tokio::time::timeout(Duration::from_secs(60), async {
            loop {
                match p.events.recv().await {
                    Some((
                        _,
                        InboundEvent::MessageRecalled {
                            message_id, chat, ..
                        },
                    )) => {
                        return (message_id, chat);
                    }
                    Some(_) => {}
                    None => panic!("{f}: events ended"),
                }
            }
        })
        .await
        .expect("the recall notice");
        assert_eq!(recalled, (id, group), "{f}");
        let e = p.client.get_message(id, None, ctx()).await.unwrap_err();
        assert_eq!(e.kind, Kind::MessageNotFound, "{f}: {e:?}");
        let e = p
            .client
            .get_message(MISSING_QUOTE, Some(ChatRef::Group(SANDBOX_GROUP)), ctx())
            .await
            .unwrap_err();
        assert_eq!(e.kind, Kind::MessageNotFound, "{f}: {e:?}");
        // A recall QQ refuses (a member's message; the bot is no admin in
        // 示例群) is the peer's failure, with its words where it has any.
        let member = p
            .control
            .messages(onebot_sandbox::ChatRef::Group(EXAMPLE_GROUP))[0]["message_id"]
            .as_i64()
            .unwrap();
        p.client
            .get_message(member, Some(group), ctx())
            .await
            .unwrap();
        let e = p.client.recall(member, ctx()).await.unwrap_err();
        assert_eq!(e.kind, Kind::OnebotActionFailed, "{f}: {e:?}");
        // Bundles.
        let nodes = p.client.get_forward(EXAMPLE_FORWARD, ctx()).await.unwrap();
        assert_eq!(nodes.len(), 3, "{f}");
        assert_eq!(nodes[0].sender.user_id, 10001, "{f}");
        assert_eq!(
            nodes[2].segments,
            vec![Segment::Forward {
                id: EXAMPLE_NESTED_FORWARD.into()
            }],
            "{f}"
        );
        let e = p
            .client
            .get_forward("no-such-bundle", ctx())
            .await
            .unwrap_err();
        assert_eq!(e.kind, Kind::MessageNotFound, "{f}: {e:?}");
        // Quotes and mentions reach the peer as segments.
        let playground = ChatRef::Group(SANDBOX_GROUP);
        let target = p
            .control
            .messages(onebot_sandbox::ChatRef::Group(SANDBOX_GROUP))[0]["message_id"]
            .as_i64()
            .unwrap();
        p.control.clear_actions();
        p.client
            .send_message(
                playground,
                &[
                    OutSegment::Reply(target),
                    OutSegment::At(10002),
                    OutSegment::AtAll,
                    OutSegment::Text("看"),
                ],
                ctx(),
            )
            .await
            .unwrap_or_else(|e| panic!("{f}: {e:?}"));
        let sent = p
            .control
            .actions()
            .into_iter()
            .find(|a| a.action == "send_group_msg")
            .expect("send_group_msg");
        assert_eq!(
            sent.params["message"],
            json!([
                {"type": "reply", "data": {"id": target.to_string()}},
                {"type": "at", "data": {"qq": "10002"}},
                {"type": "at", "data": {"qq": "all"}},
                {"type": "text", "data": {"text": "看"}}
            ]),
            "{f}"
        );
        let r = p
            .client
            .send_message(
                playground,
                &[OutSegment::Reply(MISSING_QUOTE), OutSegment::Text("x")],
                ctx(),
            )
            .await;
        match f {
            PeerFlavor::GoCqhttp | PeerFlavor::Lagrange => {
                let e = r.unwrap_err();
                assert_eq!(e.kind, Kind::MessageNotFound, "{f}: {e:?}");
                assert_eq!(e.field.as_deref(), Some("reply_to_message_id"));
            }
            _ => {
                r.unwrap_or_else(|e| panic!("{f}: {e:?}"));
            }
        }
        // A private send is send_private_msg.
        p.client
            .send_message(
                ChatRef::Private(FRIEND_WITH_HISTORY),
                &[OutSegment::Text("私聊")],
                ctx(),
            )
            .await
            .unwrap();
        assert!(
            p.control
                .actions()
                .iter()
                .any(|a| a.action == "send_private_msg"
                    && a.params["user_id"] == FRIEND_WITH_HISTORY),
            "{f}"
        );
    }
}
