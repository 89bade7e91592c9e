//! The authentication layer: resolves the `authorization: Bearer <token>`
//! metadata to a [`Caller`], refuses missing and invalid tokens with
//! UNAUTHENTICATED and read-only tokens on write RPCs with
//! PERMISSION_DENIED (reason TOKEN_SCOPE, metadata `scope=write`), and puts
//! the caller into the request extensions ([`caller`]), from where each
//! handler passes it to the domain in the call's context.
//!
//! Health and reflection are served without a token unless the config says
//! otherwise (a valid token presented there still counts, and a request
//! without one is marked [`WithoutToken`](crate::health::WithoutToken)). With no token configured every request gets
//! [`Caller::anonymous`].

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, Response};
use tonic::Status;
use tonic::body::Body;
use tower::{Layer, Service};

use crate::rpc::{self, Class, HttpService, ResponseFuture};
use onebot_gateway_config::AuthConfig;
use onebot_gateway_domain::auth::{Authenticator, Rejection};
use onebot_gateway_domain::caller::Caller;
use onebot_gateway_telemetry::metrics as m;

/// The caller of a request (anonymous when the auth layer did not run).
pub fn caller<T>(request: &tonic::Request<T>) -> Caller {
    request
        .extensions()
        .get::<Caller>()
        .cloned()
        .unwrap_or_else(Caller::anonymous)
}

/// Adds [`AuthService`].
#[derive(Debug, Clone)]
pub struct AuthLayer {
    auth: Option<Arc<Authenticator>>,
    open_health: bool,
    open_reflection: bool,
}

impl AuthLayer {
    /// Authenticates with `auth` (`None`: authentication off).
    pub fn new(auth: Option<Arc<Authenticator>>, config: &AuthConfig) -> Self {
        Self {
            auth,
            open_health: config.open_health,
            open_reflection: config.open_reflection,
        }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = AuthService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        AuthService {
            inner,
            layer: self.clone(),
        }
    }
}

/// See the module docs.
#[derive(Debug, Clone)]
pub struct AuthService<S> {
    inner: S,
    layer: AuthLayer,
}

impl AuthLayer {
    /// The caller of `req`, or the response refusing it.
    fn check(&self, req: &Request<Body>) -> Result<Caller, Status> {
        let Some(auth) = &self.auth else {
            return Ok(Caller::anonymous());
        };
        let rpc = rpc::lookup(req.uri().path());
        let open = match rpc.map(|r| r.class) {
            Some(Class::Health) => self.open_health,
            Some(Class::Reflection) => self.open_reflection,
            _ => false,
        };
        let header = req.headers().get(http::header::AUTHORIZATION);
        if open {
            // Served without a token; one that is presented and valid still
            // counts (health shows a token the names of its accounts).
            return Ok(match auth.authenticate(header.map(|h| h.as_bytes())) {
                Ok(caller) => caller,
                Err(_) => Caller::anonymous(),
            });
        }
        let caller = auth
            .authenticate(header.map(|h| h.as_bytes()))
            .map_err(|rejection| {
                let reason = match rejection {
                    Rejection::Missing => "missing",
                    Rejection::Malformed => "malformed",
                    Rejection::Invalid => "invalid",
                };
                m::auth_failure(reason);
                tracing::info!(reason, "request refused: no valid bearer token");
                crate::status::status_of(rejection.error())
            })?;
        if let Some(name) = caller.token_name() {
            tracing::Span::current().record("token", name);
        }
        if rpc.is_some_and(|r| r.write) {
            caller.check_write().map_err(|e| {
                tracing::info!("request refused: read-only token on a write RPC");
                crate::status::status_of(e)
            })?;
        }
        Ok(caller)
    }
}

impl<S> Service<Request<Body>> for AuthService<S>
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
        match self.layer.check(&req) {
            Ok(caller) => {
                if self.layer.auth.is_some() && caller.token_name().is_none() {
                    req.extensions_mut().insert(crate::health::WithoutToken);
                }
                req.extensions_mut().insert(caller);
                // The token must not travel further than this layer.
                req.headers_mut().remove(http::header::AUTHORIZATION);
                let clone = self.inner.clone();
                let mut inner = std::mem::replace(&mut self.inner, clone);
                Box::pin(inner.call(req))
            }
            Err(status) => Box::pin(std::future::ready(Ok(status.into_http()))),
        }
    }
}
