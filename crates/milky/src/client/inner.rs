//! The state one account's tasks share, its status and the call path.
//!
//! The account is online when its event connection is up and its last API
//! call reached the peer; the state follows the event connection:
//! `Connecting` → (connected and identified by `get_login_info` and
//! `get_impl_info`) `Connected` → on a drop `Backoff` → `Connecting` …; a
//! refused token (HTTP 401) → `AuthFailed`, retried once per
//! `auth_retry_ms`. Every state change is published on the status watch
//! and as an [`InboundEvent::Connection`] event.
//!
//! While the account's gate is closed (another gateway leads it) nothing
//! reaches the peer: the account is not online, its state is `Connecting`
//! with the last error [`STANDBY`] whatever the transports report, and a
//! call fails `AccountOffline` at once without an HTTP request.
//!
//! A call's timeout is the shorter of `request_timeout_ms` and the caller's
//! deadline; a call whose deadline passed sends nothing
//! (`DeadlineExceeded`), and a call while the token is refused fails at
//! once (`OnebotAuthFailed`).

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::api::{Api, CallError, Data};
use crate::body::Body;
use crate::errors::{self, Context};
use crate::model::{int, text};
use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::lease::Gate;
use onebot_gateway_domain::model::{AccountStatus, ConnState, TransportKind};
use onebot_gateway_domain::ports::EventSink;
use onebot_gateway_telemetry::metrics::{self as m, ActionOutcome};
use onebot_gateway_tls::PeerTls;

/// The status detail (and last error) of an account while its gate is
/// closed.
pub(crate) use onebot_gateway_domain::lease::STANDBY;

/// What is reachable right now.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Reach {
    /// The event connection is up.
    pub(crate) events: bool,
    /// The last API call reached the peer.
    pub(crate) api: bool,
}

/// What happened to the event connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// A new attempt is about to start.
    Retry,
    /// Connected, and the peer identified itself.
    Identified,
    /// The peer refused the token.
    AuthRejected,
    /// The attempt failed or the connection ended.
    Failed,
}

/// The next state after `step` in `state`.
pub(crate) fn transition(state: ConnState, step: Step) -> ConnState {
    match step {
        Step::Identified => ConnState::Connected,
        Step::AuthRejected => ConnState::AuthFailed,
        Step::Failed => ConnState::Backoff,
        // After an auth failure the state stays AUTH_FAILED while the
        // periodic retry runs, so calls keep failing fast.
        Step::Retry if state == ConnState::Backoff => ConnState::Connecting,
        Step::Retry => state,
    }
}

/// One account's shared adapter state.
pub(crate) struct Inner {
    pub(crate) id: String,
    pub(crate) token: Option<String>,
    pub(crate) cfg: AccountConfig,
    pub(crate) api: Api,
    pub(crate) tls: PeerTls,
    /// `<milky_url>/event`.
    pub(crate) event_url: url::Url,
    pub(crate) status: watch::Sender<AccountStatus>,
    pub(crate) reach: Mutex<Reach>,
    pub(crate) sink: Arc<dyn EventSink>,
    pub(crate) cancel: CancellationToken,
    /// Events above this many bytes are dropped.
    pub(crate) max_event_bytes: usize,
    pub(crate) retry_at: Mutex<Option<Instant>>,
    /// Open while this gateway may connect to the implementation.
    pub(crate) gate: Gate,
}

impl Inner {
    /// Applies `f` to the status, recomputes `online` and `transport` from
    /// what is reachable, notifies watchers when anything changed and
    /// publishes a connection event when the state changed.
    pub(crate) fn update(&self, detail: &str, f: impl FnOnce(&mut AccountStatus)) {
        let mut changed_to = None;
        {
            let mut reach = *self.reach.lock();
            if !self.gate.is_open() {
                reach = Reach::default();
            }
            self.status.send_if_modified(|s| {
                let before = s.clone();
                f(s);
                s.online = reach.events && reach.api;
                s.transport = if reach.api {
                    TransportKind::Http
                } else {
                    TransportKind::None
                };
                if s.state != before.state {
                    changed_to = Some(s.state);
                }
                *s != before
            });
        }
        if let Some(state) = changed_to {
            self.sink
                .connection_changed(&self.id, state, detail, "Milky");
        }
    }

    /// Feeds `step` to the state machine; `detail` becomes the last error
    /// of any state but `Connected`. Ignored while the gate is closed: the
    /// state is then the standby's.
    pub(crate) fn drive(&self, step: Step, detail: &str) {
        if !self.gate.is_open() {
            return;
        }
        self.update(detail, |s| {
            let next = transition(s.state, step);
            s.state = next;
            if next != ConnState::Connected && !detail.is_empty() {
                s.last_error = detail.to_string();
            }
        });
    }

    /// Records whether the event connection is up.
    pub(crate) fn set_events_up(&self, up: bool) {
        self.reach.lock().events = up;
        self.update("", |_| {});
    }

    fn set_api_ok(&self, ok: bool) {
        let changed = {
            let mut reach = self.reach.lock();
            std::mem::replace(&mut reach.api, ok) != ok
        };
        if changed {
            self.update("", |_| {});
        }
    }

    /// Forgets what was reachable and shows the standby state:
    /// `Connecting`, last error [`STANDBY`].
    pub(crate) fn stand_by(&self) {
        *self.reach.lock() = Reach::default();
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

    /// Sleeps `d`; false when shutdown came first.
    pub(crate) async fn sleep(&self, d: Duration) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(d) => true,
            _ = self.cancel.cancelled() => false,
        }
    }

    /// Remembers when the next reconnect attempt is due.
    pub(crate) fn set_retry_in(&self, delay: Duration) {
        *self.retry_at.lock() = Some(Instant::now() + delay);
    }

    /// How long until the next reconnect attempt, at least `backoff_min_ms`.
    fn retry_hint(&self) -> Duration {
        let min = Duration::from_millis(self.cfg.backoff_min_ms);
        self.retry_at
            .lock()
            .map(|at| at.saturating_duration_since(Instant::now()))
            .filter(|d| *d >= min)
            .unwrap_or(min)
    }

    /// Calls `api` with a JSON `request`.
    pub(crate) async fn call_json(
        &self,
        api: &str,
        request: &Value,
        deadline: Deadline,
    ) -> Result<Data> {
        self.call(api, Body::json(request), deadline).await
    }

    /// Calls `api` with `body`; its `data` on success.
    pub(crate) async fn call(&self, api: &str, body: Body, deadline: Deadline) -> Result<Data> {
        if deadline.expired() {
            return Err(Error::new(
                Kind::DeadlineExceeded,
                format!("the deadline passed before {api} was sent"),
            )
            .with("action", api)
            .with("account_id", &self.id));
        }
        if !self.gate.is_open() {
            return Err(Error::new(
                Kind::AccountOffline,
                format!(
                    "account {:?} is offline ({STANDBY}); {api} was not sent",
                    self.id
                ),
            )
            .with("account_id", &self.id)
            .with("action", api)
            .retry_after(self.retry_hint()));
        }
        if self.status.borrow().state == ConnState::AuthFailed {
            let last = self.status.borrow().last_error.clone();
            return Err(Error::new(
                Kind::OnebotAuthFailed,
                format!(
                    "account {:?}: the Milky implementation refused the access token; fix accounts.{}.access_token",
                    self.id, self.id
                ),
            )
            .with("account_id", &self.id)
            .with("action", api)
            .with("last_error", last));
        }
        let limit = Duration::from_millis(self.cfg.request_timeout_ms);
        let timeout = deadline.remaining().map_or(limit, |r| r.min(limit));
        let ctx = Context {
            account: &self.id,
            api,
            timeout,
            retry: self.retry_hint(),
        };
        let started = Instant::now();
        let answer = self.api.call(api, body, timeout).await;
        let elapsed = started.elapsed();
        match answer {
            Ok(envelope) => {
                self.set_api_ok(true);
                m::peer_reply(&self.id, api, Some(envelope.retcode), elapsed);
                errors::answer(ctx, envelope)
            }
            Err(e) => {
                let outcome = match &e {
                    CallError::Timeout => ActionOutcome::Timeout,
                    CallError::Lost(_) => ActionOutcome::Lost,
                    _ => ActionOutcome::Error,
                };
                m::peer_action(&self.id, api, outcome, elapsed);
                if matches!(e, CallError::NotSent(_)) {
                    self.set_api_ok(false);
                } else if matches!(e, CallError::Status(..)) {
                    self.set_api_ok(true);
                }
                Err(errors::call_error(ctx, e))
            }
        }
    }

    /// Names the bot's own messages that came without a sender name (a
    /// friend chat's entity is the friend) with the bot's nickname.
    pub(crate) fn name_own(&self, messages: &mut [onebot_gateway_domain::model::Message]) {
        let (self_id, nickname) = {
            let s = self.status.borrow();
            (s.self_id, s.nickname.clone())
        };
        if self_id == 0 || nickname.is_empty() {
            return;
        }
        for m in messages.iter_mut() {
            if m.sender.user_id == self_id && m.sender.nickname.is_empty() {
                m.sender.nickname.clone_from(&nickname);
            }
        }
    }

    /// Asks the peer who it is (`get_login_info`, `get_impl_info`) and
    /// records the answers in the status.
    pub(crate) async fn identify(&self) -> Result<()> {
        let deadline = Deadline::after(Duration::from_millis(self.cfg.request_timeout_ms));
        let login = self
            .call_json("get_login_info", &serde_json::json!({}), deadline)
            .await?
            .value();
        let implementation = self
            .call_json("get_impl_info", &serde_json::json!({}), deadline)
            .await?
            .value();
        self.update("", |s| {
            if let Some(uin) = int(&login, "uin") {
                s.self_id = uin;
            }
            s.nickname = text(&login, "nickname");
            s.implementation = text(&implementation, "impl_name");
            s.implementation_version = text(&implementation, "impl_version");
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_transition() {
        use ConnState::*;
        for state in ConnState::ALL {
            assert_eq!(transition(state, Step::Identified), Connected);
            assert_eq!(transition(state, Step::Failed), Backoff);
            assert_eq!(transition(state, Step::AuthRejected), AuthFailed);
            let retried = if state == Backoff { Connecting } else { state };
            assert_eq!(transition(state, Step::Retry), retried);
        }
    }
}
