//! [`NotLeaderRetry`]: retries a call that a standby gateway refused with
//! UNAVAILABLE `NOT_LEADER` (under `[ha]` only the account's leader serves
//! it; the refusing gateway did nothing, so a retry is always safe).

use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use prost::Message;
use tonic::body::Body;
use tonic::codegen::{BoxFuture, Context, Poll, Service, StdError, http};
use tonic::transport::Channel;

use crate::error::RpcError;

/// Default total time [`NotLeaderRetry`] keeps retrying a call refused with
/// `NOT_LEADER` (leadership moves within about 10–15 s of a leader dying).
pub const DEFAULT_NOT_LEADER_BUDGET: Duration = Duration::from_secs(30);

/// First wait when the refusal carries no `RetryInfo`; it doubles up to
/// [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// A channel that retries unary and server-streaming calls answered with
/// UNAVAILABLE + `ErrorInfo` reason `NOT_LEADER`, and no other error.
///
/// It waits the refusal's `RetryInfo` delay, or 250 ms doubling to 5 s with
/// jitter when there is none, until the budget (default 30 s,
/// [`crate::ClientBuilder::not_leader_retry`]) or the call's deadline
/// (`grpc-timeout`, the builder's `timeout`) would be passed; then the last
/// `NOT_LEADER` error is the call's result. A budget of zero turns it off.
/// Client-streaming calls (`UploadMedia`) are not retried: their request is
/// not buffered.
#[derive(Clone, Debug)]
pub struct NotLeaderRetry {
    inner: Channel,
    budget: Duration,
    timeout: Option<Duration>,
}

impl NotLeaderRetry {
    /// `channel` retrying `NOT_LEADER` refusals for at most `budget` (zero:
    /// never), and never past `timeout` when set.
    pub fn new(channel: Channel, budget: Duration, timeout: Option<Duration>) -> Self {
        Self {
            inner: channel,
            budget,
            timeout,
        }
    }

    /// The retry budget (zero when retrying is off).
    pub fn budget(&self) -> Duration {
        self.budget
    }
}

impl Service<http::Request<Body>> for NotLeaderRetry {
    type Response = http::Response<Body>;
    type Error = StdError;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        // The ready channel serves the first attempt; a clone takes its place.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        if self.budget.is_zero() || client_streaming(request.uri().path()) {
            return Box::pin(async move { inner.call(request).await.map_err(Into::into) });
        }
        let start = Instant::now();
        let budget = self.budget;
        let mut deadline = self.timeout;
        if let Some(timeout) = request
            .headers()
            .get("grpc-timeout")
            .and_then(|v| v.to_str().ok())
            .and_then(parse_grpc_timeout)
        {
            deadline = Some(deadline.map_or(timeout, |d| d.min(timeout)));
        }
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let body = body.collect().await?.to_bytes();
            let mut attempt = 0u32;
            loop {
                let began = Instant::now();
                let response = inner.call(rebuild(&parts, &body)).await?;
                let Some(delay) = not_leader_delay(response.headers()) else {
                    return Ok(response);
                };
                attempt += 1;
                let wait = delay.unwrap_or_else(|| backoff(attempt));
                // An attempt cut by the deadline would end in DEADLINE_EXCEEDED:
                // none is started that would not finish in time, by the last
                // one's duration.
                let elapsed = start.elapsed();
                if elapsed + wait >= budget
                    || deadline.is_some_and(|d| elapsed + wait + began.elapsed() >= d)
                {
                    return Ok(response);
                }
                tokio::time::sleep(wait).await;
                std::future::poll_fn(|cx| inner.poll_ready(cx)).await?;
            }
        })
    }
}

/// A copy of the request `parts` with the buffered `body`.
fn rebuild(parts: &http::request::Parts, body: &Bytes) -> http::Request<Body> {
    let mut request = http::Request::new(Body::new(Full::new(body.clone())));
    *request.method_mut() = parts.method.clone();
    *request.uri_mut() = parts.uri.clone();
    *request.version_mut() = parts.version;
    *request.headers_mut() = parts.headers.clone();
    *request.extensions_mut() = parts.extensions.clone();
    request
}

/// For a trailers-only response refusing with `NOT_LEADER`: `Some` of its
/// `RetryInfo` delay (`None` inside when it has none). `None` for anything
/// else.
fn not_leader_delay(headers: &http::HeaderMap) -> Option<Option<Duration>> {
    let status = tonic::Status::from_header_map(headers)?;
    let rpc = RpcError::from_status(&status);
    rpc.is_not_leader().then_some(rpc.retry_delay)
}

/// The wait before retry `attempt` (from 1) without `RetryInfo`: 250 ms
/// doubling to 5 s, with up to half of it taken off at random.
pub(crate) fn backoff(attempt: u32) -> Duration {
    let base = FIRST_BACKOFF
        .saturating_mul(1 << attempt.saturating_sub(1).min(6))
        .min(MAX_BACKOFF);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    base - base.mul_f64(f64::from(nanos % 1000) / 2000.0)
}

/// `grpc-timeout` (`<digits><unit>`) as a duration.
fn parse_grpc_timeout(value: &str) -> Option<Duration> {
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// True for the paths (`/package.Service/Method`) of the API's
/// client-streaming methods, per the generated descriptor.
fn client_streaming(path: &str) -> bool {
    static PATHS: OnceLock<HashSet<String>> = OnceLock::new();
    PATHS
        .get_or_init(|| {
            let set = prost_types::FileDescriptorSet::decode(crate::pb::FILE_DESCRIPTOR_SET)
                .unwrap_or_default();
            let mut paths = HashSet::new();
            for file in &set.file {
                for service in &file.service {
                    for method in &service.method {
                        if method.client_streaming() {
                            paths.insert(format!(
                                "/{}.{}/{}",
                                file.package(),
                                service.name(),
                                method.name()
                            ));
                        }
                    }
                }
            }
            paths
        })
        .contains(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backs_off_from_250_ms_to_five_seconds() {
        assert!(backoff(1) <= Duration::from_millis(250));
        assert!(backoff(1) >= Duration::from_millis(125));
        assert!(backoff(3) >= Duration::from_millis(500));
        assert!(backoff(40) <= Duration::from_secs(5));
        assert!(backoff(40) >= Duration::from_millis(2500));
    }

    #[test]
    fn parses_grpc_timeouts() {
        assert_eq!(parse_grpc_timeout("150m"), Some(Duration::from_millis(150)));
        assert_eq!(parse_grpc_timeout("2S"), Some(Duration::from_secs(2)));
        assert_eq!(parse_grpc_timeout("x"), None);
        assert_eq!(parse_grpc_timeout(""), None);
    }

    #[test]
    fn only_uploads_are_client_streaming() {
        assert!(client_streaming(
            "/onebot.gateway.v1.MediaService/UploadMedia"
        ));
        assert!(!client_streaming(
            "/onebot.gateway.v1.MessageService/GetHistory"
        ));
        assert!(!client_streaming(
            "/onebot.gateway.v1.EventService/StreamEvents"
        ));
    }
}
