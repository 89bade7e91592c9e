//! The periodic sweep of the staging area and of the received-media store.

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::clock::now_ms;
use crate::error::Result;

/// Runs `sweep(now_ms)` every `min(ttl / 4, 60 s)` (at least every second)
/// until `shutdown`; a failed sweep is logged as a `what` sweep failure and
/// the next one runs on time.
pub(super) fn spawn_sweeper<F, Fut>(
    ttl_secs: u64,
    what: &'static str,
    shutdown: CancellationToken,
    sweep: F,
) -> tokio::task::JoinHandle<()>
where
    F: Fn(i64) -> Fut + Send + 'static,
    Fut: Future<Output = Result<usize>> + Send,
{
    let ttl = Duration::from_secs(ttl_secs);
    let period = (ttl / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tick.tick() => {
                    if let Err(e) = sweep(now_ms()).await {
                        tracing::warn!(error = %e, "{what} sweep failed");
                    }
                }
            }
        }
    })
}
