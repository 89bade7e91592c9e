//! Phase 3: health, the gRPC server with its tower layers, TLS and
//! keepalive, the MCP endpoint (on the gRPC listener, or its own), and the
//! metrics listener.

use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use tonic_health::server::HealthReporter;

use super::start::Running;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_grpc as grpc;

/// A serving gRPC server.
pub struct Served {
    reporter: HealthReporter,
    server: JoinHandle<Result<(), tonic::transport::Error>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

/// Serves `running` on `listener` (and its metrics listener, when
/// configured).
pub async fn serve(running: &mut Running, listener: TcpListener) -> anyhow::Result<Served> {
    let metrics_listener = running.metrics.take();
    let mcp_listener = running.mcp.take();
    let gw = &running.gateway;
    let cancel = &running.stop.cancel;
    let reporter = HealthReporter::new();
    let health =
        tonic_health::pb::health_server::HealthServer::new(grpc::health::GuardedHealth::new(
            tonic_health::server::HealthService::from_health_reporter(reporter.clone()),
            running.auth.is_some(),
            &gw.config.limits,
        ));
    grpc::report_health(&reporter, gw).await;
    let routes = grpc::routes(gw.clone(), health);
    // One budget for gRPC calls and MCP tool calls.
    let requests = grpc::limits::concurrency_budget(&gw.config.limits);

    if let Some(l) = metrics_listener {
        super::metrics::serve(gw, l, cancel.clone())?;
    }

    let local = listener.local_addr()?;
    // MCP beside gRPC on this listener (HTTP/1.1 and HTTP/2), unless it has
    // a listener of its own.
    let mcp_here = match mcp_listener {
        Some(l) => {
            let mcp_local = l.local_addr()?;
            if let Some(mcp) =
                super::mcp::endpoint(running, mcp_local.ip().is_loopback(), &requests)
            {
                super::mcp::announce(&mcp, mcp_local, false, running.auth.is_some());
                super::mcp::serve_separately(l, mcp, cancel.clone());
            }
            None
        }
        None => super::mcp::endpoint(running, local.ip().is_loopback(), &requests),
    };
    if let Some(mcp) = &mcp_here {
        super::mcp::announce(mcp, local, running.tls.is_some(), running.auth.is_some());
    }
    let gw = &running.gateway;
    let config = &gw.config;
    let s = &config.server;
    let limits = &config.limits;
    let grace = Duration::from_millis(s.grace_period_ms);
    let millis = |ms: u64| (ms > 0).then(|| Duration::from_millis(ms));
    let mut builder = Server::builder()
        .accept_http1(mcp_here.is_some())
        .http2_keepalive_interval(millis(s.http2_keepalive_interval_ms))
        .http2_keepalive_timeout(millis(s.http2_keepalive_timeout_ms))
        .max_concurrent_streams(limits.max_concurrent_streams_per_connection);
    if let Some(age) = millis(s.max_connection_age_ms) {
        builder = builder
            .max_connection_age(age)
            .max_connection_age_grace(grace);
    }
    let router = builder
        .layer(super::mcp::McpRouteLayer::new(mcp_here))
        .layer(grpc::observe::ObserveLayer)
        .layer(grpc::auth::AuthLayer::new(
            running.auth.clone(),
            &config.auth,
        ))
        .layer(grpc::limits::LimitsLayer::new(limits, requests.clone()))
        .layer(grpc::decode::DecodeErrorLayer)
        .add_routes(routes);
    let incoming = TcpIncoming::from(listener)
        .with_nodelay(Some(true))
        .with_keepalive(millis(s.tcp_keepalive_ms));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let stopped = async {
        let _ = stop_rx.await;
    };
    let server = match &running.tls {
        Some(tls) => {
            tls.spawn_reloader(cancel.clone());
            let incoming = tls.incoming(incoming, cancel.clone());
            tokio::spawn(router.serve_with_incoming_shutdown(incoming, stopped))
        }
        None => tokio::spawn(router.serve_with_incoming_shutdown(incoming, stopped)),
    };
    match &running.tls {
        Some(tls) => tracing::info!(%local, mutual = tls.mutual(), "gRPC listening with TLS"),
        None if local.ip().is_loopback() => tracing::info!(%local, "gRPC listening"),
        None => tracing::warn!(
            %local,
            "gRPC listening in plaintext on a non-loopback address: configure [server.tls] unless a mesh sidecar or private network protects it"
        ),
    }
    match &running.auth {
        Some(a) => {
            tracing::info!(tokens = ?a.token_names().collect::<Vec<_>>(), "bearer-token authentication on")
        }
        None if local.ip().is_loopback() => {}
        None => {
            tracing::warn!(%local, "no [[auth.tokens]] configured: every client may use every account")
        }
    }
    Ok(Served {
        reporter,
        server,
        stop: Some(stop_tx),
    })
}

impl Served {
    /// Resolves when the server stopped on its own (a failure).
    pub async fn finished(&mut self) -> anyhow::Result<()> {
        match (&mut self.server).await {
            Ok(r) => r.context("gRPC server failed"),
            Err(e) => Err(anyhow::anyhow!("gRPC server task failed: {e}")),
        }
    }

    /// Marks everything NOT_SERVING (the start of shutdown).
    pub async fn report_shutdown(&self, gw: &Gateway) {
        grpc::report_shutdown(&self.reporter, gw).await;
    }

    /// Stops accepting and lets in-flight RPCs finish within `grace`; after
    /// that they are cancelled.
    pub async fn drain(mut self, grace: Duration) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match tokio::time::timeout(grace, &mut self.server).await {
            Ok(Ok(r)) => r.context("gRPC server failed"),
            Ok(Err(e)) => Err(anyhow::anyhow!("gRPC server task failed: {e}")),
            Err(_) => {
                tracing::warn!("grace period over; cancelling in-flight RPCs");
                self.server.abort();
                Ok(())
            }
        }
    }
}
