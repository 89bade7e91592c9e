//! `[sandbox]`: the embedded sandbox peer.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use super::account::Protocol;
use super::check::ConfigError;
use super::check::Key;
use super::flavor::Flavor;

/// The embedded sandbox peer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxConfig {
    /// Address of the sandbox's OneBot listener (forward WebSocket and
    /// HTTP API, `onebot-gateway sandbox inject` talks to it): OneBot's
    /// customary 127.0.0.1:6700 by default; port 0 picks a free port (for
    /// several gateways on one machine).
    pub listen: SocketAddr,
    /// The protocol the sandbox speaks: `onebot_v11` (the default; `flavor`
    /// says which implementation it imitates) or `milky` (a Milky 1.2
    /// implementation on the same listener and seeded data: HTTP API at
    /// `/api/:api`, events at `/event`).
    pub protocol: Protocol,
    /// Which OneBot v11 implementation the sandbox imitates.
    pub flavor: String,
    /// Group whitelist of the sandbox's `default` account.
    pub groups: Vec<i64>,
    /// Private-chat whitelist of the sandbox's `default` account.
    pub users: Vec<i64>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            listen: Self::DEFAULT_LISTEN,
            protocol: Protocol::OneBotV11,
            flavor: "napcat".into(),
            groups: vec![20_000_003],
            users: vec![10_001],
        }
    }
}

impl SandboxConfig {
    /// Where the embedded sandbox listens unless `[sandbox] listen` says
    /// otherwise (and where `onebot-gateway sandbox inject` looks for it).
    pub const DEFAULT_LISTEN: SocketAddr = SocketAddr::V4(std::net::SocketAddrV4::new(
        std::net::Ipv4Addr::LOCALHOST,
        6700,
    ));

    /// Checks `[sandbox]`: the flavor is one the sandbox can imitate.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        Key::new("sandbox").field("flavor").ensure(
            Flavor::from_name(&self.flavor).is_some_and(|f| f != Flavor::Generic),
            format!(
                "unknown flavor {:?}; expected napcat, llonebot, lagrange, snowluma or go-cqhttp",
                self.flavor
            ),
        )
    }
}
