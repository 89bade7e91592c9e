//! The Milky adapter against a real Milky peer: the sandbox's Milky 1.2
//! face over HTTP, WebSocket and SSE. Every call and event is recorded to
//! `$CARGO_TARGET_TMPDIR/milky-adapter-<test>.jsonl` for the schema check
//! (`tests/milky-schema/validate.mjs`).

mod events;
mod gate;
mod media;
mod one_time;
mod reads;

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
    rig_config(name, events, max_event_bytes, |_| {}).await
}

/// A rig whose account config `edit` adjusts.
async fn rig_config(
    name: &'static str,
    events: MilkyEvents,
    max_event_bytes: usize,
    edit: impl FnOnce(&mut AccountConfig),
) -> Rig {
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
    let mut config = AccountConfig {
        milky_url: Some(sandbox.milky_url()),
        milky_events: events,
        access_token: Some(onebot_gateway_config::Secret::new("secret")),
        backoff_min_ms: 20,
        backoff_max_ms: 100,
        request_timeout_ms: 10_000,
        ..AccountConfig::default()
    };
    edit(&mut config);
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

/// The lines the rig `name` recorded so far.
fn recorded(name: &str) -> Vec<serde_json::Value> {
    let record = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("milky-adapter-{name}.jsonl"));
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
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
