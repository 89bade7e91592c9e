//! What the gateway sends, as OneBot JSON per flavor: message segments,
//! media as `base64://` or (go-cqhttp, which cannot take base64 for videos
//! and files) as a copy in the shared directory, and which media a flavor
//! cannot take at all.
//!
//! Media are not encoded here: the message holds a placeholder for each
//! ([`LazyBase64`]), and the transport encodes the bytes block by block as
//! it writes the frame. [`base64_uri`] builds the whole string where one
//! is needed at once.

use std::path::PathBuf;

use rand::Rng as _;
use serde_json::Value;

use super::flavor::Flavor;
use onebot_gateway_config::SharedDir;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::media::{PayloadSource, read_full};
use onebot_gateway_domain::model::{MediaKind, MediaPayload};
use onebot_gateway_domain::ports::OutSegment;

/// The prefix of an inline media string.
pub const BASE64_PREFIX: &str = "base64://";

/// Media bytes that go into the JSON text as a `base64://` string, encoded
/// only when the text is written. In the parameters they stand as
/// [`placeholder`](Self::placeholder), a string no client text can match
/// (it holds 128 random bits) and that only this call's body replaces.
#[derive(Clone)]
pub struct LazyBase64 {
    key: String,
    source: PayloadSource,
    size: u64,
}

impl std::fmt::Debug for LazyBase64 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyBase64")
            .field("size", &self.size)
            .finish()
    }
}

impl LazyBase64 {
    /// `size` bytes of `source`.
    pub fn new(source: PayloadSource, size: u64) -> Self {
        let mut nonce = [0u8; 16];
        rand::rng().fill(&mut nonce);
        Self {
            key: format!("\u{0}ogw-media-{}", hex::encode(nonce)),
            source,
            size,
        }
    }

    /// The string that stands for the media in the parameters.
    pub fn placeholder(&self) -> Value {
        Value::String(self.key.clone())
    }

    /// The bytes.
    pub fn source(&self) -> &PayloadSource {
        &self.source
    }

    /// How many bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The placeholder's text.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Length of the base64 text (without the prefix).
    pub fn encoded_len(&self) -> usize {
        usize::try_from(self.size.div_ceil(3) * 4).unwrap_or(usize::MAX)
    }
}

/// A JSON object of `fields`, moved in. `json!` would copy every
/// interpolated value (it serializes them by reference), and the message of
/// a media send holds tens of MiB of base64.
pub fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

/// Fails with `UnsupportedByPeer` when `flavor` cannot take media of `kind`
/// at all: go-cqhttp takes videos and files only from a path it can read,
/// so without a shared directory it takes neither.
pub fn check_media(flavor: Flavor, shared: Option<&SharedDir>, kind: MediaKind) -> Result<()> {
    let needs_path = matches!(kind, MediaKind::Video | MediaKind::File);
    if flavor == Flavor::GoCqhttp && needs_path && shared.is_none() {
        return Err(unsupported_by_peer(kind));
    }
    Ok(())
}

fn unsupported_by_peer(kind: MediaKind) -> Error {
    Error::new(
        Kind::UnsupportedByPeer,
        format!(
            "go-cqhttp cannot take a {} as base64 and no shared_dir is configured for this account",
            kind.name()
        ),
    )
    .with("flavor", "go-cqhttp")
    .with("kind", kind.name())
}

/// A message ready to send: its segment array, the media its placeholders
/// stand for (encoded as the frame is written), and the shared copies it
/// refers to (removed when this is dropped, after the send).
pub struct Encoded {
    /// The `message` value of `send_*_msg`.
    pub message: Value,
    /// The media of the message's placeholders.
    pub media: Vec<LazyBase64>,
    /// Copies in the shared directory the message names.
    pub copies: Vec<SharedCopy>,
}

/// Encodes `segments` for `flavor`.
pub async fn message(
    flavor: Flavor,
    shared: Option<&SharedDir>,
    segments: &[OutSegment<'_>],
) -> Result<Encoded> {
    let mut out = Vec::with_capacity(segments.len());
    let mut media = Vec::new();
    let mut copies = Vec::new();
    for segment in segments {
        let value = match *segment {
            OutSegment::Text(text) => object([
                ("type", Value::String("text".into())),
                ("data", object([("text", Value::String(text.to_owned()))])),
            ]),
            // Images go as base64 on every flavor.
            OutSegment::Image(payload) => media_segment("image", lazy(payload, &mut media)),
            OutSegment::Video(payload) => {
                let file = peer_file(flavor, shared, payload, "video.mp4", true).await?;
                copies.extend(file.copy);
                media.extend(file.media);
                media_segment("video", file.file)
            }
            // Voice goes as base64 on every flavor (at most 10 MiB by
            // default; only `file` is set: NapCat prefers `url` over it).
            OutSegment::Voice(payload) => media_segment("record", lazy(payload, &mut media)),
            OutSegment::Reply(id) => reply_segment(id),
            OutSegment::At(user_id) => at_segment(&user_id.to_string()),
            OutSegment::AtAll => at_segment("all"),
        };
        out.push(value);
    }
    Ok(Encoded {
        message: Value::Array(out),
        media,
        copies,
    })
}

/// How the peer gets one file: the `file` value, the media it stands for
/// when inline, and the shared copy it names, if any.
pub struct PeerFile {
    /// The `file` parameter (a placeholder, a path or a `file://` URI).
    pub file: Value,
    /// The media of the placeholder, when `file` is one.
    pub media: Option<LazyBase64>,
    /// The copy in the shared directory, removed when dropped.
    pub copy: Option<SharedCopy>,
}

/// The `file` of `upload_group_file` for `media` named `name`.
pub async fn upload_file(
    flavor: Flavor,
    shared: Option<&SharedDir>,
    media: &MediaPayload,
    name: &str,
) -> Result<PeerFile> {
    peer_file(flavor, shared, media, name, false).await
}

/// Replaces each of `media`'s placeholders in `value` with its whole
/// `base64://` string (for peers that take a JSON value, not a frame).
pub async fn inline_media(value: &mut Value, media: &[LazyBase64]) -> Result<()> {
    for m in media {
        let source = m.source().clone();
        let size = usize::try_from(m.size()).map_err(|_| Error::internal("media too large"))?;
        let text = tokio::task::spawn_blocking(move || {
            let mut raw = vec![0u8; size];
            source.read_exact_at(&mut raw, 0)?;
            let mut text = String::with_capacity(BASE64_PREFIX.len() + size.div_ceil(3) * 4);
            text.push_str(BASE64_PREFIX);
            base64_simd::STANDARD.encode_append(&raw, &mut text);
            Ok::<_, std::io::Error>(text)
        })
        .await
        .map_err(|e| Error::internal(format!("encoding task failed: {e}")))?
        .map_err(|e| io_err("reading media", e))?;
        replace_string(value, m.key(), text);
    }
    Ok(())
}

fn replace_string(value: &mut Value, key: &str, with: String) {
    match value {
        Value::String(s) if s == key => *s = with,
        Value::Array(items) => {
            for item in items {
                replace_string(item, key, with.clone());
            }
        }
        Value::Object(map) => {
            for v in map.values_mut() {
                replace_string(v, key, with.clone());
            }
        }
        _ => {}
    }
}

/// The placeholder of `payload`'s base64, noting it in `media`.
fn lazy(payload: &MediaPayload, media: &mut Vec<LazyBase64>) -> Value {
    let lazy = LazyBase64::new(payload.source(), payload.size);
    let placeholder = lazy.placeholder();
    media.push(lazy);
    placeholder
}

/// The quote of message `id`: `reply {id}` with the id as a string, which
/// every flavor takes (the CQ-code form of the data: Lagrange reads it
/// into a string field and refuses a number; go-cqhttp, NapCat, LLOneBot
/// and SnowLuma parse either). NapCat also takes `seq`, never needed with
/// the id; go-cqhttp moves the quote to the front itself, the others keep
/// the order given, which puts it first.
fn reply_segment(id: i64) -> Value {
    let data = object([("id", Value::String(id.to_string()))]);
    object([("type", Value::String("reply".into())), ("data", data)])
}

/// A mention of `target` (a QQ number or `all`): `at {qq}` with `qq` a
/// string, which every flavor takes. LLOneBot and go-cqhttp would show a `name`
/// instead of looking the member up; the gateway sends none, so every peer
/// shows the member's current name.
fn at_segment(target: &str) -> Value {
    let data = object([("qq", Value::String(target.to_owned()))]);
    object([("type", Value::String("at".into())), ("data", data)])
}

/// A one-segment message carrying `file`, moved in.
fn media_segment(kind: &str, file: Value) -> Value {
    object([
        ("type", Value::String(kind.to_string())),
        ("data", object([("file", file)])),
    ])
}

/// How the peer gets a video or file: `base64://`, or on go-cqhttp (which
/// cannot take base64 there) a copy in the shared directory, removed when
/// the returned copy drops.
async fn peer_file(
    flavor: Flavor,
    shared: Option<&SharedDir>,
    media: &MediaPayload,
    name: &str,
    as_uri: bool,
) -> Result<PeerFile> {
    if flavor != Flavor::GoCqhttp {
        let mut lazies = Vec::with_capacity(1);
        let file = lazy(media, &mut lazies);
        return Ok(PeerFile {
            file,
            media: lazies.pop(),
            copy: None,
        });
    }
    let Some(shared) = shared else {
        return Err(unsupported_by_peer(media.kind));
    };
    let file_name = format!(
        "ogw-{}-{}",
        onebot_gateway_domain::media::staging::random_hex(8),
        safe_component(name)
    );
    let local = shared.local.join(&file_name);
    copy_to(media, &local).await?;
    let guard = SharedCopy(local);
    let peer = shared.peer.join(&file_name);
    let peer = peer.to_string_lossy().into_owned();
    let file = if as_uri {
        format!("file://{peer}")
    } else {
        peer
    };
    Ok(PeerFile {
        file: Value::String(file),
        media: None,
        copy: Some(guard),
    })
}

fn io_err(what: &str, e: std::io::Error) -> Error {
    Error::internal(format!("{what}: {e}"))
}

/// The bytes as a `base64://…` URI, encoded in one exactly sized string
/// (files are read in blocks, never whole).
pub async fn base64_uri(media: &MediaPayload) -> Result<String> {
    const PREFIX: &str = "base64://";
    let size = usize::try_from(media.size).map_err(|_| Error::internal("media too large"))?;
    let mut out = String::with_capacity(PREFIX.len() + size.div_ceil(3) * 4);
    out.push_str(PREFIX);
    if let Some(bytes) = media.inline_bytes() {
        base64_simd::STANDARD.encode_append(bytes, &mut out);
        return Ok(out);
    }
    let mut reader = media.reader().map_err(|e| io_err("reading media", e))?;
    tokio::task::spawn_blocking(move || {
        // A multiple of 3 so blocks encode without padding.
        let mut buf = vec![0u8; 3 * 256 * 1024];
        loop {
            let n = read_full(&mut reader, &mut buf)?;
            base64_simd::STANDARD.encode_append(&buf[..n], &mut out);
            if n < buf.len() {
                return Ok(out);
            }
        }
    })
    .await
    .map_err(|e| Error::internal(format!("encoding task failed: {e}")))?
    .map_err(|e| io_err("reading media", e))
}

/// Writes the bytes to `dest` (a new file).
async fn copy_to(media: &MediaPayload, dest: &std::path::Path) -> Result<()> {
    let dest = dest.to_path_buf();
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&dest)
        .map_err(|e| io_err("writing to the shared directory", e).with("path", dest.display()))?;
    let mut reader = media.reader().map_err(|e| io_err("reading media", e))?;
    tokio::task::spawn_blocking(move || std::io::copy(&mut reader, &mut out).map(drop))
        .await
        .map_err(|e| Error::internal(format!("copy task failed: {e}")))?
        .map_err(|e| io_err("writing to the shared directory", e))
}

/// A copy in the shared directory, removed when dropped.
pub struct SharedCopy(PathBuf);

impl Drop for SharedCopy {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.0)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %self.0.display(), error = %e, "cannot remove a shared copy");
        }
    }
}

fn safe_component(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if cleaned.is_empty() {
        "file".into()
    } else {
        cleaned
    }
}
