//! The archive's limits, kept by a background task: messages older than
//! `archive.retention_days` are deleted (a recalled message's text with
//! them), then the oldest messages until the archive counts at most
//! `archive.max_bytes`. Captured media that only the deleted messages
//! referenced are released.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::purge::MediaRelease;
use super::service::Archive;
use super::store::Pruned;
use crate::error::Result;
use onebot_gateway_telemetry::metrics;

/// Time between two runs of the limits.
pub const PRUNE_EVERY: Duration = Duration::from_secs(600);
/// Delay of the first run after start.
pub const FIRST_PRUNE: Duration = Duration::from_secs(30);

/// Applies the limits once, at `now` (Unix seconds).
pub async fn prune_once(archive: &Archive, media: &dyn MediaRelease, now: i64) -> Result<Pruned> {
    let config = archive.config();
    let older_than = now - i64::from(config.retention_days) * 86_400;
    let pruned = archive.store().prune(older_than, config.max_bytes).await?;
    metrics::archive_deleted("retention", pruned.expired.messages);
    metrics::archive_deleted("size", pruned.oversize.messages);
    let orphans: Vec<String> = pruned
        .expired
        .orphaned_media
        .iter()
        .chain(&pruned.oversize.orphaned_media)
        .cloned()
        .collect();
    if !orphans.is_empty() {
        media.release(&orphans)?;
    }
    if pruned.expired.messages + pruned.oversize.messages > 0 {
        tracing::info!(
            archive = %archive.store().describe(),
            expired = pruned.expired.messages,
            oversize = pruned.oversize.messages,
            "archive limits applied"
        );
    }
    Ok(pruned)
}

/// Runs [`prune_once`] after [`FIRST_PRUNE`], then every [`PRUNE_EVERY`],
/// until `shutdown`.
pub async fn run(archive: Arc<Archive>, media: Arc<dyn MediaRelease>, shutdown: CancellationToken) {
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + FIRST_PRUNE, PRUNE_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tick.tick() => {
                let now = jiff::Timestamp::now().as_second();
                if let Err(e) = prune_once(&archive, media.as_ref(), now).await {
                    tracing::warn!(archive = %archive.store().describe(), error = %e, "applying the archive's limits failed");
                }
            }
        }
    }
}
