//! `[ha]`: failover of accounts between gateways, by a lease per account in
//! PostgreSQL.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::account::Secret;
use super::check::{ConfigError, Key};
use super::redact::redact_url;

/// The kind of lease.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum LeaseKind {
    /// A row per account in PostgreSQL.
    #[default]
    Postgres,
}

/// Failover of accounts: each account is led by one gateway at a time.
#[derive(Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct HaConfig {
    /// Where the leases live (`postgres`).
    pub lease: LeaseKind,
    /// `postgres://…` of the leases (default: `archive.url`).
    pub url: Option<Secret>,
    /// How long a lease lasts without a renewal, in seconds; the leader
    /// renews it every third of it. A standby takes over within about this
    /// long of the leader's death.
    pub ttl_secs: u64,
    /// This gateway's name among the gateways sharing the accounts (default:
    /// the host name and the process id).
    pub instance: Option<String>,
    /// The address clients reaching a standby are told to use for this
    /// gateway while it leads (`host:port`), when it has one.
    pub advertise: Option<String>,
}

impl Default for HaConfig {
    fn default() -> Self {
        Self {
            lease: LeaseKind::Postgres,
            url: None,
            ttl_secs: 10,
            instance: None,
            advertise: None,
        }
    }
}

impl fmt::Debug for HaConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HaConfig")
            .field("lease", &self.lease)
            .field("url", &self.url.as_ref().map(|u| redact_url(u.expose())))
            .field("ttl_secs", &self.ttl_secs)
            .field("instance", &self.instance)
            .field("advertise", &self.advertise)
            .finish()
    }
}

impl HaConfig {
    /// The URL of the leases: `url`, else `archive_url`.
    pub fn lease_url<'a>(&'a self, archive_url: Option<&'a Secret>) -> Option<&'a Secret> {
        self.url.as_ref().or(archive_url)
    }

    /// Checks the section; `archive_url` is the default of `url`.
    pub(super) fn validate(&self, archive_url: Option<&Secret>) -> Result<(), ConfigError> {
        let key = Key::new("ha");
        match self.lease_url(archive_url) {
            None => key.field("url").ensure(
                false,
                "the leases need PostgreSQL: set ha.url (or archive.url) to a postgres:// URL",
            )?,
            Some(url) => {
                let ok = url::Url::parse(url.expose())
                    .is_ok_and(|u| matches!(u.scheme(), "postgres" | "postgresql"));
                key.field("url")
                    .ensure(ok, "must be a postgres:// or postgresql:// URL")?;
            }
        }
        key.field("ttl_secs").in_range(self.ttl_secs, 3..=300)?;
        if let Some(instance) = &self.instance {
            key.field("instance").ensure(
                !instance.trim().is_empty() && instance.len() <= 128,
                "a non-empty name of at most 128 bytes",
            )?;
        }
        if let Some(advertise) = &self.advertise {
            key.field("advertise").ensure(
                !advertise.trim().is_empty() && advertise.len() <= 256,
                "host:port clients can reach this gateway at",
            )?;
        }
        Ok(())
    }
}
