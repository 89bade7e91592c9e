//! Who is calling, and what they may touch: the domain's side of the
//! gateway's bearer tokens.
//!
//! A [`Caller`] travels in the [`CallCtx`](super::call::CallCtx) of every use
//! case. The use cases check it where an account or a chat is resolved —
//! whether the request came as a typed RPC or as an agent tool call — with
//! [`Caller::check_account`], [`Caller::check_write`],
//! [`Caller::check_group`] and [`Caller::check_chat`]. Work a use case hands
//! to a spawned task captures what it needs from the caller first (the send
//! path captures the media owner).
//!
//! Three kinds of caller: a token's holder (its [`TokenScope`]); anonymous,
//! when no token is configured (allowed everything); and the gateway itself
//! ([`Caller::system`], allowed everything), for work that belongs to no
//! request.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use super::model::ChatRef;
use crate::config::DEFAULT_ACCOUNT;
use crate::error::{Error, Kind, Result};

/// What one bearer token may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenScope {
    /// The token's name (never its value).
    pub name: String,
    /// `None`: every account.
    pub accounts: Option<BTreeSet<String>>,
    /// Write use cases (send, poke, upload) allowed.
    pub write: bool,
    /// `None`: every group (private chats too).
    pub groups: Option<BTreeSet<i64>>,
}

#[derive(Clone, PartialEq, Eq)]
enum Authority {
    Anonymous,
    System,
    Token(Arc<TokenScope>),
}

/// Who is calling: a token's scope, anonymous (authentication off), or the
/// gateway itself.
#[derive(Clone, PartialEq, Eq)]
pub struct Caller(Authority);

impl fmt::Debug for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Authority::Anonymous => f.write_str("Caller(anonymous)"),
            Authority::System => f.write_str("Caller(system)"),
            Authority::Token(s) => write!(f, "Caller({:?})", s.name),
        }
    }
}

impl Caller {
    /// The caller when authentication is off: allowed everything.
    pub fn anonymous() -> Self {
        Caller(Authority::Anonymous)
    }

    /// The gateway itself, for work that belongs to no request (background
    /// flushes): allowed everything, and named as what it is.
    pub fn system() -> Self {
        Caller(Authority::System)
    }

    /// The holder of a token with `scope`.
    pub fn token(scope: TokenScope) -> Self {
        Caller(Authority::Token(Arc::new(scope)))
    }

    fn scope(&self) -> Option<&TokenScope> {
        match &self.0 {
            Authority::Token(s) => Some(s),
            Authority::Anonymous | Authority::System => None,
        }
    }

    /// The groups the token is limited to, `None` when it is not.
    pub fn allowed_groups(&self) -> Option<Vec<i64>> {
        self.scope()
            .and_then(|s| s.groups.as_ref())
            .map(|g| g.iter().copied().collect())
    }

    /// The token's name, `None` for anonymous and system callers. Identifies
    /// the owner of staged media and the client in stream limits.
    pub fn token_name(&self) -> Option<&str> {
        self.scope().map(|s| s.name.as_str())
    }

    /// True when the caller may use `account_id` (`""` means `default`).
    pub fn allows_account(&self, account_id: &str) -> bool {
        let id = if account_id.is_empty() {
            DEFAULT_ACCOUNT
        } else {
            account_id
        };
        match self.scope() {
            None | Some(TokenScope { accounts: None, .. }) => true,
            Some(TokenScope {
                accounts: Some(set),
                ..
            }) => set.contains(id),
        }
    }

    /// True when the caller may read or write `group_id`.
    pub fn allows_group(&self, group_id: i64) -> bool {
        match self.scope() {
            None | Some(TokenScope { groups: None, .. }) => true,
            Some(TokenScope {
                groups: Some(set), ..
            }) => set.contains(&group_id),
        }
    }

    /// True when the caller may read `chat`: a group in scope, or a private
    /// chat when the token is not limited to groups.
    pub fn allows_chat(&self, chat: ChatRef) -> bool {
        match chat {
            ChatRef::Group(g) => self.allows_group(g),
            ChatRef::Private(_) => {
                matches!(self.scope(), None | Some(TokenScope { groups: None, .. }))
            }
        }
    }

    /// True when the caller may use write use cases.
    pub fn can_write(&self) -> bool {
        self.scope().is_none_or(|s| s.write)
    }

    /// Fails with `TokenScope` (scope `account`) unless the caller may use
    /// `account_id`.
    pub fn check_account(&self, account_id: &str) -> Result<()> {
        if self.allows_account(account_id) {
            return Ok(());
        }
        let id = if account_id.is_empty() {
            DEFAULT_ACCOUNT
        } else {
            account_id
        };
        Err(self
            .denied("account", format!("the token may not use account {id:?}"))
            .with("account_id", id))
    }

    /// Fails with `TokenScope` (scope `write`) unless the caller may write.
    pub fn check_write(&self) -> Result<()> {
        if self.can_write() {
            return Ok(());
        }
        Err(self.denied("write", "the token is read-only"))
    }

    /// Fails with `TokenScope` (scope `group`) unless the caller may use
    /// `group_id`.
    pub fn check_group(&self, group_id: i64) -> Result<()> {
        if self.allows_group(group_id) {
            return Ok(());
        }
        Err(self
            .denied("group", format!("the token may not use group {group_id}"))
            .with("group_id", group_id))
    }

    /// Fails with `TokenScope` (scope `group` or `private`) unless the caller
    /// may read `chat`.
    pub fn check_chat(&self, chat: ChatRef) -> Result<()> {
        match chat {
            ChatRef::Group(g) => self.check_group(g),
            ChatRef::Private(user) if !self.allows_chat(chat) => Err(self
                .denied(
                    "private",
                    "the token is limited to groups and may not read private chats",
                )
                .with("user_id", user)),
            ChatRef::Private(_) => Ok(()),
        }
    }

    fn denied(&self, scope: &str, message: impl Into<String>) -> Error {
        let mut err = Error::new(Kind::TokenScope, message).with("scope", scope);
        if let Some(name) = self.token_name() {
            err = err.with("token", name);
        }
        err
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_and_system_callers_may_do_everything() {
        for caller in [Caller::anonymous(), Caller::system()] {
            assert!(caller.check_account("x").is_ok() && caller.check_write().is_ok());
            assert!(caller.check_chat(ChatRef::Private(5)).is_ok());
            assert!(caller.check_group(9).is_ok());
            assert_eq!(caller.token_name(), None);
            assert_eq!(caller.allowed_groups(), None);
        }
        assert_ne!(Caller::anonymous(), Caller::system());
    }
}
