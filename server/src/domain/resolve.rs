//! Resolving a send's media sources to bytes, before the first frame.
//!
//! Every source ends as a [`ResolvedMedia`]: checked against its kind's
//! size limit and sniffed type, with its bytes either inline (`data`) or
//! behind an open file handle (staged uploads, server paths, fetched URLs),
//! so a sweep or a rename after resolution cannot take them away. Encoding
//! to `base64://` happens frame by frame, streamed from the file into one
//! exactly sized string.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::MediaKind;
use super::media::{
    MediaOwner, MediaStore, SNIFF_BYTES, TransientMedia, check_kind, sanitize_file_name, sniff,
    too_large,
};
use crate::error::{Error, Kind, Result};
use crate::fetch::{Fetcher, parse_url};

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

enum Body {
    Inline(bytes::Bytes),
    File {
        file: std::fs::File,
        // Keeps a fetched download alive until the media is dropped.
        _download: Option<TransientMedia>,
    },
}

/// Media ready to be sent.
pub struct ResolvedMedia {
    /// The kind it is sent as.
    pub kind: MediaKind,
    /// Size in bytes.
    pub size: u64,
    /// Detected MIME type.
    pub mime: String,
    /// Display name from the source (upload name, URL or path base name);
    /// may be empty.
    pub source_name: String,
    body: Body,
}

impl std::fmt::Debug for ResolvedMedia {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolvedMedia")
            .field("kind", &self.kind)
            .field("size", &self.size)
            .field("mime", &self.mime)
            .field("source_name", &self.source_name)
            .finish()
    }
}

fn io_err(what: &str, e: std::io::Error) -> Error {
    Error::internal(format!("{what}: {e}"))
}

impl ResolvedMedia {
    /// The bytes as a `base64://…` URI, encoded in one exactly sized string
    /// (files are read in blocks, never whole).
    pub async fn to_base64_uri(&self) -> Result<String> {
        const PREFIX: &str = "base64://";
        let size = usize::try_from(self.size).map_err(|_| Error::internal("media too large"))?;
        let mut out = String::with_capacity(PREFIX.len() + size.div_ceil(3) * 4);
        out.push_str(PREFIX);
        match &self.body {
            Body::Inline(bytes) => {
                STANDARD.encode_string(bytes, &mut out);
                Ok(out)
            }
            Body::File { file, .. } => {
                let mut file = file.try_clone().map_err(|e| io_err("reading media", e))?;
                tokio::task::spawn_blocking(move || {
                    file.seek(SeekFrom::Start(0))?;
                    // A multiple of 3 so blocks encode without padding.
                    let mut buf = vec![0u8; 3 * 256 * 1024];
                    loop {
                        let n = read_full(&mut file, &mut buf)?;
                        STANDARD.encode_string(&buf[..n], &mut out);
                        if n < buf.len() {
                            return Ok(out);
                        }
                    }
                })
                .await
                .map_err(|e| Error::internal(format!("encoding task failed: {e}")))?
                .map_err(|e| io_err("reading media", e))
            }
        }
    }

    /// Writes the bytes to `dest` (a new file).
    pub async fn copy_to(&self, dest: &Path) -> Result<()> {
        let dest = dest.to_path_buf();
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&dest)
            .map_err(|e| {
                io_err("writing to the shared directory", e).with("path", dest.display())
            })?;
        match &self.body {
            Body::Inline(bytes) => std::io::Write::write_all(&mut out, bytes)
                .map_err(|e| io_err("writing to the shared directory", e)),
            Body::File { file, .. } => {
                let mut file = file.try_clone().map_err(|e| io_err("reading media", e))?;
                tokio::task::spawn_blocking(move || {
                    file.seek(SeekFrom::Start(0))?;
                    std::io::copy(&mut file, &mut out).map(drop)
                })
                .await
                .map_err(|e| Error::internal(format!("copy task failed: {e}")))?
                .map_err(|e| io_err("writing to the shared directory", e))
            }
        }
    }
}

/// Reads until `buf` is full or the end of the file.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Resolves media sources.
#[derive(Debug, Clone)]
pub struct Resolver {
    media: MediaStore,
    fetcher: Fetcher,
    /// Canonical media roots; empty disables `path` sources.
    roots: Vec<PathBuf>,
}

impl Resolver {
    /// A resolver over the staging area, the URL fetcher and the configured
    /// media roots (canonicalised now; a root that does not exist is left out
    /// with a warning).
    pub fn new(media: MediaStore, fetcher: Fetcher, roots: &[PathBuf]) -> Self {
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
            fetcher,
            roots,
        }
    }

    /// Resolves one source as `kind` for `owner`; `field` names it in errors.
    pub async fn resolve(
        &self,
        owner: &MediaOwner,
        kind: MediaKind,
        source: &MediaSource,
        field: &str,
    ) -> Result<ResolvedMedia> {
        let limit = self.media.limit(kind);
        let with_field = |e: Error| e.with("field", field);
        match source {
            MediaSource::MediaId(id) => {
                let staged = self.media.get(id, owner).map_err(with_field)?;
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
                Ok(ResolvedMedia {
                    kind,
                    size: staged.size,
                    mime,
                    source_name: staged.file_name,
                    body: Body::File {
                        file,
                        _download: None,
                    },
                })
            }
            MediaSource::Url(raw) => {
                let url = parse_url(raw, field)?;
                let fetched = self
                    .fetcher
                    .fetch(&url, kind, owner)
                    .await
                    .map_err(with_field)?;
                let file = std::fs::File::open(&fetched.media.path)
                    .map_err(|e| io_err("opening a download", e))?;
                Ok(ResolvedMedia {
                    kind,
                    size: fetched.media.size,
                    mime: fetched.media.mime.clone(),
                    source_name: fetched.file_name,
                    body: Body::File {
                        file,
                        _download: Some(fetched.media),
                    },
                })
            }
            MediaSource::Path(p) => self.resolve_path(kind, p, field).await,
            MediaSource::Data(bytes) => {
                let size = bytes.len() as u64;
                if size > limit {
                    return Err(with_field(too_large(kind, limit)));
                }
                let prefix = bytes.get(..SNIFF_BYTES).unwrap_or(bytes);
                let mime = check_kind(kind, sniff(prefix)).map_err(with_field)?;
                Ok(ResolvedMedia {
                    kind,
                    size,
                    mime,
                    source_name: String::new(),
                    body: Body::Inline(bytes.clone()),
                })
            }
        }
    }

    async fn resolve_path(&self, kind: MediaKind, raw: &str, field: &str) -> Result<ResolvedMedia> {
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
        tokio::task::spawn_blocking(move || -> Result<ResolvedMedia> {
            let not_found = || {
                Error::new(
                    Kind::PathNotFound,
                    "the path does not exist or is not a regular file",
                )
                .with("path", &raw)
                .with("field", &field)
            };
            // Canonicalising resolves `..` and every symlink; what is left
            // must lie under a (canonical) root.
            let canonical = std::fs::canonicalize(&path).map_err(|_| not_found())?;
            if !roots.iter().any(|r| canonical.starts_with(r)) {
                return Err(Error::new(
                    Kind::PathForbidden,
                    "the path is outside the configured media roots",
                )
                .with("path", &raw)
                .with("field", &field));
            }
            let mut file = std::fs::File::open(&canonical).map_err(|_| not_found())?;
            let meta = file.metadata().map_err(|_| not_found())?;
            if !meta.is_file() {
                return Err(not_found());
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
            Ok(ResolvedMedia {
                kind,
                size: meta.len(),
                mime,
                source_name,
                body: Body::File {
                    file,
                    _download: None,
                },
            })
        })
        .await
        .map_err(|e| Error::internal(format!("path task failed: {e}")))?
    }
}

#[cfg(test)]
mod tests;
