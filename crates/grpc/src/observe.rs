//! The outermost tower layer: a request id, one `rpc` span per call, an
//! access log line (`rpc finished`: debug for OK, info for failures, warn
//! for INTERNAL/UNKNOWN/DATA_LOSS) and the per-RPC metrics (started,
//! handled by code, latency until the response ends, in flight).
//!
//! The request id is the client's `x-request-id` when it is a short
//! printable string, else a fresh random one; it is set on the request (for
//! handlers) and echoed on the response.

use std::convert::Infallible;
use std::task::{Context, Poll};
use std::time::Instant;

use http::{HeaderValue, Request, Response};
use tonic::body::Body;
use tower::{Layer, Service};
use tracing::Instrument;

use crate::body::{End, ObservedBody, grpc_status};
use crate::rpc::{self, HttpService, ResponseFuture};
use onebot_gateway_telemetry::metrics as m;

/// Header carrying the request id.
pub const REQUEST_ID: &str = "x-request-id";

/// The request id of a request, as set by [`ObserveLayer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestId(pub String);

/// Adds [`ObserveService`].
#[derive(Debug, Clone, Default)]
pub struct ObserveLayer;

impl<S> Layer<S> for ObserveLayer {
    type Service = ObserveService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        ObserveService { inner }
    }
}

/// See the module docs.
#[derive(Debug, Clone)]
pub struct ObserveService<S> {
    inner: S,
}

/// The id to use: the client's when acceptable, else a random one.
fn request_id(req: &Request<Body>) -> String {
    let valid = |v: &&HeaderValue| {
        let b = v.as_bytes();
        !b.is_empty() && b.len() <= 128 && b.iter().all(|c| c.is_ascii_graphic())
    };
    match req.headers().get(REQUEST_ID).filter(valid) {
        Some(v) => String::from_utf8_lossy(v.as_bytes()).into_owned(),
        None => hex::encode(rand::random::<[u8; 12]>()),
    }
}

/// Records the outcome of one call, once.
struct Completion {
    service: &'static str,
    method: &'static str,
    start: Instant,
    span: tracing::Span,
    done: bool,
}

impl Completion {
    fn finish(&mut self, end: End) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let code = match end {
            End::Status(code) => code,
            End::NoStatus => tonic::Code::Unknown,
            End::Dropped => tonic::Code::Cancelled,
        };
        let elapsed = self.start.elapsed();
        let code_name = code_name(code);
        metrics::counter!(
            m::RPC_HANDLED,
            "grpc_service" => self.service,
            "grpc_method" => self.method,
            "grpc_code" => code_name
        )
        .increment(1);
        metrics::histogram!(
            m::RPC_SECONDS,
            "grpc_service" => self.service,
            "grpc_method" => self.method
        )
        .record(elapsed.as_secs_f64());
        metrics::gauge!(m::IN_FLIGHT).decrement(1.0);
        self.span.record("code", code_name);
        let elapsed_ms = elapsed.as_secs_f64() * 1000.0;
        // Successful calls log at debug (thousands a second are normal),
        // failures at info, the gateway's own faults at warn.
        self.span.in_scope(|| match code {
            tonic::Code::Ok => {
                tracing::debug!(target: "onebot_gateway::access", code = code_name, elapsed_ms, "rpc finished")
            }
            tonic::Code::Internal | tonic::Code::Unknown | tonic::Code::DataLoss => {
                tracing::warn!(target: "onebot_gateway::access", code = code_name, elapsed_ms, "rpc finished")
            }
            _ => {
                tracing::info!(target: "onebot_gateway::access", code = code_name, elapsed_ms, "rpc finished")
            }
        });
    }
}

impl Drop for Completion {
    fn drop(&mut self) {
        self.finish(End::Dropped);
    }
}

/// The canonical upper-snake name of a code (metric label).
pub fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code as C;
    match code {
        C::Ok => "OK",
        C::Cancelled => "CANCELLED",
        C::Unknown => "UNKNOWN",
        C::InvalidArgument => "INVALID_ARGUMENT",
        C::DeadlineExceeded => "DEADLINE_EXCEEDED",
        C::NotFound => "NOT_FOUND",
        C::AlreadyExists => "ALREADY_EXISTS",
        C::PermissionDenied => "PERMISSION_DENIED",
        C::ResourceExhausted => "RESOURCE_EXHAUSTED",
        C::FailedPrecondition => "FAILED_PRECONDITION",
        C::Aborted => "ABORTED",
        C::OutOfRange => "OUT_OF_RANGE",
        C::Unimplemented => "UNIMPLEMENTED",
        C::Internal => "INTERNAL",
        C::Unavailable => "UNAVAILABLE",
        C::DataLoss => "DATA_LOSS",
        C::Unauthenticated => "UNAUTHENTICATED",
    }
}

impl<S> Service<Request<Body>> for ObserveService<S>
where
    S: HttpService,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<Body>) -> Self::Future {
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let (service, method) = rpc::labels(req.uri().path());
        let id = request_id(&req);
        let header = HeaderValue::from_str(&id).ok();
        if let Some(h) = &header {
            req.headers_mut().insert(REQUEST_ID, h.clone());
        }
        req.extensions_mut().insert(RequestId(id.clone()));
        let span = tracing::info_span!(
            "rpc",
            service,
            method,
            request_id = %id,
            token = tracing::field::Empty,
            account = tracing::field::Empty,
            chat = tracing::field::Empty,
            code = tracing::field::Empty,
        );
        metrics::counter!(m::RPC_STARTED, "grpc_service" => service, "grpc_method" => method)
            .increment(1);
        metrics::gauge!(m::IN_FLIGHT).increment(1.0);
        let mut completion = Completion {
            service,
            method,
            start: Instant::now(),
            span: span.clone(),
            done: false,
        };
        let fut = {
            let _entered = span.enter();
            inner.call(req)
        };
        Box::pin(
            async move {
                let Ok(response) = fut.await;
                let (mut parts, body) = response.into_parts();
                if let Some(h) = header {
                    parts.headers.insert(REQUEST_ID, h);
                }
                let body = match grpc_status(&parts.headers) {
                    // Trailers-only response: the call is over.
                    Some(code) => {
                        completion.finish(End::Status(code));
                        body
                    }
                    None => Body::new(ObservedBody::new(body, move |end| completion.finish(end))),
                };
                Ok(Response::from_parts(parts, body))
            }
            .instrument(span),
        )
    }
}
