//! What leads the first message of a send: a quote and mentions.
//!
//! The lead goes in front of the first message a request sends (its first
//! text chunk, else its first image or video); a request whose first frame
//! is a file upload, or that has nothing else, sends the lead as a message of
//! its own first. It is kept with a queued entry until its first message is
//! out.

use serde::{Deserialize, Serialize};

use crate::ports::OutSegment;

/// Most users one send may mention.
pub const MAX_MENTIONS: usize = 20;

/// A quote and mentions leading a send's first message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lead {
    /// Quote (reply to) this message id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_to: Option<i64>,
    /// Mention these QQ numbers, in order, each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<i64>,
    /// Mention everyone, after the other mentions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mention_all: bool,
}

impl Lead {
    /// True when there is nothing to lead with.
    pub fn is_empty(&self) -> bool {
        self.reply_to.is_none() && self.mentions.is_empty() && !self.mention_all
    }

    /// The segments, in sending order: the quote, the mentions, everyone.
    pub fn segments(&self) -> Vec<OutSegment<'static>> {
        let mut out = Vec::with_capacity(self.mentions.len() + 2);
        out.extend(self.reply_to.map(OutSegment::Reply));
        out.extend(self.mentions.iter().copied().map(OutSegment::At));
        if self.mention_all {
            out.push(OutSegment::AtAll);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_in_order_and_old_records_read_as_empty() {
        let lead = Lead {
            reply_to: Some(-7),
            mentions: vec![1, 2],
            mention_all: true,
        };
        let kinds: Vec<String> = lead
            .segments()
            .iter()
            .map(|s| match s {
                OutSegment::Reply(id) => format!("reply {id}"),
                OutSegment::At(id) => format!("at {id}"),
                OutSegment::AtAll => "at all".into(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(kinds, ["reply -7", "at 1", "at 2", "at all"]);
        assert!(Lead::default().is_empty() && !lead.is_empty());
        assert_eq!(serde_json::to_string(&Lead::default()).unwrap(), "{}");
        let back: Lead = serde_json::from_str(&serde_json::to_string(&lead).unwrap()).unwrap();
        assert_eq!(back, lead);
    }
}
