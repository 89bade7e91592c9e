//! [`Gateway`], the root of the domain: the configured accounts and the
//! services every use case shares. Built in one step from its parts (see
//! the wiring in `crate::app`), never half-open.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::account::Account;
use super::archive::service::Archive;
use super::call::{CallCtx, Deadline};
use super::delivery::side::WriteSide;
use super::events::EventHub;
use super::inbound::Inbound;
use super::joined::JoinedGroups;
use super::lease::Leadership;
use super::media::download::Received;
use super::member_cache::MemberCache;
use super::mentions::Mentions;
use super::policy::Policy;
use super::policy::approvals::ApprovalWork;
use super::policy::store::GovernanceStore;
use super::ports::SharedPeer;
use super::quotes::Quotes;
use crate::error::{Error, Result};
use onebot_gateway_config::Config;

/// Everything a [`Gateway`] is made of.
pub struct GatewayParts {
    /// The whole configuration.
    pub config: Arc<Config>,
    /// One account per `[accounts.<id>]`, each with its peer.
    pub accounts: Vec<Arc<Account>>,
    /// The event hub the peers' events end in.
    pub events: Arc<EventHub>,
    /// The event path the peers publish to (quotes, recalls), over
    /// `events`.
    pub inbound: Arc<Inbound>,
    /// The write side (uploads, sends, pokes), opened over the same
    /// accounts.
    pub write: WriteSide,
    /// Received media: the kept items and the fetching of new ones.
    pub received: Received,
    /// The message archive (`None`: `archive.enabled = false`).
    pub archive: Option<Arc<Archive>>,
    /// Approvals and the audit trail (`None`: neither is kept, and a rule
    /// asking for approval fails the call).
    pub governance: Option<Arc<dyn GovernanceStore>>,
    /// Which accounts this gateway leads under `[ha]` (`None`: every
    /// configured account is its own).
    pub leadership: Option<Arc<Leadership>>,
}

/// The root of the domain: configuration, accounts and shared services.
pub struct Gateway {
    /// The whole configuration.
    pub config: Arc<Config>,
    /// Time zone of rendered times.
    pub tz: jiff::tz::TimeZone,
    /// Member lists per (account, group); the event hub invalidates it.
    pub member_cache: Arc<MemberCache>,
    /// The groups each account's bot is in; the event hub keeps it current.
    pub joined: Arc<JoinedGroups>,
    /// Inbound events: numbering, resume buffer, fan-out.
    pub events: Arc<EventHub>,
    /// Quoted messages resolved, with their per-account cache.
    pub quotes: Arc<Quotes>,
    /// Mentions named, over `member_cache`.
    pub mentions: Arc<Mentions>,
    /// The event path (the gateway publishes its own recalls there).
    pub inbound: Arc<Inbound>,
    accounts: BTreeMap<String, Arc<Account>>,
    policy: Policy,
    governance: Option<Arc<dyn GovernanceStore>>,
    approval_work: Arc<ApprovalWork>,
    approval_changes: tokio::sync::watch::Sender<u64>,
    write: WriteSide,
    received: Received,
    archive: Option<Arc<Archive>>,
    leadership: Option<Arc<Leadership>>,
}

impl std::fmt::Debug for Gateway {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gateway")
            .field("accounts", &self.accounts.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Gateway {
    /// Builds the gateway. Fails only on a time zone the configuration
    /// names but the bundled database lacks.
    pub fn new(parts: GatewayParts) -> Result<Self> {
        let GatewayParts {
            config,
            accounts,
            events,
            inbound,
            write,
            received,
            archive,
            governance,
            leadership,
        } = parts;
        let tz = jiff::tz::TimeZone::get(&config.timezone)
            .map_err(|e| Error::internal(format!("time zone {}: {e}", config.timezone)))?;
        // The event path's mention namer fills the same cache.
        let member_cache = inbound.mentions().members().clone();
        // Member joins, leaves, card changes and reconnects invalidate it.
        let cache = member_cache.clone();
        events.observe(Arc::new(move |account_id, event| {
            cache.observe(account_id, event)
        }));
        // The bot joining or leaving a group, and reconnects, update it.
        let joined: Arc<JoinedGroups> = Arc::default();
        let peers: BTreeMap<String, SharedPeer> = accounts
            .iter()
            .map(|a| (a.id.clone(), a.peer.clone()))
            .collect();
        let held = joined.clone();
        events.observe(Arc::new(move |account_id, event| {
            let self_id = peers.get(account_id).map_or(0, |p| p.self_id());
            held.observe(account_id, self_id, event)
        }));
        let policy = Policy::new(&config.policy);
        // The bot owners' answers to approvals arrive as private messages.
        let approval_work: Arc<ApprovalWork> = Arc::default();
        if !policy.owners().is_empty() && governance.is_some() {
            let work = approval_work.clone();
            let owners = policy.owners().to_vec();
            events.observe(Arc::new(move |account_id, event| {
                work.observe(&owners, account_id, event)
            }));
        }
        Ok(Self {
            leadership,
            policy,
            governance,
            approval_work,
            approval_changes: tokio::sync::watch::Sender::new(0),
            config,
            tz,
            member_cache,
            joined,
            events,
            quotes: inbound.quotes().clone(),
            mentions: inbound.mentions().clone(),
            inbound,
            accounts: accounts.into_iter().map(|a| (a.id.clone(), a)).collect(),
            write,
            received,
            archive,
        })
    }

    /// The write side (uploads, sends, pokes).
    pub fn write(&self) -> &WriteSide {
        &self.write
    }

    /// The `[policy]` rules and owners.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Approvals and the audit trail, when kept.
    pub fn governance(&self) -> Option<&Arc<dyn GovernanceStore>> {
        self.governance.as_ref()
    }

    /// The approvals task's queue.
    pub(crate) fn approval_work(&self) -> &ApprovalWork {
        &self.approval_work
    }

    /// Tells waiters an approval changed.
    pub(crate) fn approval_changed(&self) {
        self.approval_changes
            .send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A receiver told of every change of an approval (and of the owners
    /// having been asked).
    pub fn approval_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.approval_changes.subscribe()
    }

    /// The message archive, when enabled.
    pub fn archive(&self) -> Option<&Arc<Archive>> {
        self.archive.as_ref()
    }

    /// Looks up a usable account; `""` means the account the request was
    /// routed for, else `default` ([`CallCtx::account_id`]: a request routed
    /// for another account fails with `InvalidRequest`). An account outside
    /// the caller's token scope fails with `TokenScope`, unknown accounts
    /// and accounts without any transport with `AccountNotConfigured`,
    /// before any peer is touched.
    pub fn account(&self, id: &str, ctx: &CallCtx) -> Result<Arc<Account>> {
        let id = ctx.account_id(id)?;
        ctx.caller.check_account(id)?;
        onebot_gateway_telemetry::record_account(id);
        match self.accounts.get(id) {
            Some(a) if a.config.has_transport() => {
                if let Some(l) = &self.leadership {
                    l.require_leader(id)?;
                }
                Ok(a.clone())
            }
            _ => Err(Error::account_not_configured(id)),
        }
    }

    /// Which accounts this gateway leads under `[ha]` (`None`: all of
    /// them).
    pub fn leadership(&self) -> Option<&Arc<Leadership>> {
        self.leadership.as_ref()
    }

    /// Every configured account, sorted by id.
    pub fn accounts(&self) -> impl Iterator<Item = &Arc<Account>> {
        self.accounts.values()
    }

    /// Received media (DownloadMedia, capture, media ids).
    pub fn received(&self) -> &Received {
        &self.received
    }

    /// Fails with `GroupNotFound` when `account`'s bot is not in `group_id`,
    /// decided from the peer's group list ([`JoinedGroups`]); passes when
    /// that cannot be known (the peer offline and no list held).
    pub async fn require_joined(
        &self,
        account: &Account,
        group_id: i64,
        deadline: Deadline,
    ) -> Result<()> {
        self.joined
            .require(&account.id, account.peer.as_ref(), group_id, deadline)
            .await
    }

    /// Text entries waiting in an account's offline queue.
    pub fn queue_depth(&self, account_id: &str) -> usize {
        self.write.queue_depth(account_id)
    }
}
