//! One configured account: its settings and the peer behind it.

use super::ports::SharedPeer;
use onebot_gateway_config::AccountConfig;

/// One configured account: its settings and its peer's adapter.
pub struct Account {
    /// The account id.
    pub id: String,
    /// Its settings.
    pub config: AccountConfig,
    /// Its peer.
    pub peer: SharedPeer,
}

impl std::fmt::Debug for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Account")
            .field("id", &self.id)
            .field("state", &self.peer.status().state)
            .finish()
    }
}
