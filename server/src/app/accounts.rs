//! Starting the accounts: one adapter per configured account, OneBot v11 or
//! Milky as its configuration says (a detached peer for accounts without a
//! transport), and the reverse WebSocket listener the implementations of
//! reverse accounts dial.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use onebot_gateway_config::{Config, Protocol};
use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::detached::Detached;
use onebot_gateway_domain::lease::{Gate, Leadership};
use onebot_gateway_domain::ports::{EventSink, SharedPeer};
use onebot_gateway_milky::MilkyClient;
use onebot_gateway_onebot::client::AccountClient;
use onebot_gateway_onebot::transport::reverse::{self, ReverseAccounts};

/// Starts one adapter per configured account (connections are opened in
/// the background; this returns at once, after binding the reverse
/// WebSocket listener when one is configured). `sink` receives inbound
/// events; `leadership` (under `[ha]`) gates each account's connections;
/// `shutdown` stops every connection task and the listener.
pub async fn start(
    config: &Config,
    sink: Arc<dyn EventSink>,
    leadership: Option<&Leadership>,
    shutdown: &CancellationToken,
) -> anyhow::Result<Vec<Arc<Account>>> {
    let mut accounts = Vec::new();
    let mut reverse_accounts = ReverseAccounts::new();
    for (id, account) in &config.accounts {
        let gate = leadership.map_or(Gate::Open, |l| l.gate(id));
        let peer: SharedPeer = if account.protocol() == Protocol::Milky {
            MilkyClient::start_gated(
                id,
                account.clone(),
                config.limits.max_event_frame_bytes,
                sink.clone(),
                shutdown.child_token(),
                gate,
            )
            .map_err(|e| anyhow::anyhow!("starting account {id:?}: {e}"))?
        } else if account.has_transport() {
            let client = AccountClient::start_gated(
                id,
                account.clone(),
                config.limits.max_event_frame_bytes,
                sink.clone(),
                shutdown.child_token(),
                None,
                gate,
            )
            .map_err(|e| anyhow::anyhow!("starting account {id:?}: {e}"))?;
            if account.reverse
                && let Some(self_id) = account.self_id
            {
                // Beyond loopback the configuration check requires a token.
                if account.access_token.is_none() {
                    tracing::warn!(
                        account_id = %id,
                        self_id,
                        "reverse account without access_token: any local process can connect as this bot; set accounts.{id}.access_token"
                    );
                }
                reverse_accounts.insert(self_id, client.clone());
            }
            client
        } else {
            Arc::new(Detached::new(id))
        };
        accounts.push(Arc::new(Account {
            id: id.clone(),
            config: account.clone(),
            peer,
        }));
    }
    if let Some(rev) = &config.reverse_ws
        && !reverse_accounts.is_empty()
    {
        let listener = tokio::net::TcpListener::bind(rev.listen)
            .await
            .with_context(|| {
                format!(
                    "binding the reverse WebSocket listener on {} (reverse_ws.listen)",
                    rev.listen
                )
            })?;
        tracing::info!(listen = %rev.listen, path = %rev.path, "reverse WebSocket listening");
        reverse::spawn(
            listener,
            rev.path.clone(),
            reverse_accounts,
            Duration::from_millis(rev.handshake_timeout_ms),
            shutdown.clone(),
        );
    }
    Ok(accounts)
}
