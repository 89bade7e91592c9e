//! Routing a call: the WebSocket link whenever it is up, HTTP while it is
//! down, and waiting a bounded time for either while the account connects.
//!
//! Each call gets a fresh echo; its timeout is the shorter of
//! `request_timeout_ms` and the caller's deadline, and a call whose deadline
//! has passed sends nothing. While connecting or in backoff a call waits up
//! to `connect_wait_ms` (never past its deadline) for a transport, then fails
//! `AccountOffline` with a retry hint; in `AuthFailed` it fails at once with
//! `OnebotAuthFailed`; while the account's gate is closed (another gateway
//! leads it) it fails `AccountOffline` at once. A drop fails every pending call at once with
//! `OnebotConnectionLost` (or `SendOutcomeUnknown` for sends).

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::inner::Inner;
use crate::flavor::Flavor;
use crate::frame::{Data, Frame, FrameText, Reply};
use crate::ids;
use crate::outgoing::LazyBase64;
use crate::retcode::{self, Via};
use crate::transport::body::ParamsJson;
use crate::transport::http::{HttpError, HttpTransport};
use crate::transport::ws::{Link, LinkError};
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::ConnState;
use onebot_gateway_telemetry::metrics::{self as m, ActionOutcome};

/// A transport one call goes through.
pub(crate) enum Route {
    /// The WebSocket link.
    Ws(Arc<Link>),
    /// HTTP.
    Http(Arc<HttpTransport>),
}

/// What one exchange on a route came back with.
pub(crate) enum Answer {
    /// Over the WebSocket link.
    Ws(std::result::Result<Reply, LinkError>),
    /// Over HTTP, with the HTTP status.
    Http(std::result::Result<(u16, Frame), HttpError>),
}

impl Inner {
    /// The transport a call would take right now, if any.
    pub(crate) fn pick(&self) -> Option<Route> {
        let routes = self.routes.lock();
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
    pub(crate) async fn route(&self, action: &str, deadline: Deadline) -> Result<Route> {
        let mut rx = self.status.subscribe();
        let wait = deadline
            .remaining()
            .map_or(self.cfg.connect_wait(), |r| r.min(self.cfg.connect_wait()));
        let until = Instant::now() + wait;
        loop {
            let state = rx.borrow_and_update().state;
            if !self.gate.is_open() {
                return Err(self.offline_error(action));
            }
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

    /// Sends `action` once on `route`, waiting until `deadline`.
    pub(crate) async fn send_on(
        &self,
        route: &Route,
        action: &str,
        params: &ParamsJson,
        deadline: Instant,
    ) -> Answer {
        match route {
            Route::Ws(link) => Answer::Ws(
                link.call_json(self.next_echo(), action, params, deadline)
                    .await,
            ),
            Route::Http(http) => {
                let left = deadline.saturating_duration_since(Instant::now());
                Answer::Http(http.call_json(action, params, left).await)
            }
        }
    }

    /// The outcome of an exchange: the peer's answer classified for
    /// `flavor`, or the transport's failure (`timeout` names the wait).
    pub(crate) fn settle(
        &self,
        action: &str,
        answer: Answer,
        timeout: Duration,
        flavor: Flavor,
    ) -> Result<Data> {
        self.settle_with(action, answer, timeout, flavor, &AsData).1
    }

    /// [`settle`](Self::settle), `data` read by `read`; also the retcode
    /// the peer answered with (`Some(None)`: a reply without one), `None`
    /// when no reply came.
    fn settle_with<R: ReadData>(
        &self,
        action: &str,
        answer: Answer,
        timeout: Duration,
        flavor: Flavor,
        read: &R,
    ) -> (Option<Option<i64>>, Result<R::Out>) {
        let (via, frame) = match answer {
            Answer::Ws(Ok(Reply::Text(text))) => {
                // A success is read in one pass; anything else is decoded
                // whole and classified as every answer is.
                if let Some((head, out)) = read.frame(&text).filter(|(h, _)| retcode::is_ok(h)) {
                    return (Some(retcode::retcode_of(&head)), Ok(out));
                }
                match text.parse() {
                    Ok(frame) => (Via::Ws, frame),
                    Err(e) => return (Some(None), Err(retcode::unreadable_reply(action, &e))),
                }
            }
            Answer::Ws(Ok(Reply::Frame(frame))) => (Via::Ws, frame),
            Answer::Ws(Err(e)) => return (None, Err(self.link_error(action, e, timeout))),
            Answer::Http(Ok((status, frame))) => (Via::Http(status), frame),
            Answer::Http(Err(e)) => return (None, Err(self.http_error(action, e, timeout))),
        };
        let retcode = retcode::retcode_of(frame.head());
        let result = retcode::classify_frame(flavor, via, action, frame).map(|d| read.data(d));
        (Some(retcode), result)
    }

    /// Calls `action` and returns its `data` decoded.
    pub(crate) async fn call_action(
        &self,
        action: &str,
        params: Value,
        deadline: Deadline,
    ) -> Result<Value> {
        self.call_action_with(action, params, &[], deadline).await
    }

    /// [`call_action`](Self::call_action) with parameters that hold
    /// placeholders of `media` (encoded as the frame is written).
    pub(crate) async fn call_action_with(
        &self,
        action: &str,
        params: Value,
        media: &[LazyBase64],
        deadline: Deadline,
    ) -> Result<Value> {
        self.call_data_with(action, params, media, deadline, &AsData)
            .await
            .map(Data::into_value)
    }

    /// [`call_action`](Self::call_action) with the answer's `data` left as
    /// the text it came in, for callers that decode it themselves.
    pub(crate) async fn call_data(
        &self,
        action: &str,
        params: Value,
        caller: Deadline,
    ) -> Result<Data> {
        self.call_data_with(action, params, &[], caller, &AsData)
            .await
    }

    /// [`call_action`](Self::call_action) with the answer's `data` read by
    /// `read` (in the same pass as the reply itself when the connection
    /// hands the reply over undecoded).
    pub(crate) async fn call_reading<R: ReadData>(
        &self,
        action: &str,
        params: Value,
        caller: Deadline,
        read: &R,
    ) -> Result<R::Out> {
        self.call_data_with(action, params, &[], caller, read).await
    }

    async fn call_data_with<R: ReadData>(
        &self,
        action: &str,
        mut params: Value,
        media: &[LazyBase64],
        caller: Deadline,
        read: &R,
    ) -> Result<R::Out> {
        // Mapped message ids go back as the peer wrote them.
        ids::outbound(&mut params);
        if caller.expired() {
            return Err(Error::new(
                Kind::DeadlineExceeded,
                format!("the deadline passed before {action} was sent"),
            )
            .with("action", action)
            .with("account_id", &self.id));
        }
        let limit = self.cfg.request_timeout();
        let timeout = caller.remaining().map_or(limit, |r| r.min(limit));
        let deadline = Instant::now() + timeout;
        // Serialized once, taking the parameters' large media strings as
        // they are: they are not copied again on the way to the socket.
        let params = ParamsJson::with_media(params, media);
        let mut retried = false;
        let _pending = m::PendingCall::start(&self.id);
        loop {
            let route = self.route(action, caller).await?;
            let flavor = self.flavor();
            let sent_at = Instant::now();
            let answer = self.send_on(&route, action, &params, deadline).await;
            let elapsed = sent_at.elapsed();
            match (&route, &answer) {
                // The link died between picking it and sending: nothing
                // left, so one more routing is safe.
                (Route::Ws(link), Answer::Ws(Err(LinkError::NotSent))) if !retried => {
                    retried = true;
                    self.clear_link(link);
                    continue;
                }
                (_, Answer::Ws(Ok(_)) | Answer::Http(Ok(_))) => {}
                (_, Answer::Ws(Err(e))) => {
                    let outcome = match e {
                        LinkError::Timeout { .. } => ActionOutcome::Timeout,
                        LinkError::Lost => ActionOutcome::Lost,
                        LinkError::NotSent | LinkError::Full => ActionOutcome::Error,
                    };
                    m::peer_action(&self.id, action, outcome, elapsed);
                }
                (_, Answer::Http(Err(e))) => {
                    let outcome = match e {
                        HttpError::Timeout => ActionOutcome::Timeout,
                        HttpError::Lost(_) => ActionOutcome::Lost,
                        _ => ActionOutcome::Error,
                    };
                    m::peer_action(&self.id, action, outcome, elapsed);
                    if matches!(e, HttpError::NotSent(_) | HttpError::Lost(_)) {
                        self.set_http_ok(false);
                        self.http_check.notify_one();
                    }
                }
            }
            let (replied, result) = self.settle_with(action, answer, timeout, flavor, read);
            if let Some(retcode) = replied {
                m::peer_reply(&self.id, action, retcode, elapsed);
            }
            return result;
        }
    }
}

/// What a caller makes of an answer's `data`.
pub(crate) trait ReadData {
    /// What it makes of it.
    type Out;

    /// From `data` as text, once the answer is known to be a success.
    fn data(&self, data: Data) -> Self::Out;

    /// The answer's top-level fields and what its `data` makes, read in
    /// one pass over a reply handed over undecoded. `None` when the text
    /// does not read that way: it is then decoded whole and classified as
    /// any answer is, and a success goes to [`data`](Self::data).
    fn frame(&self, text: &FrameText) -> Option<(Value, Self::Out)>;
}

/// `data` kept as the text it came in.
pub(crate) struct AsData;

impl ReadData for AsData {
    type Out = Data;

    fn data(&self, data: Data) -> Data {
        data
    }

    fn frame(&self, _: &FrameText) -> Option<(Value, Data)> {
        None
    }
}
