//! Transport-agnostic use cases. Depends on [`crate::onebot::OneBotApi`],
//! never on tonic, tungstenite or reqwest.
//!
//! [`Gateway`] is the root object the gRPC layer holds: the configured
//! accounts and the per-feature services.
//!
//! # Write side
//! - [`store`]: the embedded durable store (redb) under the data directory.
//! - [`media`]: streamed uploads staged on disk with a TTL and a quota.
//! - [`write`]: [`write::WriteSide`], what sending needs, opened by
//!   [`Gateway::open_write_side`].
//! - [`send`]: SendMessage (validation, group, idempotency, queue or send);
//!   [`poke`]: PokeMember.
//! - [`chunk`]: text chunking; [`resolve`]: media sources to bytes (URLs
//!   through [`crate::fetch`], the SSRF-guarded fetcher).
//! - [`outbound`]: the per-account sender (order, rate limits, risk
//!   back-off, offline-queue flush); [`ratelimit`]: GCRA limits;
//!   [`queue`]: the durable offline queue; [`idempotency`]: keys.

pub mod chunk;
pub mod idempotency;
pub mod media;
pub mod outbound;
pub mod poke;
pub mod queue;
pub mod ratelimit;
pub mod resolve;
pub mod send;
pub mod store;
#[cfg(test)]
pub(crate) mod testkit;
pub mod write;

pub mod events;
pub mod groups;
pub mod history;
pub mod members;
pub mod tools;

#[cfg(test)]
mod read_tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::config::{AccountConfig, Config, DEFAULT_ACCOUNT};
use crate::error::{Error, Result};
use crate::onebot::api::SharedApi;

/// Kind of media (upload limits, segment type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaKind {
    /// An image.
    Image,
    /// A video.
    Video,
    /// A group file.
    File,
}

/// One configured account: its settings and its adapter.
pub struct Account {
    /// The account id.
    pub id: String,
    /// Its settings.
    pub config: AccountConfig,
    /// Its OneBot adapter.
    pub api: SharedApi,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("id", &self.id)
            .field("state", &self.api.status().state)
            .finish()
    }
}

/// The root of the domain: configuration and accounts.
pub struct Gateway {
    /// The whole configuration.
    pub config: Arc<Config>,
    /// Time zone of rendered times.
    pub tz: jiff::tz::TimeZone,
    /// Member lists per (account, group); the event hub invalidates it.
    pub member_cache: Arc<members::MemberCache>,
    /// Inbound events: numbering, resume buffer, fan-out.
    pub events: Arc<events::EventHub>,
    accounts: BTreeMap<String, Arc<Account>>,
    write: Option<write::WriteSide>,
}

impl Gateway {
    /// Builds the gateway over ready adapters, one per configured account.
    pub fn new(config: Arc<Config>, accounts: Vec<Account>) -> Result<Self> {
        let tz = jiff::tz::TimeZone::get(&config.timezone)
            .map_err(|e| Error::internal(format!("time zone {}: {e}", config.timezone)))?;
        let member_cache: Arc<members::MemberCache> = Arc::default();
        let events = Arc::new(events::EventHub::new(
            config.events.buffer_size,
            tokio_util::sync::CancellationToken::new(),
        ));
        observe_members(&events, &member_cache);
        Ok(Self {
            config,
            tz,
            member_cache,
            events,
            accounts: accounts
                .into_iter()
                .map(|a| (a.id.clone(), Arc::new(a)))
                .collect(),
            write: None,
        })
    }

    /// Opens the durable store and the staging area under
    /// `server.data_dir` and starts the write side's background tasks (media
    /// sweep, per-account senders, offline-queue flush), stopped by
    /// `shutdown`. Until this runs, write RPCs fail with `Internal`.
    pub fn open_write_side(&mut self, shutdown: tokio_util::sync::CancellationToken) -> Result<()> {
        let accounts: Vec<Arc<Account>> = self.accounts.values().cloned().collect();
        self.write = Some(write::WriteSide::open(&self.config, &accounts, shutdown)?);
        Ok(())
    }

    /// The write side (uploads, sends, pokes).
    pub fn write(&self) -> Result<&write::WriteSide> {
        self.write
            .as_ref()
            .ok_or_else(|| Error::internal("the write side is not open"))
    }

    /// Uses `hub` (the one the adapters publish to) as the event hub; the
    /// member cache observes it.
    pub fn with_event_hub(mut self, hub: Arc<events::EventHub>) -> Self {
        observe_members(&hub, &self.member_cache);
        self.events = hub;
        self
    }

    /// Looks up a usable account; `""` means `default`. An account outside
    /// the current caller's token scope fails with `TokenScope`, unknown
    /// accounts and accounts without any transport with
    /// `AccountNotConfigured`, before any peer is touched.
    pub fn account(&self, id: &str) -> Result<Arc<Account>> {
        let id = if id.is_empty() { DEFAULT_ACCOUNT } else { id };
        crate::auth::Caller::current().check_account(id)?;
        crate::telemetry::record_account(id);
        match self.accounts.get(id) {
            Some(a) if a.config.has_transport() => Ok(a.clone()),
            _ => Err(Error::account_not_configured(id)),
        }
    }

    /// Every configured account, sorted by id.
    pub fn accounts(&self) -> impl Iterator<Item = &Arc<Account>> {
        self.accounts.values()
    }

    /// Text entries waiting in an account's offline queue.
    pub fn queue_depth(&self, account_id: &str) -> usize {
        self.write.as_ref().map_or(0, |w| w.queue_depth(account_id))
    }
}

/// Member joins, leaves, card changes and reconnects invalidate the cache.
fn observe_members(hub: &events::EventHub, cache: &Arc<members::MemberCache>) {
    let cache = cache.clone();
    hub.observe(Arc::new(move |account_id, event| {
        cache.observe(account_id, event)
    }));
}
