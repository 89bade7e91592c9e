//! History paging: the request for a page and what its answer becomes.
//!
//! How a peer pages is a [`HistoryProfile`] the adapter learns per account
//! ([`profile`]); the flavor only gives the first guess. Every request asks
//! for `count + 1` messages (plus one for the anchor) so `has_more` is
//! known; the anchor row and anything newer are dropped, and the answer is
//! judged against the anchor ([`probe::judge`]) so a page that would repeat
//! or skip rows is caught before it reaches the client.
//!
//! Peers conventions, as first guesses:
//!
//! | flavor    | anchor                          | anchor row | count          | empty history        |
//! |-----------|---------------------------------|------------|----------------|----------------------|
//! | NapCat    | `message_seq` = short id        | included   | honoured       | failed `消息…不存在` ⇒ empty page |
//! | LLOneBot  | `message_seq` = real seq        | included   | honoured       | `[]`                 |
//! | Lagrange  | `message_id`                    | included   | honoured (+1)  | `[]`                 |
//! | SnowLuma  | `message_id` (signed)           | included   | 1..=200        | `[]` (also until it has seen traffic) |
//! | go-cqhttp | `message_seq` = real seq        | included   | fixed window of 20 | `[]`; no private history |
//! | generic   | both, the id                    | included   | honoured       | `[]`                 |
//!
//! With a fixed window a page holds at most the 19 messages below the
//! anchor whatever `count` asks, and `has_more` follows the real seq (older
//! messages exist while the oldest seq is above 1).
//!
//! An answer `ok` with no data at all (`null`, or an object without
//! `messages`) is the peer lacking the action, not an empty history:
//! `HistoryUnsupported`, as is a failure saying the action is unknown.

pub mod probe;
pub mod profile;

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt as _};
use serde_json::{Map, Value, json};

use self::probe::{Mark, Verdict, judge};
use self::profile::{AnchorStyle, HistoryProfile};
use super::frame::{Data, FrameText};
use super::model::{Entries, history_entries, history_entries_of_frame, int_of};
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::ChatRef;
use onebot_gateway_domain::model::Message;
use onebot_gateway_domain::ports::HistoryPage;

/// The history action of `chat`.
pub fn action(chat: ChatRef) -> &'static str {
    match chat {
        ChatRef::Group(_) => "get_group_msg_history",
        ChatRef::Private(_) => "get_friend_msg_history",
    }
}

/// The action and parameters of one history request. `anchor` must hold
/// the value its style needs ([`Mark::value`]); the id stands in otherwise.
pub fn request(
    profile: &HistoryProfile,
    chat: ChatRef,
    count: u32,
    anchor: Option<&Mark>,
) -> (&'static str, Value) {
    let mut params = Map::new();
    match chat {
        ChatRef::Group(group_id) => params.insert("group_id".into(), json!(group_id)),
        ChatRef::Private(user_id) => params.insert("user_id".into(), json!(user_id)),
    };
    if let Some(a) = anchor {
        let value = a.value(profile.anchor).unwrap_or(a.id);
        match profile.anchor {
            AnchorStyle::Seq | AnchorStyle::RealSeq | AnchorStyle::IdAsSeq => {
                params.insert("message_seq".into(), json!(value));
            }
            AnchorStyle::Id => {
                params.insert("message_id".into(), json!(value));
            }
            AnchorStyle::Both => {
                params.insert("message_seq".into(), json!(value));
                params.insert("message_id".into(), json!(value));
            }
        }
    }
    params.insert("count".into(), json!(fetch_count(count, anchor.is_some())));
    (action(chat), Value::Object(params))
}

/// What a page request asks for: one more than `count` (to know whether
/// there are more), one more for an anchor the peer returns.
pub fn fetch_count(count: u32, anchored: bool) -> u32 {
    count.saturating_add(1).saturating_add(u32::from(anchored))
}

/// True for the "no such message" failure of an empty chat or an unknown
/// anchor (`消息<seq>不存在`, NapCat's answer to both).
pub fn is_not_there(err: &Error) -> bool {
    err.kind == Kind::OnebotActionFailed
        && err
            .meta("peer_message")
            .is_some_and(|t| t.starts_with("消息") && t.ends_with("不存在"))
}

/// A page, and what its answer said about the profile that asked for it.
#[derive(Debug)]
pub struct Fetched {
    /// The page for the domain.
    pub page: HistoryPage,
    /// The judgement of an anchored answer; `None` without an anchor.
    pub verdict: Option<Verdict>,
    /// The rows the answer held, messages or not.
    pub returned: usize,
}

/// A history answer's rows, oldest first, and how many entries the list
/// had; `None` for an answer that holds no list at all.
pub type Rows = Result<Option<(Vec<Message>, usize)>>;

/// Decodes a history answer into its rows, oldest first (a stable sort
/// keeps the peer's order within a second). `Ok(None)` for an answer that
/// holds no list at all. The answer's `data` is read as text, in one pass,
/// each message object straight into a [`Message`] ([`history_entries`]).
pub fn rows(chat: ChatRef, data: Data) -> Rows {
    let Some(raw) = data.into_raw() else {
        return Ok(None);
    };
    rows_of(chat, history_entries(raw, chat))
}

/// [`rows`] of a whole reply read in one pass, with its top-level fields
/// ([`history_entries_of_frame`]); `None` when the text is not a JSON
/// object.
pub fn rows_of_frame(chat: ChatRef, text: &FrameText) -> Option<(Value, Rows)> {
    let (head, entries) = history_entries_of_frame(text.clone(), chat)?;
    Some((head, rows_of(chat, entries)))
}

fn rows_of(chat: ChatRef, entries: Entries) -> Rows {
    let (mut messages, returned) = match entries {
        Entries::List { messages, returned } => (messages, returned),
        Entries::None => return Ok(None),
        Entries::NotAnArray => return Err(protocol_error(chat, "`messages` is not an array")),
        Entries::NotAnObject => return Err(protocol_error(chat, "history data is not an object")),
    };
    messages.sort_by_key(|m| m.time);
    Ok(Some((messages, returned)))
}

/// Turns the peer's answer into a page of at most `count` messages strictly
/// older than `anchor`. Rows at or above the anchor are dropped (a page
/// never repeats what the client has); the verdict tells whether the answer
/// fitted the anchor at all.
pub fn page(
    profile: &HistoryProfile,
    chat: ChatRef,
    count: u32,
    anchor: Option<&Mark>,
    answer: Result<Data>,
) -> Result<Fetched> {
    page_of_rows(
        profile,
        chat,
        count,
        anchor,
        answer.map(|data| rows(chat, data)),
    )
}

/// [`page`] of an answer already read into its [`Rows`].
pub fn page_of_rows(
    profile: &HistoryProfile,
    chat: ChatRef,
    count: u32,
    anchor: Option<&Mark>,
    answer: Result<Rows>,
) -> Result<Fetched> {
    let empty = |verdict| Fetched {
        page: HistoryPage::default(),
        verdict,
        returned: 0,
    };
    let rows = match answer {
        Ok(rows) => rows,
        // An empty chat (no anchor): nothing there.
        Err(e) if anchor.is_none() && is_not_there(&e) => return Ok(empty(None)),
        // An anchor the peer does not know: the profile may be wrong.
        Err(e) if is_not_there(&e) => return Ok(empty(Some(Verdict::Misread))),
        Err(e) if e.kind == Kind::OnebotActionUnsupported => return Err(unsupported(chat, &e)),
        Err(e) => return Err(e),
    };
    let Some((mut messages, returned)) = rows? else {
        return Err(Error::new(
            Kind::HistoryUnsupported,
            format!(
                "{}: the OneBot implementation answered ok with no data; it evidently lacks the action",
                action(chat)
            ),
        )
        .with("action", action(chat))
        .with("chat", chat.target()));
    };
    let verdict = anchor.map(|a| judge(&messages, a));
    if let Some(a) = anchor {
        // Drop the anchor and anything the anchor's page already showed.
        if let Some(pos) = messages.iter().position(|m| m.message_id == a.id) {
            messages.truncate(pos);
        }
        messages.retain(|m| match (m.message_seq, a.real_seq) {
            (Some(s), Some(seq)) => s < seq,
            _ => a.time == 0 || m.time <= a.time,
        });
    }
    let window_more = !profile.honours_count
        && messages
            .first()
            .is_some_and(|m| m.message_seq.is_none_or(|seq| seq > 1));
    let count = count as usize;
    let has_more = messages.len() > count || window_more;
    if messages.len() > count {
        messages.drain(..messages.len() - count);
    }
    Ok(Fetched {
        page: HistoryPage { messages, has_more },
        verdict,
        returned,
    })
}

/// A history action the peer does not know: this chat kind has no history
/// there.
fn unsupported(chat: ChatRef, e: &Error) -> Error {
    let mut err = Error::new(
        Kind::HistoryUnsupported,
        format!(
            "the OneBot implementation has no {} ({})",
            action(chat),
            e.message
        ),
    )
    .with("action", action(chat))
    .with("chat", chat.target());
    if let Some(flavor) = e.meta("flavor") {
        err = err.with("flavor", flavor);
    }
    err
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
    use crate::flavor::Flavor;
    use crate::frame::Frame;

    fn row(id: i64, seq: i64, time: i64) -> Value {
        json!({"message_id": id, "message_seq": seq, "real_id": seq, "time": time,
               "user_id": 10001, "sender": {"user_id": 10001, "nickname": "a"},
               "message": [{"type": "text", "data": {"text": format!("m{seq}")}}]})
    }

    fn mark(id: i64, seq: i64, time: i64) -> Mark {
        Mark {
            id,
            peer_seq: Some(seq),
            real_seq: Some(seq),
            time,
        }
    }

    fn assumed(f: Flavor) -> HistoryProfile {
        HistoryProfile::assumed(f)
    }

    #[test]
    fn anchor_parameter_per_style() {
        let g = ChatRef::Group(7);
        let a = mark(55, 900, 1);
        let (action, p) = request(&assumed(Flavor::NapCat), g, 10, Some(&a));
        assert_eq!(action, "get_group_msg_history");
        assert_eq!(p, json!({"group_id": 7, "message_seq": 55, "count": 12}));
        let (_, p) = request(&assumed(Flavor::LlOneBot), g, 10, Some(&a));
        assert_eq!(p, json!({"group_id": 7, "message_seq": 900, "count": 12}));
        let (_, p) = request(&assumed(Flavor::Lagrange), g, 10, Some(&a));
        assert_eq!(p, json!({"group_id": 7, "message_id": 55, "count": 12}));
        let (action, p) = request(
            &assumed(Flavor::SnowLuma),
            ChatRef::Private(9),
            99,
            Some(&a),
        );
        assert_eq!(action, "get_friend_msg_history");
        assert_eq!(p, json!({"user_id": 9, "message_id": 55, "count": 101}));
        let (_, p) = request(&assumed(Flavor::Generic), g, 10, Some(&a));
        assert_eq!(
            p,
            json!({"group_id": 7, "message_seq": 55, "message_id": 55, "count": 12})
        );
        let (_, p) = request(&assumed(Flavor::Generic), g, 10, None);
        assert_eq!(p, json!({"group_id": 7, "count": 11}));
        // A style whose value the mark lacks falls back to the id.
        let bare = Mark {
            real_seq: None,
            ..a
        };
        let real = HistoryProfile {
            anchor: AnchorStyle::RealSeq,
            ..assumed(Flavor::NapCat)
        };
        assert_eq!(
            request(&real, g, 1, Some(&bare)).1["message_seq"],
            json!(55)
        );
    }

    fn fetched(
        profile: &HistoryProfile,
        count: u32,
        anchor: Option<&Mark>,
        data: Value,
    ) -> Fetched {
        page(
            profile,
            ChatRef::Group(7),
            count,
            anchor,
            Ok(Data::from_value(&data)),
        )
        .unwrap()
    }

    /// The messages of a page count its shared text once between them,
    /// without their own texts being located.
    #[test]
    fn a_page_counts_its_text_once() {
        let data = json!({"messages": [row(1, 1, 10), row(2, 2, 20), row(3, 3, 30)]});
        let text = data.to_string();
        let (messages, returned) = rows(ChatRef::Group(7), Data::from_value(&data))
            .unwrap()
            .unwrap();
        assert_eq!((messages.len(), returned), (3, 3));
        let shares: usize = messages.iter().map(|m| m.raw.approx_bytes()).sum();
        assert!(
            (text.len() - 3..=text.len()).contains(&shares),
            "{shares} of {}",
            text.len()
        );
    }

    #[test]
    fn drops_anchor_and_newer_and_computes_has_more() {
        let napcat = assumed(Flavor::NapCat);
        // Anchor 4 included, peer returned 4 rows for count 2 (+1, +anchor).
        let data =
            json!({"messages": [row(2, 2, 20), row(3, 3, 30), row(1, 1, 10), row(4, 4, 40)]});
        let f = fetched(&napcat, 2, Some(&mark(4, 4, 40)), data);
        let ids: Vec<_> = f.page.messages.iter().map(|m| m.message_id).collect();
        assert_eq!(ids, [2, 3]);
        assert!(f.page.has_more);
        assert_eq!(f.verdict, Some(Verdict::Fits { included: true }));
        let data = json!({"messages": [row(1, 1, 10), row(2, 2, 20)]});
        let f = fetched(&assumed(Flavor::Lagrange), 5, Some(&mark(2, 2, 20)), data);
        assert_eq!(f.page.messages.len(), 1);
        assert!(!f.page.has_more);
        // Rows newer than the anchor never reach the client.
        let data = json!({"messages": [row(5, 5, 50), row(6, 6, 60), row(3, 3, 30)]});
        let f = fetched(&napcat, 5, Some(&mark(4, 4, 40)), data);
        let ids: Vec<_> = f.page.messages.iter().map(|m| m.message_id).collect();
        assert_eq!(ids, [3]);
        assert_eq!(f.verdict, Some(Verdict::Misread));
    }

    #[test]
    fn a_fixed_window_has_more_by_seq() {
        let gocq = assumed(Flavor::GoCqhttp);
        let rows: Vec<Value> = (1..=20).map(|s| row(100 + s, s, s)).collect();
        let f = fetched(
            &gocq,
            50,
            Some(&mark(120, 20, 20)),
            json!({"messages": rows}),
        );
        assert_eq!(f.page.messages.len(), 19);
        assert!(!f.page.has_more, "seq 1 is the oldest");
        let rows: Vec<Value> = (21..=40).map(|s| row(100 + s, s, s)).collect();
        let f = fetched(
            &gocq,
            50,
            Some(&mark(140, 40, 40)),
            json!({"messages": rows}),
        );
        assert!(f.page.has_more);
    }

    #[test]
    fn empty_answers_and_missing_actions() {
        let g = ChatRef::Group(1);
        let napcat = assumed(Flavor::NapCat);
        let err = Error::new(Kind::OnebotActionFailed, "x").with("peer_message", "消息0不存在");
        let f = page(&napcat, g, 5, None, Err(err.clone())).unwrap();
        assert!(f.page.messages.is_empty() && !f.page.has_more);
        // An anchor the peer does not know says the profile may be wrong.
        let f = page(&napcat, g, 5, Some(&mark(9, 9, 9)), Err(err)).unwrap();
        assert_eq!(f.verdict, Some(Verdict::Misread));
        let other = Error::new(Kind::OnebotActionFailed, "boom").with("peer_message", "boom");
        assert!(page(&napcat, g, 5, None, Err(other)).is_err());
        let bad = page(
            &napcat,
            g,
            5,
            None,
            Ok(Data::from_value(&json!({"messages": 3}))),
        );
        assert_eq!(bad.unwrap_err().kind, Kind::OnebotProtocolError);
        // ok with no data, or an unknown action: no history there.
        for data in [json!(null), json!({}), json!({"other": []})] {
            let e = page(&napcat, g, 5, None, Ok(Data::from_value(&data))).unwrap_err();
            assert_eq!(e.kind, Kind::HistoryUnsupported, "{data}");
        }
        let unknown =
            Error::new(Kind::OnebotActionUnsupported, "no such action").with("flavor", "go-cqhttp");
        let e = page(&napcat, ChatRef::Private(3), 5, None, Err(unknown)).unwrap_err();
        assert_eq!(e.kind, Kind::HistoryUnsupported);
        assert_eq!(e.meta("action"), Some("get_friend_msg_history"));
    }

    #[test]
    fn every_shape_of_history_data() {
        let g = ChatRef::Group(7);
        let lagrange = assumed(Flavor::Lagrange);
        let ids = |data: Value| {
            page(&lagrange, g, 5, None, Ok(Data::from_value(&data)))
                .map(|f| {
                    f.page
                        .messages
                        .iter()
                        .map(|m| m.message_id)
                        .collect::<Vec<_>>()
                })
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
        assert_eq!(ids(json!({"messages": []})), Ok(vec![]));
        assert_eq!(ids(json!([])), Ok(vec![]));
        for bad in [json!("x"), json!(3), json!(true), json!({"messages": {}})] {
            assert_eq!(ids(bad), Err(Kind::OnebotProtocolError));
        }
        assert_eq!(ids(json!({"messages": null})), Ok(vec![]));
        let e = page(&lagrange, g, 5, None, Ok(Data::none())).unwrap_err();
        assert_eq!(e.kind, Kind::HistoryUnsupported);
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
            let p = page(
                &assumed(Flavor::Lagrange),
                g,
                5,
                None,
                Ok(frame.into_data()),
            )
            .unwrap()
            .page;
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
