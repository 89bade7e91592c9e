//! The offline queue survives `kill -9` of the real binary: messages queued
//! while the peer was away are delivered, in order, by the next process.

use std::net::TcpListener;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_sandbox::{ChatRef, Sandbox, SandboxConfig};
use pb::message_service_client::MessageServiceClient;
use tokio::process::{Child, Command};
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

const BIN: &str = env!("CARGO_BIN_EXE_onebot-gateway");
const GROUP: i64 = 20_000_002;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn spawn(config: &Path, addr: &str) -> Child {
    let child = Command::new(BIN)
        .args(["serve", "--config"])
        .arg(config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let ready = Command::new(BIN)
        .args(["health", "--wait", "60s", "--addr", addr])
        .output()
        .await
        .unwrap();
    assert!(ready.status.success(), "gateway not healthy: {ready:?}");
    child
}

/// Waits (health Watch, bounded) until the account's availability is `want`.
async fn account_is(channel: &Channel, want: ServingStatus) {
    let mut health = HealthClient::new(channel.clone());
    let mut stream = health
        .watch(HealthCheckRequest {
            service: "onebot.gateway.v1.account.default".into(),
        })
        .await
        .unwrap()
        .into_inner();
    tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(msg) = stream.message().await.unwrap() {
            if msg.status == want as i32 {
                return;
            }
        }
        panic!("health stream ended");
    })
    .await
    .expect("account state within 30 s");
}

fn text(t: &str) -> pb::SendMessageRequest {
    pb::SendMessageRequest {
        text: t.into(),
        ..pb::SendMessageRequest::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_messages_survive_kill_9() {
    let peer = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let addr = format!("http://127.0.0.1:{port}");
    let config = dir.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:{port}\"\ndata_dir = {data:?}\n\n[accounts.default]\nws_url = {ws:?}\ngroups = [{GROUP}]\n",
            data = dir.path().join("data").to_string_lossy(),
            ws = peer.ws_url(),
        ),
    )
    .unwrap();

    let mut first = spawn(&config, &addr).await;
    let channel = Channel::from_shared(addr.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    account_is(&channel, ServingStatus::Serving).await;
    peer.stop_listening().await;
    account_is(&channel, ServingStatus::NotServing).await;
    let mut client = MessageServiceClient::new(channel);
    for t in ["survivor 1", "survivor 2"] {
        let r = client.send_message(text(t)).await.unwrap().into_inner();
        assert!(r.queued, "{r:?}");
    }
    // SIGKILL: no shutdown path runs.
    first.kill().await.unwrap();

    peer.start_listening().await.unwrap();
    let _second = spawn(&config, &addr).await;
    let channel = Channel::from_shared(addr.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    account_is(&channel, ServingStatus::Serving).await;
    let mut client = MessageServiceClient::new(channel);
    // The new process flushes the queue before this send.
    let r = client
        .send_message(text("after kill"))
        .await
        .unwrap()
        .into_inner();
    assert!(!r.queued);
    let texts: Vec<String> = peer
        .control()
        .messages(ChatRef::Group(GROUP))
        .iter()
        .map(|m| m["raw_message"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        &texts[texts.len() - 3..],
        ["survivor 1", "survivor 2", "after kill"]
    );
}

fn search(query: &str) -> pb::SearchMessagesRequest {
    pb::SearchMessagesRequest {
        query: query.into(),
        chat: Some(pb::Chat::group(GROUP)),
        limit: 100,
        ..pb::SearchMessagesRequest::default()
    }
}

/// Every event delivered to a subscriber and every message a send reported
/// before `kill -9` is in the archive of the next process, and its event
/// numbers go on from the last one delivered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delivered_events_and_sends_survive_kill_9() {
    use pb::event_service_client::EventServiceClient;

    let peer = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let addr = format!("http://127.0.0.1:{port}");
    let config = dir.path().join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:{port}\"\ndata_dir = {data:?}\n\n[accounts.default]\nws_url = {ws:?}\ngroups = [{GROUP}]\n",
            data = dir.path().join("data").to_string_lossy(),
            ws = peer.ws_url(),
        ),
    )
    .unwrap();

    let mut first = spawn(&config, &addr).await;
    let channel = Channel::from_shared(addr.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    account_is(&channel, ServingStatus::Serving).await;
    let mut events = EventServiceClient::new(channel.clone())
        .stream_events(pb::StreamEventsRequest::default())
        .await
        .unwrap()
        .into_inner();
    let control = peer.control();
    let mut injected = Vec::new();
    let mut last_seen = 0;
    for i in 0..20 {
        let id = control.inject_group_message(
            GROUP,
            10001,
            serde_json::json!(format!("kill9 收到 {i}")),
        );
        injected.push(id);
        loop {
            let e = tokio::time::timeout(Duration::from_secs(20), events.message())
                .await
                .expect("an event in time")
                .unwrap()
                .unwrap()
                .event
                .unwrap();
            last_seen = e.sequence;
            if let Some(pb::event::Kind::Message(m)) = &e.kind
                && m.message.as_ref().unwrap().message_id == id
            {
                break;
            }
        }
    }
    let mut client = MessageServiceClient::new(channel);
    let mut sent = Vec::new();
    for t in ["kill9 发出 1", "kill9 发出 2"] {
        let r = client.send_message(text(t)).await.unwrap().into_inner();
        assert!(!r.queued);
        sent.extend(r.message_ids);
    }
    // SIGKILL right after the last acknowledgement.
    first.kill().await.unwrap();

    let _second = spawn(&config, &addr).await;
    let channel = Channel::from_shared(addr.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = MessageServiceClient::new(channel.clone());
    let found: Vec<i64> = client
        .search_messages(search("kill9"))
        .await
        .unwrap()
        .into_inner()
        .messages
        .iter()
        .map(|m| m.message_id)
        .collect();
    for id in injected.iter().chain(&sent) {
        assert!(found.contains(id), "message {id} lost: {found:?}");
    }
    // Resuming from the last event seen before the kill works, and the
    // numbers go on one by one.
    let mut resumed = EventServiceClient::new(channel.clone())
        .stream_events(pb::StreamEventsRequest {
            after_sequence: Some(last_seen),
            ..pb::StreamEventsRequest::default()
        })
        .await
        .expect("after_sequence from before the kill is not ahead")
        .into_inner();
    account_is(&channel, ServingStatus::Serving).await;
    let marker = control.inject_group_message(GROUP, 10001, serde_json::json!("kill9 之后"));
    let mut seqs = vec![last_seen];
    loop {
        let e = tokio::time::timeout(Duration::from_secs(20), resumed.message())
            .await
            .expect("an event in time")
            .unwrap()
            .unwrap()
            .event
            .unwrap();
        seqs.push(e.sequence);
        if let Some(pb::event::Kind::Message(m)) = &e.kind
            && m.message.as_ref().unwrap().message_id == marker
        {
            break;
        }
    }
    assert!(
        seqs.windows(2).all(|w| w[1] == w[0] + 1),
        "contiguous across kill -9: {seqs:?}"
    );
}
