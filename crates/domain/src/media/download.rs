//! Getting the bytes of received media: [`Received`], the kept items and
//! the fetching of new ones (for DownloadMedia and for capture).
//!
//! Getting a received item's bytes walks the peer's [`MediaStep`]s in
//! order: the segment's own URL (through [`UrlSource::fetch_peer`]: peer
//! hosts only, behind the address guard), the peer's lookup, stream and
//! re-signing steps, and the message read again for a fresh URL. The first
//! step that yields bytes of the right kind wins; what was fetched is kept
//! in the [`ReceivedStore`] like a capture. A step's failure moves on to the
//! next; only a size over the limit or the deadline stops the walk.

use std::sync::Arc;

use url::Url;

use super::blob::BlobWriter;
use super::ids::MediaIds;
use super::kind::IMAGE_MIMES;
use super::received::{Gone, ItemMeta, Kept, Lookup, ReceivedStore, StoredItem};
use super::resolve::UrlSource;
use crate::call::Deadline;
use crate::error::{Error, Kind, Result};
use crate::model::media::is_http_url;
use crate::model::{ReceivedKind, ReceivedMedia};
use crate::ports::{MediaStep, PeerApi, PeerMedia};
use onebot_gateway_config::MediaConfig;

/// A file fetched from a peer's URL, deleted when dropped.
#[derive(Debug)]
pub struct FetchedFile {
    /// The bytes, from their start.
    pub file: std::fs::File,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256, lowercase hex.
    pub sha256: String,
    /// MIME type sniffed from the bytes.
    pub mime: String,
    /// The name the URL's answer gave, may be empty.
    pub url_name: String,
    _temp: super::staging::TempFile,
}

/// Deletes a fetched file's bytes when dropped.
#[derive(Debug)]
pub struct FetchedGuard(#[allow(dead_code)] super::staging::TempFile);

impl FetchedFile {
    /// The open file, and the guard that deletes it from disk once dropped
    /// (the open handle keeps reading).
    pub fn into_parts(self) -> (std::fs::File, FetchedGuard) {
        (self.file, FetchedGuard(self._temp))
    }
}

/// Received media: the store and the URL fetcher. Cheap to clone.
#[derive(Clone)]
pub struct Received {
    store: ReceivedStore,
    urls: Arc<dyn UrlSource>,
    config: MediaConfig,
}

impl std::fmt::Debug for Received {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Received")
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

/// How one item's fetch failed, step by step.
#[derive(Debug, Default)]
struct Attempts {
    tried: Vec<(MediaStep, Error)>,
}

impl Attempts {
    fn into_error(self, media: &ReceivedMedia) -> Error {
        let detail = self
            .tried
            .iter()
            .map(|(step, e)| {
                let peer = e
                    .meta("peer_message")
                    .or_else(|| e.meta("detail"))
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default();
                format!("{}: {}{peer}", step.name(), e.message)
            })
            .collect::<Vec<_>>()
            .join("; ");
        let detail = if detail.is_empty() {
            "the peer offers no way to get it".to_string()
        } else {
            detail
        };
        let mut err = Error::new(
            Kind::MediaDownloadFailed,
            format!(
                "the {} of message {} (segment {}) could not be fetched: {detail}",
                media.kind.name(),
                media.message_id,
                media.index
            ),
        )
        .with("message_id", media.message_id)
        .with("segment_index", media.index)
        .with("kind", media.kind.name());
        if let Some(peer) = self
            .tried
            .iter()
            .rev()
            .find_map(|(_, e)| e.meta("peer_message"))
        {
            err = err.with("peer_message", peer);
        }
        err
    }
}

impl Received {
    /// Received media over `store`, fetching URLs with `urls`, within the
    /// limits of `config`.
    pub fn new(store: ReceivedStore, urls: Arc<dyn UrlSource>, config: MediaConfig) -> Self {
        Self {
            store,
            urls,
            config,
        }
    }

    /// The store.
    pub fn store(&self) -> &ReceivedStore {
        &self.store
    }

    /// The media ids.
    pub fn ids(&self) -> &MediaIds {
        self.store.ids()
    }

    /// The size limit of a received kind: the kind's media limit (voice
    /// records the file limit).
    pub fn limit(&self, kind: ReceivedKind) -> u64 {
        match kind {
            ReceivedKind::Image => self.config.image_max_bytes,
            ReceivedKind::Video => self.config.video_max_bytes,
            ReceivedKind::Record | ReceivedKind::File => self.config.file_max_bytes,
        }
    }

    /// Fetches a file the peer named by `url` (a group file's download
    /// URL) within `limit` and `deadline`, through the same guard as peer
    /// media: the bytes in a temporary file deleted when the answer drops.
    pub async fn fetch_file(
        &self,
        url: &str,
        limit: u64,
        deadline: Deadline,
    ) -> Result<FetchedFile> {
        let mut writer = self.store.writer(limit).await?;
        let fetch = self.fetch_url(url, &mut writer);
        let name = match deadline.remaining() {
            Some(left) => tokio::time::timeout(left, fetch)
                .await
                .unwrap_or_else(|_| {
                    Err(Error::new(
                        Kind::DeadlineExceeded,
                        "the deadline passed while fetching the file",
                    ))
                })?,
            None => fetch.await?,
        };
        let (temp, sha256, size, prefix) = writer.finish().await?;
        let file = std::fs::File::open(&temp.path)
            .map_err(|e| Error::internal(format!("reading a fetched file: {e}")))?;
        let mime = super::kind::sniff(&prefix)
            .unwrap_or(super::kind::OCTET_STREAM)
            .to_owned();
        Ok(FetchedFile {
            file,
            size,
            sha256,
            mime,
            url_name: name,
            _temp: temp,
        })
    }

    async fn fetch_url(&self, raw: &str, writer: &mut BlobWriter) -> Result<String> {
        let url = Url::parse(raw).map_err(|e| {
            Error::new(
                Kind::UrlFetchFailed,
                format!("the peer's URL is not valid: {e}"),
            )
            .with("url", raw)
            .with("detail", format!("the peer's URL is not valid: {e}"))
        })?;
        self.urls.fetch_peer(&url, writer).await
    }

    /// Checks what a step wrote: an image must be an image (a CDN's error
    /// page is not).
    fn check(kind: ReceivedKind, writer: &BlobWriter) -> Result<()> {
        if kind != ReceivedKind::Image {
            return Ok(());
        }
        match super::kind::sniff(writer.prefix()) {
            Some(m) if IMAGE_MIMES.contains(&m) => Ok(()),
            other => Err(Error::new(
                Kind::MediaTypeMismatch,
                format!(
                    "the answer is not an image (detected {})",
                    other.unwrap_or("unknown")
                ),
            )),
        }
    }

    /// Runs one step into a fresh writer.
    async fn step(
        &self,
        peer: &dyn PeerApi,
        media: &ReceivedMedia,
        step: MediaStep,
        limit: u64,
        deadline: Deadline,
    ) -> Result<Option<(BlobWriter, String)>> {
        let mut writer = self.store.writer(limit).await?;
        let name = match step {
            MediaStep::SegmentUrl => {
                if !is_http_url(&media.url) {
                    return Ok(None);
                }
                self.fetch_url(&media.url, &mut writer).await?
            }
            MediaStep::Reread => {
                let fresh = peer.media_message(media.message_id, deadline).await?;
                let url = ReceivedMedia::of(&fresh, media.index)
                    .map(|m| m.url)
                    .unwrap_or_default();
                if !is_http_url(&url) || url == media.url {
                    return Ok(None);
                }
                self.fetch_url(&url, &mut writer).await?
            }
            MediaStep::Lookup | MediaStep::Stream | MediaStep::Resign => {
                match peer.fetch_media(media, step, &mut writer, deadline).await? {
                    PeerMedia::Written { file_name } => file_name,
                    PeerMedia::Url(url) => {
                        // Bytes a step wrote before giving a URL are dropped.
                        writer = self.store.writer(limit).await?;
                        self.fetch_url(&url, &mut writer).await?
                    }
                }
            }
        };
        Self::check(media.kind, &writer)?;
        Ok(Some((writer, name)))
    }

    /// Fetches `media` of `account_id` from `peer` (within `limit` and
    /// `deadline`) and keeps it under `media_id`.
    pub async fn fetch(
        &self,
        account_id: &str,
        peer: &dyn PeerApi,
        media: &ReceivedMedia,
        limit: u64,
        deadline: Deadline,
    ) -> Result<Kept> {
        let media_id = self.ids().id(account_id, media.message_id, media.index);
        let mut attempts = Attempts::default();
        for step in peer.media_steps(media) {
            if deadline.expired() {
                return Err(Error::new(
                    Kind::DeadlineExceeded,
                    "the deadline passed while fetching the media",
                ));
            }
            let outcome = match deadline.remaining() {
                Some(left) => {
                    tokio::time::timeout(left, self.step(peer, media, step, limit, deadline))
                        .await
                        .unwrap_or_else(|_| {
                            Err(Error::new(
                                Kind::DeadlineExceeded,
                                "the deadline passed while fetching the media",
                            ))
                        })
                }
                None => self.step(peer, media, step, limit, deadline).await,
            };
            match outcome {
                Ok(Some((writer, name))) => {
                    let file_name = best_name(&name, media);
                    let meta = ItemMeta {
                        media_id: media_id.clone(),
                        chat: media.chat,
                        message_id: media.message_id,
                        index: media.index,
                        kind: media.kind,
                        file_name,
                    };
                    return self.store.commit(account_id, meta, writer).await;
                }
                Ok(None) => {}
                Err(e) if matches!(e.kind, Kind::MediaTooLarge | Kind::DeadlineExceeded) => {
                    return Err(e
                        .with("message_id", media.message_id)
                        .with("segment_index", media.index));
                }
                Err(e) => {
                    tracing::debug!(
                        step = step.name(),
                        message_id = media.message_id,
                        index = media.index,
                        error = %e,
                        "media step failed"
                    );
                    attempts.tried.push((step, e));
                }
            }
        }
        Err(attempts.into_error(media))
    }

    /// The kept item `media_id` of `account_id`, waiting for a fetch in
    /// progress (within `deadline`), its bytes in its file (fetched from
    /// the shared blobs when only they have them). `Ok(None)` when it is
    /// not kept.
    pub async fn kept(
        &self,
        account_id: &str,
        media_id: &str,
        deadline: Deadline,
    ) -> Result<Option<StoredItem>> {
        if let Some(Err(e)) = self
            .store
            .wait(account_id, media_id, deadline.instant())
            .await
            && e.kind == Kind::DeadlineExceeded
        {
            return Err(e);
        }
        match self.store.lookup(account_id, media_id) {
            Lookup::Stored(item) if self.store.ensure_local(account_id, &item).await? => {
                Ok(Some(item))
            }
            Lookup::Stored(_) => Ok(None),
            Lookup::Gone(why, when, _) => Err(gone(media_id, why, when)),
            Lookup::Unknown => Ok(None),
        }
    }
}

fn gone(media_id: &str, why: Gone, when_ms: i64) -> Error {
    let when = jiff::Timestamp::from_millisecond(when_ms)
        .map(|t| t.to_string())
        .unwrap_or_default();
    let reason = match why {
        Gone::Expired => "its capture expired (media.capture.ttl_secs)",
        Gone::Evicted => {
            "it was evicted from the capture store to make room (media.capture.quota_bytes)"
        }
    };
    Error::new(
        Kind::MediaNotFound,
        format!(
            "the media {media_id} is no longer kept: {reason} at {when}; download it by message_id and segment_index to fetch it from the peer again"
        ),
    )
    .with("media_id", media_id)
    .with(
        "cause",
        match why {
            Gone::Expired => "expired",
            Gone::Evicted => "evicted",
        },
    )
    .with(
        "gone",
        match why {
            Gone::Expired => "expired",
            Gone::Evicted => "evicted",
        },
    )
}

/// The name to report: the peer's (a converted voice record's tells its
/// format), else the segment's, else none.
fn best_name(from_step: &str, media: &ReceivedMedia) -> String {
    let step = super::kind::sanitize_file_name(from_step);
    let looks_named = !step.is_empty() && !step.contains(['?', '&', '=']) && step != "download";
    if looks_named && (media.name.is_empty() || media.kind == ReceivedKind::Record) {
        return step;
    }
    super::kind::sanitize_file_name(&media.name)
}
