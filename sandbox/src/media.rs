//! Media sources in outgoing messages and uploads (`file` values).
//!
//! `base64://` is decoded and hashed, `http(s)://` is only recorded (the sandbox never fetches),
//! `file://` and bare paths are recorded and, when the file exists locally, read and hashed.
//! The bytes the sandbox had are kept with the result: received media are stored as files and
//! served like the seed's (see `files`).

use base64::Engine as _;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::{DecodePaddingMode, general_purpose};
use bytes::Bytes;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// What kind of media the peer received.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MediaKind {
    /// An `image` segment.
    Image,
    /// A `video` segment.
    Video,
    /// A `record` (voice) segment.
    Record,
    /// A `file` segment or an `upload_group_file` call.
    File,
}

impl MediaKind {
    pub(crate) fn from_segment_type(kind: &str) -> Option<MediaKind> {
        match kind {
            "image" => Some(MediaKind::Image),
            "video" => Some(MediaKind::Video),
            "record" => Some(MediaKind::Record),
            "file" => Some(MediaKind::File),
            _ => None,
        }
    }

    fn extension(self) -> &'static str {
        match self {
            MediaKind::Image => "jpg",
            MediaKind::Video => "mp4",
            MediaKind::Record => "amr",
            MediaKind::File => "bin",
        }
    }
}

/// Where the media bytes came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum MediaSource {
    /// Inline `base64://…` (or a `data:…;base64,` URI): decoded by the sandbox.
    Base64,
    /// An `http(s)://` URL: recorded, never fetched.
    Url(String),
    /// A `file://` URI or bare path (the path without the scheme).
    Path(String),
}

/// One piece of media the peer received through a send or an upload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReceivedMedia {
    /// Segment kind (or `File` for uploads).
    pub kind: MediaKind,
    /// Lower-case hex SHA-256 of the bytes, when the sandbox had them (base64, or an existing local file).
    pub sha256: Option<String>,
    /// Length of the bytes, when known.
    pub len: Option<u64>,
    /// Where the bytes came from.
    pub source: MediaSource,
    /// Target group, for group sends and uploads.
    pub group_id: Option<i64>,
    /// Target user, for private sends.
    pub user_id: Option<i64>,
    /// File name given by the client (`name` of a segment or upload), if any.
    pub name: Option<String>,
}

/// Digest of decoded bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Digested {
    pub sha256: String,
    pub len: u64,
}

/// Decoded bytes with their digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decoded {
    pub digest: Digested,
    pub bytes: Bytes,
}

/// A resolved media value, before it is attributed to a chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loaded {
    pub source: MediaSource,
    pub digest: Option<Digested>,
    /// The bytes, when the sandbox had them (as for `digest`).
    pub bytes: Option<Bytes>,
}

impl Loaded {
    /// A stable file name for the stored segment (never the inline data itself).
    pub(crate) fn stored_name(&self, kind: MediaKind) -> String {
        match (&self.digest, &self.source) {
            (Some(d), _) => format!("{}.{}", &d.sha256[..16], kind.extension()),
            (None, MediaSource::Url(u)) | (None, MediaSource::Path(u)) => u
                .rsplit('/')
                .next()
                .filter(|s| !s.is_empty())
                .unwrap_or(u)
                .to_owned(),
            (None, MediaSource::Base64) => format!("unknown.{}", kind.extension()),
        }
    }
}

/// Why a media value could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MediaError {
    #[error("file 参数为空")]
    Empty,
    #[error("base64 解码失败")]
    BadBase64,
}

/// Decoded-digest cache for one request: the action log hashes every inline `base64://` value
/// of the request first, so the handler (which works on copies of those strings) does not
/// decode and hash the same, possibly 40 MiB, payload twice. Lookups compare the full text.
#[derive(Debug, Default)]
pub(crate) struct DigestCache<'a> {
    seen: Vec<(&'a str, Option<Decoded>)>,
}

impl<'a> DigestCache<'a> {
    fn lookup(&self, payload: &str) -> Option<Option<Decoded>> {
        self.seen
            .iter()
            .find(|(s, _)| s.len() == payload.len() && *s == payload)
            .map(|(_, d)| d.clone())
    }

    /// Digest of a `base64://` payload (without the prefix), remembered for later lookups;
    /// `None` when it is not valid base64.
    pub(crate) fn remember(&mut self, payload: &'a str) -> Option<Digested> {
        if let Some(d) = self.lookup(payload) {
            return d.map(|d| d.digest);
        }
        let d = decode(payload);
        self.seen.push((payload, d.clone()));
        d.map(|d| d.digest)
    }

    /// The decoded payload, from the cache when the same text was seen before.
    pub(crate) fn decoded(&self, payload: &str) -> Option<Decoded> {
        self.lookup(payload).unwrap_or_else(|| decode(payload))
    }
}

fn decode(payload: &str) -> Option<Decoded> {
    decode_base64(payload).map(|bytes| Decoded {
        digest: digest(&bytes),
        bytes: Bytes::from(bytes),
    })
}

pub(crate) fn digest(bytes: &[u8]) -> Digested {
    Digested {
        sha256: hex::encode(Sha256::digest(bytes)),
        len: bytes.len() as u64,
    }
}

const LENIENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, LENIENT);
const URL_SAFE: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, LENIENT);

/// Decodes base64 like Node's `Buffer.from(s, "base64")` would accept it: either alphabet,
/// padding optional, whitespace ignored.
pub(crate) fn decode_base64(payload: &str) -> Option<Vec<u8>> {
    if let Ok(b) = STANDARD.decode(payload) {
        return Some(b);
    }
    if let Ok(b) = URL_SAFE.decode(payload) {
        return Some(b);
    }
    let compact: String = payload.chars().filter(|c| !c.is_whitespace()).collect();
    STANDARD
        .decode(&compact)
        .or_else(|_| URL_SAFE.decode(&compact))
        .or_else(|_| general_purpose::STANDARD.decode(&compact))
        .ok()
}

/// The base64 payload of an inline media value (`base64://…` or `data:…;base64,…`).
pub(crate) fn base64_payload(value: &str) -> Option<&str> {
    if let Some(p) = value.strip_prefix("base64://") {
        return Some(p);
    }
    let rest = value.strip_prefix("data:")?;
    let (_, payload) = rest.split_once(";base64,")?;
    Some(payload)
}

/// Resolves a `file` value.
pub(crate) fn load(value: &str, cache: &DigestCache<'_>) -> Result<Loaded, MediaError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(MediaError::Empty);
    }
    if let Some(payload) = base64_payload(value) {
        let decoded = cache.decoded(payload).ok_or(MediaError::BadBase64)?;
        return Ok(Loaded {
            source: MediaSource::Base64,
            digest: Some(decoded.digest),
            bytes: Some(decoded.bytes),
        });
    }
    let lower = value.get(..8).unwrap_or(value).to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Ok(Loaded {
            source: MediaSource::Url(value.to_owned()),
            digest: None,
            bytes: None,
        });
    }
    let path = value.strip_prefix("file://").unwrap_or(value);
    // `file:///C:/x` on Windows: drop the slash before the drive letter.
    let path = match path.as_bytes() {
        [b'/', d, b':', ..] if d.is_ascii_alphabetic() => &path[1..],
        _ => path,
    };
    let bytes = std::fs::read(path).ok().map(Bytes::from);
    Ok(Loaded {
        source: MediaSource::Path(path.to_owned()),
        digest: bytes.as_deref().map(digest),
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_each_source() {
        let cache = DigestCache::default();
        let l = load("base64://aGVsbG8=", &cache).unwrap();
        assert_eq!(l.source, MediaSource::Base64);
        let d = l.digest.unwrap();
        assert_eq!(d.len, 5);
        assert_eq!(l.bytes.as_deref(), Some(&b"hello"[..]));
        assert_eq!(
            d.sha256,
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        // Unpadded and data: URIs are accepted too.
        assert!(load("base64://aGVsbG8", &cache).unwrap().digest.is_some());
        assert!(
            load("data:image/png;base64,aGVsbG8=", &cache)
                .unwrap()
                .digest
                .is_some()
        );
        assert_eq!(load("base64://***", &cache), Err(MediaError::BadBase64));
        assert_eq!(
            load("https://example.com/a.png", &cache).unwrap().source,
            MediaSource::Url("https://example.com/a.png".into())
        );
        let l = load("file:///definitely/not/here.png", &cache).unwrap();
        assert_eq!(
            l.source,
            MediaSource::Path("/definitely/not/here.png".into())
        );
        assert_eq!(l.digest, None);
        assert_eq!(load("  ", &cache), Err(MediaError::Empty));
    }
}
