//! The call context of a request: its caller (put into the request's
//! extensions by the auth layer), its deadline (`grpc-timeout`) and the
//! account it was routed for (`x-onebot-account`).
//!
//! Every handler builds its context with [`ctx`], so the domain checks the
//! right caller, the adapter waits no longer than the caller does, and
//! every RPC resolves its account the same way: the body's `account_id`,
//! else the metadata's, else `default`, and a body naming another account
//! than the metadata is refused (`CallCtx::account_id`).

use std::time::Duration;

use onebot_gateway_client::ACCOUNT_METADATA_KEY;
use tonic::Request;

use onebot_gateway_domain::call::{CallCtx, Deadline};

/// The call context of a request: its caller (anonymous when the auth
/// layer did not run) and a deadline just short of `grpc-timeout` from now
/// when the header is present and valid (see [`inner_timeout`]), none
/// otherwise (as tonic, an invalid header is ignored).
pub fn ctx<T>(request: &Request<T>) -> CallCtx {
    let timeout = request
        .metadata()
        .get("grpc-timeout")
        .and_then(|v| v.to_str().ok())
        .and_then(parse_grpc_timeout);
    let deadline = match timeout {
        Some(timeout) => Deadline::after(inner_timeout(timeout)),
        None => Deadline::NONE,
    };
    CallCtx::new(super::auth::caller(request), deadline).routed_for(routed_account(request))
}

/// The account named by the `x-onebot-account` metadata, if any (bytes that
/// are not UTF-8 are replaced, so such a name matches no account and the
/// request fails naming what it got).
pub fn routed_account<T>(request: &Request<T>) -> Option<String> {
    let value = request.metadata().get(ACCOUNT_METADATA_KEY)?;
    Some(String::from_utf8_lossy(value.as_bytes()).trim().to_owned()).filter(|a| !a.is_empty())
}

/// The domain's share of the caller's timeout: 1/20 less, at least 1 ms and
/// at most 50 ms less (room for a busy machine's scheduling delays). tonic's
/// server enforces `grpc-timeout` too, and when its timer fires first the
/// caller gets a bare `CANCELLED` ("Timeout expired") with no `ErrorInfo`;
/// ending our own wait a moment earlier lets the typed error
/// (`DEADLINE_EXCEEDED`, `ONEBOT_TIMEOUT`) reach the caller.
pub fn inner_timeout(timeout: Duration) -> Duration {
    let margin = (timeout / 20).clamp(Duration::from_millis(1), Duration::from_millis(50));
    timeout.saturating_sub(margin)
}

/// Parses a `grpc-timeout` value: 1 to 8 ASCII digits and a unit `H`, `M`,
/// `S`, `m` (milliseconds), `u` (microseconds) or `n` (nanoseconds)
/// (gRPC over HTTP/2, `Timeout`).
pub fn parse_grpc_timeout(value: &str) -> Option<Duration> {
    let unit = value.chars().last()?;
    let digits = &value[..value.len() - unit.len_utf8()];
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        'H' => Duration::from_secs(n * 3600),
        'M' => Duration::from_secs(n * 60),
        'S' => Duration::from_secs(n),
        'm' => Duration::from_millis(n),
        'u' => Duration::from_micros(n),
        'n' => Duration::from_nanos(n),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_unit() {
        assert_eq!(parse_grpc_timeout("2H"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_grpc_timeout("3M"), Some(Duration::from_secs(180)));
        assert_eq!(parse_grpc_timeout("10S"), Some(Duration::from_secs(10)));
        assert_eq!(parse_grpc_timeout("250m"), Some(Duration::from_millis(250)));
        assert_eq!(
            parse_grpc_timeout("99999999u"),
            Some(Duration::from_micros(99_999_999))
        );
        assert_eq!(parse_grpc_timeout("0n"), Some(Duration::ZERO));
    }

    #[test]
    fn rejects_malformed_values() {
        for v in [
            "",
            "S",
            "123456789S",
            "10s",
            "10",
            "-1S",
            "1.5S",
            "１S",
            "10é",
            "+1S",
        ] {
            assert_eq!(parse_grpc_timeout(v), None, "{v:?}");
        }
    }

    #[test]
    fn the_domain_deadline_ends_a_little_before_the_callers() {
        assert_eq!(inner_timeout(Duration::ZERO), Duration::ZERO);
        assert_eq!(
            inner_timeout(Duration::from_millis(10)),
            Duration::from_millis(9)
        );
        assert_eq!(
            inner_timeout(Duration::from_millis(300)),
            Duration::from_millis(285)
        );
        assert_eq!(
            inner_timeout(Duration::from_secs(60)),
            Duration::from_millis(59_950)
        );
    }

    #[test]
    fn the_account_metadata_routes_the_request() {
        let mut req = Request::new(());
        assert_eq!(ctx(&req).routed_account, None);
        assert_eq!(ctx(&req).account_id("").unwrap(), "default");
        req.metadata_mut()
            .insert(ACCOUNT_METADATA_KEY, "shard-b".parse().unwrap());
        let c = ctx(&req);
        assert_eq!(c.account_id("").unwrap(), "shard-b");
        assert_eq!(c.account_id("shard-b").unwrap(), "shard-b");
        let err = c.account_id("shard-a").unwrap_err();
        assert_eq!(err.kind, onebot_gateway_domain::error::Kind::InvalidRequest);
        assert!(err.message.contains("\"shard-a\""), "{}", err.message);
        assert!(err.message.contains("x-onebot-account"), "{}", err.message);
        // An empty value routes nothing.
        req.metadata_mut()
            .insert(ACCOUNT_METADATA_KEY, "".parse().unwrap());
        assert_eq!(ctx(&req).account_id("a").unwrap(), "a");
    }

    #[tokio::test(start_paused = true)]
    async fn request_header_sets_the_deadline() {
        let mut req = Request::new(());
        assert_eq!(ctx(&req).deadline, Deadline::NONE);
        req.metadata_mut()
            .insert("grpc-timeout", "1500m".parse().unwrap());
        let c = ctx(&req);
        assert_eq!(c.deadline.remaining(), Some(Duration::from_millis(1450)));
        tokio::time::advance(Duration::from_millis(1450)).await;
        assert!(c.expired());
        req.metadata_mut()
            .insert("grpc-timeout", "soon".parse().unwrap());
        assert_eq!(ctx(&req).deadline, Deadline::NONE);
    }
}
