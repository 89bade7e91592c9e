//! DownloadMedia: the bytes of a received segment (kept, being captured,
//! or fetched now from the peer, see [`Received`]) or of an upload.

use crate::call::CallCtx;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::media::download::{FetchedFile, FetchedGuard, Received};
use crate::media::ids::{MediaIds, SegmentRef};
use crate::media::received::{Kept, StoredItem};
use crate::media::staging::{MediaOwner, MediaStore};
use crate::model::{MediaKind, Message, ReceivedKind, ReceivedMedia};

/// Largest chunk of a download stream.
pub const DOWNLOAD_CHUNK_BYTES: usize = 256 * 1024;

/// What a download names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DownloadTarget {
    /// A segment's media id, or an UploadMedia id.
    MediaId(String),
    /// Segment `segment_index` of message `message_id`.
    Message {
        /// The message id.
        message_id: i64,
        /// 0-based segment index, as the client sent it.
        segment_index: i32,
    },
}

/// What DownloadMedia asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DownloadRequest {
    /// Account id; empty means `default`.
    pub account_id: String,
    /// What to download; `None` is invalid.
    pub target: Option<DownloadTarget>,
}

/// Describes a download.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DownloadHeader {
    /// The media id.
    pub media_id: String,
    /// Kind.
    pub kind: ReceivedKind,
    /// Sniffed MIME type.
    pub mime: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256, lowercase hex.
    pub sha256: String,
    /// File name (may be empty).
    pub file_name: String,
}

/// A download ready to stream: the header and an open handle on the bytes
/// (an eviction after this point cannot take them away).
#[derive(Debug)]
pub struct Download {
    /// The header.
    pub header: DownloadHeader,
    /// The bytes, from their start.
    pub file: std::fs::File,
    // Keeps bytes that are not kept in the store alive while streaming.
    _keep: Option<Kept>,
    // A fetched file deleted once streamed.
    _fetched: Option<FetchedGuard>,
}

impl Download {
    /// The download of an item kept in the store.
    fn stored(item: &StoredItem) -> Result<Download> {
        let file = open(item)?;
        Ok(Download {
            header: header(item),
            file,
            _keep: None,
            _fetched: None,
        })
    }

    /// The download of a file fetched for this call only.
    pub(crate) fn fetched(header: DownloadHeader, fetched: FetchedFile) -> Download {
        let (file, guard) = fetched.into_parts();
        Download {
            header,
            file,
            _keep: None,
            _fetched: Some(guard),
        }
    }

    fn of(kept: Kept) -> Result<Download> {
        let file = open(&kept.item)?;
        Ok(Download {
            header: header(&kept.item),
            file,
            _keep: Some(kept),
            _fetched: None,
        })
    }
}

fn header(item: &StoredItem) -> DownloadHeader {
    DownloadHeader {
        media_id: item.media_id.clone(),
        kind: item.kind,
        mime: item.mime.clone(),
        size: item.size,
        sha256: item.sha256.clone(),
        file_name: item.file_name.clone(),
    }
}

fn open(item: &StoredItem) -> Result<std::fs::File> {
    std::fs::File::open(&item.path).map_err(|_| {
        Error::new(
            Kind::MediaNotFound,
            "the media's kept file is gone from the gateway's media store; download it by message_id and segment_index to fetch it from QQ again",
        )
        .with("media_id", &item.media_id)
        .with("cause", "file_gone")
    })
}

/// The error of segment `index` of `message` (id `message_id`) when it is
/// not media: another kind of segment, or no segment at all.
fn not_media(message: &Message, message_id: i64, index: usize) -> Error {
    match message.segments.get(index) {
        Some(seg) => Error::invalid(
            "message.segment_index",
            format!(
                "segment {index} of message {message_id} is a {} segment, not media (image, record, video or file)",
                seg.kind()
            ),
        )
        .with("segment_type", seg.kind()),
        None => Error::new(
            Kind::MediaNotFound,
            format!(
                "message {message_id} has {} segments; there is no segment {index}",
                message.segments.len()
            ),
        )
        .with("segments", message.segments.len())
        .with("cause", "no_segment"),
    }
    .with("message_id", message_id)
    .with("segment_index", index)
}

fn staged_kind(kind: MediaKind) -> ReceivedKind {
    match kind {
        MediaKind::Image => ReceivedKind::Image,
        MediaKind::Video => ReceivedKind::Video,
        MediaKind::File => ReceivedKind::File,
        MediaKind::Voice => ReceivedKind::Record,
    }
}

impl Gateway {
    /// Downloads one media item (see the module docs). The account, the
    /// target and, for received media, the chat against the caller's scope
    /// are checked before any byte is read.
    pub async fn download_media(&self, req: DownloadRequest, ctx: CallCtx) -> Result<Download> {
        let target = req.target.ok_or_else(|| {
            Error::invalid(
                "target",
                "set media_id, or message (message_id and segment_index)",
            )
        })?;
        if let DownloadTarget::Message { segment_index, .. } = &target
            && *segment_index < 0
        {
            return Err(Error::invalid(
                "message.segment_index",
                format!("segment_index must not be negative, got {segment_index}"),
            ));
        }
        let account = self.account(&req.account_id, &ctx)?;
        let received: &Received = self.received();
        let by_message = matches!(target, DownloadTarget::Message { .. });
        let (media_id, segment) = match target {
            DownloadTarget::MediaId(id) if id.trim().is_empty() => {
                return Err(Error::invalid("media_id", "media_id is empty"));
            }
            DownloadTarget::MediaId(id) if !MediaIds::is_received(&id) => {
                return self.download_staged(&account.id, &id, &ctx).await;
            }
            DownloadTarget::MediaId(id) => {
                let segment = received.ids().parse(&account.id, &id);
                (id, segment)
            }
            DownloadTarget::Message {
                message_id,
                segment_index,
            } => {
                let index = usize::try_from(segment_index).unwrap_or(0);
                (
                    received.ids().id(&account.id, message_id, index),
                    Some(SegmentRef { message_id, index }),
                )
            }
        };
        // A tombstone answers a media id; a message and index fetch again.
        let kept = match received.kept(&account.id, &media_id, ctx.deadline).await {
            Err(e) if e.kind == Kind::MediaNotFound && by_message => Ok(None),
            other => other,
        };
        if let Some(item) = kept? {
            ctx.caller.check_chat(item.chat)?;
            return Download::stored(&item);
        }
        let Some(SegmentRef { message_id, index }) = segment else {
            return Err(Error::new(
                Kind::MediaNotFound,
                "the media id is not one of a message this account received, so the gateway never captured it: use a media_id from a segment of this account's messages, or message_id and segment_index",
            )
            .with("media_id", &media_id)
            .with("cause", "never_captured")
            .with("account_id", &account.id));
        };
        let message = account
            .peer
            .media_message(message_id, ctx.deadline)
            .await
            .map_err(|e| match e.kind {
                Kind::MediaNotFound => e.with("cause", "peer_forgot"),
                _ => e,
            })?;
        ctx.caller.check_chat(message.chat)?;
        let Some(media) = ReceivedMedia::of(&message, index) else {
            return Err(not_media(&message, message_id, index));
        };
        // Someone may have started this one meanwhile.
        let fetching = received.store().begin(&account.id, &media_id);
        if fetching.is_none()
            && let Ok(Some(item)) = received.kept(&account.id, &media_id, ctx.deadline).await
        {
            return Download::stored(&item);
        }
        let limit = received.limit(media.kind);
        let result = received
            .fetch(
                &account.id,
                account.peer.as_ref(),
                &media,
                limit,
                ctx.deadline,
            )
            .await;
        if let Some(f) = fetching {
            f.finish(result.as_ref().map(drop).map_err(Clone::clone));
        }
        Download::of(result?)
    }

    async fn download_staged(&self, account_id: &str, id: &str, ctx: &CallCtx) -> Result<Download> {
        let staging: &MediaStore = self.write().media();
        // Under [ha] the bytes may be in the shared store only: fetched here.
        let staged = staging
            .get_local(id, &MediaOwner::of(account_id, &ctx.caller))
            .await?;
        let file = std::fs::File::open(&staged.path).map_err(|_| {
            Error::new(Kind::MediaNotFound, "the media id is unknown or expired")
                .with("media_id", id)
        })?;
        Ok(Download {
            header: DownloadHeader {
                media_id: staged.id,
                kind: staged_kind(staged.kind),
                mime: staged.mime,
                size: staged.size,
                sha256: staged.sha256,
                file_name: staged.file_name,
            },
            file,
            _keep: None,
            _fetched: None,
        })
    }
}
