//! The offline queue survives `kill -9` of the real binary: messages queued
//! while the peer was away are delivered, in order, by the next process;
//! so do delivered events, staged uploads and the NATS event sink's place.

#[path = "../../tests/src/nats.rs"]
mod nats;
mod process;
mod published;

use std::path::Path;
use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_sandbox::{ChatRef, Sandbox, SandboxConfig};
use pb::message_service_client::MessageServiceClient;
use process::{GROUP, account_is, connect, free_port, spawn, write_config};
use tonic_health::pb::health_check_response::ServingStatus;

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
    let config = write_config(dir.path(), port, &peer, "", "");

    let mut first = spawn(&config, &addr, None).await;
    let channel = connect(&addr).await;
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
    let _second = spawn(&config, &addr, None).await;
    let channel = connect(&addr).await;
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

/// Texts of the peer's group, in the order it stored them.
fn group_texts(peer: &Sandbox) -> Vec<String> {
    peer.control()
        .messages(ChatRef::Group(GROUP))
        .iter()
        .map(|m| m["raw_message"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_a_flush_loses_nothing_and_repeats_at_most_the_frame_in_flight() {
    const N: usize = 30;
    let peer = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let addr = format!("http://127.0.0.1:{port}");
    let config = write_config(
        dir.path(),
        port,
        &peer,
        "rate_group_per_minute = 6000\nrate_group_burst = 100\nrate_account_per_minute = 6000\nrate_account_burst = 100",
        "",
    );
    let mut first = spawn(&config, &addr, None).await;
    let channel = connect(&addr).await;
    account_is(&channel, ServingStatus::Serving).await;
    peer.stop_listening().await;
    account_is(&channel, ServingStatus::NotServing).await;
    let mut client = MessageServiceClient::new(channel.clone());
    let texts: Vec<String> = (0..N).map(|i| format!("queued {i:02}")).collect();
    for t in &texts {
        assert!(
            client
                .send_message(text(t))
                .await
                .unwrap()
                .into_inner()
                .queued
        );
    }
    // The peer comes back slow: the flush is under way when the process
    // is killed.
    peer.control()
        .set_fault(onebot_sandbox::Fault::SlowReplies(Duration::from_millis(
            100,
        )));
    peer.start_listening().await.unwrap();
    // Five of the queued sends reached the peer: the flush is under way.
    tokio::time::timeout(
        Duration::from_secs(30),
        peer.control().wait_actions(|actions| {
            actions
                .iter()
                .filter(|a| a.action == "send_group_msg" && a.params.to_string().contains("queued"))
                .count()
                >= 5
        }),
    )
    .await
    .expect("the flush started");
    first.kill().await.unwrap();
    let before = group_texts(&peer)
        .iter()
        .filter(|t| t.starts_with("queued"))
        .count();
    assert!(before < N, "the kill came before the end of the flush");
    peer.control()
        .clear_fault(onebot_sandbox::FaultKind::SlowReplies);

    let _second = spawn(&config, &addr, None).await;
    let channel = connect(&addr).await;
    account_is(&channel, ServingStatus::Serving).await;
    // The flush runs before any newer send of the account.
    let r = MessageServiceClient::new(channel)
        .send_message(text("after kill"))
        .await
        .unwrap()
        .into_inner();
    assert!(!r.queued);
    let got: Vec<String> = group_texts(&peer)
        .into_iter()
        .filter(|t| t.starts_with("queued"))
        .collect();
    let mut first_seen: Vec<String> = Vec::new();
    for t in &got {
        if !first_seen.contains(t) {
            first_seen.push(t.clone());
        }
    }
    assert_eq!(first_seen, texts, "every queued text, in order");
    // Unknown-outcome rule: the one frame in flight at the kill may be sent
    // again by the next process; nothing else is.
    let repeated = got.len() - N;
    assert!(repeated <= 1, "{repeated} texts sent twice: {got:?}");
    if repeated == 1 {
        let twice = got
            .iter()
            .find(|t| got.iter().filter(|u| u == t).count() == 2)
            .unwrap();
        // The last one the peer stored around the kill (a frame already in
        // the socket may land just after the count).
        let at = first_seen.iter().position(|t| t == twice).unwrap();
        assert!(
            at + 1 == before || at == before,
            "only the text in flight at the kill repeats: {twice} at {at}, {before} stored before"
        );
    }
}

fn staged(data: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data.join("staging"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Waits until `done` holds for the names in the gateway's staging
/// directory, which another process changes: each check runs when the
/// kernel reports a change there (inotify, through `notify`). The watch is
/// in place before the first check, so no change is missed; `within` is
/// the deadline, named in the panic as `what`.
async fn staging_until(
    data: &Path,
    within: Duration,
    what: &str,
    done: impl Fn(&[String]) -> bool,
) {
    use notify::Watcher;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut watcher = notify::recommended_watcher(move |event| {
        let _ = tx.send(event);
    })
    .expect("an inotify watcher");
    watcher
        .watch(&data.join("staging"), notify::RecursiveMode::NonRecursive)
        .expect("watch the staging directory");
    let checked = tokio::time::timeout(within, async {
        while !done(&staged(data)) {
            let event = rx.recv().await.expect("the watcher is alive");
            event.expect("a staging directory notice");
        }
    })
    .await;
    if checked.is_err() {
        panic!("{what} (after {within:?}): {:?}", staged(data));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_an_upload_leaks_no_staged_file_past_its_ttl() {
    use pb::media_service_client::MediaServiceClient;
    use pb::upload_media_request::Payload;
    let peer = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let addr = format!("http://127.0.0.1:{port}");
    let config = write_config(dir.path(), port, &peer, "", "\n[media]\nttl_secs = 2");
    let data = dir.path().join("data");
    let mut first = spawn(&config, &addr, None).await;
    let channel = connect(&addr).await;
    account_is(&channel, ServingStatus::Serving).await;
    let header = |size: usize| pb::UploadMediaRequest {
        payload: Some(Payload::Header(pb::UploadMediaHeader {
            account_id: String::new(),
            kind: pb::MediaKind::File as i32,
            file_name: "f.bin".into(),
            size: Some(size as i64),
            sha256: None,
        })),
    };
    let chunk = |n: usize| pb::UploadMediaRequest {
        payload: Some(Payload::Chunk(vec![7u8; n])),
    };
    // One finished upload (staged until its TTL) ...
    let done = MediaServiceClient::new(channel.clone())
        .upload_media(tokio_stream::iter(vec![header(1 << 20), chunk(1 << 20)]))
        .await
        .unwrap()
        .into_inner();
    // ... and one cut by the kill, with part of it on disk.
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    tx.send(header(8 << 20)).await.unwrap();
    tx.send(chunk(1 << 20)).await.unwrap();
    let mut media = MediaServiceClient::new(channel.clone());
    let cut = tokio::spawn(async move {
        media
            .upload_media(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
    });
    staging_until(
        &data,
        Duration::from_secs(20),
        "the interrupted upload's temporary file",
        |names| names.iter().any(|n| n.starts_with(".tmp-")),
    )
    .await;
    first.kill().await.unwrap();
    assert!(cut.await.unwrap().is_err());
    drop(tx);
    assert!(staged(&data).contains(&done.media_id));

    let _second = spawn(&config, &addr, None).await;
    // The new process removed the interrupted upload's file before serving.
    let now = staged(&data);
    assert!(
        !now.iter().any(|n| n.starts_with(".tmp-")),
        "temporary file left: {now:?}"
    );
    // The finished one is gone once its TTL passed (the sweeper runs every
    // second for a 2 s TTL).
    staging_until(
        &data,
        Duration::from_secs(15),
        "staged files past their TTL",
        |names| names.is_empty(),
    )
    .await;
}

/// The next event of the stream, skipping heartbeats.
async fn next_event(stream: &mut tonic::Streaming<pb::StreamEventsResponse>) -> pb::Event {
    loop {
        let r = tokio::time::timeout(Duration::from_secs(20), stream.message())
            .await
            .expect("an event in time")
            .unwrap()
            .expect("stream open");
        if let Some(e) = r.event {
            return e;
        }
    }
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
    let config = write_config(dir.path(), port, &peer, "", "");

    let mut first = spawn(&config, &addr, None).await;
    let channel = connect(&addr).await;
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
            let e = next_event(&mut events).await;
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

    let _second = spawn(&config, &addr, None).await;
    let channel = connect(&addr).await;
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
        let e = next_event(&mut resumed).await;
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

/// The NATS event sink across `kill -9` of the gateway while it publishes:
/// the next process goes on from the position it stored, and JetStream
/// holds every event of the account once, in order (a repeat of what was
/// in flight is dropped by its `Nats-Msg-Id`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nats_sink_survives_kill_9_with_every_event_once() {
    let server = nats::NatsServer::start();
    let peer = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let addr = format!("http://127.0.0.1:{port}");
    let sink = format!("[[events.sinks]]\nurl = {:?}\n", server.url());
    let config = write_config(dir.path(), port, &peer, "", &sink);
    let say = |from: usize, to: usize| {
        for i in from..to {
            peer.control().inject_group_message(
                GROUP,
                10_003,
                serde_json::json!([{"type": "text", "data": {"text": format!("kill9-{i}")}}]),
            );
        }
    };
    let mut stream = published::events_stream(&server.url()).await;

    let mut first = spawn(&config, &addr, None).await;
    account_is(&connect(&addr).await, ServingStatus::Serving).await;
    say(0, 300);
    // SIGKILL while events arrive and the sink publishes them.
    first.kill().await.unwrap();
    let _second = spawn(&config, &addr, None).await;
    account_is(&connect(&addr).await, ServingStatus::Serving).await;
    say(300, 310);

    // Wait until the stream holds the last one said, then read it whole.
    let (sequences, texts) = published::read_until(&mut stream, "default", "kill9-309").await;
    let want: Vec<u64> = (1..=sequences.len() as u64).collect();
    assert_eq!(sequences, want, "every event once, in order");
    // The messages the first process committed before it died (the rest
    // died with it, unreceived), then the second's: each once, in order.
    let k = texts.len() - 10;
    let want: Vec<String> = (0..k)
        .chain(300..310)
        .map(|i| format!("kill9-{i}"))
        .collect();
    assert_eq!(texts, want);
}
