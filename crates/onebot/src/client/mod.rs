//! One account's adapter: the [`AccountClient`] the domain holds as its
//! [`PeerApi`](onebot_gateway_domain::ports::PeerApi).
//!
//! # Layout
//! - `inner`: the state the account's tasks share.
//! - [`supervisor`]: the connection state machine and the reconnect loops
//!   (forward WebSocket, HTTP) and reverse connections.
//! - `routing`: which transport carries a call, and the call itself.
//! - `identify`: the identity actions and what they tell.
//! - `errors`: the errors of calls the peer did not answer.
//! - `paging`: history pages as the peer really pages (probe, judge,
//!   correct).
//! - `actions`: the typed actions behind the port.
//! - `group`: the group actions per flavor (reactions, essence, typing,
//!   group files, moderation).
//! - `media`: received media per flavor (steps, lookups, stream downloads).

mod actions;
mod errors;
#[cfg(test)]
mod gate_tests;
mod group;
mod identify;
mod inner;
mod media;
mod paging;
mod routing;
pub mod supervisor;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::net::TcpStream;
use tokio::sync::{Notify, watch};
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;

use self::inner::{Inner, Owner, Routes};
use crate::flavor::Flavor;
use crate::history::SeqCache;
use crate::history::probe::Marks;
use crate::history::profile::{AnchorStyle, HistoryProfile, Learned};
use crate::transport::http::HttpTransport;
use crate::transport::reverse::{ClientRole, ReverseAccount};
use crate::transport::{Connector, Io, TcpConnector, WssConnector};
use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::lease::Gate;
use onebot_gateway_domain::model::{AccountStatus, ConnState};
use onebot_gateway_domain::ports::EventSink;
use onebot_gateway_tls::PeerTls;

/// Messages whose real seq is remembered for history anchors.
const SEQ_CACHE_CAPACITY: usize = 20_000;

/// An account's connection manager; implements
/// [`PeerApi`](onebot_gateway_domain::ports::PeerApi).
pub struct AccountClient {
    inner: Arc<Inner>,
}

impl AccountClient {
    /// Starts the account `id`: spawns its connection tasks (forward
    /// WebSocket, HTTP probe) and returns at once. `connector` replaces the
    /// TCP dialer of the forward WebSocket (tests pass in-memory streams).
    /// Reverse accounts get their link from the listener
    /// ([`crate::transport::reverse`]). Every task stops when
    /// `cancel` fires.
    ///
    /// Event frames above the default `limits.max_event_frame_bytes` are
    /// dropped; [`start_with`](Self::start_with) takes another cap.
    pub fn start(
        id: &str,
        cfg: AccountConfig,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
        connector: Option<Arc<dyn Connector>>,
    ) -> Result<Arc<Self>> {
        let max_event_bytes = onebot_gateway_config::LimitsConfig::default().max_event_frame_bytes;
        Self::start_with(id, cfg, max_event_bytes, sink, cancel, connector)
    }

    /// [`start`](Self::start) dropping event frames above
    /// `max_event_bytes` (see [`crate::transport::ws`]).
    pub fn start_with(
        id: &str,
        cfg: AccountConfig,
        max_event_bytes: usize,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
        connector: Option<Arc<dyn Connector>>,
    ) -> Result<Arc<Self>> {
        Self::start_gated(
            id,
            cfg,
            max_event_bytes,
            sink,
            cancel,
            connector,
            Gate::Open,
        )
    }

    /// [`start_with`](Self::start_with) connecting to the implementation
    /// only while `gate` is open (this gateway leads the account).
    ///
    /// While the gate is closed no connection is attempted (no dial, no
    /// HTTP request), the status is `Connecting`, not online, with the
    /// last error `standby: another gateway leads this account`, calls fail
    /// `AccountOffline` at once without reaching the peer, and reverse
    /// connections of the account are refused (HTTP 503). When the gate
    /// closes, the link (forward or reverse) is closed at once and an
    /// attempt under way is abandoned; when it opens, the account connects
    /// again without a back-off delay.
    pub fn start_gated(
        id: &str,
        cfg: AccountConfig,
        max_event_bytes: usize,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
        connector: Option<Arc<dyn Connector>>,
        gate: Gate,
    ) -> Result<Arc<Self>> {
        let flavor_setting = cfg
            .flavor_setting()
            .map_err(|e| Error::internal(format!("account {id:?}: {e}")).with("account_id", id))?;
        let history_anchor = AnchorStyle::parse_setting(&cfg.history_anchor).map_err(|_| {
            Error::internal(format!(
                "account {id:?}: unknown history_anchor {:?}",
                cfg.history_anchor
            ))
            .with("account_id", id)
        })?;
        let owner = if cfg.reverse {
            Owner::Reverse
        } else if cfg.ws_url.is_some() {
            Owner::Forward
        } else {
            Owner::Http
        };
        let token = cfg.access_token.as_ref().map(|t| t.expose().to_string());
        // System roots plus `ca_file` for wss:// and https:// peers.
        let peer_tls = PeerTls::new(cfg.ca_file.as_deref(), &format!("accounts.{id}.ca_file"))
            .map_err(|e| Error::internal(format!("account {id:?}: {e}")).with("account_id", id))?;
        let http = match &cfg.http_url {
            Some(url) => Some(Arc::new(
                HttpTransport::new(
                    url,
                    token.as_deref(),
                    Duration::from_millis(cfg.connect_timeout_ms),
                    &peer_tls,
                )
                .map_err(|e| Error::internal(format!("account {id:?}: {e}")))?,
            )),
            None => None,
        };
        let connector = match (owner, &cfg.ws_url, connector) {
            (Owner::Forward, _, Some(c)) => Some(c),
            (Owner::Forward, Some(url), None) => {
                let tcp = TcpConnector::for_url(url).ok_or_else(|| {
                    Error::internal(format!(
                        "account {id:?}: ws_url {:?} is not a ws:// or wss:// URL with a host",
                        onebot_gateway_config::redact_url(url)
                    ))
                })?;
                Some(match peer_tls.wss_server_name(url) {
                    Some(name) => {
                        Arc::new(WssConnector::new(tcp, name, &peer_tls)) as Arc<dyn Connector>
                    }
                    None => Arc::new(tcp) as Arc<dyn Connector>,
                })
            }
            _ => None,
        };
        let fixed = flavor_setting;
        let history = HistoryProfile::with_settings(
            fixed.unwrap_or_default(),
            history_anchor,
            cfg.history_anchor_included,
        );
        let (status, _) = watch::channel(AccountStatus {
            state: ConnState::Connecting,
            profile: fixed.map(Flavor::name),
            self_id: cfg.self_id.unwrap_or(0),
            ..AccountStatus::default()
        });
        let inner = Arc::new(Inner {
            id: id.to_string(),
            cfg,
            flavor_setting,
            owner,
            status,
            routes: Mutex::new(Routes {
                link: None,
                http_ok: false,
            }),
            http: http.clone(),
            http_check: Notify::new(),
            seqs: Mutex::new(SeqCache::new(SEQ_CACHE_CAPACITY)),
            marks: Mutex::new(Marks::new(SEQ_CACHE_CAPACITY)),
            learned: Mutex::new(Learned::new(history)),
            sink,
            echo: AtomicU64::new(1),
            retry_at: Mutex::new(None),
            cancel,
            flavor: Mutex::new(fixed),
            reverse_attached: Default::default(),
            max_event_bytes,
            gate,
        });
        if matches!(inner.gate, Gate::Watch(_)) {
            tokio::spawn(inner.clone().run_gate());
        }
        if let Some(connector) = connector {
            tokio::spawn(inner.clone().run_forward(connector));
        }
        if let Some(http) = http {
            tokio::spawn(inner.clone().run_http(http));
        }
        Ok(Arc::new(Self { inner }))
    }

    /// The account id.
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// Whether the account's gate is open: this gateway may connect to the
    /// implementation (always, unless started by
    /// [`start_gated`](Self::start_gated) with a gate that is closed now).
    pub fn gate_open(&self) -> bool {
        self.inner.gate.is_open()
    }

    /// The configured access token (reverse connections must present it).
    pub fn access_token(&self) -> Option<&str> {
        self.inner
            .cfg
            .access_token
            .as_ref()
            .map(|t| t.expose())
            .filter(|t| !t.is_empty())
    }

    /// Calls a raw action and returns its `data` on success: the escape
    /// hatch under the typed actions, for diagnostics and protocol tests.
    pub async fn call(
        &self,
        action: &str,
        params: serde_json::Value,
        deadline: onebot_gateway_domain::call::Deadline,
    ) -> Result<serde_json::Value> {
        self.inner.call_action(action, params, deadline).await
    }

    /// Runs a reverse connection the implementation opened, until it drops.
    /// Universal and API connections carry actions (replacing any older
    /// link); Event connections only deliver events. While the account's
    /// gate is closed the connection is closed at once (close code 1013);
    /// an attached one is closed when the gate closes.
    pub async fn attach_reverse<S: Io>(&self, ws: WebSocketStream<S>, role: ClientRole) {
        self.inner.clone().attach_reverse(ws, role).await;
    }
}

#[async_trait::async_trait]
impl ReverseAccount for AccountClient {
    fn id(&self) -> &str {
        AccountClient::id(self)
    }

    fn access_token(&self) -> Option<&str> {
        AccountClient::access_token(self)
    }

    fn gate_open(&self) -> bool {
        AccountClient::gate_open(self)
    }

    fn attached(&self, role: ClientRole) -> bool {
        self.inner.reverse_attached.taken(role)
    }

    async fn attach(&self, ws: WebSocketStream<TcpStream>, role: ClientRole) {
        self.attach_reverse(ws, role).await;
    }
}
