//! The MCP endpoint's wiring: on the gRPC listener, the outermost tower
//! layer of the gRPC server sends requests for `mcp.path` to the MCP
//! transport and everything else, untouched, to the gRPC layers and
//! services; with `mcp.listen`, a plaintext listener of its own.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, Response};
use http_body_util::BodyExt;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::body::Body;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};
use tower::{Layer, Service};

use super::start::Running;
use onebot_gateway_domain::shares::Shares;
use onebot_gateway_grpc::rpc::{HttpService, ResponseFuture};
use onebot_gateway_mcp::http::RemoteAddr;
use onebot_gateway_mcp::{McpBody, McpHttp, McpHttpParts};

/// The MCP endpoint of `running`, when `[mcp]` enables it; `loopback`
/// tells whether the listener it will serve on is a loopback one, and
/// `requests` is the concurrency budget its tool calls share with gRPC.
pub fn endpoint(running: &Running, loopback: bool, requests: &Arc<Shares>) -> Option<McpHttp> {
    let gw = &running.gateway;
    let config = &gw.config.mcp;
    config.enabled.then(|| {
        McpHttp::new(McpHttpParts {
            gw: gw.clone(),
            auth: running.auth.clone(),
            config,
            limits: &gw.config.limits,
            requests: requests.clone(),
            loopback,
            shutdown: running.stop.streams.child_token(),
        })
    })
}

/// Logs where MCP is served, and warns when it is open to the network
/// without tokens.
pub fn announce(mcp: &McpHttp, local: SocketAddr, tls: bool, tokens: bool) {
    let scheme = if tls { "https" } else { "http" };
    let url = format!("{scheme}://{local}{}", mcp.path());
    tracing::info!(%url, "MCP (Streamable HTTP) serving");
    if !tokens && !local.ip().is_loopback() {
        tracing::warn!(
            %url,
            "MCP served on a non-loopback address without [[auth.tokens]]: every client may use every tool"
        );
    }
}

/// A request for the MCP transport, with the connection's remote address.
fn to_mcp(mut req: Request<Body>) -> Request<McpBody> {
    let ext = req.extensions();
    let remote = ext
        .get::<TcpConnectInfo>()
        .and_then(|i| i.remote_addr())
        .or_else(|| {
            ext.get::<TlsConnectInfo<TcpConnectInfo>>()
                .and_then(|i| i.get_ref().remote_addr())
        });
    if let Some(addr) = remote {
        req.extensions_mut().insert(RemoteAddr(addr));
    }
    req.map(|body| body.map_err(std::io::Error::other).boxed_unsync())
}

/// Sends requests for the MCP path to the MCP transport (see the module
/// docs); `None` passes everything through.
#[derive(Debug, Clone)]
pub struct McpRouteLayer {
    mcp: Option<McpHttp>,
}

impl McpRouteLayer {
    /// Routes to `mcp` (`None`: nothing is routed).
    pub fn new(mcp: Option<McpHttp>) -> Self {
        Self { mcp }
    }
}

impl<S> Layer<S> for McpRouteLayer {
    type Service = McpRoute<S>;
    fn layer(&self, inner: S) -> Self::Service {
        McpRoute {
            inner,
            mcp: self.mcp.clone(),
        }
    }
}

/// See [`McpRouteLayer`].
#[derive(Debug, Clone)]
pub struct McpRoute<S> {
    inner: S,
    mcp: Option<McpHttp>,
}

impl<S> Service<Request<Body>> for McpRoute<S>
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
        if let Some(mcp) = &self.mcp
            && req.uri().path() == mcp.path()
        {
            let mcp = mcp.clone();
            return Box::pin(async move { Ok(mcp.handle(to_mcp(req)).await.map(Body::new)) });
        }
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(inner.call(req))
    }
}

/// [`McpHttp`] as an axum route service.
#[derive(Debug, Clone)]
struct AxumMcp(McpHttp);

impl Service<Request<axum::body::Body>> for AxumMcp {
    type Response = onebot_gateway_mcp::McpResponse;
    type Error = Infallible;
    type Future = futures_util::future::BoxFuture<'static, Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut req: Request<axum::body::Body>) -> Self::Future {
        let mcp = self.0.clone();
        if let Some(info) = req
            .extensions()
            .get::<axum::extract::ConnectInfo<SocketAddr>>()
            .copied()
        {
            req.extensions_mut().insert(RemoteAddr(info.0));
        }
        let req = req.map(|body| body.map_err(std::io::Error::other).boxed_unsync());
        Box::pin(async move { Ok(mcp.handle(req).await) })
    }
}

/// Serves `mcp` alone on `listener` until `stop`.
pub fn serve_separately(listener: TcpListener, mcp: McpHttp, stop: CancellationToken) {
    let path = mcp.path().to_owned();
    let app = axum::Router::new().route_service(&path, AxumMcp(mcp));
    tokio::spawn(async move {
        let app = app.into_make_service_with_connect_info::<SocketAddr>();
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(stop.cancelled_owned())
            .await;
        if let Err(e) = served {
            tracing::error!(error = %e, "MCP listener failed");
        }
    });
}
