//! Action parameters serialized once, as shared chunks, and the WebSocket
//! frames that carry them.
//!
//! A 30 MiB video goes to the peer as a 40 MiB `base64://` string. Built
//! whole it would sit in memory as the string, as the JSON text and in
//! tungstenite's write buffer. Here media are not encoded when the
//! parameters are built: the parameters name them with a placeholder
//! ([`LazyBase64`]) and the bytes are read from the staged file and
//! base64-encoded block by block while the frame is written, as fragments
//! of at most [`FRAGMENT_BYTES`] (RFC 6455 §5.4; the fragments are one text
//! message to the peer). Long strings that need no JSON escaping are moved
//! into the body as they are, never copied. The bytes on the wire are
//! exactly `serde_json::to_string` of `{"action", "params", "echo"}` with
//! each placeholder replaced by its `base64://` text.

use bytes::Bytes;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

use crate::outgoing::{BASE64_PREFIX, LazyBase64};
use onebot_gateway_domain::model::media::PayloadSource;

/// Strings at least this long that need no escaping are moved, not copied.
pub const ZERO_COPY_MIN: usize = 64 * 1024;

/// Messages larger than this leave as fragments of at most this size.
pub const FRAGMENT_BYTES: usize = 1024 * 1024;

/// A piece of the JSON text.
#[derive(Debug, Clone)]
enum Chunk {
    /// Text as it is.
    Text(Bytes),
    /// Media, base64-encoded as they are written.
    Base64(LazyBase64),
}

/// Serialized parameters: chunks whose concatenation is their JSON text.
#[derive(Debug, Clone, Default)]
pub struct ParamsJson {
    chunks: Vec<Chunk>,
    len: usize,
}

impl ParamsJson {
    /// Serializes `params`, taking its long escape-free strings as they are.
    pub fn new(params: Value) -> ParamsJson {
        Self::with_media(params, &[])
    }

    /// Serializes `params`, where each of `media`'s placeholders stands for
    /// its `base64://` string (encoded when the text is written).
    pub fn with_media(params: Value, media: &[LazyBase64]) -> ParamsJson {
        let mut b = Builder {
            media,
            ..Builder::default()
        };
        b.value(params);
        b.finish()
    }

    /// Length of the JSON text, in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty text (never, for serialized JSON).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when media are encoded as the text is written.
    pub fn has_media(&self) -> bool {
        self.chunks.iter().any(|c| matches!(c, Chunk::Base64(_)))
    }

    /// The whole JSON text in one buffer (for HTTP bodies without media).
    ///
    /// # Panics
    /// With media ([`has_media`](Self::has_media)): read those through
    /// [`blocks`](Self::blocks).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for c in &self.chunks {
            match c {
                Chunk::Text(t) => out.extend_from_slice(t),
                Chunk::Base64(_) => panic!("to_vec of parameters with media"),
            }
        }
        out
    }

    /// The JSON text in blocks of at most [`FRAGMENT_BYTES`], media encoded
    /// as they are reached.
    pub fn blocks(&self) -> Blocks {
        Blocks::new(self.chunks.clone())
    }

    /// The action frame `{"action":…,"params":…,"echo":…}`: one text
    /// message when small and without media, else a fragmented text
    /// message written as it is produced.
    pub fn frame(&self, action: &str, echo: &str) -> Outgoing {
        let prefix = format!("{{\"action\":{},\"params\":", json_str(action));
        let suffix = format!(",\"echo\":{}}}", json_str(echo));
        let total = prefix.len() + self.len + suffix.len();
        if total <= FRAGMENT_BYTES && !self.has_media() {
            let mut text = String::with_capacity(total);
            text.push_str(&prefix);
            for c in &self.chunks {
                if let Chunk::Text(t) = c {
                    // Chunks are whole UTF-8 pieces of the JSON text.
                    text.push_str(&String::from_utf8_lossy(t));
                }
            }
            text.push_str(&suffix);
            return Outgoing::Message(Message::text(text));
        }
        let mut chunks = Vec::with_capacity(self.chunks.len() + 2);
        chunks.push(Chunk::Text(Bytes::from(prefix)));
        chunks.extend(self.chunks.iter().cloned());
        chunks.push(Chunk::Text(Bytes::from(suffix)));
        Outgoing::Fragments(Fragments {
            blocks: Blocks::new(chunks),
            pending: None,
            first: true,
        })
    }
}

/// What the session writes: one message, or the frames of one fragmented
/// message.
#[derive(Debug)]
pub enum Outgoing {
    /// A whole message.
    Message(Message),
    /// Frames of one message, produced as they are written.
    Fragments(Fragments),
}

/// The JSON text in blocks of at most [`FRAGMENT_BYTES`], never cut inside
/// a UTF-8 character. Media are read and encoded one block at a time off
/// the async threads, so a block is all that is held of them.
#[derive(Debug)]
pub struct Blocks {
    chunks: Vec<Chunk>,
    /// The chunk being read, and the offset in it (bytes of text, or of
    /// the media before encoding).
    index: usize,
    offset: u64,
    /// The raw bytes of the media block being encoded, reused from block
    /// to block.
    scratch: Vec<u8>,
}

impl Blocks {
    fn new(chunks: Vec<Chunk>) -> Self {
        Self {
            chunks,
            index: 0,
            offset: 0,
            scratch: Vec::new(),
        }
    }

    /// The next block; `None` at the end. An error when media cannot be
    /// read (the message is then incomplete).
    pub async fn next(&mut self) -> std::io::Result<Option<Bytes>> {
        let mut buf: Vec<u8> = Vec::with_capacity(FRAGMENT_BYTES);
        while self.index < self.chunks.len() {
            let space = FRAGMENT_BYTES - buf.len();
            match &self.chunks[self.index] {
                Chunk::Text(text) => {
                    let start = usize::try_from(self.offset).unwrap_or(usize::MAX);
                    let rest = &text[start.min(text.len())..];
                    if rest.len() <= space {
                        buf.extend_from_slice(rest);
                        self.index += 1;
                        self.offset = 0;
                        continue;
                    }
                    let mut cut = space;
                    while cut > 0 && (rest[cut] & 0xC0) == 0x80 {
                        cut -= 1;
                    }
                    if cut == 0 && buf.is_empty() {
                        // A block of a single character's bytes cannot
                        // happen below 4 bytes of space; take what fits.
                        cut = space;
                    }
                    buf.extend_from_slice(&rest[..cut]);
                    self.offset += cut as u64;
                    break;
                }
                Chunk::Base64(media) => {
                    let left = media.size() - self.offset;
                    if left == 0 {
                        self.index += 1;
                        self.offset = 0;
                        continue;
                    }
                    // Whole groups of 3 bytes encode to 4 without padding, so
                    // the pieces join into one encoding.
                    let fits = (space / 4 * 3) as u64;
                    if fits == 0 {
                        break;
                    }
                    let take = left.min(fits);
                    let scratch = std::mem::take(&mut self.scratch);
                    let (back, scratch, encoded) =
                        encode_at(media.source().clone(), self.offset, take, buf, scratch).await?;
                    buf = back;
                    self.scratch = scratch;
                    debug_assert!(encoded <= space);
                    self.offset += take;
                    if take < left {
                        break;
                    }
                }
            }
        }
        Ok((!buf.is_empty()).then(|| Bytes::from(buf)))
    }
}

/// Appends the base64 of `len` bytes of `source` at `offset` to `buf`,
/// reading into `scratch` (and encoding) on a blocking thread for files;
/// returns the buffer, the scratch buffer and how many bytes were appended.
async fn encode_at(
    source: PayloadSource,
    offset: u64,
    len: u64,
    mut buf: Vec<u8>,
    mut scratch: Vec<u8>,
) -> std::io::Result<(Vec<u8>, Vec<u8>, usize)> {
    let n = usize::try_from(len).map_err(std::io::Error::other)?;
    let inline = matches!(source, PayloadSource::Inline(_));
    let work = move || {
        scratch.resize(n, 0);
        source.read_exact_at(&mut scratch, offset)?;
        let start = buf.len();
        base64_simd::STANDARD.encode_append(&scratch, &mut buf);
        let written = buf.len() - start;
        Ok((buf, scratch, written))
    };
    if inline {
        work()
    } else {
        tokio::task::spawn_blocking(work)
            .await
            .map_err(std::io::Error::other)?
    }
}

/// The frames of one fragmented text message, produced as they are
/// written: the first a text frame, the others continuations, the last
/// final (one block is held back to know which is last).
#[derive(Debug)]
pub struct Fragments {
    blocks: Blocks,
    pending: Option<Bytes>,
    first: bool,
}

impl Fragments {
    /// The next frame; `None` after the final one.
    pub async fn next_frame(&mut self) -> std::io::Result<Option<Frame>> {
        if self.pending.is_none() && self.first {
            self.pending = self.blocks.next().await?;
        }
        let Some(block) = self.pending.take() else {
            return Ok(None);
        };
        self.pending = self.blocks.next().await?;
        let op = if self.first {
            Data::Text
        } else {
            Data::Continue
        };
        self.first = false;
        Ok(Some(Frame::message(
            block,
            OpCode::Data(op),
            self.pending.is_none(),
        )))
    }
}

fn json_str(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// True when JSON needs no escape in `s` (no `"`, `\` or control byte).
fn escape_free(s: &str) -> bool {
    // Branch-free within each block so the compiler vectorizes the scan:
    // the strings checked here can be many MiB.
    let needs_escape = |block: &[u8]| {
        block.iter().fold(false, |acc, &b| {
            acc | (b == b'"') | (b == b'\\') | (b < 0x20)
        })
    };
    let mut blocks = s.as_bytes().chunks_exact(64);
    !blocks.any(needs_escape) && !needs_escape(blocks.remainder())
}

#[derive(Default)]
struct Builder<'a> {
    media: &'a [LazyBase64],
    chunks: Vec<Chunk>,
    cur: Vec<u8>,
    len: usize,
}

impl Builder<'_> {
    fn value(&mut self, v: Value) {
        match v {
            Value::String(s) if s.starts_with('\0') && self.lazy(&s).is_some() => {
                let media = self.lazy(&s).cloned().unwrap_or_else(|| unreachable!());
                self.cur.push(b'"');
                self.cur.extend_from_slice(BASE64_PREFIX.as_bytes());
                self.flush();
                self.len += media.encoded_len();
                self.chunks.push(Chunk::Base64(media));
                self.cur.push(b'"');
            }
            Value::String(s) if s.len() >= ZERO_COPY_MIN && escape_free(&s) => {
                self.cur.push(b'"');
                self.flush();
                self.len += s.len();
                self.chunks.push(Chunk::Text(Bytes::from(s.into_bytes())));
                self.cur.push(b'"');
            }
            Value::Array(items) => {
                self.cur.push(b'[');
                for (i, item) in items.into_iter().enumerate() {
                    if i > 0 {
                        self.cur.push(b',');
                    }
                    self.value(item);
                }
                self.cur.push(b']');
            }
            Value::Object(map) => {
                self.cur.push(b'{');
                for (i, (k, v)) in map.into_iter().enumerate() {
                    if i > 0 {
                        self.cur.push(b',');
                    }
                    self.cur.extend_from_slice(json_str(&k).as_bytes());
                    self.cur.push(b':');
                    self.value(v);
                }
                self.cur.push(b'}');
            }
            scalar => self.cur.extend_from_slice(scalar.to_string().as_bytes()),
        }
    }

    fn lazy(&self, s: &str) -> Option<&LazyBase64> {
        self.media.iter().find(|m| m.key() == s)
    }

    fn flush(&mut self) {
        if !self.cur.is_empty() {
            self.len += self.cur.len();
            self.chunks
                .push(Chunk::Text(Bytes::from(std::mem::take(&mut self.cur))));
        }
    }

    fn finish(mut self) -> ParamsJson {
        self.flush();
        ParamsJson {
            chunks: self.chunks,
            len: self.len,
        }
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde_json::json;

    use super::*;

    async fn text_of(out: Outgoing) -> Vec<u8> {
        match out {
            Outgoing::Message(Message::Text(t)) => t.as_bytes().to_vec(),
            Outgoing::Message(other) => panic!("not text: {other:?}"),
            Outgoing::Fragments(mut fragments) => {
                let mut frames = Vec::new();
                while let Some(f) = fragments.next_frame().await.unwrap() {
                    frames.push(f);
                }
                assert!(frames.len() > 1 || frames[0].header().is_final);
                let n = frames.len();
                let mut out = Vec::new();
                for (i, f) in frames.into_iter().enumerate() {
                    let h = f.header();
                    let want = if i == 0 { Data::Text } else { Data::Continue };
                    assert_eq!(h.opcode, OpCode::Data(want));
                    assert_eq!(h.is_final, i + 1 == n);
                    assert!(f.payload().len() <= FRAGMENT_BYTES);
                    assert!(
                        std::str::from_utf8(f.payload()).is_ok(),
                        "frame {i} cut a character"
                    );
                    out.extend_from_slice(f.payload());
                }
                out
            }
        }
    }

    /// What the link used to send: a struct `{action, params, echo}` in
    /// that order, through `serde_json::to_vec`.
    fn reference(action: &str, params: &Value, echo: &str) -> Vec<u8> {
        #[derive(serde::Serialize)]
        struct Request<'a> {
            action: &'a str,
            params: &'a Value,
            echo: &'a str,
        }
        serde_json::to_vec(&Request {
            action,
            params,
            echo,
        })
        .unwrap()
    }

    #[tokio::test]
    async fn small_frames_are_exactly_serde_json() {
        for params in [
            json!({}),
            json!(null),
            json!({"group_id": 1, "message": [{"type": "text", "data": {"text": "a\"b\\c\n😀"}}]}),
            json!({"b": [1, 2.5, -3, true, null], "a": {"z": "x", "y": []}}),
        ] {
            let body = ParamsJson::new(params.clone());
            assert_eq!(body.len(), serde_json::to_vec(&params).unwrap().len());
            assert_eq!(body.to_vec(), serde_json::to_vec(&params).unwrap());
            assert_eq!(
                text_of(body.frame("send_msg", "e\"1")).await,
                reference("send_msg", &params, "e\"1")
            );
        }
    }

    #[tokio::test]
    async fn large_strings_are_moved_and_fragmented() {
        let b64 = format!("base64://{}", "QUJD".repeat(1_000_000));
        let params = json!({
            "group_id": 20000003,
            "message": [{"type": "video", "data": {"file": b64}}, {"type": "text", "data": {"text": "说明".repeat(400_000)}}],
        });
        let body = ParamsJson::new(params.clone());
        // The base64 string is one chunk of its own (moved, not copied).
        assert!(
            body.chunks
                .iter()
                .any(|c| matches!(c, Chunk::Text(t) if t.len() == b64.len()))
        );
        let out = body.frame("send_group_msg", "42");
        assert!(matches!(&out, Outgoing::Fragments(_)));
        assert_eq!(
            text_of(out).await,
            reference("send_group_msg", &params, "42")
        );
    }

    #[test]
    fn strings_that_need_escaping_are_serialized() {
        // The escape scan works in 64-byte blocks: hit the first byte, a
        // block's inside, a block boundary and the unaligned tail.
        for at in [0, 37, ZERO_COPY_MIN - 1, ZERO_COPY_MIN, ZERO_COPY_MIN + 9] {
            for c in ['"', '\\', '\n', '\u{1f}'] {
                let mut s = "x".repeat(ZERO_COPY_MIN + 10);
                s.replace_range(at..at + 1, &c.to_string());
                let params = json!({ "text": s });
                assert_eq!(
                    ParamsJson::new(params.clone()).to_vec(),
                    serde_json::to_vec(&params).unwrap(),
                    "{c:?} at {at}"
                );
            }
        }
    }

    fn video_params(file: Value, caption: &str) -> Value {
        json!({
            "group_id": 20000003,
            "message": [
                {"type": "video", "data": {"file": file}},
                {"type": "text", "data": {"text": caption}},
            ],
        })
    }

    fn pseudo_random(n: usize) -> Vec<u8> {
        let mut x: u32 = 0x9e37_79b9;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect()
    }

    async fn collect(mut blocks: Blocks) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(b) = blocks.next().await.unwrap() {
            assert!(b.len() <= FRAGMENT_BYTES);
            out.extend_from_slice(&b);
        }
        out
    }

    #[tokio::test]
    async fn media_are_encoded_as_the_frame_is_written() {
        // Sizes around the 3-byte groups and the block boundary.
        let block = FRAGMENT_BYTES / 4 * 3;
        for size in [
            0,
            1,
            2,
            3,
            4,
            100,
            block - 1,
            block,
            block + 1,
            3 * block + 2,
        ] {
            let bytes = pseudo_random(size);
            let mut file = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut file, &bytes).unwrap();
            let sources = [
                PayloadSource::Inline(Bytes::from(bytes.clone())),
                PayloadSource::File(std::sync::Arc::new(file)),
            ];
            for source in sources {
                let lazy = LazyBase64::new(source, size as u64);
                let params = video_params(lazy.placeholder(), "说明\n");
                let body = ParamsJson::with_media(params, std::slice::from_ref(&lazy));
                let whole = format!("{BASE64_PREFIX}{}", STANDARD.encode(&bytes));
                let want = video_params(Value::String(whole), "说明\n");
                assert_eq!(body.len(), serde_json::to_vec(&want).unwrap().len());
                assert!(body.has_media());
                assert_eq!(
                    collect(body.blocks()).await,
                    serde_json::to_vec(&want).unwrap()
                );
                assert_eq!(
                    text_of(body.frame("send_group_msg", "7")).await,
                    reference("send_group_msg", &want, "7"),
                    "{size} bytes"
                );
            }
        }
    }

    #[tokio::test]
    async fn only_this_calls_placeholders_are_media() {
        let lazy = LazyBase64::new(PayloadSource::Inline(Bytes::from_static(b"abc")), 3);
        let other = LazyBase64::new(PayloadSource::Inline(Bytes::from_static(b"xyz")), 3);
        // A client's text that looks like a placeholder stays text.
        let params = json!({"a": lazy.placeholder(), "b": other.placeholder()});
        let body = ParamsJson::with_media(params, std::slice::from_ref(&lazy));
        let text = collect(body.blocks()).await;
        let got: Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(got["a"], "base64://YWJj");
        assert_eq!(got["b"], other.placeholder());
    }

    #[tokio::test]
    async fn a_file_that_shrank_fails_the_message() {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, &[1u8; 10]).unwrap();
        let lazy = LazyBase64::new(PayloadSource::File(std::sync::Arc::new(file)), 4 << 20);
        let body = ParamsJson::with_media(video_params(lazy.placeholder(), ""), &[lazy]);
        let Outgoing::Fragments(mut frames) = body.frame("send_group_msg", "1") else {
            panic!("media go as fragments");
        };
        let err = loop {
            match frames.next_frame().await {
                Ok(Some(_)) => continue,
                Ok(None) => panic!("a short file must not end the message"),
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        assert!(err.to_string().contains("shorter"), "{err}");
    }
}
