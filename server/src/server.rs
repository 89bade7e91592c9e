//! Process wiring: accounts, the embedded sandbox, the gRPC server, health,
//! graceful shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

use crate::config::Config;
use crate::domain::Gateway;
use crate::domain::events::EventHub;
use crate::grpc;
use crate::onebot::{self, EventSink};

/// Runs the gateway on `listener` until `shutdown` resolves, then drains:
/// health goes NOT_SERVING, event streams end, in-flight RPCs get
/// `server.grace_period_ms` to finish, background tasks stop.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(&config.server.data_dir).with_context(|| {
        format!(
            "creating data directory {}",
            config.server.data_dir.display()
        )
    })?;
    let grace = Duration::from_millis(config.server.grace_period_ms);
    let cancel = CancellationToken::new();
    let mut config = config;
    let sandbox = if config.accounts.is_empty() {
        Some(start_embedded_sandbox(&mut config).await?)
    } else {
        None
    };
    let config = Arc::new(config);

    let hub = Arc::new(EventHub::new(config.events.buffer_size, cancel.clone()));
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

    let local = listener.local_addr()?;
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let mut server = tokio::spawn(
        Server::builder()
            .add_routes(routes)
            .serve_with_incoming_shutdown(incoming, async {
                let _ = stop_rx.await;
            }),
    );
    tracing::info!(%local, "gRPC listening");

    tokio::select! {
        _ = shutdown => {}
        result = &mut server => {
            cancel.cancel();
            return match result {
                Ok(r) => r.context("gRPC server failed"),
                Err(e) => Err(anyhow::anyhow!("gRPC server task failed: {e}")),
            };
        }
    }
    tracing::info!(grace_ms = grace.as_millis() as u64, "shutting down");
    grpc::report_shutdown(&reporter, &gw).await;
    cancel.cancel();
    let _ = stop_tx.send(());
    match tokio::time::timeout(grace, &mut server).await {
        Ok(Ok(r)) => r.context("gRPC server failed")?,
        Ok(Err(e)) => return Err(anyhow::anyhow!("gRPC server task failed: {e}")),
        Err(_) => {
            tracing::warn!("grace period over; cancelling in-flight RPCs");
            server.abort();
        }
    }
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
