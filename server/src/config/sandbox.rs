//! `[sandbox]`: the embedded sandbox peer.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

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
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            flavor: "napcat".into(),
            groups: vec![20_000_003],
        }
    }
}
