//! State shared by the listener, every connection and every [`SandboxControl`](crate::SandboxControl):
//! the world, active faults, the action log, received media and the connection hub.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::config::{Protocol, SandboxConfig};
use crate::data;
use crate::fault::Faults;
use crate::media::ReceivedMedia;
use crate::milky::record::Recorder;
use crate::response::Transport;
use crate::state::World;

/// One action as the peer received it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedAction {
    /// Action name as sent (before `_async`/`_rate_limited` stripping).
    pub action: String,
    /// Parameters; every `base64://…` string is replaced by `base64://<sha256>:<len>` of its bytes.
    pub params: Value,
    /// Transport it arrived on.
    pub transport: Transport,
    /// The request's `echo`, if it had one (WebSocket only).
    pub echo: Option<Value>,
}

/// Action log plus a change counter that wakes [`wait_for_action`](crate::SandboxControl::wait_for_action).
#[derive(Debug)]
pub(crate) struct ActionLog {
    entries: Mutex<Vec<RecordedAction>>,
    version: watch::Sender<u64>,
}

impl ActionLog {
    fn new() -> Self {
        ActionLog {
            entries: Mutex::new(Vec::new()),
            version: watch::Sender::new(0),
        }
    }

    pub(crate) fn push(&self, a: RecordedAction) {
        self.entries.lock().push(a);
        self.version.send_modify(|v| *v += 1);
    }

    pub(crate) fn all(&self) -> Vec<RecordedAction> {
        self.entries.lock().clone()
    }

    pub(crate) fn clear(&self) {
        self.entries.lock().clear();
        self.version.send_modify(|v| *v += 1);
    }

    pub(crate) fn find(&self, name: &str) -> Option<RecordedAction> {
        self.entries
            .lock()
            .iter()
            .find(|a| a.action == name || crate::actions::canonical_name(&a.action) == name)
            .cloned()
    }

    /// Resolves once `done` holds for the recorded actions (at once if it
    /// already does).
    pub(crate) async fn wait_until(&self, done: impl Fn(&[RecordedAction]) -> bool) {
        let mut rx = self.version.subscribe();
        loop {
            if done(&self.entries.lock()) {
                return;
            }
            // The sender lives as long as `self`, so this cannot fail while we are borrowed.
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    pub(crate) async fn wait_for(&self, name: &str) -> RecordedAction {
        let mut rx = self.version.subscribe();
        loop {
            if let Some(a) = self.find(name) {
                return a;
            }
            // The sender lives as long as `self`, so this cannot fail while we are borrowed.
            if rx.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

/// Registry of live WebSocket connections, event fan-out and the kill switch.
#[derive(Debug)]
pub(crate) struct Hub {
    next_id: AtomicU64,
    subscribers: Mutex<HashMap<u64, mpsc::UnboundedSender<Utf8Bytes>>>,
    ws_count: watch::Sender<usize>,
    /// Bumped to make every connection (HTTP and WebSocket) drop its socket.
    kill: watch::Sender<u64>,
}

impl Hub {
    fn new() -> Self {
        Hub {
            next_id: AtomicU64::new(1),
            subscribers: Mutex::new(HashMap::new()),
            ws_count: watch::Sender::new(0),
            kill: watch::Sender::new(0),
        }
    }

    /// A receiver that changes when all connections must die. Subscribe *before* serving.
    pub(crate) fn kill_signal(&self) -> watch::Receiver<u64> {
        self.kill.subscribe()
    }

    pub(crate) fn kill_all(&self) {
        self.kill.send_modify(|k| *k += 1);
    }

    pub(crate) fn count(&self) -> usize {
        *self.ws_count.borrow()
    }

    pub(crate) async fn wait_count(&self, n: usize) {
        self.wait_count_where(|c| c >= n).await;
    }

    pub(crate) async fn wait_count_where(&self, ok: impl Fn(usize) -> bool) {
        let mut rx = self.ws_count.subscribe();
        // Cannot fail: the sender outlives every borrow of the hub.
        let _ = rx.wait_for(|c| ok(*c)).await;
    }

    /// Pushes an event to every event-capable connection.
    pub(crate) fn emit(&self, ev: &Value) {
        let text = Utf8Bytes::from(ev.to_string());
        self.subscribers
            .lock()
            .retain(|_, tx| tx.send(text.clone()).is_ok());
    }
}

/// Keeps a WebSocket connection counted (and subscribed to events) until dropped.
pub(crate) struct ConnGuard {
    shared: Arc<Shared>,
    id: u64,
}

impl ConnGuard {
    /// Registers a WebSocket connection; returns its event stream when `events` is set.
    pub(crate) fn register(
        shared: &Arc<Shared>,
        events: bool,
    ) -> (ConnGuard, Option<mpsc::UnboundedReceiver<Utf8Bytes>>) {
        let hub = &shared.hub;
        let id = hub.next_id.fetch_add(1, Ordering::Relaxed);
        let rx = events.then(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            hub.subscribers.lock().insert(id, tx);
            rx
        });
        hub.ws_count.send_modify(|c| *c += 1);
        (
            ConnGuard {
                shared: shared.clone(),
                id,
            },
            rx,
        )
    }
}

impl Drop for ConnGuard {
    fn drop(&mut self) {
        let hub = &self.shared.hub;
        hub.subscribers.lock().remove(&self.id);
        hub.ws_count.send_modify(|c| *c = c.saturating_sub(1));
    }
}

/// Everything a connection or a control handle needs.
#[derive(Debug)]
pub(crate) struct Shared {
    pub cfg: SandboxConfig,
    pub world: Mutex<World>,
    pub faults: watch::Sender<Faults>,
    pub log: ActionLog,
    pub media: Mutex<Vec<ReceivedMedia>>,
    pub hub: Hub,
    /// The Milky recording (a no-op unless configured).
    pub milky_record: Recorder,
}

impl Shared {
    pub(crate) fn new(cfg: SandboxConfig) -> Arc<Shared> {
        let mut world = World::new(cfg.flavor, cfg.self_id, cfg.nickname.clone());
        let b = cfg.behaviour;
        world.ids_flavor = b.ids.unwrap_or(cfg.flavor);
        world.history_flavor = b.history.unwrap_or(cfg.flavor);
        world.id_form = b.id_form;
        data::seed(&mut world);
        world.files.set_ttl(cfg.media_url_ttl);
        world.register_media();
        let milky_record = match cfg.protocol {
            Protocol::Milky => Recorder::open(cfg.milky_record.as_deref()),
            Protocol::OneBot => Recorder::default(),
        };
        Arc::new(Shared {
            cfg,
            world: Mutex::new(world),
            faults: watch::Sender::new(Faults::default()),
            log: ActionLog::new(),
            media: Mutex::new(Vec::new()),
            hub: Hub::new(),
            milky_record,
        })
    }

    /// A snapshot of the active faults.
    pub(crate) fn faults(&self) -> Faults {
        self.faults.borrow().clone()
    }

    /// Pushes an event to every event-capable connection.
    pub(crate) fn emit(&self, ev: &Value) {
        self.hub.emit(ev);
    }

    /// True when the peer speaks Milky.
    pub(crate) fn milky(&self) -> bool {
        self.cfg.protocol == Protocol::Milky
    }
}
