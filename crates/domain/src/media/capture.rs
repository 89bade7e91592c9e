//! Capture on receipt: the media of inbound messages in whitelisted chats
//! (the account's `groups` and, for private chats, its `users`) fetched in the background as each message arrives and kept in the
//! [`ReceivedStore`](super::received::ReceivedStore), so they outlive the
//! peer's expiring URLs (`[media.capture]`).
//!
//! The hub observer ([`Capture::observer`]) runs as the event is published:
//! it only marks each item as being fetched (so a download that comes right
//! after the event waits for it instead of fetching it twice) and queues it;
//! it never blocks, so capture never delays the event stream or a send. A
//! few workers fetch the queue. A failure is counted in the metrics and
//! logged once for its item; its download then tries again on demand.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;

use super::download::Received;
use super::received::{Fetching, Lookup};
use crate::account::Account;
use crate::call::Deadline;
use crate::error::Kind;
use crate::events::Observer;
use crate::model::{ChatRef, InboundEvent, ReceivedKind, ReceivedMedia};
use onebot_gateway_telemetry::metrics as m;

/// Items waiting for a worker; more are dropped (and counted).
pub const CAPTURE_QUEUE: usize = 1024;
/// Items fetched at once.
pub const CAPTURE_WORKERS: usize = 4;
/// How long one item's capture may take.
pub const CAPTURE_TIMEOUT: Duration = Duration::from_secs(120);

struct Job {
    account: Arc<Account>,
    media: ReceivedMedia,
    fetching: Fetching,
}

/// The capture of received media. Its worker task owns it; the hub's
/// observer holds it weakly, so once the task has ended (at shutdown)
/// nothing that outlives the gateway keeps the store open.
pub struct Capture {
    received: Received,
    // Weak: a job holds its account only while it is being fetched.
    accounts: BTreeMap<String, Weak<Account>>,
    kinds: Vec<ReceivedKind>,
    tx: mpsc::Sender<Job>,
}

impl std::fmt::Debug for Capture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Capture")
            .field("kinds", &self.kinds)
            .finish_non_exhaustive()
    }
}

impl Capture {
    /// Starts the workers over `accounts` (stopped by `shutdown`; the task
    /// ends once every worker has); `None` when capture is disabled.
    /// Register [`Capture::observer`] on the hub.
    pub fn start(
        received: Received,
        accounts: &[Arc<Account>],
        shutdown: CancellationToken,
    ) -> Option<(Arc<Capture>, tokio::task::JoinHandle<()>)> {
        let config = received.store().config().clone();
        if !config.enabled {
            return None;
        }
        let kinds = config
            .kinds
            .iter()
            .filter_map(|k| ReceivedKind::from_name(k))
            .collect();
        let (tx, rx) = mpsc::channel(CAPTURE_QUEUE);
        let capture = Arc::new(Capture {
            received: received.clone(),
            accounts: accounts
                .iter()
                .map(|a| (a.id.clone(), Arc::downgrade(a)))
                .collect(),
            kinds,
            tx,
        });
        let task = tokio::spawn(run(capture.clone(), rx, shutdown));
        Some((capture, task))
    }

    /// The hub observer that queues the media of each inbound message (a
    /// no-op once the capture has stopped).
    pub fn observer(self: &Arc<Self>) -> Observer {
        let this = Arc::downgrade(self);
        Arc::new(move |account_id, event| {
            if let Some(capture) = this.upgrade() {
                capture.on_event(account_id, event);
            }
        })
    }

    fn on_event(&self, account_id: &str, event: &InboundEvent) {
        let InboundEvent::Message {
            message,
            self_sent: false,
            ..
        } = event
        else {
            return;
        };
        let Some(account) = self.accounts.get(account_id).and_then(Weak::upgrade) else {
            return;
        };
        // Chats of the whitelists only.
        let whitelisted = match message.chat {
            ChatRef::Group(group) => account.config.groups.contains(&group),
            ChatRef::Private(user) => account.config.users.contains(&user),
        };
        if !whitelisted || message.message_id == 0 {
            return;
        }
        let max = self.received.store().config().max_bytes;
        for media in ReceivedMedia::all(message) {
            if !self.kinds.contains(&media.kind) || media.size > max {
                continue;
            }
            let ids = self.received.ids();
            let media_id = ids.id(account_id, media.message_id, media.index);
            if matches!(
                self.received.store().lookup(account_id, &media_id),
                Lookup::Stored(_)
            ) {
                continue;
            }
            let Some(fetching) = self.received.store().begin(account_id, &media_id) else {
                continue;
            };
            let kind = media.kind.name();
            let job = Job {
                account: account.clone(),
                media,
                fetching,
            };
            if let Err(e) = self.tx.try_send(job) {
                m::media_capture_failed(account_id, kind, "queue_full");
                tracing::warn!(
                    account_id,
                    media_id,
                    closed = matches!(e, mpsc::error::TrySendError::Closed(_)),
                    "media capture queue full: item not captured (it is fetched when downloaded)"
                );
            }
        }
    }
}

async fn run(capture: Arc<Capture>, mut rx: mpsc::Receiver<Job>, shutdown: CancellationToken) {
    let workers = Arc::new(Semaphore::new(CAPTURE_WORKERS));
    let mut running = tokio::task::JoinSet::new();
    loop {
        let job = tokio::select! {
            _ = shutdown.cancelled() => break,
            job = rx.recv() => match job {
                Some(job) => job,
                None => break,
            },
        };
        // Reap the finished ones as we go.
        while running.try_join_next().is_some() {}
        let permit = tokio::select! {
            _ = shutdown.cancelled() => break,
            permit = workers.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let received = capture.received.clone();
        running.spawn(async move {
            capture_one(&received, job).await;
            drop(permit);
        });
    }
    // Abandoned fetches release their waiters and their hold on the store
    // before the task ends.
    running.shutdown().await;
}

async fn capture_one(received: &Received, job: Job) {
    let Job {
        account,
        media,
        fetching,
    } = job;
    let kind = media.kind.name();
    let limit = received
        .limit(media.kind)
        .min(received.store().config().max_bytes);
    let deadline = Deadline::after(CAPTURE_TIMEOUT);
    let result = received
        .fetch(&account.id, account.peer.as_ref(), &media, limit, deadline)
        .await;
    match &result {
        Ok(kept) => {
            m::media_captured(&account.id, kind, kept.item.size);
            tracing::debug!(
                account_id = %account.id,
                media_id = %kept.item.media_id,
                size = kept.item.size,
                "media captured"
            );
        }
        Err(e) => {
            let reason = match e.kind {
                Kind::MediaTooLarge => "too_large",
                Kind::DeadlineExceeded => "timeout",
                _ => "fetch_failed",
            };
            m::media_capture_failed(&account.id, kind, reason);
            tracing::warn!(
                account_id = %account.id,
                message_id = media.message_id,
                segment_index = media.index,
                kind,
                error = %e,
                "media capture failed (it is fetched again when downloaded)"
            );
        }
    }
    fetching.finish(result.map(drop));
}
