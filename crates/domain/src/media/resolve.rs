//! Resolving a send's media sources to bytes, before the first frame.
//!
//! Every source ends as a [`MediaPayload`]: checked against its kind's size
//! limit and sniffed type, with its bytes either inline (`data`) or behind
//! an open file handle (staged uploads, server paths, fetched URLs), so a
//! sweep or a rename after resolution cannot take them away. URLs are
//! fetched through the [`UrlSource`] port.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use url::Url;

use super::ids::MediaIds;
use super::kind::{SNIFF_BYTES, check_kind, sanitize_file_name, sniff, too_large};
use super::received::{Lookup, ReceivedStore, StoredItem};
use super::staging::{MediaOwner, MediaStore, TransientMedia};
use crate::caller::Caller;
use crate::error::{Error, Kind, Result};
use crate::model::media::read_full;
use crate::model::{MediaKind, MediaPayload};
use crate::ports::MediaSink;

/// A URL's bytes, fetched into the staging area for one send.
#[derive(Debug)]
pub struct FetchedMedia {
    /// The bytes (deleted when dropped).
    pub media: TransientMedia,
    /// Display name from the final URL's path, sanitised (may be empty).
    pub file_name: String,
}

/// The port that fetches the media a send names by URL.
#[async_trait::async_trait]
pub trait UrlSource: Send + Sync + 'static {
    /// Fetches `url` as media of `kind` for `owner`, within the kind's size
    /// limit; the error names what was refused (an address, a size, a type).
    async fn fetch(&self, url: &Url, kind: MediaKind, owner: &MediaOwner) -> Result<FetchedMedia>;

    /// Fetches a URL a peer gave for received media (a segment's, or one a
    /// peer action returned) into `sink`: only hosts of
    /// `media.peer_url_hosts`, through the same address guard. Returns the
    /// display name from the final URL's path (may be empty). A CDN's
    /// error answer (a non-2xx status, or a small JSON body with a
    /// `retcode`) fails with `UrlFetchFailed` carrying its text.
    async fn fetch_peer(&self, url: &Url, sink: &mut dyn MediaSink) -> Result<String>;
}

/// Parses a `MediaSource.url` and checks its form (before any fetch):
/// http or https, with a host.
pub fn parse_url(raw: &str, field: &str) -> Result<Url> {
    let url = Url::parse(raw)
        .map_err(|e| Error::invalid(field, format!("not a valid URL: {e}")).with("url", raw))?;
    check_scheme(&url)?;
    if url.host().is_none() {
        return Err(Error::invalid(field, "the URL has no host").with("url", raw));
    }
    Ok(url)
}

/// Refuses every scheme but http and https (`UrlForbidden`).
pub fn check_scheme(url: &Url) -> Result<()> {
    match url.scheme() {
        "http" | "https" => Ok(()),
        other => Err(Error::new(
            Kind::UrlForbidden,
            format!("only http and https URLs are fetched, not {other}"),
        )
        .with("url", url.as_str())
        .with("scheme", other)),
    }
}

/// Where a media item's bytes come from (the request's `MediaSource`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MediaSource {
    /// An UploadMedia id.
    MediaId(String),
    /// An http(s) URL the gateway fetches.
    Url(String),
    /// An absolute path under the media roots.
    Path(String),
    /// Inline bytes (shared, so resolving and fingerprinting never copy
    /// them).
    Data(bytes::Bytes),
}

impl MediaSource {
    /// Checks what can be checked without I/O: a parseable http(s) URL, an
    /// absolute path, non-empty ids and data.
    pub fn validate(&self, field: &str) -> Result<()> {
        match self {
            MediaSource::MediaId(id) if id.is_empty() => {
                Err(Error::invalid(field, "media_id is empty"))
            }
            MediaSource::Data(d) if d.is_empty() => Err(Error::invalid(field, "data is empty")),
            MediaSource::Url(u) => parse_url(u, field).map(drop),
            MediaSource::Path(p) if !Path::new(p).is_absolute() => {
                Err(Error::invalid(field, "path must be absolute").with("path", p))
            }
            _ => Ok(()),
        }
    }
}

/// Opens `path` for reading without blocking on a special file.
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    options.open(path)
}

fn io_err(what: &str, e: std::io::Error) -> Error {
    Error::internal(format!("{what}: {e}"))
}

/// Resolves media sources.
#[derive(Clone)]
pub struct Resolver {
    media: MediaStore,
    urls: Arc<dyn UrlSource>,
    /// Canonical media roots; empty disables `path` sources.
    roots: Vec<PathBuf>,
    /// Received media, usable by their media ids.
    received: Option<ReceivedStore>,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("media", &self.media)
            .field("roots", &self.roots)
            .finish_non_exhaustive()
    }
}

impl Resolver {
    /// A resolver over the staging area, the URL fetcher and the configured
    /// media roots (canonicalised now; a root that does not exist is left out
    /// with a warning).
    pub fn new(media: MediaStore, urls: Arc<dyn UrlSource>, roots: &[PathBuf]) -> Self {
        let roots = roots
            .iter()
            .filter_map(|r| match std::fs::canonicalize(r) {
                Ok(c) => Some(c),
                Err(e) => {
                    tracing::warn!(root = %r.display(), error = %e, "media root unusable");
                    None
                }
            })
            .collect();
        Self {
            media,
            urls,
            roots,
            received: None,
        }
    }

    /// Also resolves the media ids of received media kept in `received`
    /// (forwarding what was received).
    pub fn with_received(mut self, received: Option<ReceivedStore>) -> Self {
        self.received = received;
        self
    }

    /// A received media id as a payload of `kind`: kept bytes of the
    /// owner's account, checked like an upload.
    async fn resolve_received(
        &self,
        owner: &MediaOwner,
        caller: &Caller,
        kind: MediaKind,
        id: &str,
        limit: u64,
    ) -> Result<MediaPayload> {
        // Metadata `cause` says which: `not_kept` (this gateway keeps no
        // received media), `never_captured` (not this account's), `expired`
        // / `evicted` (kept once, gone from the store), `not_fetched` (known,
        // never downloaded), `file_gone` (its kept file vanished).
        let not_kept = |cause: &str, why: &str| {
            Error::new(
                Kind::MediaNotFound,
                format!("the received media id {id} has no bytes in the gateway to send: {why}"),
            )
            .with("media_id", id)
            .with("cause", cause)
        };
        let Some(received) = &self.received else {
            return Err(not_kept(
                "not_kept",
                "this gateway keeps no received media (media capture is off); send it by URL or path instead",
            ));
        };
        if received.ids().parse(&owner.account_id, id).is_none() {
            return Err(not_kept(
                "never_captured",
                "it is not a media id of a message this account received",
            ));
        }
        let until = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        let _ = received.wait(&owner.account_id, id, Some(until)).await;
        let lookup = received.lookup(&owner.account_id, id);
        // The caller's chat scope holds for the chat the media came from.
        if let Lookup::Stored(StoredItem { chat, .. }) | Lookup::Gone(_, _, chat) = &lookup {
            caller.check_source_chat(*chat, &format!("the received media id {id}"))?;
        }
        let item = match lookup {
            Lookup::Stored(item) => item,
            Lookup::Gone(super::received::Gone::Expired, ..) => {
                return Err(not_kept(
                    "expired",
                    "it expired from the gateway's media store (media.capture.ttl_secs); download it by message_id and segment_index to fetch it from QQ again, then send it",
                ));
            }
            Lookup::Gone(super::received::Gone::Evicted, ..) => {
                return Err(not_kept(
                    "evicted",
                    "it was evicted from the gateway's media store to make room (media.capture.quota_bytes); download it by message_id and segment_index to fetch it from QQ again, then send it",
                ));
            }
            Lookup::Unknown => {
                return Err(not_kept(
                    "not_fetched",
                    "the gateway has not fetched it yet; download it once with DownloadMedia, then send it",
                ));
            }
        };
        if item.size > limit {
            return Err(too_large(kind, limit).with("media_id", id));
        }
        let mime = check_kind(kind, Some(&item.mime))?;
        // Bytes no gateway has any more fail the open below.
        received.ensure_local(&owner.account_id, &item).await?;
        let file = std::fs::File::open(&item.path).map_err(|_| {
            not_kept(
                "file_gone",
                "its kept file is gone; download it by message_id and segment_index to fetch it from QQ again, then send it",
            )
        })?;
        Ok(MediaPayload::file(
            kind,
            mime,
            item.file_name,
            item.size,
            file,
            None,
        ))
    }

    /// Resolves one source as `kind` for `owner` and `caller` (whose chat
    /// scope holds for the chat a received media id came from); `field`
    /// names it in errors.
    pub async fn resolve(
        &self,
        owner: &MediaOwner,
        caller: &Caller,
        kind: MediaKind,
        source: &MediaSource,
        field: &str,
    ) -> Result<MediaPayload> {
        let limit = self.media.limit(kind);
        let with_field = |e: Error| e.with("field", field);
        match source {
            MediaSource::MediaId(id) if MediaIds::is_received(id) => self
                .resolve_received(owner, caller, kind, id, limit)
                .await
                .map_err(with_field),
            MediaSource::MediaId(id) => {
                let staged = self.media.get_local(id, owner).await.map_err(with_field)?;
                if staged.size > limit {
                    return Err(with_field(too_large(kind, limit).with("media_id", id)));
                }
                let mime = check_kind(kind, Some(&staged.mime)).map_err(with_field)?;
                let file = std::fs::File::open(&staged.path).map_err(|_| {
                    with_field(
                        Error::new(Kind::MediaNotFound, "the media id is unknown or expired")
                            .with("media_id", id),
                    )
                })?;
                Ok(MediaPayload::file(
                    kind,
                    mime,
                    staged.file_name,
                    staged.size,
                    file,
                    None,
                ))
            }
            MediaSource::Url(raw) => {
                let url = parse_url(raw, field)?;
                let fetched = self
                    .urls
                    .fetch(&url, kind, owner)
                    .await
                    .map_err(with_field)?;
                let file = std::fs::File::open(&fetched.media.path)
                    .map_err(|e| io_err("opening a download", e))?;
                Ok(MediaPayload::file(
                    kind,
                    fetched.media.mime.clone(),
                    fetched.file_name,
                    fetched.media.size,
                    file,
                    Some(Box::new(fetched.media)),
                ))
            }
            MediaSource::Path(p) => self.resolve_path(kind, p, field).await,
            MediaSource::Data(bytes) => {
                let size = bytes.len() as u64;
                if size > limit {
                    return Err(with_field(too_large(kind, limit)));
                }
                let prefix = bytes.get(..SNIFF_BYTES).unwrap_or(bytes);
                let mime = check_kind(kind, sniff(prefix)).map_err(with_field)?;
                Ok(MediaPayload::inline(
                    kind,
                    mime,
                    String::new(),
                    bytes.clone(),
                ))
            }
        }
    }

    async fn resolve_path(&self, kind: MediaKind, raw: &str, field: &str) -> Result<MediaPayload> {
        if self.roots.is_empty() {
            return Err(Error::new(
                Kind::MediaSourceDisabled,
                "server-side paths are disabled (no media.media_roots configured)",
            )
            .with("field", field));
        }
        let path = PathBuf::from(raw);
        if !path.is_absolute() {
            return Err(Error::invalid(field, "path must be absolute").with("path", raw));
        }
        let roots = self.roots.clone();
        let limit = self.media.limit(kind);
        let field = field.to_string();
        let raw = raw.to_string();
        tokio::task::spawn_blocking(move || -> Result<MediaPayload> {
            // A path outside the roots and a path that does not exist get
            // the same answer: anything else would tell a caller which
            // files exist anywhere on the machine.
            let forbidden = || {
                Error::new(
                    Kind::PathForbidden,
                    "the path is outside the configured media roots or does not exist",
                )
                .with("path", &raw)
                .with("field", &field)
            };
            let not_a_file = || {
                Error::new(
                    Kind::PathNotFound,
                    "the path under the media roots is not a readable regular file",
                )
                .with("path", &raw)
                .with("field", &field)
            };
            // Canonicalising resolves `..` and every symlink; what is left
            // must lie under a (canonical) root.
            let canonical = std::fs::canonicalize(&path).map_err(|_| forbidden())?;
            if !roots.iter().any(|r| canonical.starts_with(r)) {
                return Err(forbidden());
            }
            // Special files (FIFOs, devices, sockets) are refused before
            // they are opened: opening a FIFO blocks until a writer comes.
            // The canonical path has no symlink left, so this is the file's
            // own type.
            let meta = std::fs::symlink_metadata(&canonical).map_err(|_| forbidden())?;
            if !meta.is_file() {
                return Err(not_a_file());
            }
            // Non-blocking, in case the file is swapped for a FIFO between
            // the check and the open; the handle's own type is checked again.
            let mut file = open_nonblocking(&canonical).map_err(|_| not_a_file())?;
            let meta = file.metadata().map_err(|_| not_a_file())?;
            if !meta.is_file() {
                return Err(not_a_file());
            }
            if meta.len() > limit {
                return Err(too_large(kind, limit)
                    .with("path", &raw)
                    .with("field", &field));
            }
            let mut prefix = vec![0u8; SNIFF_BYTES];
            let n = read_full(&mut file, &mut prefix).map_err(|e| io_err("reading a path", e))?;
            prefix.truncate(n);
            let mime = check_kind(kind, sniff(&prefix)).map_err(|e| e.with("field", &field))?;
            let source_name = canonical
                .file_name()
                .map(|n| sanitize_file_name(&n.to_string_lossy()))
                .unwrap_or_default();
            Ok(MediaPayload::file(
                kind,
                mime,
                source_name,
                meta.len(),
                file,
                None,
            ))
        })
        .await
        .map_err(|e| Error::internal(format!("path task failed: {e}")))?
    }
}
