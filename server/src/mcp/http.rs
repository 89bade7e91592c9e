//! The Streamable HTTP transport: `rmcp`'s service (sessions, resumable
//! SSE streams, the `MCP-Protocol-Version` header, `Host` checks, the body
//! limit) behind the gateway's own checks, in this order:
//!
//! 1. `Origin`: a request carrying an `Origin` not in `mcp.allowed_origins`
//!    gets 403 (a request without one, from no browser, passes);
//! 2. the bearer token, when tokens are configured: none or a bad one gets
//!    401 with `WWW-Authenticate: Bearer`; the token's [`Caller`] goes into
//!    the request's extensions (where the handler finds it) and the header
//!    goes no further;
//! 3. the session budget: when every permit is taken, an `initialize`
//!    (which would open a session) gets 503 with `Retry-After`.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::future::BoxFuture;
use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::combinators::{BoxBody, UnsyncBoxBody};
use http_body_util::{BodyExt, Full, Limited};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::handler::{Callers, McpHandler};
use super::local::LocalBackend;
use super::sessions::BudgetedSessions;
use crate::auth::{Authenticator, Caller, Rejection};
use crate::config::{McpConfig, normalize_origin};
use crate::domain::gateway::Gateway;
use crate::telemetry::metrics as m;

/// The request body the transport takes (its errors as I/O errors: a
/// concrete type keeps the futures `Send` without higher-ranked bounds).
pub type McpBody = UnsyncBoxBody<Bytes, std::io::Error>;
/// The responses it gives.
pub type McpResponse = Response<BoxBody<Bytes, Infallible>>;

type Inner = StreamableHttpService<McpHandler<LocalBackend>, BudgetedSessions>;

/// Header naming a session.
const SESSION_ID: &str = "mcp-session-id";

/// What the transport is built from.
pub struct McpHttpParts<'a> {
    /// The gateway served.
    pub gw: Arc<Gateway>,
    /// The bearer tokens (`None`: authentication off).
    pub auth: Option<Arc<Authenticator>>,
    /// `[mcp]`.
    pub config: &'a McpConfig,
    /// The listener is on a loopback address.
    pub loopback: bool,
    /// Ends every session and stream (the start of shutdown).
    pub shutdown: CancellationToken,
}

/// The Streamable HTTP endpoint (see the module docs).
#[derive(Clone)]
pub struct McpHttp {
    inner: Inner,
    auth: Option<Arc<Authenticator>>,
    origins: Arc<[String]>,
    budget: Arc<Semaphore>,
    sessions: Arc<BudgetedSessions>,
    path: Arc<str>,
    max_request_bytes: usize,
}

impl std::fmt::Debug for McpHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpHttp")
            .field("path", &self.path)
            .field("origins", &self.origins)
            .finish_non_exhaustive()
    }
}

impl McpHttp {
    /// The endpoint over `parts.gw`.
    pub fn new(parts: McpHttpParts<'_>) -> Self {
        let McpHttpParts {
            gw,
            auth,
            config,
            loopback,
            shutdown,
        } = parts;
        let budget = Arc::new(Semaphore::new(config.max_sessions));
        let sessions = Arc::new(BudgetedSessions::new(
            budget.clone(),
            Duration::from_millis(config.session_idle_timeout_ms),
        ));
        let backend = Arc::new(LocalBackend::new(gw));
        let callers = Callers::Http {
            required: auth.is_some(),
        };
        let mut settings = StreamableHttpServerConfig::default()
            .with_max_request_body_bytes(config.max_request_bytes)
            .with_cancellation_token(shutdown);
        // Origins are checked here, before authentication (so a foreign
        // page gets 403, never 401); hosts by rmcp.
        settings = if !config.allowed_hosts.is_empty() {
            settings.with_allowed_hosts(config.allowed_hosts.clone())
        } else if loopback {
            settings
        } else {
            settings.disable_allowed_hosts()
        };
        let handler_budget = budget.clone();
        let inner = StreamableHttpService::new(
            move || {
                Ok(McpHandler::new(
                    backend.clone(),
                    callers,
                    Some(handler_budget.clone()),
                ))
            },
            sessions.clone(),
            settings,
        );
        Self {
            inner,
            auth,
            origins: config
                .allowed_origins
                .iter()
                .filter_map(|o| normalize_origin(o))
                .collect(),
            budget,
            sessions,
            path: config.path.as_str().into(),
            max_request_bytes: config.max_request_bytes,
        }
    }

    /// The endpoint's path (`/mcp`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Sessions open now.
    pub fn open_sessions(&self) -> usize {
        self.sessions.open()
    }

    fn origin_allowed(&self, origin: Option<&HeaderValue>) -> bool {
        let Some(origin) = origin else {
            return true;
        };
        origin
            .to_str()
            .ok()
            .and_then(normalize_origin)
            .is_some_and(|o| self.origins.contains(&o))
    }

    fn caller(&self, req: &Request<McpBody>) -> Result<Caller, Box<McpResponse>> {
        let Some(auth) = &self.auth else {
            return Ok(Caller::anonymous());
        };
        let header = req.headers().get(header::AUTHORIZATION);
        auth.authenticate(header.map(|h| h.as_bytes()))
            .map_err(|rejection| {
                let reason = match rejection {
                    Rejection::Missing => "missing",
                    Rejection::Malformed => "malformed",
                    Rejection::Invalid => "invalid",
                };
                m::auth_failure(reason);
                tracing::info!(reason, "MCP request refused: no valid bearer token");
                let body = serde_json::json!({
                    "error": "invalid_token",
                    "error_description": rejection.error().message,
                });
                let mut response = plain(StatusCode::UNAUTHORIZED, body.to_string());
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"onebot-gateway\""),
                );
                Box::new(response)
            })
    }

    /// Serves one request (see the module docs).
    pub async fn handle(&self, mut req: Request<McpBody>) -> McpResponse {
        let start = Instant::now();
        let method = req.method().clone();
        if !self.origin_allowed(req.headers().get(header::ORIGIN)) {
            tracing::info!(origin = ?req.headers().get(header::ORIGIN), "MCP request refused: Origin not allowed");
            return plain(
                StatusCode::FORBIDDEN,
                "Forbidden: this Origin is not in mcp.allowed_origins".into(),
            );
        }
        let caller = match self.caller(&req) {
            Ok(caller) => caller,
            Err(response) => return *response,
        };
        let token = caller.token_name().map(str::to_owned);
        req.extensions_mut().insert(caller);
        req.headers_mut().remove(header::AUTHORIZATION);
        if method == http::Method::POST
            && !req.headers().contains_key(SESSION_ID)
            && self.budget.available_permits() == 0
        {
            req = match self.refuse_new_session(req).await {
                Ok(req) => req,
                Err(response) => return *response,
            };
        }
        let response = self.inner.handle(req).await;
        tracing::debug!(
            target: "onebot_gateway::access",
            %method,
            status = response.status().as_u16(),
            token = token.as_deref().unwrap_or(""),
            elapsed_ms = start.elapsed().as_secs_f64() * 1000.0,
            "mcp request"
        );
        response
    }

    /// With the budget spent: 503 for an `initialize`, the request back
    /// (its body read, at most `max_request_bytes`) for anything else.
    async fn refuse_new_session(
        &self,
        req: Request<McpBody>,
    ) -> Result<Request<McpBody>, Box<McpResponse>> {
        let (parts, body) = req.into_parts();
        let bytes = match Limited::new(body, self.max_request_bytes).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(_) => {
                return Err(Box::new(plain(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!(
                        "Payload Too Large: the limit is {} bytes",
                        self.max_request_bytes
                    ),
                )));
            }
        };
        let initialize = serde_json::from_slice::<serde_json::Value>(&bytes)
            .is_ok_and(|v| v.get("method").and_then(|m| m.as_str()) == Some("initialize"));
        if initialize {
            m::shed("mcp_sessions");
            tracing::warn!(
                "MCP initialize refused: every session permit is taken (mcp.max_sessions)"
            );
            let mut response = plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: too many MCP sessions are open (mcp.max_sessions); retry later"
                    .into(),
            );
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return Err(Box::new(response));
        }
        let body = Full::new(bytes)
            .map_err(|never: Infallible| match never {})
            .boxed_unsync();
        Ok(Request::from_parts(parts, body))
    }
}

/// A plain-text (or JSON) response.
fn plain(status: StatusCode, body: String) -> McpResponse {
    let content_type = if body.starts_with('{') {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

impl tower::Service<Request<McpBody>> for McpHttp {
    type Response = McpResponse;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<McpResponse, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<McpBody>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.handle(req).await) })
    }
}
