//! The one table from Milky answers and failed exchanges to domain errors.
//!
//! - HTTP 401 → `OnebotAuthFailed` (no retry hint: a wrong token stays
//!   wrong), 404 → `OnebotActionUnsupported`, 415 and any other status →
//!   `OnebotProtocolError` naming it.
//! - retcode -403 (not logged in) → `AccountOffline` with a retry hint,
//!   -400 → `OnebotBadRequest` with the peer's message, any other failure
//!   → `OnebotActionFailed` with the message and `retcode` in metadata; a
//!   status other than ok/failed → `OnebotActionUnknown`.
//! - Connection refused → `AccountOffline`; no answer in time →
//!   `OnebotTimeout`; a broken exchange → `OnebotConnectionLost`. For sends
//!   ([`is_send`]) the last two mean the message may have been delivered:
//!   `SendOutcomeUnknown` (metadata `cause` = `timeout` | `connection_lost`).

use std::time::Duration;

use crate::api::{CallError, Data, Envelope};
use onebot_gateway_domain::error::{Error, Kind, Result};

/// What an error names besides its cause.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// The account.
    pub account: &'a str,
    /// The API called.
    pub api: &'a str,
    /// The call's timeout.
    pub timeout: Duration,
    /// When to retry an offline account.
    pub retry: Duration,
}

impl Context<'_> {
    fn error(&self, kind: Kind, message: String) -> Error {
        Error::new(kind, message)
            .with("account_id", self.account)
            .with("action", self.api)
    }
}

/// Whether `api` delivers a message or a file (its outcome is unknown when
/// the answer is lost).
pub fn is_send(api: &str) -> bool {
    matches!(
        api,
        "send_group_message" | "send_private_message" | "upload_group_file" | "upload_private_file"
    )
}

/// The error of an exchange that yielded no envelope.
pub fn call_error(ctx: Context<'_>, e: CallError) -> Error {
    let api = ctx.api;
    match e {
        CallError::NotSent(detail) => ctx
            .error(
                Kind::AccountOffline,
                format!(
                    "account {:?}: the Milky implementation cannot be reached; {api} was not sent",
                    ctx.account
                ),
            )
            .with("http_error", detail)
            .retry_after(ctx.retry),
        CallError::Timeout => {
            let ms = ctx.timeout.as_millis();
            if is_send(api) {
                ctx.error(
                    Kind::SendOutcomeUnknown,
                    format!("{api}: no answer within {ms} ms; the message may have been delivered, do not retry blindly"),
                )
                .with("cause", "timeout")
                .with("timeout_ms", ms)
            } else {
                ctx.error(
                    Kind::OnebotTimeout,
                    format!("{api}: no answer from the Milky implementation within {ms} ms"),
                )
                .with("timeout_ms", ms)
            }
        }
        CallError::Lost(detail) => {
            if is_send(api) {
                ctx.error(
                    Kind::SendOutcomeUnknown,
                    format!("{api}: the connection dropped before the answer; the message may have been delivered, do not retry blindly"),
                )
                .with("cause", "connection_lost")
                .with("http_error", detail)
            } else {
                ctx.error(
                    Kind::OnebotConnectionLost,
                    format!("{api}: the connection to the Milky implementation dropped before the answer"),
                )
                .with("http_error", detail)
                .retry_after(ctx.retry)
            }
        }
        CallError::Status(401, body) => ctx
            .error(
                Kind::OnebotAuthFailed,
                format!(
                    "{api}: the Milky implementation refused the access token (HTTP 401); fix accounts.{}.access_token",
                    ctx.account
                ),
            )
            .with("http_status", 401)
            .with("peer_message", body),
        CallError::Status(404, body) => ctx
            .error(
                Kind::OnebotActionUnsupported,
                format!("{api}: the Milky implementation does not know this API (HTTP 404)"),
            )
            .with("http_status", 404)
            .with("peer_message", body),
        CallError::Status(415, body) => ctx
            .error(
                Kind::OnebotProtocolError,
                format!("{api}: the Milky implementation refused the request's Content-Type (HTTP 415)"),
            )
            .with("http_status", 415)
            .with("peer_message", body),
        CallError::Status(status, body) => ctx
            .error(
                Kind::OnebotProtocolError,
                format!("{api}: the Milky implementation answered HTTP {status}: {body}"),
            )
            .with("http_status", status)
            .with("peer_message", body),
        CallError::TooLarge(limit) => ctx
            .error(
                Kind::OnebotProtocolError,
                format!("{api}: the Milky implementation's answer is larger than {limit} bytes"),
            )
            .with("limit_bytes", limit),
        CallError::Undecodable(detail) => ctx
            .error(
                Kind::OnebotProtocolError,
                format!("{api}: the Milky implementation's answer is not a Milky envelope"),
            )
            .with("detail", detail),
    }
}

/// The output of an answer, or its failure.
pub fn answer(ctx: Context<'_>, env: Envelope) -> Result<Data> {
    let api = ctx.api;
    match (env.status.as_str(), env.retcode) {
        ("ok", 0) => Ok(env.data),
        ("ok" | "failed", -403) => Err(ctx
            .error(
                Kind::AccountOffline,
                format!(
                    "account {:?}: the Milky implementation is not logged in; {api} failed",
                    ctx.account
                ),
            )
            .with("retcode", -403)
            .with("peer_message", env.message)
            .retry_after(ctx.retry)),
        ("ok" | "failed", -400) => Err(ctx
            .error(
                Kind::OnebotBadRequest,
                format!(
                    "{api}: the Milky implementation refused the parameters: {}",
                    env.message
                ),
            )
            .with("retcode", -400)
            .with("peer_message", env.message)),
        ("failed", code) | ("ok", code) => Err(ctx
            .error(
                Kind::OnebotActionFailed,
                format!("{api} failed (retcode {code}): {}", env.message),
            )
            .with("retcode", code)
            .with("peer_message", env.message)),
        (other, code) => Err(ctx
            .error(
                Kind::OnebotActionUnknown,
                format!("{api}: the Milky implementation answered status {other:?}"),
            )
            .with("status", other)
            .with("retcode", code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::envelope;

    fn ctx(api: &str) -> Context<'_> {
        Context {
            account: "m",
            api,
            timeout: Duration::from_millis(1500),
            retry: Duration::from_millis(500),
        }
    }

    fn kind(api: &str, body: &str) -> Error {
        answer(ctx(api), envelope(body.as_bytes()).unwrap()).unwrap_err()
    }

    #[test]
    fn retcodes_map_to_kinds() {
        let data = answer(
            ctx("get_login_info"),
            envelope(br#"{"status":"ok","retcode":0,"data":{"uin":10001,"nickname":"x"}}"#)
                .unwrap(),
        )
        .unwrap();
        assert_eq!(data.value()["uin"], 10001);
        let offline = kind(
            "get_group_list",
            r#"{"status":"failed","retcode":-403,"message":"not logged in"}"#,
        );
        assert_eq!(offline.kind, Kind::AccountOffline);
        assert_eq!(offline.retry_after, Some(Duration::from_millis(500)));
        let bad = kind(
            "get_message",
            r#"{"status":"failed","retcode":-400,"message":"bad seq"}"#,
        );
        assert_eq!(bad.kind, Kind::OnebotBadRequest);
        assert_eq!(bad.meta("peer_message"), Some("bad seq"));
        let failed = kind(
            "send_group_message",
            r#"{"status":"failed","retcode":-500,"message":"boom"}"#,
        );
        assert_eq!(failed.kind, Kind::OnebotActionFailed);
        assert_eq!(failed.meta("retcode"), Some("-500"));
        assert!(failed.message.contains("boom"));
        let odd = kind("x", r#"{"status":"async","retcode":1}"#);
        assert_eq!(odd.kind, Kind::OnebotActionUnknown);
    }

    #[test]
    fn http_failures_map_to_kinds() {
        let k = |api, e| call_error(ctx(api), e).kind;
        assert_eq!(
            k("get_group_list", CallError::Status(401, String::new())),
            Kind::OnebotAuthFailed
        );
        assert_eq!(
            call_error(ctx("x"), CallError::Status(401, String::new())).retry_after,
            None
        );
        assert_eq!(
            k("get_x", CallError::Status(404, String::new())),
            Kind::OnebotActionUnsupported
        );
        assert_eq!(
            k("get_x", CallError::Status(415, String::new())),
            Kind::OnebotProtocolError
        );
        assert_eq!(
            k("get_x", CallError::Status(500, "e".into())),
            Kind::OnebotProtocolError
        );
        assert_eq!(
            k("get_x", CallError::NotSent("refused".into())),
            Kind::AccountOffline
        );
        assert_eq!(k("get_x", CallError::Timeout), Kind::OnebotTimeout);
        assert_eq!(
            k("get_x", CallError::Lost("reset".into())),
            Kind::OnebotConnectionLost
        );
        assert_eq!(
            k("get_x", CallError::TooLarge(10)),
            Kind::OnebotProtocolError
        );
        for api in [
            "send_group_message",
            "send_private_message",
            "upload_group_file",
            "upload_private_file",
        ] {
            let e = call_error(ctx(api), CallError::Timeout);
            assert_eq!(
                (e.kind, e.meta("cause")),
                (Kind::SendOutcomeUnknown, Some("timeout"))
            );
            let e = call_error(ctx(api), CallError::Lost("reset".into()));
            assert_eq!(
                (e.kind, e.meta("cause")),
                (Kind::SendOutcomeUnknown, Some("connection_lost"))
            );
            // Nothing was sent: safe to queue.
            assert_eq!(
                call_error(ctx(api), CallError::NotSent("refused".into())).kind,
                Kind::AccountOffline
            );
        }
    }
}
