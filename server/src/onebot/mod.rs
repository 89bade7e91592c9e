//! The OneBot v11 adapter: knows the protocol and every implementation's
//! quirks, knows nothing of gRPC.
//!
//! # Layout
//! - [`api`]: the [`OneBotApi`] trait the domain depends on, with its types.
//! - [`client`]: one account's connection manager (state machine, routing,
//!   typed actions): the real [`OneBotApi`].
//! - [`transport`]: forward WebSocket, HTTP, reverse WebSocket listener,
//!   pending calls, reconnect backoff.
//! - [`retcode`]: the one table classifying peer answers into domain errors.
//! - [`history`]: per-flavor history anchors and paging.
//! - [`events`]: inbound event frames → [`InboundEvent`].
//! - [`model`]: inbound messages and segments (array and CQ-code forms).
//! - [`cq`]: the CQ-code parser and escaper.
//! - [`flavor`]: implementation profiles (history anchors, poke path, ...).
//! - [`detached`]: the adapter of an account with no transport.

pub mod api;
pub mod client;
pub mod cq;
pub mod detached;
pub mod events;
pub mod flavor;
pub mod history;
pub mod model;
pub mod retcode;
pub mod transport;

pub use api::{
    AccountStatus, CallCtx, ChatRef, ConnState, EventSink, HistoryPage, InboundEvent, OneBotApi,
    TransportKind,
};
pub use flavor::{Flavor, FlavorSetting};

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::domain::Account;
use crate::error::Error;

/// Starts one adapter per configured account (connections are opened in
/// the background; this returns at once, after binding the reverse
/// WebSocket listener when one is configured). Accounts without any
/// transport get the [`detached::Detached`] adapter. `sink` receives inbound
/// events; `shutdown` stops every connection task and the listener.
pub async fn start_accounts(
    config: &Config,
    sink: Arc<dyn EventSink>,
    shutdown: CancellationToken,
) -> crate::error::Result<Vec<Account>> {
    let mut accounts = Vec::new();
    let mut reverse = transport::reverse::ReverseAccounts::new();
    for (id, account) in &config.accounts {
        let api: api::SharedApi = if account.has_transport() {
            let client = client::AccountClient::start(
                id,
                account.clone(),
                sink.clone(),
                shutdown.child_token(),
                None,
            )?;
            if account.reverse
                && let Some(self_id) = account.self_id
            {
                reverse.insert(self_id, client.clone());
            }
            client
        } else {
            Arc::new(detached::Detached::new(id))
        };
        accounts.push(Account {
            id: id.clone(),
            config: account.clone(),
            api,
        });
    }
    if let Some(rev) = &config.reverse_ws
        && !reverse.is_empty()
    {
        let listener = tokio::net::TcpListener::bind(rev.listen)
            .await
            .map_err(|e| {
                Error::internal(format!(
                    "binding the reverse WebSocket listener on {}: {e}",
                    rev.listen
                ))
                .with("listen", rev.listen)
            })?;
        tracing::info!(listen = %rev.listen, path = %rev.path, "reverse WebSocket listening");
        transport::reverse::spawn(
            listener,
            rev.path.clone(),
            reverse,
            Duration::from_millis(rev.handshake_timeout_ms),
            shutdown,
        );
    }
    Ok(accounts)
}
