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
use crate::media::{MediaServer, MediaUris};
use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::lease::Gate;
use onebot_gateway_domain::model::{AccountStatus, ConnState};
use onebot_gateway_domain::ports::EventSink;
use onebot_gateway_tls::PeerTls;

/// The name of the adapter's profile in [`AccountStatus::profile`].
pub const PROFILE: &str = "milky";

/// One Milky account; implements
/// [`PeerApi`](onebot_gateway_domain::ports::PeerApi).
pub struct MilkyClient {
    inner: Arc<Inner>,
    /// The media listener, when media go by one-time URLs.
    media: Option<MediaServer>,
}

impl MilkyClient {
    /// Starts the account `account_id` of `config` (its `milky_url`):
    /// spawns the supervised event connection (WebSocket or SSE per
    /// `milky_events`), which identifies the peer on every (re)connect, and
    /// returns at once. When media go by `http` (`milky_media`), binds the
    /// media listener at `milky_media_listen`; when it cannot bind, media go
    /// as `base64://` (logged). Events above `max_event_bytes` are dropped;
    /// every task (the media listener too) stops when `shutdown` fires.
    /// Fails on a config it cannot use (no or a bad `milky_url`, an
    /// unreadable `ca_file`). Must be called inside a Tokio runtime.
    pub fn start(
        account_id: &str,
        config: AccountConfig,
        max_event_bytes: usize,
        sink: Arc<dyn EventSink>,
        shutdown: CancellationToken,
    ) -> Result<Arc<MilkyClient>, String> {
        Self::start_gated(
            account_id,
            config,
            max_event_bytes,
            sink,
            shutdown,
            Gate::Open,
        )
    }

    /// [`start`](Self::start) connecting to the implementation only while
    /// `gate` is open (this gateway leads the account).
    ///
    /// While the gate is closed the event connection is not attempted and
    /// no API request is made: the status is `Connecting`, not online, with
    /// the last error `standby: another gateway leads this account`, and
    /// calls fail `AccountOffline` at once. When the gate closes, the event
    /// connection is dropped at once (an attempt under way is abandoned);
    /// when it opens, it connects again without a back-off delay. The
    /// media listener (ours, not the peer's) runs regardless.
    pub fn start_gated(
        account_id: &str,
        config: AccountConfig,
        max_event_bytes: usize,
        sink: Arc<dyn EventSink>,
        shutdown: CancellationToken,
        gate: Gate,
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
        let media = media_server(id, &config, &shutdown);
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
            gate,
        });
        if matches!(inner.gate, Gate::Watch(_)) {
            tokio::spawn(inner.clone().run_gate());
        }
        tokio::spawn(inner.clone().run_events());
        tokio::spawn(inner.clone().run_api_probe());
        Ok(Arc::new(MilkyClient { inner, media }))
    }

    /// The media listener serving this account's one-time media URLs;
    /// `None` when media go as `base64://`.
    pub fn media_server(&self) -> Option<&MediaServer> {
        self.media.as_ref()
    }

    /// The URIs the media of one request get: one-time URLs on the media
    /// listener (removed when the returned value drops), or `base64://`.
    pub(crate) fn media_uris(&self) -> MediaUris {
        self.media
            .as_ref()
            .map_or(MediaUris::Base64, MediaServer::uris)
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

/// The media listener of account `id` when its media go by `http`; `None`
/// (media as `base64://`) when they do not or when it cannot bind.
fn media_server(
    id: &str,
    config: &AccountConfig,
    shutdown: &CancellationToken,
) -> Option<MediaServer> {
    if !config.milky_media_by_http() {
        tracing::info!(
            account = id,
            milky_media = config.milky_media_setting().name(),
            "milky media go as base64:// in the request"
        );
        return None;
    }
    let listen = config.milky_media_listen_addr();
    match MediaServer::start(
        listen,
        config.milky_media_url.as_deref(),
        shutdown.child_token(),
    ) {
        Ok(server) => {
            tracing::info!(
                account = id,
                listen = %server.local_addr(),
                base = server.base(),
                "milky media served at one-time http:// URLs"
            );
            Some(server)
        }
        Err(e) => {
            tracing::warn!(
                account = id,
                %listen,
                error = %e,
                "milky media listener not bound: media go as base64:// in the request instead"
            );
            None
        }
    }
}
