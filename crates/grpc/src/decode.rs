//! Malformed protobuf from a client is the client's fault: INVALID_ARGUMENT
//! with `ErrorInfo.reason` INVALID_REQUEST, never INTERNAL. The generated
//! servers decode with tonic's prost codec, which answers an undecodable
//! message with INTERNAL "failed to decode Protobuf message: ..."; this
//! layer rewrites exactly that answer (a trailers-only response: the request
//! is decoded before any handler runs), and [`is_decode_error`] lets a
//! handler reading a request stream do the same.

use std::convert::Infallible;
use std::task::{Context, Poll};

use http::{Request, Response};
use tonic::body::Body;
use tonic::{Code, Status};
use tower::{Layer, Service};

use crate::rpc::{HttpService, ResponseFuture};
use onebot_gateway_domain::error::{Error, Kind};

/// What tonic's prost codec puts first in the message of a decode failure.
const DECODE_FAILURE: &str = "failed to decode Protobuf message";

/// True when `status` is tonic's answer to an undecodable message.
pub fn is_decode_error(status: &Status) -> bool {
    status.code() == Code::Internal && status.message().starts_with(DECODE_FAILURE)
}

/// The gateway's error for an undecodable request message.
pub fn invalid_message(status: &Status) -> Error {
    let detail = status
        .message()
        .strip_prefix(DECODE_FAILURE)
        .unwrap_or_default()
        .trim_start_matches(':')
        .trim();
    Error::new(
        Kind::InvalidRequest,
        format!("the request is not a valid protobuf message of this RPC's type: {detail}"),
    )
}

/// Adds [`DecodeErrorService`].
#[derive(Debug, Clone, Default)]
pub struct DecodeErrorLayer;

impl<S> Layer<S> for DecodeErrorLayer {
    type Service = DecodeErrorService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        DecodeErrorService { inner }
    }
}

/// See the module docs.
#[derive(Debug, Clone)]
pub struct DecodeErrorService<S> {
    inner: S,
}

impl<S> Service<Request<Body>> for DecodeErrorService<S>
where
    S: HttpService,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let fut = inner.call(req);
        Box::pin(async move {
            let Ok(response) = fut.await;
            let decode_failure = Status::from_header_map(response.headers())
                .filter(is_decode_error)
                .map(|status| crate::status::status_of(invalid_message(&status)));
            match decode_failure {
                Some(status) => Ok(status.into_http()),
                None => Ok(response),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use tonic_types::StatusExt;

    use super::*;

    #[test]
    fn only_the_codecs_decode_failure_is_rewritten() {
        let decode = Status::internal(format!("{DECODE_FAILURE}: invalid wire type value: 7"));
        assert!(is_decode_error(&decode));
        let status = crate::status::status_of(invalid_message(&decode));
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().ends_with("invalid wire type value: 7"));
        assert_eq!(
            status.get_error_details().error_info().unwrap().reason,
            "INVALID_REQUEST"
        );
        assert!(!is_decode_error(&Status::internal("something else")));
        assert!(!is_decode_error(&Status::invalid_argument(DECODE_FAILURE)));
    }
}
