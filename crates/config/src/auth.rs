//! `[auth]`: bearer tokens of gRPC clients and what each may do.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::account::Secret;
use super::check::ConfigError;
use super::check::Key;

/// Access a bearer token grants.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Reading RPCs only: no SendMessage, PokeMember, UploadMedia or write
    /// tools.
    #[default]
    ReadOnly,
    /// Every RPC.
    ReadWrite,
}

/// Bearer-token authentication of gRPC clients.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AuthConfig {
    /// Accepted tokens with their scopes. Empty: no authentication (every
    /// caller may do everything).
    pub tokens: Vec<TokenConfig>,
    /// Serve `grpc.health.v1.Health` without a token (probes).
    pub open_health: bool,
    /// Serve gRPC reflection without a token.
    pub open_reflection: bool,
}

impl Default for AuthConfig {
    fn default() -> Self {
        Self {
            tokens: Vec::new(),
            open_health: true,
            open_reflection: true,
        }
    }
}

impl AuthConfig {
    /// Checks every token. Token names are unique and use letters, digits,
    /// `_`, `-` and `.`; `is_account` tells whether an account id exists.
    pub(super) fn validate(&self, is_account: impl Fn(&str) -> bool) -> Result<(), ConfigError> {
        let mut names = BTreeSet::new();
        for (i, t) in self.tokens.iter().enumerate() {
            let key = Key::new("auth").field("tokens").index(i);
            let name = key.field("name");
            name.ensure(
                is_token_name(&t.name),
                "token names use letters, digits, `_`, `-` and `.`",
            )?;
            name.ensure(
                names.insert(t.name.as_str()),
                format!("duplicate token name {:?}", t.name),
            )?;
            t.validate(&key, &is_account)?;
        }
        Ok(())
    }
}

/// True for a non-empty name of letters, digits, `_`, `-` and `.`.
fn is_token_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// One accepted bearer token. Exactly one of `value`, `value_file` and
/// `value_env` gives the token itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TokenConfig {
    /// Name of the token in logs, metrics and errors (never the value).
    pub name: String,
    /// The token inline.
    #[serde(default)]
    pub value: Option<Secret>,
    /// A file holding the token (surrounding whitespace is ignored), e.g. a
    /// mounted Kubernetes secret.
    #[serde(default)]
    pub value_file: Option<PathBuf>,
    /// An environment variable holding the token.
    #[serde(default)]
    pub value_env: Option<String>,
    /// Account ids the token may use; `"*"` means every account.
    pub accounts: Vec<String>,
    /// `read_only` (default) or `read_write`.
    #[serde(default)]
    pub access: Access,
    /// When set, the only groups the token may read or write. A token with
    /// `groups` but no `users` reaches no private chat.
    #[serde(default)]
    pub groups: Option<Vec<i64>>,
    /// When set, the only private chats (the other side's QQ numbers) the
    /// token may send to, read and recall in. A token with `users` but no
    /// `groups` reaches no group.
    #[serde(default)]
    pub users: Option<Vec<i64>>,
    /// May decide approvals (ApprovalService.DecideApproval) of the accounts
    /// it may use.
    #[serde(default)]
    pub approve: bool,
}

impl TokenConfig {
    /// A token given inline, for `accounts` (`"*"`: every account) with
    /// `access` and no group restriction.
    pub fn inline(name: &str, value: &str, accounts: &[&str], access: Access) -> TokenConfig {
        TokenConfig {
            name: name.into(),
            value: Some(Secret::new(value)),
            value_file: None,
            value_env: None,
            accounts: accounts.iter().map(|s| s.to_string()).collect(),
            access,
            groups: None,
            users: None,
            approve: false,
        }
    }

    /// Checks one token at `key` (`auth.tokens[i]`): exactly one non-empty
    /// source of the value, at least one account and each of them known
    /// (`"*"` is every account), and when groups (or users) are listed, at
    /// least one, each positive.
    fn validate(&self, key: &Key, is_account: &dyn Fn(&str) -> bool) -> Result<(), ConfigError> {
        let sources = [
            self.value.is_some(),
            self.value_file.is_some(),
            self.value_env.is_some(),
        ];
        key.field("value").ensure(
            sources.iter().filter(|s| **s).count() == 1,
            "set exactly one of value, value_file and value_env",
        )?;
        key.field("value").ensure(
            !self
                .value
                .as_ref()
                .is_some_and(|v| v.expose().trim().is_empty()),
            "must not be empty",
        )?;
        key.field("value_env").ensure(
            !self.value_env.as_ref().is_some_and(|v| v.is_empty()),
            "must name a variable",
        )?;
        let accounts = key.field("accounts");
        accounts.ensure(
            !self.accounts.is_empty(),
            "list the account ids the token may use, or \"*\" for all",
        )?;
        for (j, a) in self.accounts.iter().enumerate() {
            accounts
                .index(j)
                .ensure(a == "*" || is_account(a), format!("unknown account {a:?}"))?;
        }
        let groups = key.field("groups");
        if let Some(list) = &self.groups {
            groups.ensure(
                !list.is_empty(),
                "list at least one group, or leave groups out for every group",
            )?;
            groups.group_ids(list)?;
        }
        let users = key.field("users");
        if let Some(list) = &self.users {
            users.ensure(
                !list.is_empty(),
                "list at least one user, or leave users out",
            )?;
            users.user_ids(list)?;
        }
        Ok(())
    }
}
