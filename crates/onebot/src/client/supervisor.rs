//! The account supervisor: one state machine, one transition function.
//!
//! An account has at most one WebSocket link (forward: we dial `ws_url`;
//! reverse: the implementation dials our listener) and optionally an HTTP
//! transport. The link is used whenever it is up; HTTP carries actions while
//! it is down. "Online" means some transport can carry an action now.
//!
//! The state ([`ConnState`]) belongs to the WebSocket when one is
//! configured, else to HTTP ([`Owner`]); only the owner's tasks feed it
//! [`Step`]s, and [`transition`] alone decides the next state:
//! - forward: `Connecting` → (upgrade, then both identity calls answered)
//!   `Connected` → on a drop `Backoff` (jittered exponential) → `Connecting`
//!   …; a refused token (HTTP 401/403 at the upgrade, an unmatched retcode
//!   1401/1403 frame, or close code 1008) → `AuthFailed`, retried once per
//!   `auth_retry_ms` while the state stays `AuthFailed`;
//! - reverse: `Connecting` (waiting for the implementation to dial in) →
//!   `Connected` → on a drop (or a refused identification) `Connecting`;
//! - HTTP only: `Connecting` → (both identity calls answered) `Connected`; a
//!   transport failure → `Backoff` and a new probe; 401/403 → `AuthFailed`.
//!
//! The forward WebSocket and HTTP share one reconnect loop
//! ([`Inner::supervise`]): an attempt either ends (shut down, token refused,
//! failed), or — HTTP after a good probe — asks to be re-checked. Every
//! state change is published on the status watch and as an
//! [`InboundEvent::Connection`] event.
//!
//! The account's gate ([`Gate`]) comes first: the loops start an attempt
//! only while it is open. When it closes, an attempt under way is
//! abandoned, every link (forward or reverse) is closed, HTTP counts as
//! down, and the state is `Connecting` with the last error
//! [`STANDBY`], whatever the transports report, until it opens again; the
//! loops then try again at once, owing no back-off delay.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::identify::Budget;
use super::inner::{Inner, Owner, STANDBY};
use super::routing::Route;
use crate::transport::http::HttpTransport;
use crate::transport::reverse::ClientRole;
use crate::transport::ws::{self, ConnectError, Inbound, Link, Liveness, SessionEnd};
use crate::transport::{Connector, Io};
use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::lease::Gate;
use onebot_gateway_domain::model::{ConnState, InboundEvent, TransportKind};
use onebot_gateway_telemetry::metrics as m;

/// What happened to the owner's transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// A new attempt is about to start (after a back-off, or the first).
    Retry,
    /// The transport answered both identity calls.
    Identified,
    /// The peer refused the token.
    AuthRejected,
    /// The attempt failed or the connection ended.
    Failed,
}

/// The next state of an account whose `owner` transport, in `state`, took
/// `step`.
pub(crate) fn transition(owner: Owner, state: ConnState, step: Step) -> ConnState {
    match (owner, step) {
        (_, Step::Identified) => ConnState::Connected,
        // A reverse account waits for the implementation to dial in again.
        (Owner::Reverse, Step::AuthRejected | Step::Failed) => ConnState::Connecting,
        (_, Step::AuthRejected) => ConnState::AuthFailed,
        (_, Step::Failed) => ConnState::Backoff,
        // After an auth failure the state stays AUTH_FAILED while the
        // periodic retry runs, so calls keep failing fast.
        (_, Step::Retry) if state == ConnState::Backoff => ConnState::Connecting,
        (_, Step::Retry) => state,
    }
}

/// How one attempt of the reconnect loop ended.
pub(crate) enum Attempt {
    /// Shutting down.
    Shutdown,
    /// The peer refused the token.
    AuthFailed(String),
    /// The attempt failed; `connected` when it had been up (the back-off
    /// starts over).
    Failed { detail: String, connected: bool },
    /// Up and fine until asked to check again (HTTP): try again at once.
    Recheck,
}

/// How one WebSocket link ended.
enum LinkOutcome {
    Shutdown,
    AuthRejected(String),
    Ended { detail: String, connected: bool },
}

impl From<LinkOutcome> for Attempt {
    fn from(o: LinkOutcome) -> Attempt {
        match o {
            LinkOutcome::Shutdown => Attempt::Shutdown,
            LinkOutcome::AuthRejected(detail) => Attempt::AuthFailed(detail),
            LinkOutcome::Ended { detail, connected } => Attempt::Failed { detail, connected },
        }
    }
}

impl Inner {
    // ----- status -----

    /// Applies `f` to the status, recomputes `online`/`transport` from the
    /// routes, notifies watchers when anything changed and publishes a
    /// connection event when the state changed.
    pub(crate) fn update(
        &self,
        detail: &str,
        f: impl FnOnce(&mut onebot_gateway_domain::model::AccountStatus),
    ) {
        let mut changed_to = None;
        {
            let routes = self.routes.lock();
            let open = self.gate.is_open();
            let link = routes.link.as_ref().filter(|l| open && !l.is_closed());
            let http_ok = open && routes.http_ok;
            self.status.send_if_modified(|s| {
                let before = s.clone();
                f(s);
                s.online = link.is_some() || http_ok;
                s.transport = match (link, http_ok) {
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
            self.sink
                .connection_changed(&self.id, state, detail, "OneBot");
        }
    }

    /// Feeds `step` of the owner's transport to the state machine; `detail`
    /// becomes the last error of any state but `Connected`. Ignored while
    /// the gate is closed: the state is then the standby's.
    pub(crate) fn drive(&self, step: Step, detail: &str) {
        if !self.gate.is_open() {
            return;
        }
        let owner = self.owner;
        self.update(detail, |s| {
            let next = transition(owner, s.state, step);
            s.state = next;
            if next != ConnState::Connected && !detail.is_empty() {
                s.last_error = detail.to_string();
            }
        });
    }

    fn set_link(&self, link: Option<Arc<Link>>) {
        let old = std::mem::replace(&mut self.routes.lock().link, link);
        if let Some(old) = old {
            old.close();
        }
        self.update("", |_| {});
    }

    /// Removes `link` if it is still the current one.
    pub(crate) fn clear_link(&self, link: &Arc<Link>) {
        {
            let mut routes = self.routes.lock();
            if routes.link.as_ref().is_some_and(|l| Arc::ptr_eq(l, link)) {
                routes.link = None;
            }
        }
        self.update("", |_| {});
    }

    pub(crate) fn set_http_ok(&self, ok: bool) {
        self.routes.lock().http_ok = ok;
        self.update("", |_| {});
    }

    // ----- the gate -----

    /// Drops every route (closing the link) and shows the standby state:
    /// `Connecting`, last error [`STANDBY`].
    fn stand_by(&self) {
        let old = {
            let mut routes = self.routes.lock();
            routes.http_ok = false;
            routes.link.take()
        };
        if let Some(old) = old {
            old.close();
        }
        self.update(STANDBY, onebot_gateway_domain::lease::show_standby);
    }

    /// Follows a watched gate until shutdown: stands by whenever it closes;
    /// when it opens, forgets the standby's last error (the adapter's loops
    /// connect).
    pub(crate) async fn run_gate(self: Arc<Self>) {
        self.gate
            .clone()
            .follow(
                &self.cancel,
                || self.stand_by(),
                || self.update("", onebot_gateway_domain::lease::clear_standby),
            )
            .await;
    }

    /// The token one link runs under: cancelled at shutdown, when the gate
    /// closes, and when the guard drops (whoever runs the link gave it up).
    fn link_token(&self) -> (CancellationToken, DropGuard) {
        let token = self.cancel.child_token();
        if let Gate::Watch(_) = &self.gate {
            let mut gate = self.gate.clone();
            let watched = token.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = gate.closed() => watched.cancel(),
                    () = watched.cancelled() => {}
                }
            });
        }
        (token.clone(), token.drop_guard())
    }

    // ----- the reconnect loop -----

    /// Runs attempts until shutdown, backing off between failures, each
    /// only while the gate is open: one under way when it closes is
    /// abandoned, and the next starts as soon as it opens. Only the owner's
    /// loop (`drives`) moves the state.
    async fn supervise<F, Fut>(self: Arc<Self>, drives: bool, mut attempt: F)
    where
        F: FnMut(Arc<Self>) -> Fut,
        Fut: Future<Output = Attempt>,
    {
        let mut backoff = self.backoff();
        let auth_retry = Duration::from_millis(self.cfg.auth_retry_ms);
        let mut gate = self.gate.clone();
        while !self.cancel.is_cancelled() {
            if !gate.is_open() {
                self.stand_by();
                tokio::select! {
                    () = gate.opened() => {}
                    _ = self.cancel.cancelled() => break,
                }
                backoff.reset();
            }
            if drives {
                self.drive(Step::Retry, "");
            }
            let outcome = tokio::select! {
                o = attempt(self.clone()) => o,
                () = gate.closed() => continue,
                _ = self.cancel.cancelled() => break,
            };
            if !gate.is_open() {
                // Ended by the gate (its link closed): no back-off owed.
                continue;
            }
            let (delay, step, detail) = match outcome {
                Attempt::Shutdown => break,
                Attempt::Recheck => {
                    backoff.reset();
                    continue;
                }
                Attempt::AuthFailed(detail) => (auth_retry, Step::AuthRejected, detail),
                Attempt::Failed { detail, connected } => {
                    if connected {
                        backoff.reset();
                    }
                    (backoff.next_delay(), Step::Failed, detail)
                }
            };
            if drives {
                self.set_retry_in(delay);
                self.drive(step, &detail);
            }
            tokio::select! {
                slept = self.sleep(delay) => if !slept { break },
                () = gate.closed() => continue,
            }
            m::reconnect(&self.id);
        }
    }

    // ----- forward WebSocket -----

    /// The forward WebSocket's reconnect loop.
    pub(crate) async fn run_forward(self: Arc<Self>, connector: Arc<dyn Connector>) {
        self.supervise(true, move |inner| {
            let connector = connector.clone();
            async move { inner.forward_once(&connector).await }
        })
        .await;
    }

    async fn forward_once(self: &Arc<Self>, connector: &Arc<dyn Connector>) -> Attempt {
        let Some(url) = self.cfg.ws_url.clone() else {
            return Attempt::Shutdown;
        };
        let token = self
            .cfg
            .access_token
            .as_ref()
            .map(|t| t.expose().to_string());
        let connect_timeout = Duration::from_millis(self.cfg.connect_timeout_ms);
        // Errors show the URL without credentials typed into it.
        let shown = onebot_gateway_config::redact_url(&url);
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
                return Attempt::Failed {
                    detail: format!(
                        "connect to {shown} timed out after {} ms",
                        connect_timeout.as_millis()
                    ),
                    connected: false,
                };
            }
            Ok(Err(ConnectError::Auth(detail))) => return Attempt::AuthFailed(detail),
            Ok(Err(ConnectError::Failed(detail))) => {
                return Attempt::Failed {
                    detail,
                    connected: false,
                };
            }
            Ok(Ok(ws)) => ws,
        };
        self.clone()
            .run_link(ws, TransportKind::ForwardWs)
            .await
            .into()
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
        // The link closes with the gate, and when this future is dropped.
        let (token, _closes) = self.link_token();
        let (link, mut session) = ws::start(
            ws,
            kind,
            liveness,
            self.cfg.max_pending_calls,
            self.clone(),
            token,
        );
        let route = Route::Ws(link.clone());
        let budget = Budget::Shared(self.cfg.request_timeout());
        let identified = tokio::select! {
            r = self.identify(&route, budget) => r,
            end = &mut session => {
                return self.link_ended(&link, end.unwrap_or(SessionEnd::Local), false);
            }
        };
        let connected = match identified {
            Ok((login, version)) => {
                self.apply_identity(&login, &version);
                tokio::select! {
                    () = self.learn_history(&route) => {}
                    end = &mut session => {
                        return self.link_ended(&link, end.unwrap_or(SessionEnd::Local), false);
                    }
                }
                self.set_link(Some(link.clone()));
                self.drive(Step::Identified, "");
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
            SessionEnd::Local if !self.gate.is_open() => LinkOutcome::Ended {
                detail: STANDBY.into(),
                connected,
            },
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

    // ----- reverse WebSocket -----

    /// Runs a reverse connection the implementation opened, until it drops.
    /// Universal and API connections carry actions (replacing any older
    /// link); Event connections only deliver events.
    pub(crate) async fn attach_reverse<S: Io>(
        self: Arc<Self>,
        ws: WebSocketStream<S>,
        role: ClientRole,
    ) {
        // The handshake refused it while the gate was closed (503); this
        // settles one that passed it as the gate closed.
        if !self.gate.is_open() {
            tracing::info!(account_id = %self.id, ?role, "a reverse connection refused: {STANDBY}");
            let mut ws = ws;
            let _ = ws
                .close(Some(CloseFrame {
                    code: CloseCode::Again,
                    reason: STANDBY.into(),
                }))
                .await;
            return;
        }
        // The handshake already refused a second connection while one was
        // attached (409); this settles two that passed it at once.
        let Some(attached) = self.reverse_attached.take(role) else {
            tracing::warn!(
                account_id = %self.id,
                ?role,
                "a second reverse connection with this X-Self-ID refused: one is attached"
            );
            let mut ws = ws;
            let _ = ws
                .close(Some(CloseFrame {
                    code: CloseCode::Policy,
                    reason: "a connection with this X-Self-ID is attached".into(),
                }))
                .await;
            return;
        };
        if role == ClientRole::Event {
            // Events only: run the session for its frames, never route calls.
            let liveness = Liveness {
                ping_interval: Duration::from_millis(self.cfg.ping_interval_ms),
            };
            let (token, _closes) = self.link_token();
            let (_link, session) = ws::start(
                ws,
                TransportKind::ReverseWs,
                liveness,
                1,
                self.clone(),
                token,
            );
            let end = session.await.unwrap_or(SessionEnd::Local);
            drop(attached);
            tracing::info!(account_id = %self.id, ?end, "reverse event connection ended");
            return;
        }
        let outcome = self.clone().run_link(ws, TransportKind::ReverseWs).await;
        // Free before the state says so: a replacement dialling as soon as
        // it sees the account down is accepted.
        drop(attached);
        let still_linked = self.routes.lock().link.is_some();
        if !still_linked && !self.cancel.is_cancelled() {
            match outcome {
                LinkOutcome::Ended { detail, .. } => self.drive(Step::Failed, &detail),
                LinkOutcome::AuthRejected(detail) => self.drive(Step::AuthRejected, &detail),
                LinkOutcome::Shutdown => self.drive(Step::Failed, ""),
            }
        }
    }

    // ----- HTTP -----

    /// The HTTP probe's loop: identify over HTTP, then wait until asked to
    /// check again (a call through it failed, or the link dropped). It moves
    /// the state only when HTTP is the account's only transport.
    pub(crate) async fn run_http(self: Arc<Self>, http: Arc<HttpTransport>) {
        let drives = self.owner == Owner::Http;
        self.supervise(drives, move |inner| {
            let http = http.clone();
            async move { inner.http_once(http, drives).await }
        })
        .await;
    }

    async fn http_once(&self, http: Arc<HttpTransport>, drives: bool) -> Attempt {
        let budget = Budget::EachCall(std::time::Duration::from_millis(
            self.cfg.connect_timeout_ms,
        ));
        let route = Route::Http(http);
        match self.identify(&route, budget).await {
            Ok((login, version)) => {
                self.apply_identity(&login, &version);
                self.learn_history(&route).await;
                self.set_http_ok(true);
                if drives {
                    self.drive(Step::Identified, "");
                }
                tokio::select! {
                    _ = self.http_check.notified() => Attempt::Recheck,
                    _ = self.cancel.cancelled() => Attempt::Shutdown,
                }
            }
            Err(e) => {
                self.set_http_ok(false);
                if e.kind == Kind::OnebotAuthFailed {
                    Attempt::AuthFailed(e.message)
                } else {
                    Attempt::Failed {
                        detail: e.message,
                        connected: false,
                    }
                }
            }
        }
    }
}

impl Inbound for Inner {
    fn event(&self, event: InboundEvent) {
        if let InboundEvent::Message { message, .. } = &event {
            self.seqs.lock().learn(message);
            self.marks.lock().learn(message);
        }
        self.sink.publish(&self.id, event);
    }

    fn heartbeat(&self) {
        let now = jiff::Timestamp::now().as_millisecond();
        self.update("", |s| s.last_heartbeat_ms = Some(now));
    }

    fn max_event_bytes(&self) -> usize {
        self.max_event_bytes
    }

    fn dropped(&self, bytes: usize) {
        tracing::warn!(
            account_id = %self.id,
            bytes,
            limit = self.max_event_bytes,
            "event frame from the peer above limits.max_event_frame_bytes dropped undecoded"
        );
        m::peer_frame_dropped(&self.id, "too_large");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_transition() {
        use ConnState::*;
        use Owner::*;
        for owner in [Forward, Reverse, Http] {
            for state in ConnState::ALL {
                assert_eq!(transition(owner, state, Step::Identified), Connected);
                let dropped = if owner == Reverse {
                    Connecting
                } else {
                    Backoff
                };
                assert_eq!(transition(owner, state, Step::Failed), dropped);
                let refused = if owner == Reverse {
                    Connecting
                } else {
                    AuthFailed
                };
                assert_eq!(transition(owner, state, Step::AuthRejected), refused);
                let retried = if state == Backoff { Connecting } else { state };
                assert_eq!(transition(owner, state, Step::Retry), retried);
            }
        }
    }
}
