//! Who is calling, and what they may touch: the domain's side of the
//! gateway's bearer tokens.
//!
//! A [`Caller`] travels in the [`CallCtx`](super::call::CallCtx) of every use
//! case. The use cases check it where an account or a chat is resolved —
//! whether the request came as a typed RPC or as an agent tool call — with
//! [`Caller::check_account`], [`Caller::check_write`],
//! [`Caller::check_group`] and [`Caller::check_chat`] (groups and private
//! chats). Work a use case hands
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
use crate::error::{Error, Kind, Result};
use onebot_gateway_config::DEFAULT_ACCOUNT;

/// What one bearer token may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenScope {
    /// The token's name (never its value).
    pub name: String,
    /// `None`: every account.
    pub accounts: Option<BTreeSet<String>>,
    /// Write use cases (send, poke, upload) allowed.
    pub write: bool,
    /// The only groups the token may use. With `users` also `None`: every
    /// chat; with `users` set: no group at all.
    pub groups: Option<BTreeSet<i64>>,
    /// The only private chats (by the other side's QQ number) the token may
    /// use. With `groups` also `None`: every chat; with `groups` set: no
    /// private chat at all.
    pub users: Option<BTreeSet<i64>>,
}

impl TokenScope {
    /// True when the token is limited to some chats (`groups` or `users`).
    fn chat_limited(&self) -> bool {
        self.groups.is_some() || self.users.is_some()
    }
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

    /// The chats the token is limited to (its groups, then its users),
    /// `None` when it is not limited.
    pub fn allowed_chats(&self) -> Option<Vec<ChatRef>> {
        let scope = self.scope().filter(|s| s.chat_limited())?;
        let groups = scope.groups.iter().flatten().map(|g| ChatRef::Group(*g));
        let users = scope.users.iter().flatten().map(|u| ChatRef::Private(*u));
        Some(groups.chain(users).collect())
    }

    /// The token's scope, `None` for anonymous and system callers.
    pub fn token_scope(&self) -> Option<&TokenScope> {
        self.scope()
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

    /// True when the caller may read or write `group_id`: every group for a
    /// token not limited to chats, else only the listed groups.
    pub fn allows_group(&self, group_id: i64) -> bool {
        match self.scope() {
            None => true,
            Some(s) if !s.chat_limited() => true,
            Some(s) => s.groups.as_ref().is_some_and(|set| set.contains(&group_id)),
        }
    }

    /// True when the caller may read or write the private chat with
    /// `user_id`: every one for a token not limited to chats, else only the
    /// listed users (none when the token lists only groups).
    pub fn allows_user(&self, user_id: i64) -> bool {
        match self.scope() {
            None => true,
            Some(s) if !s.chat_limited() => true,
            Some(s) => s.users.as_ref().is_some_and(|set| set.contains(&user_id)),
        }
    }

    /// True when the caller may use `chat` (see [`Caller::allows_group`],
    /// [`Caller::allows_user`]).
    pub fn allows_chat(&self, chat: ChatRef) -> bool {
        match chat {
            ChatRef::Group(g) => self.allows_group(g),
            ChatRef::Private(u) => self.allows_user(u),
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
    /// may use `chat`.
    pub fn check_chat(&self, chat: ChatRef) -> Result<()> {
        match chat {
            ChatRef::Group(g) => self.check_group(g),
            ChatRef::Private(user) if !self.allows_chat(chat) => {
                let limited_to_groups = self.scope().is_some_and(|s| s.users.is_none());
                let message = if limited_to_groups {
                    "the token is limited to groups and may not use private chats".to_owned()
                } else {
                    format!("the token may not use the private chat with {user}")
                };
                Err(self.denied("private", message).with("user_id", user))
            }
            ChatRef::Private(_) => Ok(()),
        }
    }

    /// Fails with `TokenScope` (scope `group` or `private`) unless the caller
    /// may use `chat`, the chat an item the caller names came from (a
    /// received media id, a quoted message). `item` says what was named;
    /// the error does not name the chat, so a scoped token learns nothing
    /// of chats outside its scope.
    pub fn check_source_chat(&self, chat: ChatRef, item: &str) -> Result<()> {
        if self.allows_chat(chat) {
            return Ok(());
        }
        let scope = match chat {
            ChatRef::Group(_) => "group",
            ChatRef::Private(_) => "private",
        };
        Err(self.denied(
            scope,
            format!("{item} comes from a chat the token may not use: nothing was sent"),
        ))
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
    fn the_source_chat_of_an_item_is_checked_without_naming_it() {
        let caller = scoped(Some(&[1]), None);
        assert!(caller.check_source_chat(ChatRef::Group(1), "x").is_ok());
        let e = caller
            .check_source_chat(ChatRef::Group(2), "media id r_1")
            .unwrap_err();
        assert_eq!((e.kind, e.meta("scope")), (Kind::TokenScope, Some("group")));
        assert!(
            !e.message.contains('2') && e.meta("group_id").is_none(),
            "{e:?}"
        );
        assert!(
            Caller::anonymous()
                .check_source_chat(ChatRef::Group(2), "x")
                .is_ok()
        );
    }

    #[test]
    fn anonymous_and_system_callers_may_do_everything() {
        for caller in [Caller::anonymous(), Caller::system()] {
            assert!(caller.check_account("x").is_ok() && caller.check_write().is_ok());
            assert!(caller.check_chat(ChatRef::Private(5)).is_ok());
            assert!(caller.check_group(9).is_ok());
            assert_eq!(caller.token_name(), None);
            assert_eq!(caller.allowed_chats(), None);
        }
        assert_ne!(Caller::anonymous(), Caller::system());
    }

    fn scoped(groups: Option<&[i64]>, users: Option<&[i64]>) -> Caller {
        Caller::token(TokenScope {
            name: "t".into(),
            accounts: None,
            write: true,
            groups: groups.map(|g| g.iter().copied().collect()),
            users: users.map(|u| u.iter().copied().collect()),
        })
    }

    #[test]
    fn groups_and_users_limit_each_other() {
        // Neither list: every chat.
        let all = scoped(None, None);
        assert!(all.allows_chat(ChatRef::Group(1)) && all.allows_chat(ChatRef::Private(2)));
        assert_eq!(all.allowed_chats(), None);
        // Groups only: no private chat.
        let groups = scoped(Some(&[1]), None);
        assert!(groups.check_chat(ChatRef::Group(1)).is_ok());
        let e = groups.check_chat(ChatRef::Private(2)).unwrap_err();
        assert_eq!(
            (e.kind, e.meta("scope"), e.meta("user_id")),
            (Kind::TokenScope, Some("private"), Some("2"))
        );
        assert!(e.message.contains("limited to groups"));
        // Users only: those private chats, no group.
        let users = scoped(None, Some(&[2]));
        assert!(users.check_chat(ChatRef::Private(2)).is_ok());
        let e = users.check_chat(ChatRef::Private(3)).unwrap_err();
        assert!(e.message.contains("private chat with 3"), "{e:?}");
        assert_eq!(
            users
                .check_chat(ChatRef::Group(1))
                .unwrap_err()
                .meta("scope"),
            Some("group")
        );
        // Both.
        let both = scoped(Some(&[1]), Some(&[2]));
        assert!(both.allows_chat(ChatRef::Group(1)) && both.allows_chat(ChatRef::Private(2)));
        assert!(!both.allows_chat(ChatRef::Group(2)) && !both.allows_chat(ChatRef::Private(1)));
        assert_eq!(
            both.allowed_chats(),
            Some(vec![ChatRef::Group(1), ChatRef::Private(2)])
        );
    }
}
