//! Memory stays bounded against a hostile peer: the real binary as a
//! process, its resident set read from `/proc/<pid>/status`, events flooded
//! in by a sandbox peer over a real WebSocket and read back through
//! StreamEvents.
//!
//! One test, in order: a clean start's idle RSS; a ~20 MB event frame
//! (above `limits.max_event_frame_bytes`) is dropped, the next event still
//! arrives and RSS stays within 64 MiB of idle; twenty ~3 MB event frames
//! (below it: decoded, journaled, archived cut), with a stream that never
//! reads them open, keep RSS within 200 MiB of idle; after `kill -9` and a start over the same journal, idle RSS is
//! within 64 MiB of the clean start's, and the next event still arrives.

mod process;

use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_sandbox::{Sandbox, SandboxConfig};
use pb::event_service_client::EventServiceClient;
use process::{GROUP, account_is, connect, free_port, spawn, write_config};
use tonic::transport::Channel;
use tonic_health::pb::health_check_response::ServingStatus;

const MIB: u64 = 1024 * 1024;

/// Resident set of `pid` in bytes (`VmRSS`), and its peak (`VmHWM`).
fn rss(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb = |key: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("{key} in /proc/{pid}/status"))
    };
    (kb("VmRSS:") * 1024, kb("VmHWM:") * 1024)
}

async fn events(channel: &Channel) -> tonic::Streaming<pb::StreamEventsResponse> {
    EventServiceClient::new(channel.clone())
        .max_decoding_message_size(64 * MIB as usize)
        .stream_events(pb::StreamEventsRequest::default())
        .await
        .unwrap()
        .into_inner()
}

/// The id of the next message event of the stream (other events and
/// heartbeats skipped).
async fn next_message(stream: &mut tonic::Streaming<pb::StreamEventsResponse>) -> i64 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let r = tokio::time::timeout_at(deadline, stream.message())
            .await
            .expect("a message event in time")
            .unwrap()
            .expect("stream open");
        if let Some(pb::Event {
            kind: Some(pb::event::Kind::Message(m)),
            ..
        }) = r.event
        {
            return m.message.unwrap().message_id;
        }
    }
}

/// Injects a normal message and asserts it is the next message event.
async fn a_normal_message_arrives(
    peer: &Sandbox,
    stream: &mut tonic::Streaming<pb::StreamEventsResponse>,
) {
    let id = peer.control().inject_group_message(
        GROUP,
        10001,
        serde_json::json!("一条正常的消息 normal"),
    );
    assert_eq!(next_message(stream).await, id, "the next event arrives");
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / MIB as f64)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flooding_peer_leaves_memory_bounded_across_a_restart() {
    let peer = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let addr = format!("http://127.0.0.1:{port}");
    let config = write_config(dir.path(), port, &peer, "", "");
    let log = dir.path().join("gateway.log");
    let mut first = spawn(&config, &addr, Some(&log)).await;
    let pid = first.id().unwrap();
    let channel = connect(&addr).await;
    account_is(&channel, ServingStatus::Serving).await;
    let mut stream = events(&channel).await;
    a_normal_message_arrives(&peer, &mut stream).await;
    let (idle, _) = rss(pid);
    eprintln!("clean start, idle: {}", mib(idle));

    // The peer renders a message's text twice (`message` and
    // `raw_message`): a 10 MB text is a frame of about 20 MB.
    peer.control()
        .inject_group_message(GROUP, 10001, serde_json::json!("x".repeat(10_000_000)));
    a_normal_message_arrives(&peer, &mut stream).await;
    let (after_huge, peak) = rss(pid);
    eprintln!(
        "after a ~20 MB event: {} (peak {})",
        mib(after_huge),
        mib(peak)
    );
    assert!(
        after_huge <= idle + 64 * MIB,
        "RSS {} after a dropped 20 MB event, idle {}",
        mib(after_huge),
        mib(idle)
    );

    // Twenty ~3 MB frames (1.5 MB of text each), below the event cap: each
    // is delivered. A second stream, on a connection of its own, never reads
    // them: it holds no events beyond the resume buffer's bytes.
    let stalled_channel = connect(&addr).await;
    let stalled = events(&stalled_channel).await;
    for i in 0..20 {
        let text = format!("{i} {}", "y".repeat(1_500_000));
        let id = peer
            .control()
            .inject_group_message(GROUP, 10001, serde_json::json!(text));
        assert_eq!(next_message(&mut stream).await, id, "event {i} delivered");
    }
    a_normal_message_arrives(&peer, &mut stream).await;
    let (after_flood, peak) = rss(pid);
    eprintln!(
        "after twenty ~3 MB events: {} (peak {})",
        mib(after_flood),
        mib(peak)
    );
    assert!(
        after_flood <= idle + 200 * MIB,
        "RSS {} after twenty 3 MB events, idle {}",
        mib(after_flood),
        mib(idle)
    );
    drop(stalled);

    // The restart's backfill reads the peer's newest history page (50
    // messages) back: normal traffic after the flood keeps that page small,
    // so what the new process holds at idle is what it reloaded from its
    // journal (the flood is within the newest 1024 events there).
    for _ in 0..50 {
        a_normal_message_arrives(&peer, &mut stream).await;
    }

    // A new process over the same journal.
    drop(stream);
    first.kill().await.unwrap();
    let second = spawn(&config, &addr, Some(&log)).await;
    let pid = second.id().unwrap();
    let channel = connect(&addr).await;
    account_is(&channel, ServingStatus::Serving).await;
    let mut stream = events(&channel).await;
    a_normal_message_arrives(&peer, &mut stream).await;
    let (restarted, peak) = rss(pid);
    eprintln!(
        "restarted over the journal, idle: {} (peak {})",
        mib(restarted),
        mib(peak)
    );
    assert!(
        restarted <= idle + 64 * MIB,
        "RSS {} after a restart, clean start {}",
        mib(restarted),
        mib(idle)
    );

    // The drop was logged with the account and the size, never the text.
    drop(second);
    let logged = std::fs::read_to_string(&log).unwrap();
    let line = logged
        .lines()
        .find(|l| l.contains("max_event_frame_bytes"))
        .unwrap_or_else(|| panic!("no drop logged: {logged}"));
    assert!(
        line.contains("default") && line.contains("bytes="),
        "{line}"
    );
    assert!(
        !logged.contains(&"x".repeat(64)),
        "the dropped text was logged"
    );
}
