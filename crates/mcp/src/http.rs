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
//! 3. the session's owner: a request naming (`mcp-session-id`) a session
//!    another token opened gets 404, as an unknown session does (without
//!    tokens sessions are not owned);
//! 4. the session budget: when every slot is taken, or the client (its
//!    token, or its address without tokens) holds its share of them
//!    (`limits.max_share_per_client`), an `initialize` (which would open a
//!    session) gets 503 with `Retry-After`;
//! 5. the concurrency limit: each `tools/call` holds a slot of the budget of
//!    `limits.max_concurrent_requests` it shares with the gRPC calls (the
//!    client's share included) until its response ends; without one it
//!    gets 503 with `Retry-After`.

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
use tokio_util::sync::CancellationToken;

use super::handler::{Callers, ClientKey, McpHandler};
use super::local::LocalBackend;
use super::sessions::{BudgetedSessions, OPENER, Opener};
use onebot_gateway_config::{LimitsConfig, McpConfig, normalize_origin};
use onebot_gateway_domain::auth::{Authenticator, Rejection};
use onebot_gateway_domain::caller::Caller;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::shares::{self, Shares, Slot};
use onebot_gateway_telemetry::metrics as m;

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
    /// `[limits]` (the share per client).
    pub limits: &'a LimitsConfig,
    /// The budget of `limits.max_concurrent_requests`, shared with gRPC.
    pub requests: Arc<Shares>,
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
    budget: Arc<Shares>,
    sessions: Arc<BudgetedSessions>,
    requests: Arc<Shares>,
    retry_after: HeaderValue,
    path: Arc<str>,
    max_request_bytes: usize,
}

/// The remote address of an MCP request's connection, put into its
/// extensions by the listener serving it.
#[derive(Debug, Clone, Copy)]
pub struct RemoteAddr(pub std::net::SocketAddr);

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
            limits,
            requests,
            loopback,
            shutdown,
        } = parts;
        let total = config.max_sessions as u64;
        let budget = Shares::new(total, limits.share_of(total));
        let retry_secs = limits.overload_retry_after_ms.div_ceil(1000).max(1);
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
            requests,
            retry_after: HeaderValue::from(retry_secs),
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
        let client = match &token {
            Some(name) => Some(shares::token_client(name)),
            None => req
                .extensions()
                .get::<RemoteAddr>()
                .map(|a| shares::address_client(a.0.ip())),
        };
        req.extensions_mut().insert(caller);
        if let Some(client) = &client {
            req.extensions_mut().insert(ClientKey(client.clone()));
        }
        req.headers_mut().remove(header::AUTHORIZATION);
        let session = req
            .headers()
            .get(SESSION_ID)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        if let Some(id) = &session
            && self.auth.is_some()
            && let Some(owner) = self.sessions.owner(id)
            && owner != token
        {
            tracing::info!(
                token = token.as_deref().unwrap_or(""),
                "MCP request refused: the session belongs to another token"
            );
            return plain(StatusCode::NOT_FOUND, "Not Found: no such session".into());
        }
        let mut slot = None;
        if method == http::Method::POST {
            let (parts, body) = req.into_parts();
            let bytes = match Limited::new(body, self.max_request_bytes).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(_) => return self.too_large(),
            };
            let methods = rpc_methods(&bytes);
            if session.is_none()
                && methods.iter().any(|m| m == "initialize")
                && !self.session_room(client.as_ref())
            {
                return self.refuse_new_session();
            }
            if methods.iter().any(|m| m == "tools/call") {
                match self.requests.slot(client.clone()) {
                    Ok(s) => slot = Some(s),
                    Err(_) => return self.refuse_tool_call(),
                }
            }
            let body = Full::new(bytes)
                .map_err(|never: Infallible| match never {})
                .boxed_unsync();
            req = Request::from_parts(parts, body);
        }
        let opener = Opener {
            client,
            owner: token.clone(),
        };
        let response = OPENER.scope(opener, self.inner.handle(req)).await;
        tracing::debug!(
            target: "onebot_gateway::access",
            %method,
            status = response.status().as_u16(),
            token = token.as_deref().unwrap_or(""),
            elapsed_ms = start.elapsed().as_secs_f64() * 1000.0,
            "mcp request"
        );
        match slot {
            None => response,
            // The tool call holds its slot until its response ends.
            Some(slot) => response.map(|body| hold_until_end(body, slot)),
        }
    }

    /// True when `client` may open one more session now.
    fn session_room(&self, client: Option<&Arc<str>>) -> bool {
        self.budget.used() < self.budget.total()
            && client.is_none_or(|c| self.budget.held_by(c) < self.budget.share())
    }

    fn too_large(&self) -> McpResponse {
        plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "Payload Too Large: the limit is {} bytes",
                self.max_request_bytes
            ),
        )
    }

    /// 503 for an `initialize` without room for its session.
    fn refuse_new_session(&self) -> McpResponse {
        unavailable(
            "mcp_sessions",
            "too many MCP sessions are open (mcp.max_sessions), or this client holds its share of them (limits.max_share_per_client)",
            HeaderValue::from_static("1"),
        )
    }

    /// 503 for a `tools/call` without a slot of the concurrency limit.
    fn refuse_tool_call(&self) -> McpResponse {
        unavailable(
            "mcp_tool_calls",
            "the gateway is at its concurrency limit (limits.max_concurrent_requests), or this client holds its share of it (limits.max_share_per_client)",
            self.retry_after.clone(),
        )
    }
}

/// The JSON-RPC methods of a POST body (one message or a batch).
fn rpc_methods(body: &[u8]) -> Vec<String> {
    let method =
        |v: &serde_json::Value| v.get("method").and_then(|m| m.as_str()).map(str::to_owned);
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(serde_json::Value::Array(items)) => items.iter().filter_map(method).collect(),
        Ok(value) => method(&value).into_iter().collect(),
        Err(_) => Vec::new(),
    }
}

/// `body`, keeping `slot` until the body is dropped (the server drops it
/// once it ended, or when the client went away).
fn hold_until_end(body: BoxBody<Bytes, Infallible>, slot: Slot) -> BoxBody<Bytes, Infallible> {
    body.map_frame(move |frame| {
        let _held = &slot;
        frame
    })
    .boxed()
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

/// 503 with `Retry-After`, counted as shed under `what` and logged.
fn unavailable(what: &'static str, why: &str, retry_after: HeaderValue) -> McpResponse {
    m::shed(what);
    tracing::warn!("MCP request refused: {why}");
    let mut response = plain(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("Service Unavailable: {why}; retry later"),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, retry_after);
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
