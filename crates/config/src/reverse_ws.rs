//! `[reverse_ws]`: the listener OneBot implementations dial into.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

/// Reverse WebSocket listener: implementations dial in and are matched to an
/// account by `X-Self-ID`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ReverseWsConfig {
    /// Listen address.
    pub listen: SocketAddr,
    /// Upgrade path.
    pub path: String,
    /// Timeout of one upgrade handshake, in milliseconds.
    pub handshake_timeout_ms: u64,
}

impl Default for ReverseWsConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8082)),
            path: "/onebot/v11/ws".into(),
            handshake_timeout_ms: 10_000,
        }
    }
}

impl ReverseWsConfig {
    /// Checks `[reverse_ws]`: the upgrade path starts with `/`.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        Key::new("reverse_ws").field("path").url_path(&self.path)
    }
}
