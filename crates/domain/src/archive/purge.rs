//! Deleting people's words on request: every archived message of a chat, or
//! every message one person sent anywhere, together with the captured media
//! that only those messages referenced.

use super::store::{ArchiveStore, PurgeScope};
use crate::error::Result;

/// Deletes captured media by id (the store of received media implements
/// it). Called with the media that only deleted messages referenced.
pub trait MediaRelease: Send + Sync + 'static {
    /// Deletes these captured media; returns how many existed.
    fn release(&self, media_ids: &[String]) -> Result<u64>;
}

/// The media release of a build that captures no received media: no
/// archived message references any, so there is never anything to delete.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCapturedMedia;

impl MediaRelease for NoCapturedMedia {
    fn release(&self, media_ids: &[String]) -> Result<u64> {
        if !media_ids.is_empty() {
            tracing::warn!(
                count = media_ids.len(),
                "archived messages referenced captured media, but this gateway keeps none"
            );
        }
        Ok(0)
    }
}

/// What a purge deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PurgeReport {
    /// Messages deleted.
    pub messages: u64,
    /// Captured media deleted with them.
    pub media: u64,
}

/// Deletes every archived message in `scope` and the captured media only
/// they referenced.
pub async fn purge(
    store: &dyn ArchiveStore,
    scope: PurgeScope,
    media: &dyn MediaRelease,
) -> Result<PurgeReport> {
    let deleted = store.purge(scope).await?;
    onebot_gateway_telemetry::metrics::archive_deleted("purge", deleted.messages);
    let released = if deleted.orphaned_media.is_empty() {
        0
    } else {
        media.release(&deleted.orphaned_media)?
    };
    Ok(PurgeReport {
        messages: deleted.messages,
        media: released,
    })
}
