//! Process wiring: accounts, the embedded sandbox, the gRPC server (tower
//! layers, TLS, keepalive), the metrics listener, health, graceful
//! shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

use crate::auth::Authenticator;
use crate::config::Config;
use crate::domain::Gateway;
use crate::domain::events::EventHub;
use crate::grpc;
use crate::onebot::{self, EventSink};
use crate::telemetry;
use crate::tls::TlsAcceptor;

/// The sockets the gateway serves on, bound by the caller.
#[derive(Debug)]
pub struct Listeners {
    /// The gRPC listener.
    pub grpc: TcpListener,
    /// The Prometheus listener; when `None` and `[metrics]` is configured,
    /// [`run_with`] binds `metrics.listen` itself.
    pub metrics: Option<TcpListener>,
}

/// Runs the gateway on `listener` until `shutdown` resolves, then drains:
/// health goes NOT_SERVING, event streams end, in-flight RPCs get
/// `server.grace_period_ms` to finish, background tasks stop.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> anyhow::Result<()> {
    run_with(
        config,
        Listeners {
            grpc: listener,
            metrics: None,
        },
        shutdown,
    )
    .await
}

/// [`run`] with pre-bound listeners (tests bind port 0 and read the
/// addresses).
pub async fn run_with(
    config: Config,
    listeners: Listeners,
    shutdown: impl Future<Output = ()> + Send,
) -> anyhow::Result<()> {
    let listener = listeners.grpc;
    // Everything that can fail on configuration fails before any task starts.
    let auth =
        Authenticator::from_config(&config.auth, &|var| std::env::var(var).ok())?.map(Arc::new);
    let tls = config
        .server
        .tls
        .as_ref()
        .map(TlsAcceptor::load)
        .transpose()?
        .map(Arc::new);
    let metrics_listener = match (&config.metrics, listeners.metrics) {
        (None, _) => None,
        (Some(_), Some(l)) => Some(l),
        (Some(m), None) => Some(
            TcpListener::bind(m.listen)
                .await
                .with_context(|| format!("binding metrics.listen {}", m.listen))?,
        ),
    };
    std::fs::create_dir_all(&config.server.data_dir).with_context(|| {
        format!(
            "creating data directory {}",
            config.server.data_dir.display()
        )
    })?;
    let grace = Duration::from_millis(config.server.grace_period_ms);
    // Two stages: `streams` ends open event streams as soon as shutdown
    // starts (the server waits for every open call, streams included);
    // `cancel` stops connections and background work only after in-flight
    // RPCs have drained, since they still need their peers to answer.
    let streams = CancellationToken::new();
    let cancel = CancellationToken::new();
    let mut config = config;
    let sandbox = if config.accounts.is_empty() {
        Some(start_embedded_sandbox(&mut config).await?)
    } else {
        None
    };
    let config = Arc::new(config);

    let hub = Arc::new(EventHub::new(config.events.buffer_size, streams.clone()));
    let sink: Arc<dyn EventSink> = hub.clone();
    let accounts = onebot::start_accounts(&config, sink, cancel.clone())
        .await
        .context("starting accounts")?;
    let mut gw = Gateway::new(config.clone(), accounts)?.with_event_hub(hub);
    gw.open_write_side(cancel.clone())
        .map_err(|e| anyhow::anyhow!("opening the write side: {e}"))?;
    let gw = Arc::new(gw);

    let (reporter, health) = tonic_health::server::health_reporter();
    grpc::report_health(&reporter, &gw).await;
    let routes = grpc::routes(gw.clone(), health);

    if let (Some(m), Some(l)) = (&config.metrics, metrics_listener) {
        match telemetry::metrics::install() {
            Some(handle) => {
                let local = l.local_addr()?;
                tracing::info!(%local, path = %m.path, "metrics listening");
                let (path, gw, cancel) = (m.path.clone(), gw.clone(), cancel.clone());
                tokio::spawn(async move {
                    if let Err(e) = telemetry::metrics::serve(l, path, handle, gw, cancel).await {
                        tracing::error!(error = %e, "metrics listener failed");
                    }
                });
            }
            None => tracing::warn!("metrics are configured but cannot be recorded"),
        }
    }

    let local = listener.local_addr()?;
    let s = &config.server;
    let limits = &config.limits;
    let millis = |ms: u64| (ms > 0).then(|| Duration::from_millis(ms));
    let mut builder = Server::builder()
        .http2_keepalive_interval(millis(s.http2_keepalive_interval_ms))
        .http2_keepalive_timeout(millis(s.http2_keepalive_timeout_ms))
        .max_concurrent_streams(limits.max_concurrent_streams_per_connection);
    if let Some(age) = millis(s.max_connection_age_ms) {
        builder = builder
            .max_connection_age(age)
            .max_connection_age_grace(grace);
    }
    let router = builder
        .layer(grpc::observe::ObserveLayer)
        .layer(grpc::auth::AuthLayer::new(auth.clone(), &config.auth))
        .layer(grpc::limits::LimitsLayer::new(limits))
        .add_routes(routes);
    let incoming = TcpIncoming::from(listener)
        .with_nodelay(Some(true))
        .with_keepalive(millis(s.tcp_keepalive_ms));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let stopped = async {
        let _ = stop_rx.await;
    };
    let mut server = match &tls {
        Some(tls) => {
            tls.spawn_reloader(cancel.clone());
            let incoming = tls.incoming(incoming, cancel.clone());
            tokio::spawn(router.serve_with_incoming_shutdown(incoming, stopped))
        }
        None => tokio::spawn(router.serve_with_incoming_shutdown(incoming, stopped)),
    };
    match &tls {
        Some(tls) => tracing::info!(%local, mutual = tls.mutual(), "gRPC listening with TLS"),
        None if local.ip().is_loopback() => tracing::info!(%local, "gRPC listening"),
        None => tracing::warn!(
            %local,
            "gRPC listening in plaintext on a non-loopback address: configure [server.tls] unless a mesh sidecar or private network protects it"
        ),
    }
    match &auth {
        Some(a) => {
            tracing::info!(tokens = ?a.token_names().collect::<Vec<_>>(), "bearer-token authentication on")
        }
        None if local.ip().is_loopback() => {}
        None => {
            tracing::warn!(%local, "no [[auth.tokens]] configured: every client may use every account")
        }
    }

    tokio::select! {
        _ = shutdown => {}
        result = &mut server => {
            streams.cancel();
            cancel.cancel();
            return match result {
                Ok(r) => r.context("gRPC server failed"),
                Err(e) => Err(anyhow::anyhow!("gRPC server task failed: {e}")),
            };
        }
    }
    tracing::info!(grace_ms = grace.as_millis() as u64, "shutting down");
    grpc::report_shutdown(&reporter, &gw).await;
    streams.cancel();
    let _ = stop_tx.send(());
    let drained = match tokio::time::timeout(grace, &mut server).await {
        Ok(Ok(r)) => r.context("gRPC server failed"),
        Ok(Err(e)) => Err(anyhow::anyhow!("gRPC server task failed: {e}")),
        Err(_) => {
            tracing::warn!("grace period over; cancelling in-flight RPCs");
            server.abort();
            Ok(())
        }
    };
    cancel.cancel();
    drained?;
    if let Some(sandbox) = sandbox {
        sandbox.shutdown().await;
    }
    tracing::info!("stopped");
    Ok(())
}

/// With no account configured, starts the built-in sandbox peer on loopback
/// and adds the `default` account pointing at it, whitelisting
/// `sandbox.groups`.
async fn start_embedded_sandbox(config: &mut Config) -> anyhow::Result<onebot_sandbox::Sandbox> {
    let flavor: onebot_sandbox::Flavor = config
        .sandbox
        .flavor
        .parse()
        .map_err(|e| anyhow::anyhow!("sandbox.flavor: {e}"))?;
    let sandbox = onebot_sandbox::Sandbox::start(onebot_sandbox::SandboxConfig {
        listen: config.sandbox.listen,
        ..onebot_sandbox::SandboxConfig::for_flavor(flavor)
    })
    .await
    .with_context(|| format!("starting the embedded sandbox on {}", config.sandbox.listen))?;
    tracing::info!(
        ws = %sandbox.ws_url(),
        %flavor,
        "no account configured: serving the embedded sandbox as account \"default\""
    );
    config.accounts.insert(
        crate::config::DEFAULT_ACCOUNT.to_string(),
        crate::config::AccountConfig {
            ws_url: Some(sandbox.ws_url()),
            groups: config.sandbox.groups.clone(),
            ..crate::config::AccountConfig::default()
        },
    );
    Ok(sandbox)
}
