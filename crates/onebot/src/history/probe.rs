//! Reading the evidence: what an anchored answer says about the profile
//! that asked for it, and what a probe's two pages prove.
//!
//! Rows are compared by message id (what was seen against what was
//! expected), by the real seq where the peer reports one, and by time.

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt as _};

use super::profile::AnchorStyle;
use onebot_gateway_domain::model::{ChatRef, Message};

/// What the adapter knows of one message, for anchoring on it and judging
/// the pages around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// The domain message id.
    pub id: i64,
    /// The seq the row itself reports (`message_seq`, else `real_id`).
    pub peer_seq: Option<i64>,
    /// The real QQ seq, when it differs from the id.
    pub real_seq: Option<i64>,
    /// Unix seconds; 0 when unknown.
    pub time: i64,
}

impl Mark {
    /// The mark of a decoded message.
    pub fn of(m: &Message) -> Mark {
        Mark {
            id: m.message_id,
            peer_seq: m.peer_seq,
            real_seq: m.message_seq,
            time: m.time,
        }
    }

    /// The value `style` anchors with, if this mark has it.
    pub fn value(&self, style: AnchorStyle) -> Option<i64> {
        match style {
            AnchorStyle::Seq => self.peer_seq,
            AnchorStyle::RealSeq => self.real_seq,
            AnchorStyle::IdAsSeq | AnchorStyle::Id | AnchorStyle::Both => Some(self.id),
        }
    }
}

/// The marks of messages seen (pages, events, `get_msg`), by chat and id.
/// Bounded: the oldest entries go first.
#[derive(Debug)]
pub struct Marks {
    capacity: usize,
    map: HashMap<(ChatRef, i64), Mark>,
    order: VecDeque<(ChatRef, i64)>,
}

impl Marks {
    /// An empty cache of at most `capacity` entries.
    pub fn new(capacity: usize) -> Marks {
        Marks {
            capacity: capacity.max(1),
            map: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// Records a message.
    pub fn learn(&mut self, m: &Message) {
        let key = (m.chat, m.message_id);
        if self.map.insert(key, Mark::of(m)).is_none() {
            self.order.push_back(key);
            while self.order.len() > self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.map.remove(&old);
                }
            }
        }
    }

    /// The mark of `id` in `chat`, if seen.
    pub fn get(&self, chat: ChatRef, id: i64) -> Option<Mark> {
        self.map.get(&(chat, id)).copied()
    }
}

/// What an anchored answer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The answer ends at the anchor (`included`) or right below it.
    Fits {
        /// The anchor row came back.
        included: bool,
    },
    /// The answer holds rows at or above the anchor that a page ending at
    /// it cannot hold: the peer read the anchor as another message.
    Misread,
    /// Nothing proves or disproves the page (an empty answer, or rows
    /// below the anchor with no seq to tell whether any were skipped).
    Unsure,
}

/// Judges `rows` (oldest first) as the answer to a request anchored at
/// `anchor`.
pub fn judge(rows: &[Message], anchor: &Mark) -> Verdict {
    if let Some(pos) = rows.iter().position(|m| m.message_id == anchor.id) {
        // Nothing may follow the anchor but rows of its own second that a
        // time sort put after it.
        let newer = rows[pos + 1..].iter().any(|m| newer_than(m, anchor));
        return if newer {
            Verdict::Misread
        } else {
            Verdict::Fits { included: true }
        };
    }
    if rows.iter().any(|m| newer_than(m, anchor)) {
        return Verdict::Misread;
    }
    match (
        rows.iter().filter_map(|m| m.message_seq).max(),
        anchor.real_seq,
    ) {
        (Some(top), Some(seq)) if top == seq - 1 => Verdict::Fits { included: false },
        _ => Verdict::Unsure,
    }
}

/// True when `m` is certainly newer than the anchor: a later second, or a
/// higher real seq.
fn newer_than(m: &Message, anchor: &Mark) -> bool {
    match (m.message_seq, anchor.real_seq) {
        (Some(s), Some(a)) => s > a,
        _ => anchor.time > 0 && m.time > anchor.time,
    }
}

/// The outcome of one probe request: the unanchored reference page `reference`
/// (oldest first) and the answer anchored at `reference[k]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// The answer is the page below the anchor: the style works.
    Works {
        /// The anchor row came back.
        included: bool,
    },
    /// The answer is something else.
    Fails,
}

/// Checks an answer anchored at `reference[k]` against the reference page:
/// the newest row other than the anchor must be `reference[k - 1]`, no row
/// may be newer than the anchor, and rows the reference does not hold must
/// be older than its oldest.
pub fn check_probe(reference: &[Message], k: usize, answer: &[Message]) -> Probe {
    let (Some(_), Some(below)) = (reference.get(k), k.checked_sub(1)) else {
        return Probe::Fails;
    };
    let position = |id: i64| reference.iter().position(|m| m.message_id == id);
    let oldest_time = reference.first().map_or(0, |m| m.time);
    let mut included = false;
    let mut newest_below: Option<usize> = None;
    for m in answer {
        match position(m.message_id) {
            Some(i) if i == k => included = true,
            Some(i) if i > k => return Probe::Fails,
            Some(i) => newest_below = newest_below.max(Some(i)),
            None if m.time > oldest_time => return Probe::Fails,
            None => {}
        }
    }
    if newest_below == Some(below) {
        Probe::Works { included }
    } else {
        Probe::Fails
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onebot_gateway_domain::model::{RawJson, Sender};

    fn msg(id: i64, seq: Option<i64>, time: i64) -> Message {
        Message {
            message_id: id,
            message_seq: seq,
            peer_seq: seq,
            time,
            sender: Sender::default(),
            segments: Vec::new(),
            chat: ChatRef::Group(1),
            raw: RawJson::from_text("{}"),
        }
    }

    #[test]
    fn judges_pages_around_an_anchor() {
        let anchor = Mark::of(&msg(50, Some(5), 500));
        let rows = [msg(30, Some(3), 300), msg(40, Some(4), 400)];
        assert_eq!(judge(&rows, &anchor), Verdict::Fits { included: false });
        let with = [msg(40, Some(4), 400), msg(50, Some(5), 500)];
        assert_eq!(judge(&with, &anchor), Verdict::Fits { included: true });
        let newer = [msg(60, Some(6), 600), msg(70, Some(7), 700)];
        assert_eq!(judge(&newer, &anchor), Verdict::Misread);
        let past = [
            msg(40, Some(4), 400),
            msg(50, Some(5), 500),
            msg(60, Some(6), 600),
        ];
        assert_eq!(judge(&past, &anchor), Verdict::Misread);
        let gap = [msg(10, Some(1), 100), msg(20, Some(2), 200)];
        assert_eq!(judge(&gap, &anchor), Verdict::Unsure);
        assert_eq!(judge(&[], &anchor), Verdict::Unsure);
        // Without seqs, time decides what is newer.
        let anchor = Mark::of(&msg(50, None, 500));
        assert_eq!(judge(&[msg(9, None, 900)], &anchor), Verdict::Misread);
        assert_eq!(judge(&[msg(9, None, 400)], &anchor), Verdict::Unsure);
    }

    #[test]
    fn probes_prove_or_refute_a_style() {
        let r: Vec<Message> = (1..=6).map(|i| msg(i * 10, Some(i), i * 100)).collect();
        // Anchored at r[4] (id 50).
        let answer = |ids: &[i64]| -> Vec<Message> {
            ids.iter().map(|i| msg(*i, Some(i / 10), i * 10)).collect()
        };
        assert_eq!(
            check_probe(&r, 4, &answer(&[30, 40, 50])),
            Probe::Works { included: true }
        );
        assert_eq!(
            check_probe(&r, 4, &answer(&[30, 40])),
            Probe::Works { included: false }
        );
        // Older rows the reference lacks are fine.
        let mut older = answer(&[40]);
        older.insert(0, msg(-1, None, 50));
        assert_eq!(check_probe(&r, 4, &older), Probe::Works { included: false });
        assert_eq!(check_probe(&r, 4, &answer(&[50, 60])), Probe::Fails);
        assert_eq!(check_probe(&r, 4, &answer(&[10, 20])), Probe::Fails);
        assert_eq!(check_probe(&r, 4, &answer(&[50])), Probe::Fails);
        assert_eq!(check_probe(&r, 4, &[]), Probe::Fails);
        assert_eq!(check_probe(&r, 0, &answer(&[10])), Probe::Fails);
        // A row the reference does not hold, newer than its oldest: wrong.
        assert_eq!(check_probe(&r, 4, &[msg(99, None, 450)]), Probe::Fails);
    }

    #[test]
    fn marks_are_bounded_and_give_each_styles_value() {
        let mut marks = Marks::new(2);
        for i in 1..=3 {
            marks.learn(&msg(i, Some(i * 10), i));
        }
        assert_eq!(marks.get(ChatRef::Group(1), 1), None);
        let m = marks.get(ChatRef::Group(1), 3).unwrap();
        assert_eq!(m.value(AnchorStyle::Seq), Some(30));
        assert_eq!(m.value(AnchorStyle::Id), Some(3));
        assert_eq!(
            Mark {
                real_seq: None,
                ..m
            }
            .value(AnchorStyle::RealSeq),
            None
        );
    }
}
