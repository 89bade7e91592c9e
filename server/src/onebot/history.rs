//! History paging per flavor: which parameter carries the anchor, whether
//! the anchor row comes back, and what "empty" looks like.
//!
//! | flavor    | anchor parameter | anchor value                    | anchor row | empty history        |
//! |-----------|------------------|---------------------------------|------------|----------------------|
//! | NapCat    | `message_seq`    | the short `message_id`          | included   | failed `消息…不存在` ⇒ empty page |
//! | LLOneBot  | `message_seq`    | real seq (from `message_id`)    | included   | `[]`                 |
//! | Lagrange  | `message_id`     | `message_id`                    | included   | `[]`                 |
//! | SnowLuma  | `message_id`     | `message_id` (signed)           | included   | `[]` (also until it has seen traffic) |
//! | go-cqhttp | `message_seq`    | real seq (from `message_id`)    | included   | `[]`                 |
//! | generic   | both             | `message_id`                    | dropped if present | `[]`         |
//!
//! The real seq of an anchor comes from a cache of messages seen in events
//! and earlier pages, else from `get_msg` ([`SeqCache`]). Each page asks for
//! `count + 1` messages (plus one for the anchor) so `has_more` is known;
//! the anchor row and anything newer are dropped.
//!
//! **go-cqhttp** has no `count`: a page is the fixed window of seqs
//! `seq-19 ..= seq` (the anchor and the 19 older messages), or the newest 20
//! without an anchor, so a page holds at most 19 older messages (20 without
//! an anchor) whatever `count` asks; `has_more` then follows the seq (older
//! messages exist while the oldest seq is above 1). It has no private
//! history at all: `HistoryUnsupported`.

use std::collections::{HashMap, VecDeque};

use serde_json::{Map, Value, json};

use super::flavor::Flavor;
use super::frame::Data;
use super::model::{Entries, history_entries, int_of};
use crate::domain::model::ChatRef;
use crate::domain::model::Message;
use crate::domain::ports::HistoryPage;
use crate::error::{Error, Kind, Result};

/// SnowLuma clamps `count` to 1..=200.
const SNOWLUMA_MAX_COUNT: u32 = 200;

/// True when the flavor anchors history on the real seq, so the anchor's
/// `message_id` must be translated first.
pub fn needs_seq(flavor: Flavor) -> bool {
    matches!(flavor, Flavor::LlOneBot | Flavor::GoCqhttp)
}

/// Refuses what a flavor cannot do at all.
pub fn check_supported(flavor: Flavor, chat: ChatRef) -> Result<()> {
    match (flavor, chat) {
        (Flavor::GoCqhttp, ChatRef::Private(user_id)) => Err(Error::new(
            Kind::HistoryUnsupported,
            "go-cqhttp has no private-chat history (get_friend_msg_history)",
        )
        .with("flavor", flavor.name())
        .with("user_id", user_id)),
        _ => Ok(()),
    }
}

/// The action and parameters of one history request.
pub fn request(
    flavor: Flavor,
    chat: ChatRef,
    count: u32,
    anchor: Option<i64>,
    anchor_seq: Option<i64>,
) -> (&'static str, Value) {
    let mut params = Map::new();
    let action = match chat {
        ChatRef::Group(group_id) => {
            params.insert("group_id".into(), json!(group_id));
            "get_group_msg_history"
        }
        ChatRef::Private(user_id) => {
            params.insert("user_id".into(), json!(user_id));
            "get_friend_msg_history"
        }
    };
    let fetch = fetch_count(flavor, count, anchor);
    match flavor {
        Flavor::NapCat => {
            if let Some(a) = anchor {
                params.insert("message_seq".into(), json!(a));
            }
            params.insert("count".into(), json!(fetch));
        }
        Flavor::LlOneBot => {
            if let Some(seq) = anchor_seq {
                params.insert("message_seq".into(), json!(seq));
            }
            params.insert("count".into(), json!(fetch));
        }
        Flavor::Lagrange | Flavor::SnowLuma => {
            if let Some(a) = anchor {
                params.insert("message_id".into(), json!(a));
            }
            params.insert("count".into(), json!(fetch));
        }
        Flavor::GoCqhttp => {
            if let Some(seq) = anchor_seq {
                params.insert("message_seq".into(), json!(seq));
            }
        }
        Flavor::Generic => {
            if let Some(a) = anchor {
                params.insert("message_seq".into(), json!(a));
                params.insert("message_id".into(), json!(a));
            }
            params.insert("count".into(), json!(fetch));
        }
    }
    (action, Value::Object(params))
}

fn fetch_count(flavor: Flavor, count: u32, anchor: Option<i64>) -> u32 {
    let wanted = count
        .saturating_add(1)
        .saturating_add(u32::from(anchor.is_some()));
    match flavor {
        Flavor::SnowLuma => wanted.min(SNOWLUMA_MAX_COUNT),
        _ => wanted,
    }
}

/// True for NapCat's "nothing there" failure (`消息<seq>不存在`).
fn is_napcat_empty(err: &Error) -> bool {
    err.kind == Kind::OnebotActionFailed
        && err
            .meta("peer_message")
            .is_some_and(|t| t.starts_with("消息") && t.ends_with("不存在"))
}

/// Turns the peer's answer into a page. The answer's `data` is read as
/// text, in one pass, each message object straight into a [`Message`]
/// ([`history_entries`]), never as a whole tree.
pub fn page(
    flavor: Flavor,
    chat: ChatRef,
    count: u32,
    anchor: Option<i64>,
    answer: Result<Data>,
) -> Result<HistoryPage> {
    let data = match answer {
        Ok(data) => data,
        Err(e) if flavor == Flavor::NapCat && is_napcat_empty(&e) => {
            return Ok(HistoryPage::default());
        }
        Err(e) => return Err(e),
    };
    let Some(raw) = data.into_raw() else {
        return Ok(HistoryPage::default());
    };
    let (mut messages, returned) = match history_entries(raw, chat) {
        Entries::List { messages, returned } => (messages, returned),
        Entries::None => return Ok(HistoryPage::default()),
        Entries::NotAnArray => return Err(protocol_error(chat, "`messages` is not an array")),
        Entries::NotAnObject => return Err(protocol_error(chat, "history data is not an object")),
    };
    // Oldest first; a stable sort keeps the peer's order within a second.
    messages.sort_by_key(|m| m.time);
    if let Some(a) = anchor
        && let Some(pos) = messages.iter().position(|m| m.message_id == a)
    {
        messages.truncate(pos);
    }
    let window_more = match flavor {
        Flavor::GoCqhttp => messages
            .first()
            .and_then(|m| m.peer_seq)
            .is_some_and(|seq| seq > 1),
        Flavor::SnowLuma => {
            fetch_count(flavor, count, anchor) == SNOWLUMA_MAX_COUNT
                && returned >= SNOWLUMA_MAX_COUNT as usize
        }
        _ => false,
    };
    let count = count as usize;
    let has_more = messages.len() > count || window_more;
    if messages.len() > count {
        messages.drain(..messages.len() - count);
    }
    Ok(HistoryPage { messages, has_more })
}

fn protocol_error(chat: ChatRef, what: &str) -> Error {
    Error::new(
        Kind::OnebotProtocolError,
        format!("history of {}: {what}", chat.target()),
    )
    .with("chat", chat.target())
}

/// The real seq a message object reports (`message_seq`, else `real_id`).
pub fn raw_seq(raw: &Value) -> Option<i64> {
    raw.get("message_seq")
        .and_then(int_of)
        .or_else(|| raw.get("real_id").and_then(int_of))
        .filter(|s| *s > 0)
}

/// Remembers, of messages seen, the real seq by chat and `message_id` (for
/// flavors that anchor on the seq) and the chat by `message_id` (for peers
/// whose `get_msg` does not say, Lagrange). Bounded: the oldest entries go
/// first.
#[derive(Debug)]
pub struct SeqCache {
    capacity: usize,
    map: HashMap<(ChatRef, i64), i64>,
    order: VecDeque<(ChatRef, i64)>,
    chats: HashMap<i64, ChatRef>,
    chat_order: VecDeque<i64>,
}

impl SeqCache {
    /// An empty cache of at most `capacity` entries.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            map: HashMap::new(),
            order: VecDeque::new(),
            chats: HashMap::new(),
            chat_order: VecDeque::new(),
        }
    }

    /// Records a message's chat, and its seq when it reports one.
    pub fn learn(&mut self, message: &Message) {
        if let Some(seq) = message.peer_seq {
            self.insert(message.chat, message.message_id, seq);
        }
        self.learn_chat(message.chat, message.message_id);
    }

    /// Records that `message_id` is in `chat` (a message the gateway sent).
    pub fn learn_chat(&mut self, chat: ChatRef, message_id: i64) {
        if self.chats.insert(message_id, chat).is_none() {
            self.chat_order.push_back(message_id);
            while self.chat_order.len() > self.capacity {
                if let Some(old) = self.chat_order.pop_front() {
                    self.chats.remove(&old);
                }
            }
        }
    }

    /// The chat `message_id` was seen in, if seen.
    pub fn chat_of(&self, message_id: i64) -> Option<ChatRef> {
        self.chats.get(&message_id).copied()
    }

    /// Records `seq` for `message_id` in `chat`.
    pub fn insert(&mut self, chat: ChatRef, message_id: i64, seq: i64) {
        if self.map.insert((chat, message_id), seq).is_none() {
            self.order.push_back((chat, message_id));
            while self.order.len() > self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.map.remove(&old);
                }
            }
        }
    }

    /// The seq of `message_id` in `chat`, if seen.
    pub fn get(&self, chat: ChatRef, message_id: i64) -> Option<i64> {
        self.map.get(&(chat, message_id)).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onebot::frame::Frame;

    fn row(id: i64, seq: i64, time: i64) -> Value {
        json!({"message_id": id, "message_seq": seq, "real_id": seq, "time": time,
               "user_id": 10001, "sender": {"user_id": 10001, "nickname": "a"},
               "message": [{"type": "text", "data": {"text": format!("m{seq}")}}]})
    }

    #[test]
    fn anchor_parameter_per_flavor() {
        let g = ChatRef::Group(7);
        let (a, p) = request(Flavor::NapCat, g, 10, Some(55), None);
        assert_eq!(a, "get_group_msg_history");
        assert_eq!(p, json!({"group_id": 7, "message_seq": 55, "count": 12}));
        let (_, p) = request(Flavor::LlOneBot, g, 10, Some(55), Some(900));
        assert_eq!(p, json!({"group_id": 7, "message_seq": 900, "count": 12}));
        let (_, p) = request(Flavor::Lagrange, g, 10, Some(55), None);
        assert_eq!(p, json!({"group_id": 7, "message_id": 55, "count": 12}));
        let (a, p) = request(Flavor::SnowLuma, ChatRef::Private(9), 199, Some(-55), None);
        assert_eq!(a, "get_friend_msg_history");
        assert_eq!(p, json!({"user_id": 9, "message_id": -55, "count": 200}));
        let (_, p) = request(Flavor::GoCqhttp, g, 10, Some(55), Some(900));
        assert_eq!(p, json!({"group_id": 7, "message_seq": 900}));
        let (_, p) = request(Flavor::Generic, g, 10, None, None);
        assert_eq!(p, json!({"group_id": 7, "count": 11}));
        assert!(check_supported(Flavor::GoCqhttp, ChatRef::Private(1)).is_err());
        assert!(check_supported(Flavor::GoCqhttp, g).is_ok());
    }

    #[test]
    fn drops_anchor_and_newer_and_computes_has_more() {
        let g = ChatRef::Group(7);
        // Anchor 4 included, peer returned 4 rows for count 2 (+1, +anchor).
        let data =
            json!({"messages": [row(2, 2, 20), row(3, 3, 30), row(1, 1, 10), row(4, 4, 40)]});
        let p = page(Flavor::NapCat, g, 2, Some(4), Ok(Data::from_value(&data))).unwrap();
        let ids: Vec<_> = p.messages.iter().map(|m| m.message_id).collect();
        assert_eq!(ids, [2, 3]);
        assert!(p.has_more);
        let data = json!({"messages": [row(1, 1, 10), row(2, 2, 20)]});
        let p = page(Flavor::Lagrange, g, 5, Some(2), Ok(Data::from_value(&data))).unwrap();
        assert_eq!(p.messages.len(), 1);
        assert!(!p.has_more);
    }

    #[test]
    fn napcat_empty_error_is_an_empty_page() {
        let err = Error::new(Kind::OnebotActionFailed, "x").with("peer_message", "消息0不存在");
        let p = page(Flavor::NapCat, ChatRef::Group(1), 5, None, Err(err.clone())).unwrap();
        assert!(p.messages.is_empty() && !p.has_more);
        assert!(page(Flavor::LlOneBot, ChatRef::Group(1), 5, None, Err(err)).is_err());
        let bad = page(
            Flavor::NapCat,
            ChatRef::Group(1),
            5,
            None,
            Ok(Data::from_value(&json!({"messages": 3}))),
        );
        assert_eq!(bad.unwrap_err().kind, Kind::OnebotProtocolError);
    }

    #[test]
    fn every_shape_of_history_data() {
        let g = ChatRef::Group(7);
        let ids = |data: Value| {
            page(Flavor::Lagrange, g, 5, None, Ok(Data::from_value(&data)))
                .map(|p| p.messages.iter().map(|m| m.message_id).collect::<Vec<_>>())
                .map_err(|e| e.kind)
        };
        assert_eq!(
            ids(json!([row(1, 1, 10), "junk", row(2, 2, 20)])),
            Ok(vec![1, 2])
        );
        assert_eq!(
            ids(json!({"messages": [row(3, 3, 30)], "x": 1})),
            Ok(vec![3])
        );
        assert_eq!(ids(json!({"messages": null})), Ok(vec![]));
        assert_eq!(ids(json!({"other": []})), Ok(vec![]));
        assert_eq!(ids(Value::Null), Ok(vec![]));
        for bad in [json!("x"), json!(3), json!(true), json!({"messages": {}})] {
            assert_eq!(ids(bad), Err(Kind::OnebotProtocolError));
        }
        let p = page(Flavor::Lagrange, g, 5, None, Ok(Data::none())).unwrap();
        assert!(p.messages.is_empty() && !p.has_more);
    }

    #[test]
    fn raw_entries_point_into_the_page_text() {
        let g = ChatRef::Group(7);
        let (a, b) = (row(1, 1, 10).to_string(), row(2, 2, 20).to_string());
        for data in [
            format!("[{a}, \"junk\", {b}]"),
            format!(r#"{{"x": [{b}], "messages": [ {a} ,"junk",{b}]}}"#),
            // Later duplicates win, for the list and for the raw text.
            format!(r#"{{"messages": [{b}], "messages": [{a},"junk",{b}]}}"#),
        ] {
            let frame = Frame::parse(&format!(r#"{{"retcode": 0, "data": {data}}}"#)).unwrap();
            let p = page(Flavor::Lagrange, g, 5, None, Ok(frame.into_data())).unwrap();
            let raws: Vec<&str> = p.messages.iter().map(|m| m.raw.text()).collect();
            assert_eq!(raws, [a.as_str(), b.as_str()], "{data}");
            assert_eq!(
                serde_json::from_str::<Value>(p.messages[1].raw.text()).unwrap(),
                row(2, 2, 20)
            );
            let clone = p.messages[0].clone();
            drop(p);
            assert_eq!(clone.raw.text(), a, "the page text outlives the page");
        }
    }

    #[test]
    fn gocq_window_has_more_by_seq() {
        let g = ChatRef::Group(7);
        let rows: Vec<Value> = (1..=20).map(|s| row(100 + s, s, s)).collect();
        let p = page(
            Flavor::GoCqhttp,
            g,
            50,
            Some(120),
            Ok(Data::from_value(&json!({"messages": rows}))),
        )
        .unwrap();
        assert_eq!(p.messages.len(), 19);
        assert!(!p.has_more, "seq 1 is the oldest");
        let rows: Vec<Value> = (21..=40).map(|s| row(100 + s, s, s)).collect();
        let p = page(
            Flavor::GoCqhttp,
            g,
            50,
            Some(140),
            Ok(Data::from_value(&json!({"messages": rows}))),
        )
        .unwrap();
        assert!(p.has_more);
    }

    #[test]
    fn seq_cache_is_bounded() {
        let mut c = SeqCache::new(2);
        let g = ChatRef::Group(1);
        c.insert(g, 1, 10);
        c.insert(g, 2, 20);
        c.insert(g, 3, 30);
        assert_eq!(c.get(g, 1), None);
        assert_eq!(c.get(g, 3), Some(30));
        assert_eq!(c.get(ChatRef::Group(2), 3), None);
    }
}
