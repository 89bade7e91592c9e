//! Media: the kinds a send carries, and the bytes of one media item ready to
//! go to a peer.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;

/// Kind of media (upload limits, segment type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaKind {
    /// An image.
    Image,
    /// A video.
    Video,
    /// A group file.
    File,
    /// A voice message (`record`).
    Voice,
}

impl MediaKind {
    /// Every kind.
    pub const ALL: [MediaKind; 4] = [
        MediaKind::Image,
        MediaKind::Video,
        MediaKind::File,
        MediaKind::Voice,
    ];

    /// Lower-case name (`image`, `video`, `file`, `voice`).
    pub fn name(self) -> &'static str {
        match self {
            MediaKind::Image => "image",
            MediaKind::Video => "video",
            MediaKind::File => "file",
            MediaKind::Voice => "voice",
        }
    }

    /// The kind of a lower-case name.
    pub fn from_name(name: &str) -> Option<MediaKind> {
        MediaKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

enum Body {
    Inline(bytes::Bytes),
    File {
        file: Arc<std::fs::File>,
        // Keeps what the bytes belong to (a download deleted when dropped)
        // alive as long as the payload.
        _keep: Option<Box<dyn Send + Sync>>,
    },
}

/// One media item ready to be sent: checked against its kind's limit and
/// sniffed type, with its bytes inline or behind an open file handle (so a
/// sweep or a rename after it was resolved cannot take them away).
pub struct MediaPayload {
    /// The kind it is sent as.
    pub kind: MediaKind,
    /// Size in bytes.
    pub size: u64,
    /// Detected MIME type.
    pub mime: String,
    /// Display name from its source (upload name, URL or path base name);
    /// may be empty.
    pub source_name: String,
    body: Body,
}

impl std::fmt::Debug for MediaPayload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaPayload")
            .field("kind", &self.kind)
            .field("size", &self.size)
            .field("mime", &self.mime)
            .field("source_name", &self.source_name)
            .finish()
    }
}

/// Reads a [`MediaPayload`]'s bytes from the start.
pub enum PayloadReader {
    /// Inline bytes.
    Inline(std::io::Cursor<bytes::Bytes>),
    /// A file handle of its own.
    File(std::fs::File),
}

impl Read for PayloadReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            PayloadReader::Inline(c) => c.read(buf),
            PayloadReader::File(f) => f.read(buf),
        }
    }
}

impl MediaPayload {
    /// A payload of inline bytes.
    pub fn inline(kind: MediaKind, mime: String, source_name: String, bytes: bytes::Bytes) -> Self {
        Self {
            kind,
            size: bytes.len() as u64,
            mime,
            source_name,
            body: Body::Inline(bytes),
        }
    }

    /// A payload of `size` bytes in `file`; `keep` lives as long as the
    /// payload (for example a temporary download removed when dropped).
    pub fn file(
        kind: MediaKind,
        mime: String,
        source_name: String,
        size: u64,
        file: std::fs::File,
        keep: Option<Box<dyn Send + Sync>>,
    ) -> Self {
        Self {
            kind,
            size,
            mime,
            source_name,
            body: Body::File {
                file: Arc::new(file),
                _keep: keep,
            },
        }
    }

    /// A reader over the bytes from their start. Reading blocks: call it
    /// off the async threads (for example in `spawn_blocking`).
    pub fn reader(&self) -> std::io::Result<PayloadReader> {
        match &self.body {
            Body::Inline(bytes) => Ok(PayloadReader::Inline(std::io::Cursor::new(bytes.clone()))),
            Body::File { file, .. } => {
                let mut file = file.try_clone()?;
                file.seek(SeekFrom::Start(0))?;
                Ok(PayloadReader::File(file))
            }
        }
    }

    /// A handle on the bytes that reads at any offset and can outlive the
    /// payload (a file stays open as long as a handle does).
    pub fn source(&self) -> PayloadSource {
        match &self.body {
            Body::Inline(bytes) => PayloadSource::Inline(bytes.clone()),
            Body::File { file, .. } => PayloadSource::File(file.clone()),
        }
    }

    /// The bytes when they are held in memory.
    pub fn inline_bytes(&self) -> Option<&bytes::Bytes> {
        match &self.body {
            Body::Inline(bytes) => Some(bytes),
            Body::File { .. } => None,
        }
    }
}

/// A payload's bytes by offset: readers share no file position, so any
/// number may read at once, each from where it is.
#[derive(Clone)]
pub enum PayloadSource {
    /// Bytes in memory.
    Inline(bytes::Bytes),
    /// An open file.
    File(Arc<std::fs::File>),
}

impl PayloadSource {
    /// Fills `buf` with the bytes at `offset`; an error when fewer are
    /// there (the file shrank). Reading a file blocks: call it off the
    /// async threads.
    pub fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
        let short = || {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the media file is shorter than when it was staged",
            )
        };
        match self {
            PayloadSource::Inline(bytes) => {
                let start = usize::try_from(offset).map_err(|_| short())?;
                let end = start.checked_add(buf.len()).ok_or_else(short)?;
                let part = bytes.get(start..end).ok_or_else(short)?;
                buf.copy_from_slice(part);
                Ok(())
            }
            PayloadSource::File(file) => read_file_at(file, buf, offset).map_err(|e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    short()
                } else {
                    e
                }
            }),
        }
    }
}

impl PayloadSource {
    /// Its first `size` bytes as a stream of blocks of at most `block`
    /// bytes, each read and passed through `map` off the async threads (a
    /// file read blocks), one block at a time as the stream is polled.
    pub fn blocks(
        self,
        size: u64,
        block: u64,
        map: fn(Vec<u8>) -> bytes::Bytes,
    ) -> impl futures_util::Stream<Item = std::io::Result<bytes::Bytes>> + Send + 'static {
        futures_util::stream::try_unfold(0u64, move |offset| {
            let source = self.clone();
            async move {
                if offset >= size {
                    return Ok(None);
                }
                let n = (size - offset).min(block.max(1));
                let len = usize::try_from(n).map_err(std::io::Error::other)?;
                let read = move || {
                    let mut buf = vec![0u8; len];
                    source.read_exact_at(&mut buf, offset)?;
                    Ok::<_, std::io::Error>(map(buf))
                };
                let out = tokio::task::spawn_blocking(read)
                    .await
                    .map_err(std::io::Error::other)??;
                Ok(Some((out, offset + n)))
            }
        })
    }
}

#[cfg(unix)]
fn read_file_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
fn read_file_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    let mut own = file.try_clone()?;
    own.seek(SeekFrom::Start(offset))?;
    own.read_exact(buf)
}

/// Whether `s` is an `http://` or `https://` URL, the scheme in any case.
pub fn is_http_url(s: &str) -> bool {
    let scheme = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    scheme.starts_with("http://") || scheme.starts_with("https://")
}

/// Reads from `r` until `buf` is full or the end of the stream; returns how
/// many bytes were read.
pub fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::is_http_url;

    #[test]
    fn http_urls_are_told_by_their_scheme_in_any_case() {
        for url in [
            "http://a/b.png",
            "https://a/b.png",
            "HTTPS://A/B.PNG",
            "Http://x",
        ] {
            assert!(is_http_url(url), "{url}");
        }
        for other in ["/tmp/a.png", "media:m1", "ftp://a/b", "https:", "", "htt"] {
            assert!(!is_http_url(other), "{other}");
        }
    }
}
