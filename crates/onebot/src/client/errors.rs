//! The errors an account's calls fail with when the peer did not answer:
//! offline, refused token, timeouts, lost connections, HTTP failures. The
//! peer's own answers are classified by the retcode table instead.
//!
//! For message-sending actions ([`retcode::is_send_action`]) an answer lost
//! after the frame left (connection lost, timeout) means the message may
//! have been delivered: those fail with `SendOutcomeUnknown` (metadata
//! `cause` = `connection_lost` or `timeout`). Failures before any byte left
//! keep their kinds (`AccountOffline`, `Overloaded`, `DeadlineExceeded`).

use std::time::Duration;

use super::inner::Inner;
use crate::retcode;
use crate::transport::http::HttpError;
use crate::transport::ws::LinkError;
use onebot_gateway_domain::error::{Error, Kind};

impl Inner {
    /// The peer refused the token (`AuthFailed`): calls fail at once.
    pub(crate) fn auth_failed_error(&self, action: &str) -> Error {
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

    /// No transport can carry `action` (with the time to the next attempt).
    pub(crate) fn offline_error(&self, action: &str) -> Error {
        let status = self.status.borrow().clone();
        let why = if self.gate.is_open() {
            status.state.name()
        } else {
            super::inner::STANDBY
        };
        Error::new(
            Kind::AccountOffline,
            format!(
                "account {:?} is offline ({why}); no transport can carry {action}",
                self.id,
            ),
        )
        .with("account_id", &self.id)
        .with("action", action)
        .with("state", status.state.name())
        .with("last_error", status.last_error)
        .retry_after(self.retry_hint())
    }

    /// A WebSocket call of `action` failed with `e` (its timeout was
    /// `timeout`).
    pub(crate) fn link_error(&self, action: &str, e: LinkError, timeout: Duration) -> Error {
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
            LinkError::Timeout { sent } => self.timeout_error(action, timeout, sent),
            LinkError::Lost => self.lost_error(action),
        }
    }

    /// An HTTP call of `action` failed with `e` (its timeout was `timeout`).
    pub(crate) fn http_error(&self, action: &str, e: HttpError, timeout: Duration) -> Error {
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
}
