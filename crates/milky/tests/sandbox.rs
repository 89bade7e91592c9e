//! The Milky adapter against a real Milky peer: the sandbox's Milky 1.2
//! face over HTTP, WebSocket and SSE. Every call and event is recorded to
//! `$CARGO_TARGET_TMPDIR/milky-adapter-<test>.jsonl` for the schema check
//! (`tests/milky-schema/validate.mjs`).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use onebot_gateway_config::{AccountConfig, MilkyEvents};
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::model::{
    AccountStatus, ChatRef, ConnState, InboundEvent, MediaKind, MediaPayload, Message, Segment,
};
use onebot_gateway_domain::ports::{EventSink, OutSegment, PeerApi};
use onebot_gateway_milky::MilkyClient;
use onebot_sandbox::{
    DEFAULT_SELF_ID, EXAMPLE_GROUP, SANDBOX_GROUP, Sandbox, SandboxConfig, SandboxControl,
};
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Longest wait for something the peer does (a failure guard, not a pause).
const WAIT: Duration = Duration::from_secs(20);

struct Sink(mpsc::UnboundedSender<InboundEvent>);

impl EventSink for Sink {
    fn publish(&self, _account_id: &str, event: InboundEvent) {
        let _ = self.0.send(event);
    }
}

/// A sandbox and a client of it; when dropped after a test that passed,
/// the calls and events it recorded are checked against the schemas.
struct Rig {
    name: &'static str,
    /// Whether the recording must validate (false for raw calls that are
    /// invalid on purpose).
    schema: bool,
    sandbox: Sandbox,
    client: Arc<MilkyClient>,
    events: mpsc::UnboundedReceiver<InboundEvent>,
    shutdown: CancellationToken,
}

impl Drop for Rig {
    fn drop(&mut self) {
        self.shutdown.cancel();
        if self.schema && !std::thread::panicking() {
            schema_check(self.name);
        }
    }
}

async fn rig(name: &'static str, events: MilkyEvents) -> Rig {
    rig_with(name, events, 1024 * 1024).await
}

async fn rig_with(name: &'static str, events: MilkyEvents, max_event_bytes: usize) -> Rig {
    let record = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("milky-adapter-{name}.jsonl"));
    let _ = std::fs::remove_file(&record);
    let sandbox = Sandbox::start(SandboxConfig {
        access_token: Some("secret".into()),
        milky_record: Some(record),
        ..SandboxConfig::milky()
    })
    .await
    .expect("sandbox starts");
    let config = AccountConfig {
        milky_url: Some(sandbox.milky_url()),
        milky_events: events,
        access_token: Some(onebot_gateway_config::Secret::new("secret")),
        backoff_min_ms: 20,
        backoff_max_ms: 100,
        request_timeout_ms: 10_000,
        ..AccountConfig::default()
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let shutdown = CancellationToken::new();
    let client = MilkyClient::start(
        "milky",
        config,
        max_event_bytes,
        Arc::new(Sink(tx)),
        shutdown.clone(),
    )
    .expect("client starts");
    let rig = Rig {
        name,
        schema: true,
        sandbox,
        client,
        events: rx,
        shutdown,
    };
    status_until(&rig.client, |s| s.state == ConnState::Connected && s.online).await;
    rig
}

async fn status_until(
    client: &MilkyClient,
    done: impl Fn(&AccountStatus) -> bool,
) -> AccountStatus {
    let mut rx = client.watch_status();
    tokio::time::timeout(WAIT, async {
        loop {
            let s = rx.borrow_and_update().clone();
            if done(&s) {
                return s;
            }
            if rx.changed().await.is_err() {
                panic!("status watch closed at {s:?}");
            }
        }
    })
    .await
    .expect("status reached in time")
}

async fn event_until<T>(
    rx: &mut mpsc::UnboundedReceiver<InboundEvent>,
    mut pick: impl FnMut(InboundEvent) -> Option<T>,
) -> T {
    tokio::time::timeout(WAIT, async {
        loop {
            let ev = rx.recv().await.expect("event channel open");
            if let Some(t) = pick(ev) {
                return t;
            }
        }
    })
    .await
    .expect("event in time")
}

fn deadline() -> Deadline {
    Deadline::after(Duration::from_secs(10))
}

fn text(m: &Message) -> String {
    m.segments
        .iter()
        .filter_map(|s| match s {
            Segment::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// The seqs the sandbox holds for `chat`, old → new.
fn stored_seqs(control: &SandboxControl, chat: onebot_sandbox::ChatRef) -> Vec<i64> {
    control
        .messages(chat)
        .iter()
        .filter_map(|m| control.message_seq(m["message_id"].as_i64()?))
        .collect()
}

#[tokio::test]
async fn status_names_the_peer() {
    let rig = rig("status", MilkyEvents::WebSocket).await;
    let s = rig.client.status();
    assert_eq!(s.self_id, DEFAULT_SELF_ID);
    assert_eq!(s.implementation, "onebot-sandbox");
    assert!(!s.implementation_version.is_empty());
    assert_eq!(s.profile, Some("milky"));
    assert_eq!(
        s.transport,
        onebot_gateway_domain::model::TransportKind::Http
    );
}

#[tokio::test]
async fn history_pages_back_over_thirty_without_gap_or_duplicate() {
    let rig = rig("history", MilkyEvents::WebSocket).await;
    let chat = ChatRef::Group(SANDBOX_GROUP);
    let mut seqs: Vec<i64> = Vec::new();
    let mut anchor = None;
    loop {
        let page = rig
            .client
            .get_history(chat, 100, anchor, deadline())
            .await
            .unwrap();
        assert!(page.messages.len() <= 100);
        let page_seqs: Vec<i64> = page
            .messages
            .iter()
            .map(|m| m.message_seq.unwrap())
            .collect();
        assert!(page_seqs.windows(2).all(|w| w[0] < w[1]), "{page_seqs:?}");
        if let (Some(last), Some(first)) = (page_seqs.last(), seqs.first()) {
            assert!(last < first, "pages overlap: {last} !< {first}");
        }
        if page.has_more {
            assert_eq!(page.messages.len(), 100);
        }
        anchor = page.messages.first().map(|m| m.message_id);
        seqs.splice(0..0, page_seqs);
        if !page.has_more {
            break;
        }
    }
    let stored = stored_seqs(
        &rig.sandbox.control(),
        onebot_sandbox::ChatRef::Group(SANDBOX_GROUP),
    );
    assert_eq!(seqs, stored);
    // A friend chat: every row its sender's name, the bot's own too.
    let friend = rig
        .client
        .get_history(ChatRef::Private(10001), 100, None, deadline())
        .await
        .unwrap();
    assert!(friend.messages.len() > 30 && !friend.has_more);
    assert!(
        friend
            .messages
            .iter()
            .any(|m| m.sender.user_id == DEFAULT_SELF_ID)
    );
    assert!(
        friend
            .messages
            .iter()
            .all(|m| !m.sender.nickname.is_empty()),
        "{:?}",
        friend.messages
    );
    // A count under one page, and an anchor's chat checked.
    let small = rig
        .client
        .get_history(chat, 7, None, deadline())
        .await
        .unwrap();
    assert_eq!(small.messages.len(), 7);
    assert!(small.has_more);
    let other = rig
        .client
        .get_history(
            ChatRef::Group(EXAMPLE_GROUP),
            5,
            Some(small.messages[0].message_id),
            deadline(),
        )
        .await;
    assert_eq!(other.unwrap_err().kind, Kind::MessageNotFound);
}

#[tokio::test]
async fn send_read_and_recall_a_message() {
    let mut rig = rig("send", MilkyEvents::WebSocket).await;
    let chat = ChatRef::Group(SANDBOX_GROUP);
    let newest = rig
        .client
        .get_history(chat, 1, None, deadline())
        .await
        .unwrap();
    let quoted = newest.messages[0].message_id;
    let image = MediaPayload::inline(
        MediaKind::Image,
        "image/png".into(),
        "a.png".into(),
        Bytes::from(onebot_sandbox::sample_media(
            onebot_sandbox::MediaKind::Image,
            256,
        )),
    );
    let id = rig
        .client
        .send_message(
            chat,
            &[
                OutSegment::Reply(quoted),
                OutSegment::At(10002),
                OutSegment::Text("你好 milky"),
                OutSegment::Image(&image),
            ],
            deadline(),
        )
        .await
        .unwrap();
    assert_ne!(id, 0);
    let m = rig
        .client
        .get_message(id, Some(chat), deadline())
        .await
        .unwrap();
    assert_eq!(m.message_id, id);
    assert_eq!(m.chat, chat);
    assert_eq!(m.sender.user_id, DEFAULT_SELF_ID);
    assert!(text(&m).contains("你好 milky"), "{m:?}");
    assert!(
        m.segments
            .iter()
            .any(|s| matches!(s, Segment::Image { .. })),
        "{m:?}"
    );
    match m.segments.first() {
        Some(Segment::Reply {
            id: q,
            quoted: Some(inline),
        }) => {
            assert_eq!(q, &quoted.to_string());
            assert_eq!(inline.message_id, quoted);
        }
        other => panic!("no inline quote: {other:?}"),
    }
    // The peer echoes the bot's own send as an event with the same id.
    let echoed = event_until(&mut rig.events, |e| match e {
        InboundEvent::Message {
            message,
            self_sent: true,
        } if message.message_id == id => Some(message),
        _ => None,
    })
    .await;
    assert_eq!(echoed.chat, chat);
    rig.client.recall(id, deadline()).await.unwrap();
    let gone = rig
        .client
        .get_message(id, Some(chat), deadline())
        .await
        .unwrap_err();
    assert_eq!(gone.kind, Kind::MessageNotFound);
    // Ids of no message of this account.
    assert_eq!(
        rig.client
            .get_message(12345, None, deadline())
            .await
            .unwrap_err()
            .kind,
        Kind::MessageNotFound
    );
    assert_eq!(
        rig.client.recall(12345, deadline()).await.unwrap_err().kind,
        Kind::MessageNotFound
    );
}

#[tokio::test]
async fn members_and_groups_are_listed() {
    let rig = rig("members", MilkyEvents::Sse).await;
    let groups = rig.client.get_groups(deadline()).await.unwrap();
    let ids: Vec<i64> = groups.iter().map(|g| g.group_id).collect();
    assert_eq!(ids, vec![EXAMPLE_GROUP, SANDBOX_GROUP]);
    let members = rig
        .client
        .get_group_members(EXAMPLE_GROUP, None, deadline())
        .await
        .unwrap();
    assert_eq!(members.len() as i64, groups[0].member_count);
    assert!(members.iter().any(|m| m.role == "owner"));
    let fresh = rig
        .client
        .get_group_members(EXAMPLE_GROUP, Some(true), deadline())
        .await
        .unwrap();
    assert_eq!(fresh.len(), members.len());
    rig.client
        .poke(SANDBOX_GROUP, 10002, deadline())
        .await
        .unwrap();
}

async fn events_arrive(events: MilkyEvents, name: &'static str) {
    let mut rig = rig(name, events).await;
    let control = rig.sandbox.control();
    let quoted = control.inject_group_message(SANDBOX_GROUP, 10002, json!("第一句"));
    let sid = control.inject_group_message(
        SANDBOX_GROUP,
        10003,
        json!([{"type": "reply", "data": {"id": quoted}}, {"type": "text", "data": {"text": "回一句"}}]),
    );
    let seq = control.message_seq(sid).unwrap();
    let m = event_until(&mut rig.events, |e| match e {
        InboundEvent::Message { message, .. } if message.message_seq == Some(seq) => Some(message),
        _ => None,
    })
    .await;
    assert_eq!(m.chat, ChatRef::Group(SANDBOX_GROUP));
    assert_eq!(m.sender.user_id, 10003);
    match m.segments.first() {
        Some(Segment::Reply {
            quoted: Some(q), ..
        }) => assert_eq!(text(q), "第一句"),
        other => panic!("no inline quote: {other:?}"),
    }
    // The event's id reads the same message back.
    let again = rig
        .client
        .get_message(m.message_id, None, deadline())
        .await
        .unwrap();
    assert_eq!(again.message_seq, Some(seq));
    assert!(control.recall_message(sid, 10003));
    let (chat, id) = event_until(&mut rig.events, |e| match e {
        InboundEvent::MessageRecalled {
            chat, message_id, ..
        } => Some((chat, message_id)),
        _ => None,
    })
    .await;
    assert_eq!((chat, id), (m.chat, m.message_id));
    control.bot_offline("test");
    event_until(&mut rig.events, |e| {
        matches!(e, InboundEvent::Lifecycle { ref sub_type, .. } if sub_type == "offline")
            .then_some(())
    })
    .await;
}

#[tokio::test]
async fn events_arrive_over_websocket() {
    events_arrive(MilkyEvents::WebSocket, "events-ws").await;
}

#[tokio::test]
async fn events_arrive_over_sse() {
    events_arrive(MilkyEvents::Sse, "events-sse").await;
}

async fn reconnects(events: MilkyEvents, name: &'static str) {
    let mut rig = rig(name, events).await;
    rig.sandbox.stop_listening().await;
    status_until(&rig.client, |s| {
        s.state != ConnState::Connected && !s.online
    })
    .await;
    let offline = rig.client.get_groups(deadline()).await.unwrap_err();
    assert_eq!(offline.kind, Kind::AccountOffline);
    assert!(offline.retry_after.is_some());
    rig.sandbox.start_listening().await.unwrap();
    status_until(&rig.client, |s| s.state == ConnState::Connected && s.online).await;
    let sid = rig
        .sandbox
        .control()
        .inject_private_message(10001, json!("又在了"));
    let seq = rig.sandbox.control().message_seq(sid).unwrap();
    let m = event_until(&mut rig.events, |e| match e {
        InboundEvent::Message { message, .. } if message.message_seq == Some(seq) => Some(message),
        _ => None,
    })
    .await;
    assert_eq!(m.chat, ChatRef::Private(10001));
}

#[tokio::test]
async fn reconnects_over_websocket_after_the_peer_restarts() {
    reconnects(MilkyEvents::WebSocket, "reconnect-ws").await;
}

#[tokio::test]
async fn reconnects_over_sse_after_the_peer_restarts() {
    reconnects(MilkyEvents::Sse, "reconnect-sse").await;
}

#[tokio::test]
async fn a_wrong_token_is_auth_failed() {
    let sandbox = Sandbox::start(SandboxConfig {
        access_token: Some("secret".into()),
        ..SandboxConfig::milky()
    })
    .await
    .unwrap();
    let (tx, _rx) = mpsc::unbounded_channel();
    let shutdown = CancellationToken::new();
    let client = MilkyClient::start(
        "milky",
        AccountConfig {
            milky_url: Some(sandbox.milky_url()),
            access_token: Some(onebot_gateway_config::Secret::new("wrong")),
            ..AccountConfig::default()
        },
        1024 * 1024,
        Arc::new(Sink(tx)),
        shutdown.clone(),
    )
    .unwrap();
    status_until(&client, |s| s.state == ConnState::AuthFailed).await;
    let e = client.get_groups(deadline()).await.unwrap_err();
    assert_eq!(e.kind, Kind::OnebotAuthFailed);
    shutdown.cancel();
}

/// A sink that keeps what a peer step writes.
struct Bytes0(Vec<u8>);

#[async_trait::async_trait]
impl onebot_gateway_domain::ports::MediaSink for Bytes0 {
    async fn write(&mut self, chunk: &[u8]) -> onebot_gateway_domain::error::Result<()> {
        self.0.extend_from_slice(chunk);
        Ok(())
    }

    fn limit(&self) -> u64 {
        u64::MAX
    }
}

async fn download(url: &str) -> Vec<u8> {
    let resp = reqwest::get(url).await.expect("download");
    assert_eq!(resp.status(), 200, "{url}");
    resp.bytes().await.expect("body").to_vec()
}

/// The id the adapter mints for message `seq` of a group.
fn group_id_of(group: i64, seq: i64) -> i64 {
    use onebot_gateway_milky::ids::{MessageKey, Scene, mint_id};
    mint_id(
        "milky",
        MessageKey {
            scene: Scene::Group,
            peer: group,
            seq,
        },
    )
}

#[tokio::test]
async fn forwards_files_and_received_media() {
    use onebot_gateway_domain::model::ReceivedMedia;
    use onebot_gateway_domain::ports::{MediaStep, PeerMedia};
    let rig = rig("media", MilkyEvents::WebSocket).await;
    let control = rig.sandbox.control();
    // A forward bundle (seeded in 示例群, message 3).
    let m = rig
        .client
        .get_message(group_id_of(EXAMPLE_GROUP, 3), None, deadline())
        .await
        .unwrap();
    let Some(Segment::Forward { id: forward_id }) = m.segments.get(1) else {
        panic!("{m:?}")
    };
    let nodes = rig
        .client
        .get_forward(forward_id, deadline())
        .await
        .unwrap();
    assert_eq!(nodes.len(), 3);
    assert_eq!(
        (nodes[0].sender.user_id, nodes[0].sender.nickname.as_str()),
        (0, "张三")
    );
    assert!(matches!(
        nodes[2].segments.first(),
        Some(Segment::Forward { .. })
    ));
    assert_eq!(
        rig.client
            .get_forward("x", deadline())
            .await
            .unwrap_err()
            .kind,
        Kind::MessageNotFound
    );

    // Uploads, the bytes streamed from a file.
    let mut tmp = tempfile::tempfile().unwrap();
    let bytes = b"%PDF-1.4 minutes".repeat(50_000);
    std::io::Write::write_all(&mut tmp, &bytes).unwrap();
    let file = MediaPayload::file(
        MediaKind::File,
        "application/pdf".into(),
        "m.pdf".into(),
        bytes.len() as u64,
        tmp,
        None,
    );
    rig.client
        .upload_file(ChatRef::Group(SANDBOX_GROUP), &file, "会议.pdf", deadline())
        .await
        .unwrap();
    rig.client
        .upload_file(ChatRef::Private(10001), &file, "m.pdf", deadline())
        .await
        .unwrap();

    // A received file: no URL in the segment, the download URL looked up.
    let m = rig
        .client
        .get_message(group_id_of(SANDBOX_GROUP, 7), None, deadline())
        .await
        .unwrap();
    let media = ReceivedMedia::of(&m, 0).expect("a file segment");
    assert_eq!(media.size, 200_007);
    assert_eq!(rig.client.media_steps(&media), vec![MediaStep::Lookup]);
    let mut sink = Bytes0(Vec::new());
    let PeerMedia::Url(url) = rig
        .client
        .fetch_media(&media, MediaStep::Lookup, &mut sink, deadline())
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(download(&url).await.len(), 200_007);
    assert_eq!(
        rig.client
            .fetch_media(&media, MediaStep::Stream, &mut sink, deadline())
            .await
            .unwrap_err()
            .kind,
        Kind::UnsupportedByPeer
    );

    // A received image: its temp URL first, a fresh one looked up.
    let png = onebot_sandbox::sample_media(onebot_sandbox::MediaKind::Image, 300);
    let seg = control.store_media(onebot_sandbox::MediaKind::Image, png.clone(), "a.png");
    let sid = control.inject_group_message(SANDBOX_GROUP, 10002, json!([seg]));
    let id = group_id_of(SANDBOX_GROUP, control.message_seq(sid).unwrap());
    let m = rig.client.media_message(id, deadline()).await.unwrap();
    let media = ReceivedMedia::of(&m, 0).expect("an image segment");
    assert_eq!(
        rig.client.media_steps(&media),
        vec![MediaStep::SegmentUrl, MediaStep::Lookup]
    );
    assert_eq!(download(&media.url).await, png);
    let PeerMedia::Url(fresh) = rig
        .client
        .fetch_media(&media, MediaStep::Lookup, &mut sink, deadline())
        .await
        .unwrap()
    else {
        panic!()
    };
    assert_eq!(download(&fresh).await, png);
    assert_eq!(
        rig.client
            .media_message(12345, deadline())
            .await
            .unwrap_err()
            .kind,
        Kind::MediaNotFound
    );
}

/// Runs the schema validator over the calls and events the rig `name`
/// recorded, when Node and the schema package are installed
/// (`cd tests/milky-schema && npm install`).
fn schema_check(name: &str) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/milky-schema");
    if !dir.join("node_modules/@saltify/milky-types").exists() {
        return;
    }
    let record = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("milky-adapter-{name}.jsonl"));
    let Ok(out) = std::process::Command::new("node")
        .arg(dir.join("validate.mjs"))
        .arg(&record)
        .current_dir(&dir)
        .output()
    else {
        return;
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(" 0 invalid"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn large_events_are_dropped(events: MilkyEvents, name: &'static str) {
    let mut rig = rig_with(name, events, 4096).await;
    let control = rig.sandbox.control();
    let big = control.inject_group_message(SANDBOX_GROUP, 10002, json!("长".repeat(5000)));
    let small = control.inject_group_message(SANDBOX_GROUP, 10002, json!("短"));
    let (big, small) = (control.message_seq(big), control.message_seq(small));
    let m = event_until(&mut rig.events, |e| match e {
        InboundEvent::Message { message, .. } => Some(message),
        _ => None,
    })
    .await;
    // The large one never arrives; the connection carries the next one.
    assert_ne!(m.message_seq, big);
    assert_eq!(m.message_seq, small);
    assert_eq!(rig.client.status().state, ConnState::Connected);
}

#[tokio::test]
async fn large_events_are_dropped_over_websocket() {
    large_events_are_dropped(MilkyEvents::WebSocket, "large-ws").await;
}

#[tokio::test]
async fn large_events_are_dropped_over_sse() {
    large_events_are_dropped(MilkyEvents::Sse, "large-sse").await;
}

#[tokio::test]
async fn unknown_apis_and_passed_deadlines_fail_by_kind() {
    let mut rig = rig("raw", MilkyEvents::WebSocket).await;
    rig.schema = false;
    let unknown = rig
        .client
        .call("get_nothing", json!({}), deadline())
        .await
        .unwrap_err();
    assert_eq!(unknown.kind, Kind::OnebotActionUnsupported);
    let bad = rig
        .client
        .call(
            "get_message",
            json!({"message_scene": "group", "peer_id": SANDBOX_GROUP}),
            deadline(),
        )
        .await
        .unwrap_err();
    assert_eq!(bad.kind, Kind::OnebotBadRequest);
    let past = Deadline::at(tokio::time::Instant::now() - Duration::from_millis(1));
    assert_eq!(
        rig.client.get_groups(past).await.unwrap_err().kind,
        Kind::DeadlineExceeded
    );
}
