//! The wiring: the one place that constructs things and connects them.
//!
//! A gateway runs in four phases:
//! 1. **prepare** ([`prepare`]): everything that can fail on configuration
//!    or on the data directory fails here, before any task starts — tokens,
//!    the listener's TLS, the metrics listener, the data directory, the
//!    durable store, the staging area, the event journal and the message
//!    archive (its file, or its PostgreSQL database, migrated); with no
//!    account configured the embedded sandbox is started and becomes the
//!    `default` account.
//! 2. **start** ([`start`]): the event hub over the journal, one adapter
//!    per account (and the reverse WebSocket listener), the archive with its
//!    ingest, backfill and retention tasks, the URL fetcher, the write side,
//!    and the [`Gateway`] over them, built in one step.
//! 3. **serve** ([`serve`]): health, the gRPC server with its layers, the
//!    MCP endpoint ([`mcp`]: beside gRPC on its listener, or on its own),
//!    and the metrics listener with its refresh callback.
//! 4. **drain**: health goes NOT_SERVING, event streams end, in-flight RPCs
//!    get `server.grace_period_ms` to finish, then connections and
//!    background tasks stop.

pub mod accounts;
pub mod ha;
pub mod mcp;
pub mod metrics;
pub mod prepare;
pub mod sandbox;
pub mod serve;
pub mod sinks;
pub mod start;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use onebot_gateway_config::Config;
use onebot_gateway_domain::gateway::Gateway;

/// The runtime a gateway runs on, with `worker_threads` threads for its
/// tasks (`server.worker_threads`): 0 is the work-stealing scheduler with
/// one worker per CPU core, N > 1 with N workers, and 1 is tokio's
/// current-thread scheduler, every task on the thread that calls
/// `block_on`. Blocking work goes to the runtime's blocking pool in every
/// case.
///
/// A gateway's tasks are short and wait on sockets, so on the
/// work-stealing scheduler each call also pays for waking idle workers and
/// handing tasks between cores; one thread spends less CPU per call and
/// serves as many calls as one core can (`bench/RESULTS.md`, "On one
/// thread").
pub fn runtime(worker_threads: usize) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = match worker_threads {
        1 => tokio::runtime::Builder::new_current_thread(),
        n => {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            if n > 1 {
                b.worker_threads(n);
            }
            b
        }
    };
    builder.enable_all().build()
}

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
    let Listeners { grpc, metrics } = listeners;
    let prepared = prepare::prepare(config, metrics).await?;
    // Two stages: `streams` ends open event streams as soon as shutdown
    // starts (the server waits for every open call, streams included);
    // `cancel` stops connections and background work only after in-flight
    // RPCs have drained, since they still need their peers to answer.
    let stop = start::Stop {
        streams: CancellationToken::new(),
        cancel: CancellationToken::new(),
    };
    let mut running = start::start(prepared, stop).await?;
    let mut served = serve::serve(&mut running, grpc).await?;

    tokio::select! {
        _ = shutdown => {}
        result = served.finished() => {
            running.stop.streams.cancel();
            running.stop.cancel.cancel();
            return result;
        }
    }
    // Drain.
    let grace = Duration::from_millis(running.gateway.config.server.grace_period_ms);
    tracing::info!(grace_ms = grace.as_millis() as u64, "shutting down");
    served.report_shutdown(&running.gateway).await;
    running.stop.streams.cancel();
    let drained = served.drain(grace).await;
    running.stop.cancel.cancel();
    // The background tasks (the sender, sweeps, approvals) end on the
    // cancellation; waited for within the grace period, so a stopped
    // gateway has let go of its stores.
    if tokio::time::timeout(grace, running.gateway.write().stopped())
        .await
        .is_err()
    {
        tracing::warn!("background tasks still running after the grace period");
    }
    drained?;
    if let Some(sandbox) = running.sandbox {
        sandbox.shutdown().await;
    }
    tracing::info!("stopped");
    Ok(())
}

/// A gateway without a gRPC server, for embedding and tests: prepares and
/// starts everything over `config` (an embedded sandbox included when no
/// account is configured); `shutdown` stops its connections, event streams
/// and background tasks.
pub async fn gateway(config: Config, shutdown: CancellationToken) -> anyhow::Result<Arc<Gateway>> {
    let prepared = prepare::prepare(config, None).await?;
    let stop = start::Stop {
        streams: shutdown.clone(),
        cancel: shutdown.clone(),
    };
    let running = start::start(prepared, stop).await?;
    if let Some(sandbox) = running.sandbox {
        // The sandbox lives as long as the gateway's tasks.
        tokio::spawn(async move {
            shutdown.cancelled().await;
            sandbox.shutdown().await;
        });
    }
    Ok(running.gateway)
}

#[cfg(test)]
mod tests {
    use tokio::runtime::RuntimeFlavor;

    use super::runtime;

    #[test]
    fn worker_threads_pick_the_scheduler_and_blocking_work_stays_off_it() {
        let one = runtime(1).unwrap();
        assert_eq!(one.handle().runtime_flavor(), RuntimeFlavor::CurrentThread);
        // Tasks run on the thread that drives the runtime; blocking work on
        // a pool of its own.
        let here = std::thread::current().id();
        let (task, blocking) = one.block_on(async {
            let task = tokio::spawn(async { std::thread::current().id() });
            let blocking = tokio::task::spawn_blocking(|| std::thread::current().id());
            (task.await.unwrap(), blocking.await.unwrap())
        });
        assert_eq!(task, here);
        assert_ne!(blocking, here);

        let three = runtime(3).unwrap();
        assert_eq!(three.handle().runtime_flavor(), RuntimeFlavor::MultiThread);
        assert_eq!(three.metrics().num_workers(), 3);
        let per_core = runtime(0).unwrap();
        assert_eq!(
            per_core.handle().runtime_flavor(),
            RuntimeFlavor::MultiThread
        );
        assert!(per_core.metrics().num_workers() >= 1);
    }
}
