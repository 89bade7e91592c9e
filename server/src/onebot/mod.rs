//! The OneBot v11 adapter: knows the protocol and every implementation's
//! quirks, knows nothing of gRPC.
//!
//! # Layout
//! - [`api`]: the [`OneBotApi`] trait the domain depends on, with its types.
//! - [`model`]: inbound messages and segments (array and CQ-code forms).
//! - [`cq`]: the CQ-code parser and escaper.
//! - [`flavor`]: implementation profiles (history anchors, poke path, ...).
//! - [`detached`]: the adapter of an account with no transport.

pub mod api;
pub mod cq;
pub mod detached;
pub mod flavor;
pub mod model;

pub use api::{
    AccountStatus, CallCtx, ChatRef, ConnState, EventSink, HistoryPage, InboundEvent, OneBotApi,
    TransportKind,
};
pub use flavor::{Flavor, FlavorSetting};

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::domain::Account;

/// Starts one adapter per configured account (connections are opened in
/// the background; this returns at once). `sink` receives inbound events;
/// `shutdown` stops every connection task.
pub async fn start_accounts(
    config: &Config,
    _sink: Arc<dyn EventSink>,
    _shutdown: CancellationToken,
) -> crate::error::Result<Vec<Account>> {
    let mut accounts = Vec::new();
    for (id, account) in &config.accounts {
        // The connecting adapter replaces this for accounts with a transport.
        let api: api::SharedApi = Arc::new(detached::Detached::new(id));
        accounts.push(Account {
            id: id.clone(),
            config: account.clone(),
            api,
        });
    }
    Ok(accounts)
}
