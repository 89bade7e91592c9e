//! One Milky account's adapter: the [`MilkyClient`] the domain holds as
//! its [`PeerApi`](onebot_gateway_domain::ports::PeerApi).
//!
//! # Layout
//! - `inner`: the state the account's tasks share, the status and the call
//!   path (timeouts, error mapping, metrics).
//! - `actions`: the port's methods.
//! - the event connection's supervisor lives in [`crate::events`].

mod actions;
pub(crate) mod inner;

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use self::inner::{Inner, Reach};
use crate::api::Api;
use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::model::{AccountStatus, ConnState};
use onebot_gateway_domain::ports::EventSink;
use onebot_gateway_tls::PeerTls;

/// The name of the adapter's profile in [`AccountStatus::profile`].
pub const PROFILE: &str = "milky";

/// One Milky account; implements
/// [`PeerApi`](onebot_gateway_domain::ports::PeerApi).
pub struct MilkyClient {
    inner: Arc<Inner>,
}

impl MilkyClient {
    /// Starts the account `account_id` of `config` (its `milky_url`):
    /// spawns the supervised event connection (WebSocket or SSE per
    /// `milky_events`), which identifies the peer on every (re)connect, and
    /// returns at once. Events above `max_event_bytes` are dropped; every
    /// task stops when `shutdown` fires. Fails on a config it cannot use
    /// (no or a bad `milky_url`, an unreadable `ca_file`). Must be called
    /// inside a Tokio runtime.
    pub fn start(
        account_id: &str,
        config: AccountConfig,
        max_event_bytes: usize,
        sink: Arc<dyn EventSink>,
        shutdown: CancellationToken,
    ) -> Result<Arc<MilkyClient>, String> {
        let id = account_id;
        let url = config
            .milky_url
            .clone()
            .ok_or_else(|| format!("account {id:?}: milky_url is not set"))?;
        let tls = PeerTls::new(config.ca_file.as_deref(), &format!("accounts.{id}.ca_file"))
            .map_err(|e| format!("account {id:?}: {e}"))?;
        let token = config.access_token.as_ref().map(|t| t.expose().to_string());
        let api = Api::new(
            &url,
            token.as_deref(),
            Duration::from_millis(config.connect_timeout_ms),
            Duration::from_millis(config.ping_interval_ms.max(1000)),
            onebot_gateway_config::MAX_PEER_MESSAGE_BYTES,
            &tls,
        )
        .map_err(|e| format!("account {id:?}: {e}"))?;
        let event_url =
            crate::api::join_base(&url, "event").map_err(|e| format!("account {id:?}: {e}"))?;
        let (status, _) = watch::channel(AccountStatus {
            state: ConnState::Connecting,
            profile: Some(PROFILE),
            self_id: config.self_id.unwrap_or(0),
            ..AccountStatus::default()
        });
        let inner = Arc::new(Inner {
            id: id.to_string(),
            token,
            cfg: config,
            api,
            tls,
            event_url,
            status,
            reach: Mutex::new(Reach::default()),
            sink,
            cancel: shutdown,
            max_event_bytes,
            retry_at: Mutex::new(None),
        });
        tokio::spawn(inner.clone().run_events());
        tokio::spawn(inner.clone().run_api_probe());
        Ok(Arc::new(MilkyClient { inner }))
    }

    /// The account id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// Calls `api` with `request` and returns its `data`: the escape hatch
    /// under the typed actions, for diagnostics and protocol tests.
    pub async fn call(
        &self,
        api: &str,
        request: serde_json::Value,
        deadline: onebot_gateway_domain::call::Deadline,
    ) -> onebot_gateway_domain::error::Result<serde_json::Value> {
        self.inner
            .call_json(api, &request, deadline)
            .await
            .map(|data| data.value())
    }
}
