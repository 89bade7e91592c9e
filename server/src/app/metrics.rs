//! The Prometheus `/metrics` listener (`[metrics] listen`): the account
//! gauges refreshed before each scrape, the exporter's upkeep on a timer.

use std::sync::Arc;
use std::time::Duration;

use metrics_exporter_prometheus::PrometheusHandle;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::model::ConnState;
use onebot_gateway_telemetry::metrics::{self, AccountGauge};

/// The per-account gauges of `gw` at this moment.
fn account_gauges(gw: &Gateway) -> Vec<AccountGauge> {
    gw.accounts()
        .map(|account| {
            let status = account.peer.status();
            let configured = account.config.has_transport();
            let state = if configured {
                status.state
            } else {
                ConnState::NotConfigured
            };
            AccountGauge {
                account: account.id.clone(),
                up: configured && status.online,
                state: state.name(),
                queue_depth: gw.queue_depth(&account.id),
            }
        })
        .collect()
}

/// Serves `/metrics` on `listener` until `cancel`, refreshing the account
/// gauges of `gw` before each scrape.
pub fn serve(
    gw: &Arc<Gateway>,
    listener: TcpListener,
    cancel: tokio_util::sync::CancellationToken,
) -> anyhow::Result<()> {
    let Some(m) = gw.config.metrics.as_ref() else {
        return Ok(());
    };
    let Some(handle) = metrics::install() else {
        tracing::warn!("metrics are configured but cannot be recorded");
        return Ok(());
    };
    let local = listener.local_addr()?;
    tracing::info!(%local, path = %m.path, "metrics listening");
    let states: Vec<&'static str> = ConnState::ALL.iter().map(|s| s.name()).collect();
    let weak = Arc::downgrade(gw);
    let refresh: Refresh = Arc::new(move || {
        if let Some(gw) = weak.upgrade() {
            metrics::set_account_gauges(&account_gauges(&gw), &states);
        }
    });
    let path = m.path.clone();
    tokio::spawn(async move {
        if let Err(e) = listen(listener, path, handle, refresh, cancel).await {
            tracing::error!(error = %e, "metrics listener failed");
        }
    });
    Ok(())
}

/// Refreshes gauges before each scrape.
type Refresh = Arc<dyn Fn() + Send + Sync>;

/// Serves `GET <path>` (Prometheus text format) on `listener` until
/// `shutdown`, running `refresh` before each scrape; other paths answer 404.
async fn listen(
    listener: TcpListener,
    path: String,
    handle: PrometheusHandle,
    refresh: Refresh,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    use axum::http::header;
    use axum::routing::get;

    let upkeep = {
        let handle = handle.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tick.tick() => handle.run_upkeep(),
                }
            }
        })
    };
    let app = axum::Router::new().route(
        &path,
        get(move || {
            let handle = handle.clone();
            let refresh = refresh.clone();
            async move {
                refresh();
                (
                    [(
                        header::CONTENT_TYPE,
                        "text/plain; version=0.0.4; charset=utf-8",
                    )],
                    handle.render(),
                )
            }
        }),
    );
    let result = axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await;
    upkeep.abort();
    result
}
