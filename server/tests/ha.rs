//! `[ha]` with the real binary and a real PostgreSQL: two gateways share
//! one account and exactly one of them, the lease holder, is connected to
//! the implementation and serves it; the other refuses with NOT_LEADER
//! naming the leader and reports the account NOT_SERVING. When the leader
//! is killed (`kill -9`), stopped, or paused past its lease, the other
//! takes over within the lease's term plus 5 s, and a paused former leader
//! lets the account go as soon as it runs again.
//!
//! Runs when `ONEBOT_GATEWAY_TEST_POSTGRES` names a server (scripts/test.sh
//! starts one; in CI it is required).

#[path = "../../tests/src/nats.rs"]
mod nats;
mod published;
// Shared with the kill and restart tests; this file writes its own configs.
#[allow(dead_code)]
mod process;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use onebot_gateway_client::pb;
use onebot_sandbox::{Sandbox, SandboxConfig};
use pb::group_service_client::GroupServiceClient;
use process::{account_is, connect, free_port, spawn};
use tokio::process::Child;
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_types::StatusExt;

/// The lease's term in these tests.
const TTL_SECS: u64 = 3;

/// A database of its own on the server of `ONEBOT_GATEWAY_TEST_POSTGRES`.
async fn fresh_database(test: &str) -> Option<String> {
    let Ok(admin) = std::env::var("ONEBOT_GATEWAY_TEST_POSTGRES") else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "[ha] tests: ONEBOT_GATEWAY_TEST_POSTGRES is not set in CI"
        );
        eprintln!("SKIPPED: [ha] needs PostgreSQL: ONEBOT_GATEWAY_TEST_POSTGRES is not set");
        return None;
    };
    let name = format!("onebot_ha_{test}_{}", std::process::id());
    let (client, conn) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
        .await
        .expect("connect to ONEBOT_GATEWAY_TEST_POSTGRES");
    tokio::spawn(conn);
    client
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .await
        .unwrap();
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let mut url = url::Url::parse(&admin).unwrap();
    url.set_path(&name);
    Some(url.to_string())
}

/// One gateway of the pair.
struct Gw {
    addr: String,
    config: PathBuf,
}

/// Writes the config of gateway `name` over `peer`, leasing in `db`, with
/// `extra` sections.
fn gateway(dir: &Path, name: &str, peer: &Sandbox, db: &str, extra: &str) -> Gw {
    let port = free_port();
    let home = dir.join(name);
    std::fs::create_dir_all(&home).unwrap();
    let ca = std::env::var("ONEBOT_GATEWAY_TEST_POSTGRES_CA")
        .map(|ca| format!("ca_file = {ca:?}\n"))
        .unwrap_or_default();
    let config = home.join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:{port}\"\ndata_dir = {data:?}\n\n\
             [archive]\n{ca}\n\
             [media]\nallow_private_urls = true\n\n\
             [ha]\nurl = {db:?}\nttl_secs = {TTL_SECS}\ninstance = {name:?}\nadvertise = \"127.0.0.1:{port}\"\n\n\
             [accounts.default]\nws_url = {ws:?}\ngroups = [{group}]\n\n{extra}",
            data = home.join("data").to_string_lossy(),
            ws = peer.ws_url(),
            group = process::GROUP,
        ),
    )
    .unwrap();
    Gw {
        addr: format!("http://127.0.0.1:{port}"),
        config,
    }
}

impl Gw {
    async fn start(&self) -> Child {
        spawn(&self.config, &self.addr, None).await
    }

    /// ListGroups for the account through this gateway.
    async fn list_groups(&self) -> Result<pb::ListGroupsResponse, tonic::Status> {
        let mut client = GroupServiceClient::new(connect(&self.addr).await);
        client
            .list_groups(pb::ListGroupsRequest::default())
            .await
            .map(tonic::Response::into_inner)
    }

    /// Asserts the gateway refuses the account with NOT_LEADER naming
    /// `leader` (and its advertised address): a gateway claims its leases
    /// before it serves, so a standby names its leader from the start.
    async fn refuses_naming(&self, leader: &Gw, name: &str) {
        let status = self.refuses().await;
        let info = status.get_details_error_info().expect("ErrorInfo");
        assert_eq!(info.metadata.get("leader").map(String::as_str), Some(name));
        assert_eq!(
            info.metadata.get("advertise").map(String::as_str),
            leader.addr.strip_prefix("http://")
        );
        assert_eq!(
            info.metadata.get("account_id").map(String::as_str),
            Some("default")
        );
    }

    /// Asserts the gateway refuses the account with UNAVAILABLE NOT_LEADER
    /// and RetryInfo; returns the refusal.
    async fn refuses(&self) -> tonic::Status {
        let status = self.list_groups().await.unwrap_err();
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
        let info = status.get_details_error_info().expect("ErrorInfo");
        assert_eq!(info.reason, "NOT_LEADER", "{status:?}");
        assert!(status.get_details_retry_info().is_some(), "{status:?}");
        status
    }
}

/// Two gateways sharing the account `default` of one sandbox, leasing in a
/// database of their own.
struct Pair {
    db: String,
    peer: Sandbox,
    dir: tempfile::TempDir,
    a: Gw,
    b: Gw,
}

impl Pair {
    /// The pair of test `test`, `extra` in both configs; `None` without
    /// PostgreSQL.
    async fn new(test: &str, extra: &str) -> Option<Pair> {
        Some(Pair::within(fresh_database(test).await?, extra).await)
    }

    /// The pair leasing in `db`, `extra` in both configs.
    async fn within(db: String, extra: &str) -> Pair {
        let peer = Sandbox::start(SandboxConfig::default()).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let a = gateway(dir.path(), "gw-a", &peer, &db, extra);
        let b = gateway(dir.path(), "gw-b", &peer, &db, extra);
        Pair {
            db,
            peer,
            dir,
            a,
            b,
        }
    }
}

/// Starts `a` and waits until it leads, then `b`, which must stand by.
async fn leader_and_standby(a: &Gw, b: &Gw, peer: &Sandbox) -> (Child, Child) {
    let first = a.start().await;
    account_is(&connect(&a.addr).await, ServingStatus::Serving).await;
    let second = b.start().await;
    // The standby answers, and refuses the account naming the leader.
    b.refuses_naming(a, "gw-a").await;
    account_is(&connect(&b.addr).await, ServingStatus::NotServing).await;
    assert_eq!(peer.control().connections(), 1, "only the leader connects");
    assert!(a.list_groups().await.is_ok());
    (first, second)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standby_leads_within_the_term_after_kill_9_of_the_leader() {
    let Some(Pair {
        peer,
        a,
        b,
        dir: _dir,
        ..
    }) = Pair::new("kill", "").await
    else {
        return;
    };
    let (mut first, _second) = leader_and_standby(&a, &b, &peer).await;
    // The CLI shows the refusal at once with the retry off.
    let cli = tokio::process::Command::new(process::BIN)
        .args(["groups", "--addr", &b.addr, "--not-leader-retry", "0s"])
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&cli.stderr);
    assert!(!cli.status.success(), "{cli:?}");
    assert!(
        stderr.contains("NOT_LEADER") && stderr.contains("gw-a"),
        "{stderr}"
    );

    first.kill().await.unwrap();
    let killed = Instant::now();
    account_is(&connect(&b.addr).await, ServingStatus::Serving).await;
    let took = killed.elapsed();
    assert!(
        took <= Duration::from_secs(TTL_SECS + 5),
        "the standby led {took:?} after the kill"
    );
    let groups = b.list_groups().await.unwrap();
    assert!(!groups.groups.is_empty(), "{groups:?}");
    assert_eq!(peer.control().connections(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_leader_hands_over_at_once() {
    let Some(Pair {
        peer,
        a,
        b,
        dir: _dir,
        ..
    }) = Pair::new("stop", "").await
    else {
        return;
    };
    // A long term: only the release can make the handover quick.
    for gw in [&a, &b] {
        let text = std::fs::read_to_string(&gw.config).unwrap();
        std::fs::write(&gw.config, text.replace("ttl_secs = 3", "ttl_secs = 60")).unwrap();
    }
    let (first, _second) = leader_and_standby(&a, &b, &peer).await;
    let pid = first.id().expect("pid");
    let stopped = Instant::now();
    signal(pid, "TERM");
    account_is(&connect(&b.addr).await, ServingStatus::Serving).await;
    let took = stopped.elapsed();
    assert!(
        took < Duration::from_secs(10),
        "the standby led {took:?} after the leader stopped"
    );
    assert!(b.list_groups().await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_leader_lets_the_account_go_when_it_runs_again() {
    let Some(Pair {
        db,
        peer,
        a,
        b,
        dir: _dir,
        ..
    }) = Pair::new("pause", "").await
    else {
        return;
    };
    let (first, _second) = leader_and_standby(&a, &b, &peer).await;
    let pid = first.id().expect("pid");
    // An event stream open on the leader.
    let mut events = pb::event_service_client::EventServiceClient::new(connect(&a.addr).await)
        .stream_events(pb::StreamEventsRequest::default())
        .await
        .unwrap()
        .into_inner();
    // Paused (as by a long stop of the world): its lease runs out and the
    // standby takes the account over while the old leader's connection is
    // still open.
    signal(pid, "STOP");
    account_is(&connect(&b.addr).await, ServingStatus::Serving).await;
    assert!(b.list_groups().await.is_ok());
    // A message while the former leader is paused: both connections have
    // it; the new leader journals it.
    let mut on_b = events_of(&b.addr, None).await;
    peer.control()
        .inject_group_message(process::GROUP, 10001, serde_json::json!("while paused"));
    let paused_at = loop {
        let event = next_event(&mut on_b).await;
        if text_of(&event).as_deref() == Some("while paused") {
            break event.sequence;
        }
    };
    signal(pid, "CONT");
    // Running again, the former leader closes its connection and refuses
    // the account (naming the new leader once its next claim, right after
    // stepping down, has answered).
    tokio::time::timeout(
        Duration::from_secs(10),
        peer.control().wait_connections_at_most(1),
    )
    .await
    .expect("the former leader closed its connection");
    account_is(&connect(&a.addr).await, ServingStatus::NotServing).await;
    let refused = a.refuses().await;
    let leader = refused
        .get_details_error_info()
        .and_then(|i| i.metadata.get("leader").cloned());
    assert!(
        matches!(leader.as_deref(), None | Some("gw-b")),
        "{refused:?}"
    );
    assert!(b.list_groups().await.is_ok());
    // Fenced: nothing the former leader took in after the handover was
    // committed to the shared journal (it holds no row from there on).
    let (client, conn) = tokio_postgres::connect(&db, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let late: i64 = client
        .query_one(
            "SELECT count(*) FROM gateway_journal WHERE instance = 'gw-a' AND seq >= $1",
            &[&(paused_at as i64)],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(late, 0, "the paused leader journaled after the handover");
    // Its event stream ended with NOT_LEADER, so the client resubscribes
    // with the leader.
    let ended = loop {
        match events.message().await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended without a status"),
            Err(status) => break status,
        }
    };
    assert_eq!(ended.code(), Code::Unavailable, "{ended:?}");
    assert_eq!(
        ended.get_details_error_info().map(|i| i.reason),
        Some("NOT_LEADER".to_owned())
    );
}

/// An event stream of the account through `addr`, after `after` when
/// given.
async fn events_of(addr: &str, after: Option<u64>) -> tonic::Streaming<pb::StreamEventsResponse> {
    pb::event_service_client::EventServiceClient::new(connect(addr).await)
        .stream_events(pb::StreamEventsRequest {
            after_sequence: after,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

/// The next event of `stream` (heartbeats skipped).
async fn next_event(stream: &mut tonic::Streaming<pb::StreamEventsResponse>) -> pb::Event {
    loop {
        let item = tokio::time::timeout(Duration::from_secs(30), stream.message())
            .await
            .expect("an event within 30 s")
            .expect("the stream goes on")
            .expect("the stream goes on");
        if let Some(event) = item.event {
            return event;
        }
    }
}

fn text_of(event: &pb::Event) -> Option<String> {
    match &event.kind {
        Some(pb::event::Kind::Message(m)) => m.message.as_ref().map(|m| m.text.clone()),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_sequence_continues_on_the_new_leader_after_kill_9() {
    let Some(Pair {
        peer,
        a,
        b,
        dir: _dir,
        ..
    }) = Pair::new("sequence", "").await
    else {
        return;
    };
    let (mut first, _second) = leader_and_standby(&a, &b, &peer).await;
    let mut on_a = events_of(&a.addr, None).await;
    for i in 0..3 {
        peer.control().inject_group_message(
            process::GROUP,
            10001,
            serde_json::json!(format!("before {i}")),
        );
    }
    let mut before = Vec::new();
    while before.len() < 3 {
        let event = next_event(&mut on_a).await;
        if let Some(text) = text_of(&event) {
            before.push((event.sequence, text));
        }
    }
    first.kill().await.unwrap();
    account_is(&connect(&b.addr).await, ServingStatus::Serving).await;
    // Resumed on the new leader from the first of them: the two after it
    // come from the shared journal, then what the new leader receives,
    // numbered on with no gap and no repeat.
    let mut on_b = events_of(&b.addr, Some(before[0].0)).await;
    peer.control()
        .inject_group_message(process::GROUP, 10001, serde_json::json!("after"));
    let mut seen = Vec::new();
    loop {
        let event = next_event(&mut on_b).await;
        let text = text_of(&event);
        seen.push((event.sequence, text.clone()));
        if text.as_deref() == Some("after") {
            break;
        }
    }
    let sequences: Vec<u64> = seen.iter().map(|(s, _)| *s).collect();
    let expected: Vec<u64> = (before[0].0 + 1..).take(seen.len()).collect();
    assert_eq!(sequences, expected, "{seen:?}");
    for (sequence, text) in &before[1..] {
        assert!(
            seen.contains(&(*sequence, Some(text.clone()))),
            "{sequence} {text:?} resumed on the new leader: {seen:?}"
        );
    }
    assert!(seen.last().unwrap().0 > before[2].0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_queued_on_the_leader_is_sent_once_by_the_new_one_after_kill_9() {
    let Some(Pair {
        peer,
        dir: _dir,
        a,
        b,
        ..
    }) = Pair::new("queue", "").await
    else {
        return;
    };
    let (mut first, _second) = leader_and_standby(&a, &b, &peer).await;
    // The implementation goes away: the leader queues the text.
    peer.stop_listening().await;
    let on_a = connect(&a.addr).await;
    account_is(&on_a, ServingStatus::NotServing).await;
    // The one group of the account is where a text without a chat goes.
    let send = |text: &str| pb::SendMessageRequest {
        text: text.into(),
        ..Default::default()
    };
    let queued = pb::message_service_client::MessageServiceClient::new(on_a)
        .send_message(send("queued on the old leader"))
        .await
        .unwrap()
        .into_inner();
    assert!(queued.queued, "{queued:?}");
    first.kill().await.unwrap();
    peer.start_listening().await.unwrap();
    // The new leader reads the queue the old one left and flushes it
    // before this send.
    let on_b = connect(&b.addr).await;
    account_is(&on_b, ServingStatus::Serving).await;
    let sent = pb::message_service_client::MessageServiceClient::new(on_b)
        .send_message(send("after the failover"))
        .await
        .unwrap()
        .into_inner();
    assert!(!sent.queued, "{sent:?}");
    let texts: Vec<String> = peer
        .control()
        .messages(onebot_sandbox::ChatRef::Group(process::GROUP))
        .iter()
        .map(|m| m["raw_message"].as_str().unwrap_or_default().to_owned())
        .filter(|t| t.contains("leader") || t.contains("failover"))
        .collect();
    assert_eq!(texts, ["queued on the old leader", "after the failover"]);
}

/// Waits (health Watch, at most 60 s) until this gateway leads its
/// accounts (`onebot.gateway.v1.ha.leading` SERVING).
async fn leads(addr: &str) {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    let mut stream = HealthClient::new(connect(addr).await)
        .watch(HealthCheckRequest {
            service: "onebot.gateway.v1.ha.leading".into(),
        })
        .await
        .unwrap()
        .into_inner();
    tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(msg) = stream.message().await.unwrap() {
            if msg.status == ServingStatus::Serving as i32 {
                return;
            }
        }
        panic!("health stream ended");
    })
    .await
    .expect("leading within 60 s");
}

/// Downloads `media_id` through `addr` with the CLI; the bytes.
async fn download(addr: &str, media_id: &str, dir: &Path) -> Vec<u8> {
    let to = dir.join(format!("{media_id}.out"));
    let out = tokio::process::Command::new(process::BIN)
        .args([
            "download",
            media_id,
            "-o",
            to.to_str().unwrap(),
            "--addr",
            addr,
        ])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    std::fs::read(to).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_captured_by_the_leader_downloads_from_the_new_one_after_kill_9() {
    use onebot_sandbox::{MediaKind, sample_media};
    let Some(Pair {
        peer, dir, a, b, ..
    }) = Pair::new("media", "").await
    else {
        return;
    };
    let (mut first, _second) = leader_and_standby(&a, &b, &peer).await;
    let png = sample_media(MediaKind::Image, 1_500_000);
    let image = peer
        .control()
        .store_media(MediaKind::Image, png.clone(), "cat.png");
    let mut on_a = events_of(&a.addr, None).await;
    peer.control().inject_group_message(
        process::GROUP,
        10001,
        serde_json::json!([{"type": "text", "data": {"text": "看图"}}, image]),
    );
    let media_id = loop {
        let event = next_event(&mut on_a).await;
        let Some(pb::event::Kind::Message(m)) = event.kind else {
            continue;
        };
        let segments = m.message.expect("message").segments;
        let found = segments.iter().find_map(|s| match &s.kind {
            Some(pb::segment::Kind::Image(i)) => Some(i.media_id.clone()),
            _ => None,
        });
        if let Some(id) = found {
            break id;
        }
    };
    // Captured by the leader (the download waits for the capture).
    assert_eq!(download(&a.addr, &media_id, dir.path()).await, png);
    // Nothing can be fetched again: the implementation and its media host
    // are gone; the leader is killed.
    peer.control().set_media_host_down(true);
    peer.stop_listening().await;
    first.kill().await.unwrap();
    leads(&b.addr).await;
    // The new leader serves the bytes from the shared store.
    assert_eq!(download(&b.addr, &media_id, dir.path()).await, png);
    let b_received = dir.path().join("gw-b/data/received");
    assert!(
        std::fs::read_dir(&b_received).unwrap().count() == 1,
        "fetched into the new leader's own directory"
    );
}

/// The NATS sink on a new leader: what the killed leader journaled while
/// NATS was down, and no sink published, is published by the new leader's
/// sink from the shared journal, before what it journals itself; the
/// stream holds every event of the account once, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_new_leaders_nats_sink_publishes_what_the_killed_leader_journaled() {
    let Some(db) = fresh_database("nats").await else {
        return;
    };
    let mut server = nats::NatsServer::start();
    let mut stream = published::events_stream(&server.url()).await;
    // NATS is down while the first leader takes events in.
    server.stop();
    let sink = format!("[[events.sinks]]\nurl = {:?}\n", server.url());
    let Pair {
        peer,
        a,
        b,
        dir: _dir,
        ..
    } = Pair::within(db, &sink).await;
    let (mut first, _second) = leader_and_standby(&a, &b, &peer).await;
    let mut on_a = events_of(&a.addr, None).await;
    let say = |from: usize, to: usize| {
        for i in from..to {
            peer.control().inject_group_message(
                process::GROUP,
                10001,
                serde_json::json!(format!("ha-{i}")),
            );
        }
    };
    say(0, 20);
    // Journaled (delivered only once committed) on the first leader.
    loop {
        if text_of(&next_event(&mut on_a).await).as_deref() == Some("ha-19") {
            break;
        }
    }
    first.kill().await.unwrap();
    server.start_again();
    // Connected to the implementation: what is said now reaches it.
    account_is(&connect(&b.addr).await, ServingStatus::Serving).await;
    say(20, 25);
    let (sequences, texts) = published::read_until(&mut stream, "default", "ha-24").await;
    let want: Vec<u64> = (1..=sequences.len() as u64).collect();
    assert_eq!(sequences, want, "every event once, in order");
    let want: Vec<String> = (0..25).map(|i| format!("ha-{i}")).collect();
    assert_eq!(texts, want);
}

fn signal(pid: u32, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig} {pid}");
}
