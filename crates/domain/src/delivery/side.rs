//! The write side's shared state, opened once under the data directory: the
//! durable store, the staging area, the offline queues, idempotency keys,
//! the media resolver, one sender per account and the poke limits.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::idempotency::Idempotency;
use super::outbound::{Outbound, SenderParts};
use super::queue::OfflineQueue;
use super::ratelimit::Limit;
use crate::account::Account;
use crate::archive::recorder::SentRecorder;
use crate::clock::now_ms;
use crate::error::{Error, Result};
use crate::media::received::ReceivedStore;
use crate::media::resolve::{Resolver, UrlSource};
use crate::media::staging::MediaStore;
use crate::store::{IdempotencyStore, QueueStore};
use onebot_gateway_config::Config;

/// What the write side is opened over.
pub struct WriteParts<'a> {
    /// The configuration (`server.data_dir`, `[media]`, per-account limits).
    pub config: &'a Config,
    /// The offline queues' durable store.
    pub queue: Arc<dyn QueueStore>,
    /// The idempotency keys' durable store.
    pub idempotency: Arc<dyn IdempotencyStore>,
    /// The staging area under the data directory.
    pub media: MediaStore,
    /// Fetches media sources given as URLs.
    pub urls: Arc<dyn UrlSource>,
    /// Every configured account.
    pub accounts: &'a [Arc<Account>],
    /// Records acknowledged messages for the archive (`None`: no archive).
    pub recorder: Option<SentRecorder>,
    /// Stops every background task of the write side.
    pub shutdown: CancellationToken,
    /// Received media, whose media ids sends accept (forwarding).
    pub received: Option<ReceivedStore>,
}

/// Everything uploads, sends and pokes share. Cheap to clone.
#[derive(Debug, Clone)]
pub struct WriteSide {
    pub(crate) media: MediaStore,
    pub(crate) queue: Arc<OfflineQueue>,
    pub(crate) idempotency: Arc<Idempotency>,
    pub(crate) resolver: Resolver,
    outbound: Arc<BTreeMap<String, Outbound>>,
    pokes: Arc<BTreeMap<String, Limit<()>>>,
    tasks: Arc<parking_lot::Mutex<Vec<JoinHandle<()>>>>,
}

impl WriteSide {
    /// Starts one sender per account (which flushes its offline queue when
    /// the account is online) and the background sweeps over `parts`, stopped
    /// by `parts.shutdown`. Fails when the offline queue cannot be read.
    pub fn open(parts: WriteParts<'_>) -> Result<Self> {
        let WriteParts {
            config,
            queue,
            idempotency,
            media,
            urls,
            accounts,
            recorder,
            shutdown,
            received,
        } = parts;
        let mut tasks = vec![media.spawn_sweeper(shutdown.clone())];
        let queue = Arc::new(OfflineQueue::open(queue)?);
        let idempotency = Arc::new(Idempotency::new(idempotency));
        let resolver =
            Resolver::new(media.clone(), urls, &config.media.media_roots).with_received(received);
        let mut outbound = BTreeMap::new();
        let mut pokes = BTreeMap::new();
        for account in accounts {
            let (sender, task) = Outbound::start(SenderParts {
                account: account.clone(),
                queue: queue.clone(),
                recorder: recorder.clone(),
                shutdown: shutdown.clone(),
            });
            outbound.insert(account.id.clone(), sender);
            tasks.push(task);
            let per_minute = account.config.rate_poke_per_minute;
            pokes.insert(account.id.clone(), Limit::new(per_minute, per_minute));
        }
        tasks.push(spawn_idempotency_purge(idempotency.clone(), shutdown));
        Ok(Self {
            media,
            queue,
            idempotency,
            resolver,
            outbound: Arc::new(outbound),
            pokes: Arc::new(pokes),
            tasks: Arc::new(parking_lot::Mutex::new(tasks)),
        })
    }

    /// Waits until the background tasks have ended (after the shutdown
    /// token fired), so the store is no longer in use by them.
    pub async fn stopped(&self) {
        let tasks: Vec<JoinHandle<()>> = std::mem::take(&mut *self.tasks.lock());
        for task in tasks {
            if let Err(e) = task.await
                && e.is_panic()
            {
                tracing::error!(error = %e, "a write-side task panicked");
            }
        }
    }

    /// Adds a background task over the store (stopped by the same
    /// shutdown token) that [`WriteSide::stopped`] waits for.
    pub fn track(&self, task: JoinHandle<()>) {
        self.tasks.lock().push(task);
    }

    /// The staging area.
    pub fn media(&self) -> &MediaStore {
        &self.media
    }

    /// Entries waiting in an account's offline queue.
    pub fn queue_depth(&self, account_id: &str) -> usize {
        self.queue.depth(account_id)
    }

    /// Readies the write side for `account_id`, which this gateway has just
    /// come to lead: reads its offline queue's depth from the store again
    /// (the former leader queued and sent entries meanwhile) and has its
    /// sender flush what is waiting. Call it before the account's gate
    /// opens: the sender flushes when the account comes online, on its
    /// periodic tick and before each send, but only while the depth it
    /// knows is not zero.
    pub async fn take_over(&self, account_id: &str) -> Result<()> {
        let outbound = self.outbound(account_id)?;
        self.queue.refresh(account_id).await?;
        outbound.kick();
        Ok(())
    }

    /// The idempotency keys.
    pub(crate) fn idempotency(&self) -> &Idempotency {
        &self.idempotency
    }

    /// The sender of an account.
    pub(crate) fn outbound(&self, account_id: &str) -> Result<&Outbound> {
        self.outbound
            .get(account_id)
            .ok_or_else(|| Error::account_not_configured(account_id))
    }

    /// The poke limit of an account.
    pub(crate) fn poke_limit(&self, account_id: &str) -> Result<&Limit<()>> {
        self.pokes
            .get(account_id)
            .ok_or_else(|| Error::account_not_configured(account_id))
    }
}

fn spawn_idempotency_purge(
    idempotency: Arc<Idempotency>,
    shutdown: CancellationToken,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let period = Duration::from_secs(60);
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tick.tick() => {
                    if let Err(e) = idempotency.purge(now_ms()).await {
                        tracing::warn!(error = %e, "idempotency purge failed");
                    }
                }
            }
        }
    })
}
