//! Action parameters serialized once, as shared chunks, and the WebSocket
//! frames that carry them.
//!
//! A 30 MiB video goes to the peer as a 40 MiB `base64://` string. Written
//! with `serde_json::to_string` and handed to tungstenite whole, it would sit
//! in memory three times over (the string in the parameters, the JSON text,
//! tungstenite's write buffer), and once more while the JSON buffer doubles.
//! Here long strings that need no JSON escaping (base64 does not) are moved
//! into the body as they are, never copied, and a large message leaves as
//! fragments of at most [`FRAGMENT_BYTES`] (RFC 6455 §5.4), so the write
//! buffer holds one fragment at a time. The bytes on the wire are exactly
//! `serde_json::to_string` of `{"action", "params", "echo"}`.

use bytes::Bytes;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};

/// Strings at least this long that need no escaping are moved, not copied.
pub const ZERO_COPY_MIN: usize = 64 * 1024;

/// Messages larger than this leave as fragments of at most this size.
pub const FRAGMENT_BYTES: usize = 1024 * 1024;

/// Serialized parameters: chunks whose concatenation is their JSON text.
#[derive(Debug, Clone, Default)]
pub struct ParamsJson {
    chunks: Vec<Bytes>,
    len: usize,
}

impl ParamsJson {
    /// Serializes `params`, taking its long escape-free strings as they are.
    pub fn new(params: Value) -> ParamsJson {
        let mut b = Builder::default();
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

    /// The chunks, in order.
    pub fn chunks(&self) -> &[Bytes] {
        &self.chunks
    }

    /// The whole JSON text in one buffer (for HTTP bodies).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for c in &self.chunks {
            out.extend_from_slice(c);
        }
        out
    }

    /// The action frame `{"action":…,"params":…,"echo":…}`: one text
    /// message when small, else a fragmented text message (to be written
    /// back to back, nothing in between).
    pub fn frame(&self, action: &str, echo: &str) -> Outgoing {
        let prefix = format!("{{\"action\":{},\"params\":", json_str(action));
        let suffix = format!(",\"echo\":{}}}", json_str(echo));
        let total = prefix.len() + self.len + suffix.len();
        if total <= FRAGMENT_BYTES {
            let mut text = String::with_capacity(total);
            text.push_str(&prefix);
            for c in &self.chunks {
                // Chunks are whole UTF-8 pieces of the JSON text.
                text.push_str(&String::from_utf8_lossy(c));
            }
            text.push_str(&suffix);
            return Outgoing::Message(Message::text(text));
        }
        let mut pieces: Vec<Bytes> = Vec::with_capacity(self.chunks.len() + 2);
        pieces.push(Bytes::from(prefix));
        pieces.extend(self.chunks.iter().cloned());
        pieces.push(Bytes::from(suffix));
        Outgoing::Fragments(fragments(pieces))
    }
}

/// What the session writes: one message, or the frames of one fragmented
/// message.
#[derive(Debug)]
pub enum Outgoing {
    /// A whole message.
    Message(Message),
    /// Frames of one message, first to last.
    Fragments(Vec<Frame>),
}

/// Cuts `pieces` into frames of at most [`FRAGMENT_BYTES`] (slices, no
/// copies), never inside a UTF-8 character: the first frame is a text
/// frame, the others continuations, the last one final.
fn fragments(pieces: Vec<Bytes>) -> Vec<Frame> {
    let mut payloads: Vec<Bytes> = Vec::new();
    for piece in pieces {
        let mut rest = piece;
        while !rest.is_empty() {
            let mut cut = rest.len().min(FRAGMENT_BYTES);
            while cut < rest.len() && cut > 0 && (rest[cut] & 0xC0) == 0x80 {
                cut -= 1;
            }
            if cut == 0 {
                cut = rest.len().min(FRAGMENT_BYTES);
            }
            payloads.push(rest.split_to(cut));
        }
    }
    let last = payloads.len().saturating_sub(1);
    payloads
        .into_iter()
        .enumerate()
        .map(|(i, p)| {
            let op = if i == 0 { Data::Text } else { Data::Continue };
            Frame::message(p, OpCode::Data(op), i == last)
        })
        .collect()
}

fn json_str(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

/// True when JSON needs no escape in `s` (no `"`, `\` or control byte).
fn escape_free(s: &str) -> bool {
    // Branch-free within each block so the compiler vectorizes the scan:
    // the strings checked here are tens of MiB of base64.
    let needs_escape = |block: &[u8]| {
        block.iter().fold(false, |acc, &b| {
            acc | (b == b'"') | (b == b'\\') | (b < 0x20)
        })
    };
    let mut blocks = s.as_bytes().chunks_exact(64);
    !blocks.any(needs_escape) && !needs_escape(blocks.remainder())
}

#[derive(Default)]
struct Builder {
    chunks: Vec<Bytes>,
    cur: Vec<u8>,
    len: usize,
}

impl Builder {
    fn value(&mut self, v: Value) {
        match v {
            Value::String(s) if s.len() >= ZERO_COPY_MIN && escape_free(&s) => {
                self.cur.push(b'"');
                self.flush();
                self.len += s.len();
                self.chunks.push(Bytes::from(s.into_bytes()));
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

    fn flush(&mut self) {
        if !self.cur.is_empty() {
            self.len += self.cur.len();
            self.chunks.push(Bytes::from(std::mem::take(&mut self.cur)));
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
    use serde_json::json;

    use super::*;

    fn text_of(out: Outgoing) -> Vec<u8> {
        match out {
            Outgoing::Message(Message::Text(t)) => t.as_bytes().to_vec(),
            Outgoing::Message(other) => panic!("not text: {other:?}"),
            Outgoing::Fragments(frames) => {
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

    #[test]
    fn small_frames_are_exactly_serde_json() {
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
                text_of(body.frame("send_msg", "e\"1")),
                reference("send_msg", &params, "e\"1")
            );
        }
    }

    #[test]
    fn large_media_is_moved_and_fragmented() {
        let b64 = format!("base64://{}", "QUJD".repeat(1_000_000));
        let params = json!({
            "group_id": 20000003,
            "message": [{"type": "video", "data": {"file": b64}}, {"type": "text", "data": {"text": "说明".repeat(400_000)}}],
        });
        let body = ParamsJson::new(params.clone());
        // The base64 string is one chunk of its own (moved, not copied).
        assert!(body.chunks().iter().any(|c| c.len() == b64.len()));
        let out = body.frame("send_group_msg", "42");
        assert!(matches!(&out, Outgoing::Fragments(f) if f.len() > 4));
        assert_eq!(text_of(out), reference("send_group_msg", &params, "42"));
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
}
