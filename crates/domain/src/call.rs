//! The context every use case runs in: how long the caller waits
//! ([`Deadline`]), on whose authority ([`Caller`]) and, when the request
//! was routed for one, which account it is for.
//!
//! Requests build theirs from the request (the gRPC layer: `grpc-timeout`,
//! the authenticated token and the `x-onebot-account` routing metadata);
//! work that belongs to no request (the
//! offline-queue flush, background sweeps) states its authority with
//! [`CallCtx::system`]. There is no default: every context says who it is.

use std::time::Duration;

use tokio::time::Instant;

use super::caller::Caller;
use crate::error::{Error, Result};
use onebot_gateway_config::DEFAULT_ACCOUNT;

/// When the caller stops waiting, if ever. The adapter waits for the
/// shorter of this and its own timeout; a call whose deadline has passed
/// sends nothing. Cancellation is by dropping the future.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Deadline(Option<Instant>);

impl Deadline {
    /// No caller deadline.
    pub const NONE: Deadline = Deadline(None);

    /// A deadline at `at`.
    pub fn at(at: Instant) -> Self {
        Deadline(Some(at))
    }

    /// A deadline `timeout` from now.
    pub fn after(timeout: Duration) -> Self {
        Deadline(Some(Instant::now() + timeout))
    }

    /// The instant, if any.
    pub fn instant(self) -> Option<Instant> {
        self.0
    }

    /// Time left until the deadline, if any.
    pub fn remaining(self) -> Option<Duration> {
        self.0.map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// True when the deadline has passed.
    pub fn expired(self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }
}

/// Per-call context: the caller's deadline and authority, and the account
/// the request was routed for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallCtx {
    /// When the caller stops waiting.
    pub deadline: Deadline,
    /// Who is calling; every account, chat and write check asks it.
    pub caller: Caller,
    /// The account the request names outside its body (the routing
    /// metadata a proxy sharding accounts over gateways routes on), if any.
    pub routed_account: Option<String>,
}

impl CallCtx {
    /// A call of `caller` waiting until `deadline`.
    pub fn new(caller: Caller, deadline: Deadline) -> Self {
        Self {
            deadline,
            caller,
            routed_account: None,
        }
    }

    /// This context routed for `account` (`None` or empty: not routed).
    pub fn routed_for(self, account: Option<String>) -> Self {
        Self {
            routed_account: account.filter(|a| !a.is_empty()),
            ..self
        }
    }

    /// The account a request acts for: its own `account_id` when set, else
    /// the account it was routed for, else `default`. A request whose
    /// `account_id` names another account than its routing is refused
    /// (`InvalidRequest`, field `account_id`): a proxy would have delivered
    /// it to the gateway of the wrong account.
    pub fn account_id<'a>(&'a self, requested: &'a str) -> Result<&'a str> {
        match (requested, self.routed_account.as_deref()) {
            ("", Some(routed)) => Ok(routed),
            ("", None) => Ok(DEFAULT_ACCOUNT),
            (requested, Some(routed)) if requested != routed => Err(Error::invalid(
                "account_id",
                format!(
                    "the request names account {requested:?} but was routed for account {routed:?} (metadata `x-onebot-account`); send the same account in both, or leave account_id empty"
                ),
            )
            .with("account_id", requested)
            .with("routed_account", routed)),
            (requested, _) => Ok(requested),
        }
    }

    /// Work that belongs to no request (background flushes, sweeps): the
    /// gateway's own authority, no deadline.
    pub fn system() -> Self {
        Self::new(Caller::system(), Deadline::NONE)
    }

    /// A request with authentication off (every caller may do everything),
    /// no deadline.
    pub fn anonymous() -> Self {
        Self::new(Caller::anonymous(), Deadline::NONE)
    }

    /// This context with a deadline `timeout` from now.
    pub fn with_timeout(self, timeout: Duration) -> Self {
        Self {
            deadline: Deadline::after(timeout),
            ..self
        }
    }

    /// True when the deadline has passed.
    pub fn expired(&self) -> bool {
        self.deadline.expired()
    }
}
