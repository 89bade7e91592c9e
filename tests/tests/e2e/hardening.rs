//! The faults operators meet, each end to end:
//!
//! - a store file corrupted or truncated before start: the gateway refuses
//!   to start with an error naming the file and what to do, and leaves the
//!   file as it was;
//! - the data directory full while texts are queued (a 4 MiB tmpfs): the
//!   send that cannot be stored fails with UNAVAILABLE, STORAGE_FAILED;
//!   what was queued before is flushed once each, in order, and the store
//!   works again once space is freed, without a restart;
//! - a hostile peer: a frame above the size limit, invalid UTF-8, replies
//!   with echoes of every JSON type and size, deeply nested JSON, a flood
//!   of malformed frames: the link is reset or the frame dropped, the
//!   account reconnects, calls keep their answers, memory stays bounded;
//! - hostile clients: 1000 idle connections, an event stream never read
//!   while thousands of events arrive, an upload stalled after its header:
//!   other clients are served and memory stays bounded.
//!
//! The tests that read the process's RSS run in a process of their own.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use onebot_gateway_client::pb;
use onebot_gateway_config::{AccountConfig, Config};
use onebot_gateway_tests::{
    SandboxFlavor, TestGateway, config_for, in_own_process, reason, sandbox,
};
use onebot_sandbox::{ChatRef, EXAMPLE_GROUP, SANDBOX_GROUP};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

/// Appends `inputs <what> <n>` to `$ONEBOT_FUZZ_REPORT` when set: the
/// reliability report counts the bad inputs every test tried.
pub(crate) fn report_inputs(what: &str, n: usize) {
    if let Some(path) = std::env::var_os("ONEBOT_FUZZ_REPORT") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = writeln!(f, "{what} {n}");
        }
    }
}

/// How much the hostile clients may grow the process's RSS.
const HOSTILE_CLIENTS_RSS_BOUND: u64 = 72 * 1024 * 1024;

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .expect("VmRSS")
}

fn text(t: &str) -> pb::SendMessageRequest {
    pb::SendMessageRequest {
        group_id: Some(EXAMPLE_GROUP),
        text: t.into(),
        ..Default::default()
    }
}

/// Starts the gateway on `data_dir` and returns the error it stops with.
async fn start_error(data_dir: &Path) -> String {
    let mut config = Config::default();
    config.server.data_dir = data_dir.to_path_buf();
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: Some("ws://127.0.0.1:9/".into()),
            ..AccountConfig::default()
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let run = onebot_gateway::app::run_with(
        config,
        onebot_gateway::app::Listeners {
            grpc: listener,
            metrics: None,
        },
        std::future::pending(),
    );
    let result = tokio::time::timeout(Duration::from_secs(20), run)
        .await
        .expect("the gateway refuses at once");
    format!(
        "{:#}",
        result.expect_err("the gateway must refuse a broken store")
    )
}

#[tokio::test]
async fn a_corrupted_or_truncated_store_is_refused_and_left_untouched() {
    // A store with a queued text, written by a real gateway.
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(&peer, &[EXAMPLE_GROUP]);
    config.server.data_dir = dir.path().join("data");
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    peer.stop_listening().await;
    gw.wait_state("default", pb::ConnectionState::Backoff).await;
    assert!(
        gw.messages()
            .send_message(text("kept"))
            .await
            .unwrap()
            .into_inner()
            .queued
    );
    gw.stop().await.unwrap();
    let file = dir.path().join("data").join("gateway.sqlite3");
    let good = std::fs::read(&file).unwrap();
    assert!(good.len() > 1024);

    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"this is not a database at all".repeat(100)),
        ("truncated", good[..good.len() / 3].to_vec()),
        ("zeroed header", {
            let mut b = good.clone();
            b[..512].fill(0);
            b
        }),
    ];
    report_inputs("broken store files", cases.len());
    for (what, bytes) in cases {
        std::fs::write(&file, &bytes).unwrap();
        let error = start_error(&dir.path().join("data")).await;
        assert!(
            error.contains(&file.display().to_string()),
            "{what}: the error names the file: {error}"
        );
        assert!(
            error.contains("untouched") && error.contains("backup") && error.contains(".broken"),
            "{what}: the error says what to do: {error}"
        );
        assert_eq!(
            std::fs::read(&file).unwrap(),
            bytes,
            "{what}: the file is left as it was"
        );
    }
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted on drop.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .output()
            .expect("mount");
        assert!(
            out.status.success(),
            "mounting a {size} tmpfs (the test needs root, as CI has): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Tmpfs { dir }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazily, so a failing test that still holds files open leaves no
        // mount behind.
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// Fills the file system of `dir` with `dir/filler` until it is full.
fn fill(dir: &Path) -> PathBuf {
    use std::io::Write;
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).unwrap();
    let block = vec![0xa5u8; 64 * 1024];
    while f.write_all(&block).is_ok() {}
    let _ = f.sync_all();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_data_directory_fails_the_send_and_keeps_the_queue() {
    let fs = Tmpfs::mount("4m");
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&peer, &[EXAMPLE_GROUP]);
    config.server.data_dir = fs.path().join("data");
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    peer.stop_listening().await;
    gw.wait_state("default", pb::ConnectionState::Backoff).await;
    let mut client = gw.messages();
    for t in ["queued 1", "queued 2", "queued 3"] {
        assert!(
            client
                .send_message(text(t))
                .await
                .unwrap()
                .into_inner()
                .queued
        );
    }

    let filler = fill(&fs.path());
    // Texts large enough to need new pages of the store file.
    let big = "满".repeat(20_000);
    let refused = client.send_message(text(&big)).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unavailable, "{refused:?}");
    assert_eq!(reason(&refused), "STORAGE_FAILED", "{refused:?}");
    assert!(
        refused.message().contains("data directory"),
        "{}",
        refused.message()
    );
    let depth = gw.account("default").await.queue_depth;
    assert_eq!(depth, 3, "the refused text is not queued");

    // Space is back: the store goes on by itself.
    std::fs::remove_file(filler).unwrap();
    assert!(
        client
            .send_message(text("queued 4"))
            .await
            .expect("the store works again")
            .into_inner()
            .queued
    );
    peer.start_listening().await.unwrap();
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let after = client
        .send_message(text("online"))
        .await
        .unwrap()
        .into_inner();
    assert!(!after.queued);
    let texts: Vec<String> = peer
        .control()
        .messages(ChatRef::Group(EXAMPLE_GROUP))
        .iter()
        .map(|m| m["raw_message"].as_str().unwrap_or_default().to_owned())
        .filter(|t| t.starts_with("queued") || t == "online" || t.starts_with('满'))
        .collect();
    assert_eq!(
        texts,
        ["queued 1", "queued 2", "queued 3", "queued 4", "online"],
        "each queued text once, in order; the refused one never"
    );
    // Closes the store before the file system goes.
    gw.stop().await.unwrap();
    drop(fs);
}

/// The raw peer's answer to the identify calls and history.
fn answer(action: &str) -> Value {
    match action {
        "get_login_info" => json!({ "user_id": 3_889_000_000i64, "nickname": "raw" }),
        "get_version_info" => {
            json!({ "app_name": "NapCat.Onebot", "app_version": "4.0", "protocol_version": "v11" })
        }
        "get_group_list" => {
            json!([{ "group_id": SANDBOX_GROUP, "group_name": "g", "member_count": 1, "max_member_count": 10 }])
        }
        _ => Value::Null,
    }
}

/// Echo values of every JSON type and size, none of them a call's.
fn foreign_echoes() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(u64::MAX),
        json!(1.5e300),
        json!(""),
        json!("x".repeat(100_000)),
        json!([1, "a", null]),
        json!({ "nested": { "echo": 1 } }),
        json!("9".repeat(400)),
    ]
}

/// Deeply nested JSON, in objects and arrays.
fn deep(depth: usize) -> String {
    format!(
        "{{\"echo\":1,\"data\":{}{}}}",
        "{\"a\":[".repeat(depth),
        "]}".repeat(depth)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_peer_resets_or_drops_and_the_account_recovers() {
    if !in_own_process("hardening::a_hostile_peer_resets_or_drops_and_the_account_recovers") {
        return;
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let sent_bad = Arc::new(AtomicUsize::new(0));
    let peer = {
        let accepted = accepted.clone();
        let sent_bad = sent_bad.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let n = accepted.fetch_add(1, Ordering::SeqCst) + 1;
                let sent_bad = sent_bad.clone();
                tokio::spawn(async move {
                    let Ok(mut ws) = tokio_tungstenite::accept_async_with_config(
                        tcp,
                        Some(
                            tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
                                .max_message_size(None)
                                .max_frame_size(None),
                        ),
                    )
                    .await
                    else {
                        return;
                    };
                    while let Some(Ok(msg)) = ws.next().await {
                        let WsMessage::Text(t) = msg else { continue };
                        let Ok(req) = serde_json::from_str::<Value>(&t) else {
                            continue;
                        };
                        let action = req["action"].as_str().unwrap_or_default().to_owned();
                        if action == "get_group_list" {
                            // Connection 1: invalid UTF-8 in a text frame.
                            // Connection 2: a frame above the 64 MiB limit.
                            // Later ones: garbage that is dropped.
                            let bad: Vec<WsMessage> = match n {
                                1 => vec![WsMessage::Frame(Frame::message(
                                    vec![b'{', 0xff, 0xfe, b'}'],
                                    OpCode::Data(Data::Text),
                                    true,
                                ))],
                                2 => vec![WsMessage::binary(vec![b' '; 65 * 1024 * 1024])],
                                _ => {
                                    let mut v: Vec<WsMessage> = foreign_echoes()
                                        .into_iter()
                                        .map(|echo| {
                                            WsMessage::text(
                                                json!({"status": "ok", "retcode": 0, "data": null, "echo": echo})
                                                    .to_string(),
                                            )
                                        })
                                        .collect();
                                    v.push(WsMessage::text(deep(100_000)));
                                    v.push(WsMessage::text("[".repeat(1_000_000)));
                                    for i in 0..2_000 {
                                        v.push(WsMessage::text(format!(
                                            "{{\"echo\": {i}, \"status\":"
                                        )));
                                        v.push(WsMessage::binary(vec![0xc3; (i % 64) + 1]));
                                    }
                                    v
                                }
                            };
                            sent_bad.fetch_add(bad.len(), Ordering::SeqCst);
                            for b in bad {
                                if ws.send(b).await.is_err() {
                                    return;
                                }
                            }
                        }
                        let reply = json!({
                            "status": "ok", "retcode": 0,
                            "data": answer(&action),
                            "echo": req["echo"],
                        });
                        if ws.send(WsMessage::text(reply.to_string())).await.is_err() {
                            return;
                        }
                    }
                });
            }
        })
    };

    let mut config = Config::default();
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: Some(format!("ws://{addr}/")),
            groups: vec![SANDBOX_GROUP],
            backoff_min_ms: 50,
            backoff_max_ms: 200,
            ..AccountConfig::default()
        },
    );
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut groups = gw.groups();
    let baseline = rss_bytes();
    // Calls on connections 1 and 2 are cut by the reset; the account
    // reconnects each time, and from connection 3 on every call is answered
    // beside the garbage.
    let mut answered = 0;
    for _ in 0..40 {
        if groups
            .list_groups(pb::ListGroupsRequest::default())
            .await
            .is_ok()
        {
            answered += 1;
        }
        if answered >= 5 {
            break;
        }
    }
    assert_eq!(answered, 5, "calls are answered once the peer behaves");
    assert!(
        accepted.load(Ordering::SeqCst) >= 3,
        "the account reconnected after each reset"
    );
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let grown = rss_bytes().saturating_sub(baseline);
    assert!(
        grown < 48 * 1024 * 1024,
        "memory grew by {} MiB",
        grown >> 20
    );
    report_inputs("hostile peer frames", sent_bad.load(Ordering::SeqCst));
    eprintln!(
        "hostile peer: {} bad frames sent, {} connections, RSS +{} MiB",
        sent_bad.load(Ordering::SeqCst),
        accepted.load(Ordering::SeqCst),
        grown >> 20
    );
    drop(gw);
    peer.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_clients_leave_memory_bounded_and_others_served() {
    if !in_own_process("hardening::hostile_clients_leave_memory_bounded_and_others_served") {
        return;
    }
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&peer, &[EXAMPLE_GROUP]);
    config.limits.upload_timeout_ms = 2_000;
    config.events.buffer_size = 256;
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let served = |gw: &TestGateway| {
        let mut groups = gw.groups();
        async move {
            tokio::time::timeout(
                Duration::from_secs(5),
                groups.list_groups(pb::ListGroupsRequest::default()),
            )
            .await
            .expect("served within 5 s")
            .expect("ListGroups")
        }
    };
    served(&gw).await;
    let baseline = rss_bytes();

    // 1000 idle connections: TCP only, and TCP with the HTTP/2 preface.
    let mut idle = Vec::new();
    for i in 0..1000 {
        let mut s = tokio::net::TcpStream::connect(gw.addr).await.unwrap();
        if i % 2 == 1 {
            use tokio::io::AsyncWriteExt;
            s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
                .await
                .unwrap();
        }
        idle.push(s);
    }
    served(&gw).await;

    // A stream opened and never read while 3000 events arrive.
    let mut never_read = gw
        .events()
        .stream_events(pb::StreamEventsRequest::default())
        .await
        .unwrap()
        .into_inner();
    let first = never_read.message().await.unwrap().unwrap();
    assert!(first.heartbeat.is_some());
    let control = peer.control();
    // 1 KiB of text each (the events, with the peer's own JSON, about
    // twice that): more than the HTTP/2 flow-control windows the unread
    // stream may fill, so the gateway has to stop sending and the stream
    // falls behind the hub.
    let filler = "x".repeat(1024);
    for i in 0..3000 {
        control.inject_group_message(EXAMPLE_GROUP, 10001, json!(format!("flood {i} {filler}")));
    }
    served(&gw).await;

    // An upload that stops after its header: the server's upload timeout
    // ends it, and its slot and file are returned.
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    tx.send(pb::UploadMediaRequest {
        payload: Some(pb::upload_media_request::Payload::Header(
            pb::UploadMediaHeader {
                account_id: String::new(),
                kind: pb::MediaKind::File as i32,
                file_name: "stalled.bin".into(),
                size: Some(20 << 20),
                sha256: None,
            },
        )),
    })
    .await
    .unwrap();
    let mut media = gw.media();
    let stalled = tokio::spawn(async move {
        media
            .upload_media(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
    });
    served(&gw).await;
    let ended = tokio::time::timeout(Duration::from_secs(15), stalled)
        .await
        .expect("the stalled upload ends")
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(
            ended.code(),
            tonic::Code::DeadlineExceeded | tonic::Code::Cancelled
        ),
        "{ended:?}"
    );
    drop(tx);

    // The reader that never read was dropped for lagging, not buffered.
    let mut lagged = None;
    while let Some(m) = tokio::time::timeout(Duration::from_secs(10), never_read.message())
        .await
        .expect("the never-read stream ends")
        .transpose()
    {
        if let Err(status) = m {
            lagged = Some(status);
            break;
        }
    }
    let lagged = lagged.expect("an error after the backlog");
    assert_eq!(reason(&lagged), "EVENT_STREAM_LAGGED", "{lagged:?}");

    served(&gw).await;
    let grown = rss_bytes().saturating_sub(baseline);
    report_inputs(
        "hostile clients (idle connections, unread stream, stalled upload)",
        1002,
    );
    eprintln!("hostile clients: RSS +{} MiB", grown >> 20);
    // With the same code the growth spreads over +53..+65 MiB from run to
    // run, most of it the 1000 connections; the bound sits above that
    // spread. The unread stream is caught by EVENT_STREAM_LAGGED above, not
    // by this bound.
    assert!(
        grown < HOSTILE_CLIENTS_RSS_BOUND,
        "memory grew by {} MiB",
        grown >> 20
    );
    drop(idle);
}
