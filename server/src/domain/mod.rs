//! Transport-agnostic use cases. Depends on [`crate::onebot::OneBotApi`],
//! never on tonic, tungstenite or reqwest.
//!
//! [`Gateway`] is the root object the gRPC layer holds: the configured
//! accounts and the per-feature services.

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
    accounts: BTreeMap<String, Arc<Account>>,
}

impl Gateway {
    /// Builds the gateway over ready adapters, one per configured account.
    pub fn new(config: Arc<Config>, accounts: Vec<Account>) -> Result<Self> {
        let tz = jiff::tz::TimeZone::get(&config.timezone)
            .map_err(|e| Error::internal(format!("time zone {}: {e}", config.timezone)))?;
        Ok(Self {
            config,
            tz,
            accounts: accounts
                .into_iter()
                .map(|a| (a.id.clone(), Arc::new(a)))
                .collect(),
        })
    }

    /// Looks up a usable account; `""` means `default`. Unknown accounts and
    /// accounts without any transport fail with `AccountNotConfigured`
    /// before any peer is touched.
    pub fn account(&self, id: &str) -> Result<Arc<Account>> {
        let id = if id.is_empty() { DEFAULT_ACCOUNT } else { id };
        crate::telemetry::record_account(id);
        match self.accounts.get(id) {
            Some(a) if a.config.has_transport() => Ok(a.clone()),
            _ => Err(Error::account_not_configured(id)),
        }
    }

    /// [`Gateway::account`] on behalf of `caller`: fails with `TokenScope`
    /// (scope `account`) when the caller's token does not cover `id`,
    /// before anything else is looked at. Every RPC that names an account
    /// resolves it through here.
    pub fn account_for(&self, caller: &crate::auth::Caller, id: &str) -> Result<Arc<Account>> {
        caller.check_account(id)?;
        self.account(id)
    }

    /// Every configured account, sorted by id.
    pub fn accounts(&self) -> impl Iterator<Item = &Arc<Account>> {
        self.accounts.values()
    }

    /// Text entries waiting in an account's offline queue.
    pub fn queue_depth(&self, _account_id: &str) -> usize {
        0
    }
}
