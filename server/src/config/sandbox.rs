//! `[sandbox]`: the embedded sandbox peer.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

/// The embedded sandbox peer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxConfig {
    /// Loopback address of the sandbox's OneBot listener (port 0 = any).
    pub listen: SocketAddr,
    /// Which implementation the sandbox imitates.
    pub flavor: String,
    /// Group whitelist of the sandbox's `default` account.
    pub groups: Vec<i64>,
    /// Private-chat whitelist of the sandbox's `default` account.
    pub users: Vec<i64>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            flavor: "napcat".into(),
            groups: vec![20_000_003],
            users: vec![10_001],
        }
    }
}

impl SandboxConfig {
    /// Checks `[sandbox]`: the flavor is one the sandbox can imitate.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        Key::new("sandbox").field("flavor").ensure(
            self.flavor.parse::<onebot_sandbox::Flavor>().is_ok(),
            format!(
                "unknown flavor {:?}; expected napcat, llonebot, lagrange, snowluma or go-cqhttp",
                self.flavor
            ),
        )
    }
}
