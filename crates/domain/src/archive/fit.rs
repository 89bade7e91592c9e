//! Long texts cut before they are archived, so one message cannot make the
//! search index or a history page huge.
//!
//! A message's text is its text segments and the data of its JSON and XML
//! cards, counted together in UTF-8 bytes. Above `archive.max_text_bytes`
//! the archive keeps the first `max_text_bytes` of it (cut at a character
//! boundary; what follows the cut is left out, segment by segment), indexes
//! only that, and marks the message: a last segment of kind
//! [`TRUNCATED_KIND`] whose data is `{"text_bytes":N,"kept_bytes":M}` (what
//! the peer sent and what was kept). The peer's raw object, which repeats
//! the whole text, is not kept for such a message.

use super::store::ArchiveOp;
use crate::model::{Message, RawJson, Segment};

/// The segment kind that marks an archived message whose text was cut.
pub const TRUNCATED_KIND: &str = "gateway_truncated";

/// The bytes of a message's text (see the module docs).
pub fn text_bytes(message: &Message) -> usize {
    message
        .segments
        .iter()
        .map(|s| match s {
            Segment::Text(t) => t.len(),
            Segment::Json { data } | Segment::Xml { data } => data.len(),
            _ => 0,
        })
        .sum()
}

/// Cuts `message`'s text to `max_text_bytes` and marks it (see the module
/// docs); true when it was cut.
pub fn fit(message: &mut Message, max_text_bytes: usize) -> bool {
    let total = text_bytes(message);
    if total <= max_text_bytes {
        return false;
    }
    let mut left = max_text_bytes;
    let mut kept = 0;
    for seg in &mut message.segments {
        let text = match seg {
            Segment::Text(t) => t,
            Segment::Json { data } | Segment::Xml { data } => data,
            _ => continue,
        };
        if text.len() <= left {
            left -= text.len();
            kept += text.len();
            continue;
        }
        let mut cut = left;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.shrink_to_fit();
        kept += cut;
        left = 0;
    }
    message.segments.retain(|s| match s {
        Segment::Text(t) => !t.is_empty(),
        Segment::Json { data } | Segment::Xml { data } => !data.is_empty(),
        _ => true,
    });
    message.segments.push(Segment::Unknown {
        kind: TRUNCATED_KIND.into(),
        data_json: format!("{{\"text_bytes\":{total},\"kept_bytes\":{kept}}}"),
    });
    message.raw = RawJson::null();
    true
}

/// [`fit`] over every message `ops` store.
pub fn fit_ops(ops: &mut [ArchiveOp], max_text_bytes: usize) {
    for op in ops {
        if let ArchiveOp::Put {
            account_id,
            message,
            ..
        } = op
            && fit(message, max_text_bytes)
        {
            tracing::debug!(
                account_id = %account_id,
                message_id = message.message_id,
                "a message's text above archive.max_text_bytes is archived cut"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ChatRef, Sender};

    fn message(segments: Vec<Segment>) -> Message {
        Message {
            message_id: 1,
            message_seq: None,
            peer_seq: None,
            time: 1,
            sender: Sender::default(),
            segments,
            chat: ChatRef::Group(1),
            raw: RawJson::from_text("{\"message\":\"...\"}"),
        }
    }

    #[test]
    fn a_text_above_the_limit_is_cut_at_a_character_and_marked() {
        let mut m = message(vec![
            Segment::Text("ab".into()),
            Segment::Face { id: "1".into() },
            Segment::Text("大".repeat(10)),
            Segment::Text("tail".into()),
        ]);
        assert!(fit(&mut m, 10));
        assert_eq!(text_bytes(&m), 8, "2 + two whole 3-byte characters");
        assert_eq!(m.segments.len(), 4, "the emptied tail segment is gone");
        assert_eq!(m.segments[2], Segment::Text("大大".into()));
        assert_eq!(
            m.segments[3],
            Segment::Unknown {
                kind: TRUNCATED_KIND.into(),
                data_json: "{\"text_bytes\":36,\"kept_bytes\":8}".into()
            }
        );
        assert_eq!(m.raw.text(), RawJson::null().text());
    }

    #[test]
    fn a_text_within_the_limit_is_kept_whole() {
        let mut m = message(vec![Segment::Text("x".repeat(10))]);
        let before = m.clone();
        assert!(!fit(&mut m, 10));
        assert_eq!(m, before);
    }
}
