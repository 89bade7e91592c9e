//! `[auth]`: bearer tokens of gRPC clients and what each may do.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Secret;

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
    /// When set, the only groups the token may read or write (private chats
    /// are then out of scope too).
    #[serde(default)]
    pub groups: Option<Vec<i64>>,
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
        }
    }
}
