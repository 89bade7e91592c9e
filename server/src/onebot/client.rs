//! One account's connection manager and its [`OneBotApi`].
//!
//! # Transports and state
//! An account has at most one WebSocket link (forward: we dial `ws_url`;
//! reverse: the implementation dials our listener) and optionally an HTTP
//! transport. The link is used whenever it is up; HTTP carries actions while
//! it is down. "Online" means some transport can carry an action now.
//!
//! The state machine ([`ConnState`]) belongs to the WebSocket when one is
//! configured, else to HTTP:
//! - forward: `Connecting` → (upgrade, then `get_login_info` and
//!   `get_version_info` answered) `Connected` → on a drop `Backoff`
//!   (jittered exponential, [`Backoff`]) → `Connecting` …; a refused token
//!   (HTTP 401/403 at the upgrade, an unmatched retcode 1401/1403 frame, or
//!   close code 1008) → `AuthFailed`, retried once per `auth_retry_ms`;
//! - reverse: `Connecting` (waiting for the implementation to dial in) →
//!   `Connected` → on a drop `Connecting` again;
//! - HTTP only: `Connecting` → (both identity calls answered) `Connected`;
//!   a transport failure → `Backoff` and a new probe; 401/403 → `AuthFailed`.
//!
//! Every state change is published on the status watch and as an
//! [`InboundEvent::Connection`] event.
//!
//! # Calls
//! Each call gets a fresh echo; its timeout is the shorter of
//! `request_timeout_ms` and the caller's deadline, and a call whose deadline
//! has passed sends nothing. While connecting or in backoff a call waits up
//! to `connect_wait_ms` (never past its deadline) for a transport, then fails
//! `AccountOffline` with a retry hint; in `AuthFailed` it fails at once with
//! `OnebotAuthFailed`. A drop fails every pending call at once with
//! `OnebotConnectionLost`.
//!
//! **Sends.** For message-sending actions ([`retcode::is_send_action`]) an
//! answer lost after the frame left (connection lost, timeout) means the
//! message may have been delivered: those fail with `SendOutcomeUnknown`
//! (metadata `cause` = `connection_lost` or `timeout`). Failures before any
//! byte left keep their kinds (`AccountOffline`, `Overloaded`,
//! `DeadlineExceeded`), so the write side can queue or retry them safely.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;

use super::api::{
    AccountStatus, CallCtx, ChatRef, ConnState, EventSink, HistoryPage, InboundEvent, OneBotApi,
    TransportKind,
};
use super::flavor::{Flavor, FlavorSetting};
use super::history::{self, SeqCache};
use super::model::int_of;
use super::retcode::{self, Via};
use super::transport::backoff::Backoff;
use super::transport::body::ParamsJson;
use super::transport::frame::Data;
use super::transport::http::{HttpError, HttpTransport};
use super::transport::ws::{self, ConnectError, Inbound, Link, LinkError, Liveness, SessionEnd};
use super::transport::{Connector, Io, TcpConnector};
use crate::config::AccountConfig;
use crate::error::{Error, Kind, Result};

/// Messages whose real seq is remembered for history anchors.
const SEQ_CACHE_CAPACITY: usize = 20_000;

/// Who drives an account's state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Forward,
    Reverse,
    Http,
}

/// The role a reverse connection announced in `X-Client-Role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientRole {
    /// Actions and events.
    Universal,
    /// Actions only.
    Api,
    /// Events only (never carries actions).
    Event,
}

impl ClientRole {
    /// Parses the header value, case-insensitively; absent means Universal.
    pub fn parse(value: Option<&str>) -> Option<Self> {
        match value.map(|v| v.trim().to_ascii_lowercase()) {
            None => Some(ClientRole::Universal),
            Some(v) => match v.as_str() {
                "" | "universal" => Some(ClientRole::Universal),
                "api" => Some(ClientRole::Api),
                "event" => Some(ClientRole::Event),
                _ => None,
            },
        }
    }
}

/// An account's connection manager; implements [`OneBotApi`].
pub struct AccountClient {
    inner: Arc<Inner>,
}

struct Routes {
    link: Option<Arc<Link>>,
    http_ok: bool,
}

struct Inner {
    id: String,
    cfg: AccountConfig,
    flavor_setting: FlavorSetting,
    owner: Owner,
    status: watch::Sender<AccountStatus>,
    routes: Mutex<Routes>,
    http: Option<Arc<HttpTransport>>,
    http_check: Notify,
    seqs: Mutex<SeqCache>,
    sink: Arc<dyn EventSink>,
    echo: AtomicU64,
    retry_at: Mutex<Option<Instant>>,
    cancel: CancellationToken,
}

enum Route {
    Ws(Arc<Link>),
    Http(Arc<HttpTransport>),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section is a few field updates: a panic cannot leave
    // them half-done, so a poisoned lock is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

impl AccountClient {
    /// Starts the account `id`: spawns its connection tasks (forward
    /// WebSocket, HTTP probe) and returns at once. `connector` replaces the
    /// TCP dialer of the forward WebSocket (tests pass in-memory streams).
    /// Reverse accounts get their link from the listener
    /// ([`super::transport::reverse`]). Every task stops when `cancel` fires.
    pub fn start(
        id: &str,
        cfg: AccountConfig,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
        connector: Option<Arc<dyn Connector>>,
    ) -> Result<Arc<Self>> {
        let flavor_setting = Flavor::parse_setting(&cfg.flavor).ok_or_else(|| {
            Error::internal(format!("account {id:?}: unknown flavor {:?}", cfg.flavor))
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
        let peer_tls =
            crate::tls::PeerTls::new(cfg.ca_file.as_deref(), &format!("accounts.{id}.ca_file"))
                .map_err(|e| {
                    Error::internal(format!("account {id:?}: {e}")).with("account_id", id)
                })?;
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
                        crate::config::redact_url(url)
                    ))
                })?;
                Some(match peer_tls.wss_server_name(url) {
                    Some(name) => Arc::new(peer_tls.connector(tcp, name)) as Arc<dyn Connector>,
                    None => Arc::new(tcp) as Arc<dyn Connector>,
                })
            }
            _ => None,
        };
        let (status, _) = watch::channel(AccountStatus {
            state: ConnState::Connecting,
            flavor: match flavor_setting {
                FlavorSetting::Fixed(f) => Some(f),
                FlavorSetting::Auto => None,
            },
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
            sink,
            echo: AtomicU64::new(1),
            retry_at: Mutex::new(None),
            cancel,
        });
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

    /// The configured access token (reverse connections must present it).
    pub fn access_token(&self) -> Option<&str> {
        self.inner
            .cfg
            .access_token
            .as_ref()
            .map(|t| t.expose())
            .filter(|t| !t.is_empty())
    }

    /// Runs a reverse connection the implementation opened, until it drops.
    /// Universal and API connections carry actions (replacing any older
    /// link); Event connections only deliver events.
    pub async fn attach_reverse<S: Io>(&self, ws: WebSocketStream<S>, role: ClientRole) {
        self.inner.clone().attach_reverse(ws, role).await;
    }
}

impl Inner {
    // ----- status -----

    /// Applies `f` to the status, recomputes `online`/`transport` from the
    /// routes, notifies watchers when anything changed and publishes a
    /// connection event when the state changed.
    fn update(&self, detail: &str, f: impl FnOnce(&mut AccountStatus)) {
        let mut changed_to = None;
        {
            let routes = lock(&self.routes);
            let link = routes.link.as_ref().filter(|l| !l.is_closed());
            self.status.send_if_modified(|s| {
                let before = s.clone();
                f(s);
                s.online = link.is_some() || routes.http_ok;
                s.transport = match (link, routes.http_ok) {
                    (Some(l), _) => l.kind(),
                    (None, true) => TransportKind::Http,
                    (None, false) => TransportKind::None,
                };
                if s.state != before.state {
                    changed_to = Some(s.state);
                }
                *s != before
            });
        }
        if let Some(state) = changed_to {
            match state {
                ConnState::Connected => {
                    tracing::info!(account_id = %self.id, "connected to the OneBot implementation")
                }
                ConnState::Backoff | ConnState::AuthFailed => {
                    tracing::warn!(account_id = %self.id, state = state.name(), %detail, "connection state")
                }
                _ => {
                    tracing::debug!(account_id = %self.id, state = state.name(), %detail, "connection state")
                }
            }
            self.sink.publish(
                &self.id,
                InboundEvent::Connection {
                    state,
                    detail: detail.to_string(),
                },
            );
        }
    }

    fn set_state(&self, state: ConnState, detail: &str) {
        self.update(detail, |s| {
            s.state = state;
            if state != ConnState::Connected && !detail.is_empty() {
                s.last_error = detail.to_string();
            }
        });
    }

    fn state(&self) -> ConnState {
        self.status.borrow().state
    }

    fn flavor(&self) -> Flavor {
        self.status.borrow().flavor.unwrap_or_default()
    }

    fn set_link(&self, link: Option<Arc<Link>>) {
        let old = std::mem::replace(&mut lock(&self.routes).link, link);
        if let Some(old) = old {
            old.close();
        }
        self.update("", |_| {});
    }

    /// Removes `link` if it is still the current one.
    fn clear_link(&self, link: &Arc<Link>) {
        {
            let mut routes = lock(&self.routes);
            if routes.link.as_ref().is_some_and(|l| Arc::ptr_eq(l, link)) {
                routes.link = None;
            }
        }
        self.update("", |_| {});
    }

    fn set_http_ok(&self, ok: bool) {
        lock(&self.routes).http_ok = ok;
        self.update("", |_| {});
    }

    fn set_retry_in(&self, delay: Duration) {
        *lock(&self.retry_at) = Some(Instant::now() + delay);
    }

    fn retry_hint(&self) -> Duration {
        let min = Duration::from_millis(self.cfg.backoff_min_ms);
        lock(&self.retry_at)
            .map(|at| at.saturating_duration_since(Instant::now()))
            .filter(|d| *d >= min)
            .unwrap_or(min)
    }

    fn apply_identity(&self, login: &Value, version: &Value) {
        let text = |v: &Value, k: &str| match v.get(k) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        let self_id = login.get("user_id").and_then(int_of).unwrap_or(0);
        let app_name = text(version, "app_name");
        let flavor = match self.flavor_setting {
            FlavorSetting::Fixed(f) => f,
            FlavorSetting::Auto => Flavor::detect(&app_name),
        };
        if let Some(expected) = self.cfg.self_id
            && self_id != 0
            && self_id != expected
        {
            tracing::warn!(
                account_id = %self.id, expected, self_id,
                "the implementation is logged in as another QQ number than configured"
            );
        }
        self.update("", |s| {
            if self_id != 0 {
                s.self_id = self_id;
            }
            s.nickname = text(login, "nickname");
            s.implementation = app_name;
            s.implementation_version = text(version, "app_version");
            s.flavor = Some(flavor);
        });
    }

    fn next_echo(&self) -> String {
        self.echo.fetch_add(1, Ordering::Relaxed).to_string()
    }

    fn backoff(&self) -> Backoff {
        Backoff::new(
            Duration::from_millis(self.cfg.backoff_min_ms),
            Duration::from_millis(self.cfg.backoff_max_ms),
            self.cfg.backoff_jitter,
        )
    }

    /// Sleeps `d`; false when shutdown came first.
    async fn sleep(&self, d: Duration) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(d) => true,
            _ = self.cancel.cancelled() => false,
        }
    }

    // ----- forward WebSocket -----

    async fn run_forward(self: Arc<Self>, connector: Arc<dyn Connector>) {
        let mut backoff = self.backoff();
        let auth_retry = Duration::from_millis(self.cfg.auth_retry_ms);
        while !self.cancel.is_cancelled() {
            // After an auth failure the state stays AUTH_FAILED while the
            // once-a-minute retry runs, so calls keep failing fast.
            if self.state() != ConnState::AuthFailed {
                self.set_state(ConnState::Connecting, "");
            }
            let outcome = tokio::select! {
                o = self.forward_once(&connector) => o,
                _ = self.cancel.cancelled() => break,
            };
            match outcome {
                Once::Shutdown => break,
                Once::AuthFailed(detail) => {
                    self.set_retry_in(auth_retry);
                    self.set_state(ConnState::AuthFailed, &detail);
                    if !self.sleep(auth_retry).await {
                        break;
                    }
                    crate::telemetry::metrics::reconnect(&self.id);
                }
                Once::Failed { detail, connected } => {
                    if connected {
                        backoff.reset();
                    }
                    let delay = backoff.next_delay();
                    self.set_retry_in(delay);
                    self.set_state(ConnState::Backoff, &detail);
                    if !self.sleep(delay).await {
                        break;
                    }
                    crate::telemetry::metrics::reconnect(&self.id);
                }
            }
        }
    }

    async fn forward_once(self: &Arc<Self>, connector: &Arc<dyn Connector>) -> Once {
        let Some(url) = self.cfg.ws_url.clone() else {
            return Once::Shutdown;
        };
        let token = self
            .cfg
            .access_token
            .as_ref()
            .map(|t| t.expose().to_string());
        let connect_timeout = Duration::from_millis(self.cfg.connect_timeout_ms);
        // Errors show the URL without credentials typed into it.
        let shown = crate::config::redact_url(&url);
        let attempt = tokio::time::timeout(connect_timeout, async {
            let io = connector
                .connect()
                .await
                .map_err(|e| ConnectError::Failed(format!("connect to {shown} failed: {e}")))?;
            ws::handshake(io, &url, token.as_deref(), self.cfg.token_in_query).await
        })
        .await;
        let ws = match attempt {
            Err(_) => {
                return Once::Failed {
                    detail: format!(
                        "connect to {shown} timed out after {} ms",
                        connect_timeout.as_millis()
                    ),
                    connected: false,
                };
            }
            Ok(Err(ConnectError::Auth(detail))) => return Once::AuthFailed(detail),
            Ok(Err(ConnectError::Failed(detail))) => {
                return Once::Failed {
                    detail,
                    connected: false,
                };
            }
            Ok(Ok(ws)) => ws,
        };
        match self.clone().run_link(ws, TransportKind::ForwardWs).await {
            LinkOutcome::Shutdown => Once::Shutdown,
            LinkOutcome::AuthRejected(detail) => Once::AuthFailed(detail),
            LinkOutcome::Ended { detail, connected } => Once::Failed { detail, connected },
        }
    }

    /// Runs one link: identify, publish, wait for its end, clean up.
    async fn run_link<S: Io>(
        self: Arc<Self>,
        ws: WebSocketStream<S>,
        kind: TransportKind,
    ) -> LinkOutcome {
        let liveness = Liveness {
            ping_interval: Duration::from_millis(self.cfg.ping_interval_ms),
        };
        let (link, mut session) = ws::start(
            ws,
            kind,
            liveness,
            self.cfg.max_pending_calls,
            self.clone(),
            self.cancel.clone(),
        );
        let identified = tokio::select! {
            r = self.identify(&link) => r,
            end = &mut session => {
                return self.link_ended(&link, end.unwrap_or(SessionEnd::Local), false);
            }
        };
        let connected = match identified {
            Ok((login, version)) => {
                self.apply_identity(&login, &version);
                self.set_link(Some(link.clone()));
                self.set_state(ConnState::Connected, "");
                true
            }
            Err(e) => {
                link.close();
                let end = session.await.unwrap_or(SessionEnd::Local);
                if e.kind == Kind::OnebotAuthFailed {
                    return LinkOutcome::AuthRejected(e.message);
                }
                if let SessionEnd::AuthRejected(detail) = end {
                    return LinkOutcome::AuthRejected(detail);
                }
                if self.cancel.is_cancelled() {
                    return LinkOutcome::Shutdown;
                }
                return LinkOutcome::Ended {
                    detail: format!("identifying the implementation failed: {}", e.message),
                    connected: false,
                };
            }
        };
        let end = session.await.unwrap_or(SessionEnd::Local);
        self.link_ended(&link, end, connected)
    }

    fn link_ended(&self, link: &Arc<Link>, end: SessionEnd, connected: bool) -> LinkOutcome {
        self.clear_link(link);
        // The peer may be gone altogether: re-check HTTP at once.
        self.http_check.notify_one();
        match end {
            SessionEnd::Local if self.cancel.is_cancelled() => LinkOutcome::Shutdown,
            SessionEnd::Local => LinkOutcome::Ended {
                detail: "link closed by the gateway".into(),
                connected,
            },
            SessionEnd::AuthRejected(detail) => LinkOutcome::AuthRejected(detail),
            SessionEnd::Closed(detail) | SessionEnd::Dead(detail) => {
                LinkOutcome::Ended { detail, connected }
            }
        }
    }

    /// `get_login_info` then `get_version_info` over a fresh link.
    async fn identify(&self, link: &Arc<Link>) -> Result<(Value, Value)> {
        let deadline = Instant::now() + self.cfg.request_timeout();
        let mut out = Vec::with_capacity(2);
        for action in ["get_login_info", "get_version_info"] {
            let frame = link
                .call(self.next_echo(), action, &json!({}), deadline)
                .await
                .map_err(|e| self.link_error(action, e, self.cfg.request_timeout()))?;
            let flavor = match self.flavor_setting {
                FlavorSetting::Fixed(f) => f,
                FlavorSetting::Auto => Flavor::Generic,
            };
            out.push(retcode::classify_frame(flavor, Via::Ws, action, frame)?.into_value());
        }
        let version = out.pop().unwrap_or_default();
        let login = out.pop().unwrap_or_default();
        Ok((login, version))
    }

    // ----- reverse WebSocket -----

    async fn attach_reverse<S: Io>(self: Arc<Self>, ws: WebSocketStream<S>, role: ClientRole) {
        if role == ClientRole::Event {
            // Events only: run the session for its frames, never route calls.
            let liveness = Liveness {
                ping_interval: Duration::from_millis(self.cfg.ping_interval_ms),
            };
            let (_link, session) = ws::start(
                ws,
                TransportKind::ReverseWs,
                liveness,
                1,
                self.clone(),
                self.cancel.clone(),
            );
            let end = session.await.unwrap_or(SessionEnd::Local);
            tracing::info!(account_id = %self.id, ?end, "reverse event connection ended");
            return;
        }
        let outcome = self.clone().run_link(ws, TransportKind::ReverseWs).await;
        let still_linked = lock(&self.routes).link.is_some();
        if !still_linked && !self.cancel.is_cancelled() {
            let detail = match outcome {
                LinkOutcome::Ended { detail, .. } | LinkOutcome::AuthRejected(detail) => detail,
                LinkOutcome::Shutdown => String::new(),
            };
            self.set_state(ConnState::Connecting, &detail);
        }
    }

    // ----- HTTP -----

    async fn run_http(self: Arc<Self>, http: Arc<HttpTransport>) {
        let mut backoff = self.backoff();
        let auth_retry = Duration::from_millis(self.cfg.auth_retry_ms);
        let drives_state = self.owner == Owner::Http;
        while !self.cancel.is_cancelled() {
            let probe = tokio::select! {
                p = self.probe_http(&http) => p,
                _ = self.cancel.cancelled() => break,
            };
            match probe {
                Ok((login, version)) => {
                    backoff.reset();
                    self.apply_identity(&login, &version);
                    self.set_http_ok(true);
                    if drives_state {
                        self.set_state(ConnState::Connected, "");
                    }
                    tokio::select! {
                        _ = self.http_check.notified() => {}
                        _ = self.cancel.cancelled() => break,
                    }
                }
                Err(e) if e.kind == Kind::OnebotAuthFailed => {
                    self.set_http_ok(false);
                    if drives_state {
                        self.set_retry_in(auth_retry);
                        self.set_state(ConnState::AuthFailed, &e.message);
                    }
                    if !self.sleep(auth_retry).await {
                        break;
                    }
                    crate::telemetry::metrics::reconnect(&self.id);
                }
                Err(e) => {
                    self.set_http_ok(false);
                    let delay = backoff.next_delay();
                    if drives_state {
                        self.set_retry_in(delay);
                        self.set_state(ConnState::Backoff, &e.message);
                    }
                    if !self.sleep(delay).await {
                        break;
                    }
                    crate::telemetry::metrics::reconnect(&self.id);
                    if drives_state {
                        self.set_state(ConnState::Connecting, "");
                    }
                }
            }
        }
    }

    async fn probe_http(&self, http: &HttpTransport) -> Result<(Value, Value)> {
        let timeout = Duration::from_millis(self.cfg.connect_timeout_ms);
        let flavor = match self.flavor_setting {
            FlavorSetting::Fixed(f) => f,
            FlavorSetting::Auto => Flavor::Generic,
        };
        let mut out = Vec::with_capacity(2);
        for action in ["get_login_info", "get_version_info"] {
            let (status, frame) = http
                .call(action, &json!({}), timeout)
                .await
                .map_err(|e| self.http_error(action, e, timeout))?;
            out.push(
                retcode::classify_frame(flavor, Via::Http(status), action, frame)?.into_value(),
            );
        }
        let version = out.pop().unwrap_or_default();
        let login = out.pop().unwrap_or_default();
        Ok((login, version))
    }

    // ----- calls -----

    fn pick(&self) -> Option<Route> {
        let routes = lock(&self.routes);
        if let Some(link) = routes.link.as_ref().filter(|l| !l.is_closed()) {
            return Some(Route::Ws(link.clone()));
        }
        match (&self.http, routes.http_ok) {
            (Some(http), true) => Some(Route::Http(http.clone())),
            _ => None,
        }
    }

    /// A transport for the next call: at once when one is up, after waiting
    /// up to `connect_wait_ms` (never past the deadline) while connecting.
    async fn route(&self, action: &str, ctx: CallCtx) -> Result<Route> {
        let mut rx = self.status.subscribe();
        let wait = ctx
            .remaining()
            .map_or(self.cfg.connect_wait(), |r| r.min(self.cfg.connect_wait()));
        let until = Instant::now() + wait;
        loop {
            let state = rx.borrow_and_update().state;
            if let Some(route) = self.pick() {
                return Ok(route);
            }
            if state == ConnState::AuthFailed {
                return Err(self.auth_failed_error(action));
            }
            match tokio::time::timeout_at(until, rx.changed()).await {
                Ok(Ok(())) => continue,
                Ok(Err(_)) | Err(_) => return Err(self.offline_error(action)),
            }
        }
    }

    async fn call_action(&self, action: &str, params: Value, ctx: CallCtx) -> Result<Value> {
        self.call_data(action, params, ctx)
            .await
            .map(Data::into_value)
    }

    /// [`call_action`](Self::call_action) with the answer's `data` left as
    /// the text it came in, for callers that decode it themselves.
    async fn call_data(&self, action: &str, params: Value, ctx: CallCtx) -> Result<Data> {
        if ctx.expired() {
            return Err(Error::new(
                Kind::DeadlineExceeded,
                format!("the deadline passed before {action} was sent"),
            )
            .with("action", action)
            .with("account_id", &self.id));
        }
        let limit = self.cfg.request_timeout();
        let timeout = ctx.remaining().map_or(limit, |r| r.min(limit));
        let deadline = Instant::now() + timeout;
        // Serialized once, taking the parameters' large media strings as
        // they are: they are not copied again on the way to the socket.
        let params = ParamsJson::new(params);
        let mut retried = false;
        use crate::telemetry::metrics::{self as m, ActionOutcome};
        let _pending = m::PendingCall::start(&self.id);
        loop {
            let route = self.route(action, ctx).await?;
            let flavor = self.flavor();
            let sent_at = Instant::now();
            match route {
                Route::Ws(link) => {
                    match link
                        .call_json(self.next_echo(), action, &params, deadline)
                        .await
                    {
                        Ok(frame) => {
                            m::peer_reply(&self.id, action, frame.head(), sent_at.elapsed());
                            return retcode::classify_frame(flavor, Via::Ws, action, frame);
                        }
                        // The link died between picking it and sending: nothing
                        // left, so one more routing is safe.
                        Err(LinkError::NotSent) if !retried => {
                            retried = true;
                            self.clear_link(&link);
                        }
                        Err(e) => {
                            let outcome = match e {
                                LinkError::Timeout { .. } => ActionOutcome::Timeout,
                                LinkError::Lost => ActionOutcome::Lost,
                                LinkError::NotSent | LinkError::Full => ActionOutcome::Error,
                            };
                            m::peer_action(&self.id, action, outcome, sent_at.elapsed());
                            return Err(self.link_error(action, e, timeout));
                        }
                    }
                }
                Route::Http(http) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    let answer = http.call_json(action, &params, left).await;
                    let elapsed = sent_at.elapsed();
                    match &answer {
                        Ok((_, frame)) => m::peer_reply(&self.id, action, frame.head(), elapsed),
                        Err(HttpError::Timeout) => {
                            m::peer_action(&self.id, action, ActionOutcome::Timeout, elapsed)
                        }
                        Err(HttpError::Lost(_)) => {
                            m::peer_action(&self.id, action, ActionOutcome::Lost, elapsed)
                        }
                        Err(_) => m::peer_action(&self.id, action, ActionOutcome::Error, elapsed),
                    }
                    return match answer {
                        Ok((status, frame)) => {
                            retcode::classify_frame(flavor, Via::Http(status), action, frame)
                        }
                        Err(e) => {
                            if matches!(e, HttpError::NotSent(_) | HttpError::Lost(_)) {
                                self.set_http_ok(false);
                                self.http_check.notify_one();
                            }
                            Err(self.http_error(action, e, timeout))
                        }
                    };
                }
            }
        }
    }

    fn auth_failed_error(&self, action: &str) -> Error {
        let status = self.status.borrow().clone();
        Error::new(
            Kind::OnebotAuthFailed,
            format!(
                "account {:?}: the OneBot implementation refused the access token; fix accounts.{}.access_token",
                self.id, self.id
            ),
        )
        .with("account_id", &self.id)
        .with("action", action)
        .with("last_error", status.last_error)
    }

    fn offline_error(&self, action: &str) -> Error {
        let status = self.status.borrow().clone();
        Error::new(
            Kind::AccountOffline,
            format!(
                "account {:?} is offline ({}); no transport can carry {action}",
                self.id,
                status.state.name()
            ),
        )
        .with("account_id", &self.id)
        .with("action", action)
        .with("state", status.state.name())
        .with("last_error", status.last_error)
        .retry_after(self.retry_hint())
    }

    fn link_error(&self, action: &str, e: LinkError, timeout: Duration) -> Error {
        match e {
            LinkError::NotSent => self.offline_error(action),
            LinkError::Full => Error::new(
                Kind::Overloaded,
                format!(
                    "account {:?}: {} calls are already waiting for replies",
                    self.id, self.cfg.max_pending_calls
                ),
            )
            .with("account_id", &self.id)
            .with("action", action)
            .with("max_pending_calls", self.cfg.max_pending_calls)
            .retry_after(Duration::from_millis(self.cfg.backoff_min_ms)),
            LinkError::Timeout { sent: false } => self.timeout_error(action, timeout, false),
            LinkError::Timeout { sent: true } => self.timeout_error(action, timeout, true),
            LinkError::Lost => self.lost_error(action),
        }
    }

    fn http_error(&self, action: &str, e: HttpError, timeout: Duration) -> Error {
        match e {
            HttpError::NotSent(detail) => self.offline_error(action).with("http_error", detail),
            HttpError::Timeout => self.timeout_error(action, timeout, true),
            HttpError::Lost(detail) => self.lost_error(action).with("http_error", detail),
            HttpError::Auth(status) => Error::new(
                Kind::OnebotAuthFailed,
                format!(
                    "{action}: the OneBot implementation refused the access token (HTTP {status})"
                ),
            )
            .with("account_id", &self.id)
            .with("action", action)
            .with("http_status", status),
            HttpError::Status(status, body) => {
                let kind = match status {
                    404 => Kind::OnebotActionUnsupported,
                    400 | 406 => Kind::OnebotBadRequest,
                    _ => Kind::OnebotProtocolError,
                };
                Error::new(
                    kind,
                    format!("{action}: the OneBot implementation answered HTTP {status}: {body}"),
                )
                .with("account_id", &self.id)
                .with("action", action)
                .with("http_status", status)
                .with("peer_message", body)
            }
        }
    }

    fn timeout_error(&self, action: &str, timeout: Duration, sent: bool) -> Error {
        let ms = timeout.as_millis();
        let err = if sent && retcode::is_send_action(action) {
            Error::new(
                Kind::SendOutcomeUnknown,
                format!(
                    "{action}: no answer within {ms} ms; the message may have been delivered, do not retry blindly"
                ),
            )
            .with("cause", "timeout")
        } else {
            Error::new(
                Kind::OnebotTimeout,
                format!("{action}: no answer from the OneBot implementation within {ms} ms"),
            )
        };
        err.with("account_id", &self.id)
            .with("action", action)
            .with("timeout_ms", ms)
    }

    fn lost_error(&self, action: &str) -> Error {
        if retcode::is_send_action(action) {
            return Error::new(
                Kind::SendOutcomeUnknown,
                format!(
                    "{action}: the connection dropped before the answer; the message may have been delivered, do not retry blindly"
                ),
            )
            .with("account_id", &self.id)
            .with("action", action)
            .with("cause", "connection_lost");
        }
        Error::new(
            Kind::OnebotConnectionLost,
            format!(
                "{action}: the connection to the OneBot implementation dropped before the answer"
            ),
        )
        .with("account_id", &self.id)
        .with("action", action)
        .retry_after(Duration::from_millis(self.cfg.backoff_min_ms))
    }

    /// The real seq of `message_id` (cache, else `get_msg`).
    async fn resolve_seq(&self, chat: ChatRef, message_id: i64, ctx: CallCtx) -> Result<i64> {
        if let Some(seq) = lock(&self.seqs).get(chat, message_id) {
            return Ok(seq);
        }
        let data = self
            .call_action("get_msg", json!({ "message_id": message_id }), ctx)
            .await?;
        let seq = history::raw_seq(&data).ok_or_else(|| {
            Error::new(
                Kind::OnebotProtocolError,
                format!("get_msg of message {message_id} reported no message_seq"),
            )
            .with("action", "get_msg")
            .with("message_id", message_id)
        })?;
        lock(&self.seqs).insert(chat, message_id, seq);
        Ok(seq)
    }
}

impl Inbound for Inner {
    fn event(&self, event: InboundEvent) {
        if let InboundEvent::Message { message, .. } = &event {
            lock(&self.seqs).learn(message);
        }
        self.sink.publish(&self.id, event);
    }

    fn heartbeat(&self) {
        let now = now_ms();
        self.update("", |s| s.last_heartbeat_ms = Some(now));
    }
}

enum Once {
    Shutdown,
    AuthFailed(String),
    Failed { detail: String, connected: bool },
}

enum LinkOutcome {
    Shutdown,
    AuthRejected(String),
    Ended { detail: String, connected: bool },
}

#[async_trait::async_trait]
impl OneBotApi for AccountClient {
    fn status(&self) -> AccountStatus {
        self.inner.status.borrow().clone()
    }

    fn watch_status(&self) -> watch::Receiver<AccountStatus> {
        self.inner.status.subscribe()
    }

    async fn call(&self, action: &str, params: Value, ctx: CallCtx) -> Result<Value> {
        self.inner.call_action(action, params, ctx).await
    }

    async fn get_history(
        &self,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        ctx: CallCtx,
    ) -> Result<HistoryPage> {
        let inner = &self.inner;
        // The flavor decides the request: make sure it is known.
        let action = match chat {
            ChatRef::Group(_) => "get_group_msg_history",
            ChatRef::Private(_) => "get_friend_msg_history",
        };
        inner.route(action, ctx).await?;
        let flavor = inner.flavor();
        history::check_supported(flavor, chat)?;
        let anchor_seq = match anchor {
            Some(a) if history::needs_seq(flavor) => Some(inner.resolve_seq(chat, a, ctx).await?),
            _ => None,
        };
        let (action, params) = history::request(flavor, chat, count, anchor, anchor_seq);
        let answer = inner.call_data(action, params, ctx).await;
        let page = history::page(flavor, chat, count, anchor, answer)?;
        let mut seqs = lock(&inner.seqs);
        for m in &page.messages {
            seqs.learn(m);
        }
        Ok(page)
    }

    async fn get_group_member_list(
        &self,
        group_id: i64,
        no_cache: Option<bool>,
        ctx: CallCtx,
    ) -> Result<Vec<Value>> {
        let mut params = json!({ "group_id": group_id });
        if let (Some(nc), Some(o)) = (no_cache, params.as_object_mut()) {
            o.insert("no_cache".into(), json!(nc));
        }
        let data = self
            .inner
            .call_action("get_group_member_list", params, ctx)
            .await?;
        array_data("get_group_member_list", data)
    }

    async fn get_group_list(&self, ctx: CallCtx) -> Result<Vec<Value>> {
        let data = self
            .inner
            .call_action("get_group_list", json!({}), ctx)
            .await?;
        array_data("get_group_list", data)
    }

    async fn send_group_msg(&self, group_id: i64, message: Value, ctx: CallCtx) -> Result<i64> {
        let data = self
            .inner
            .call_action(
                "send_group_msg",
                object([("group_id", json!(group_id)), ("message", message)]),
                ctx,
            )
            .await?;
        // go-cqhttp answers a poke segment with message_id 0; a peer that
        // reports none gets 0 too (the send itself succeeded).
        Ok(data.get("message_id").and_then(int_of).unwrap_or(0))
    }

    async fn upload_group_file(
        &self,
        group_id: i64,
        file: String,
        name: String,
        ctx: CallCtx,
    ) -> Result<()> {
        self.inner
            .call_action(
                "upload_group_file",
                object([
                    ("group_id", json!(group_id)),
                    ("file", Value::String(file)),
                    ("name", Value::String(name)),
                ]),
                ctx,
            )
            .await
            .map(drop)
    }

    async fn poke(&self, group_id: i64, user_id: i64, ctx: CallCtx) -> Result<()> {
        let inner = &self.inner;
        inner.route("group_poke", ctx).await?;
        match inner.flavor() {
            // go-cqhttp pokes with a message segment (`[CQ:poke,qq=…]`).
            Flavor::GoCqhttp => inner
                .call_action(
                    "send_group_msg",
                    json!({
                        "group_id": group_id,
                        "message": [{ "type": "poke", "data": { "qq": user_id.to_string() } }],
                    }),
                    ctx,
                )
                .await
                .map(drop),
            _ => inner
                .call_action(
                    "group_poke",
                    json!({ "group_id": group_id, "user_id": user_id }),
                    ctx,
                )
                .await
                .map(drop),
        }
    }
}

/// A JSON object of `fields`, moved in. `json!` would copy every
/// interpolated value (it serializes them by reference), and the message of
/// a media send holds tens of MiB of base64.
pub fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

fn array_data(action: &str, data: Value) -> Result<Vec<Value>> {
    match data {
        Value::Array(items) => Ok(items),
        Value::Null => Ok(Vec::new()),
        other => Err(Error::new(
            Kind::OnebotProtocolError,
            format!("{action}: expected an array, got {}", json_kind(&other)),
        )
        .with("action", action)),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
