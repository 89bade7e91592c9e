//! The gateway's own message model as the tools' details show it: the
//! field names of the gRPC API's proto3 JSON (`ChatMessage`, `Segment`,
//! `Sender`, `GroupMember`), in a compact form a model reads cheaply.
//!
//! The rules of the compact form:
//! - Fields with their default value (0, `""`, `false`, absent) are left
//!   out, as proto3 JSON leaves them out.
//! - Ids are JSON numbers (proto3 JSON writes 64-bit integers as strings;
//!   every id here is a safe integer), times RFC 3339 strings in the
//!   gateway's time zone (`2026-10-19T09:58:12+08:00`).
//! - A message's `sender` carries only `userId`; each sender's names
//!   (`nickname`, `card`, `role`) come once per result, in its `senders`.
//! - A message made of text alone has its `text` and no `segments`; any
//!   other message has its `segments` and no `text` (the text is in its
//!   text segments, and every segment is in the result's text).
//! - A quote (`reply.quoted`) is one level deep and as text: its
//!   `messageId`, `time`, `sender` and `text`, no segments.
//! - The peer's own forms are not shown: no `file` names or `url`s of media
//!   (an agent gets the bytes with the segment's `mediaId`), no raw OneBot
//!   fields (`raw_message`, `font`, `real_seq`, `message_format`, ...).
//! - A message's chat is named once by the result (`target`), not per
//!   message, where every message is of the same chat; `messageSeq` is not
//!   shown (`messageId` is what every tool takes).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::gateway::Gateway;
use crate::media::ids::MediaIds;
use crate::model::{ChatRef, GroupMember, Message, Segment, Sender};
use crate::render;

/// RFC 3339 of Unix seconds in `tz` (`""` outside the representable range).
pub fn time_text(secs: i64, tz: &jiff::tz::TimeZone) -> String {
    jiff::Timestamp::from_second(secs)
        .map(|t| {
            t.to_zoned_datetime(tz.clone())
                .strftime("%Y-%m-%dT%H:%M:%S%:z")
                .to_string()
        })
        .unwrap_or_default()
}

/// The proto3 JSON of a chat (`{"groupId":N}` / `{"userId":N}`).
pub fn chat(chat: ChatRef) -> Value {
    match chat {
        ChatRef::Group(id) => json!({"groupId": id}),
        ChatRef::Private(id) => json!({"userId": id}),
    }
}

/// Messages of one account as details show them, collecting their senders.
pub struct View<'a> {
    ids: &'a MediaIds,
    account_id: &'a str,
    tz: &'a jiff::tz::TimeZone,
    /// Each sender seen, by QQ number (the newest names win).
    senders: BTreeMap<i64, Sender>,
    /// QQ numbers in the order first seen.
    order: Vec<i64>,
}

impl<'a> View<'a> {
    /// A view of messages of `account_id` (media ids are the account's).
    pub fn new(gw: &'a Gateway, account_id: &'a str) -> Self {
        Self {
            ids: gw.received().ids(),
            account_id,
            tz: &gw.tz,
            senders: BTreeMap::new(),
            order: Vec::new(),
        }
    }

    /// The messages, in order.
    pub fn messages<'m>(&mut self, messages: impl IntoIterator<Item = &'m Message>) -> Value {
        Value::Array(messages.into_iter().map(|m| self.message(m)).collect())
    }

    /// One message (`ChatMessage` without `chat` and `messageSeq`).
    pub fn message(&mut self, m: &Message) -> Value {
        let mut o = Map::new();
        if m.message_id != 0 {
            o.insert("messageId".into(), json!(m.message_id));
        }
        if m.time != 0 {
            o.insert("time".into(), json!(time_text(m.time, self.tz)));
        }
        if m.sender.user_id != 0 {
            o.insert("sender".into(), json!({"userId": m.sender.user_id}));
            self.note(&m.sender);
        }
        if m.segments.iter().all(|s| matches!(s, Segment::Text(_))) {
            let text = render::segments(&m.segments);
            if !text.is_empty() {
                o.insert("text".into(), json!(text));
            }
        } else {
            let segments: Vec<Value> = m
                .segments
                .iter()
                .enumerate()
                .map(|(i, s)| self.segment(m.message_id, i, s))
                .collect();
            o.insert("segments".into(), Value::Array(segments));
        }
        Value::Object(o)
    }

    /// A quoted message, one level deep and as text: `messageId`, `time`,
    /// `sender` and its `text` (ChatMessage.text), no segments.
    fn quoted(&mut self, m: &Message) -> Value {
        let mut o = Map::new();
        if m.message_id != 0 {
            o.insert("messageId".into(), json!(m.message_id));
        }
        if m.time != 0 {
            o.insert("time".into(), json!(time_text(m.time, self.tz)));
        }
        if m.sender.user_id != 0 {
            o.insert("sender".into(), json!({"userId": m.sender.user_id}));
            self.note(&m.sender);
        }
        let text = render::segments(&m.segments);
        if !text.is_empty() {
            o.insert("text".into(), json!(text));
        }
        Value::Object(o)
    }

    /// The same message with its chat (`chat`), for results that span
    /// chats.
    pub fn message_in_chat(&mut self, m: &Message) -> Value {
        let mut v = self.message(m);
        v["chat"] = chat(m.chat);
        v
    }

    fn note(&mut self, sender: &Sender) {
        if sender.nickname.is_empty() && sender.card.is_empty() && sender.role.is_empty() {
            return;
        }
        if self
            .senders
            .insert(sender.user_id, sender.clone())
            .is_none()
        {
            self.order.push(sender.user_id);
        }
    }

    /// Each sender of the messages viewed once (`Sender`: `userId`,
    /// `nickname`, `card`, `role`), in the order first seen.
    pub fn senders(&self) -> Value {
        Value::Array(
            self.order
                .iter()
                .filter_map(|id| self.senders.get(id))
                .map(|s| {
                    let mut o = Map::new();
                    o.insert("userId".into(), json!(s.user_id));
                    for (key, value) in [
                        ("nickname", &s.nickname),
                        ("card", &s.card),
                        ("role", &s.role),
                    ] {
                        if !value.is_empty() {
                            o.insert(key.into(), json!(value));
                        }
                    }
                    Value::Object(o)
                })
                .collect(),
        )
    }

    /// The media id of segment `index` of message `message_id` (none for a
    /// message without an id, as in gRPC).
    fn media_id(&self, message_id: i64, index: usize, o: &mut Map<String, Value>) {
        if message_id != 0 {
            o.insert(
                "mediaId".into(),
                json!(self.ids.id(self.account_id, message_id, index)),
            );
        }
    }

    /// One segment as its proto3 JSON oneof (`{"image":{...}}`), default
    /// fields left out.
    fn segment(&mut self, message_id: i64, index: usize, seg: &Segment) -> Value {
        let mut o = Map::new();
        let put = |o: &mut Map<String, Value>, key: &str, value: &str| {
            if !value.is_empty() {
                o.insert(key.into(), json!(value));
            }
        };
        let kind = match seg {
            Segment::Text(text) => {
                put(&mut o, "text", text);
                "text"
            }
            Segment::At { user_id, all, name } => {
                if let Some(id) = user_id.filter(|id| *id != 0) {
                    o.insert("userId".into(), json!(id));
                }
                if *all {
                    o.insert("all".into(), json!(true));
                }
                put(&mut o, "name", name.as_deref().unwrap_or_default());
                "at"
            }
            Segment::Face { id } => {
                put(&mut o, "id", id);
                "face"
            }
            Segment::Image {
                file_size, summary, ..
            } => {
                if *file_size != 0 {
                    o.insert("fileSize".into(), json!(file_size));
                }
                put(&mut o, "summary", summary);
                self.media_id(message_id, index, &mut o);
                "image"
            }
            Segment::Record { .. } => {
                self.media_id(message_id, index, &mut o);
                "record"
            }
            Segment::Video { .. } => {
                self.media_id(message_id, index, &mut o);
                "video"
            }
            Segment::File {
                name, file_size, ..
            } => {
                put(&mut o, "name", name);
                if *file_size != 0 {
                    o.insert("fileSize".into(), json!(file_size));
                }
                self.media_id(message_id, index, &mut o);
                "file"
            }
            Segment::Reply { id, quoted } => {
                put(&mut o, "id", id);
                if let Some(q) = quoted {
                    o.insert("quoted".into(), self.quoted(q));
                }
                "reply"
            }
            Segment::Forward { id } => {
                put(&mut o, "id", id);
                "forward"
            }
            Segment::Json { data } => {
                put(&mut o, "data", data);
                "json"
            }
            Segment::Xml { data } => {
                put(&mut o, "data", data);
                "xml"
            }
            Segment::Poke { kind, id } => {
                put(&mut o, "type", kind);
                put(&mut o, "id", id);
                "poke"
            }
            Segment::Unknown { kind, data_json } => {
                put(&mut o, "type", kind);
                put(&mut o, "dataJson", data_json);
                "unknown"
            }
        };
        json!({ kind: Value::Object(o) })
    }
}

/// A group member (`GroupMember`), default fields left out, times RFC 3339
/// in `tz`.
pub fn member(m: &GroupMember, tz: &jiff::tz::TimeZone) -> Value {
    let mut o = Map::new();
    if let Some(id) = m.user_id {
        o.insert("userId".into(), json!(id));
    }
    for (key, value) in [
        ("nickname", &m.nickname),
        ("card", &m.card),
        ("role", &m.role),
        ("title", &m.title),
        ("level", &m.level),
    ] {
        if !value.is_empty() {
            o.insert(key.into(), json!(value.as_str()));
        }
    }
    for (key, time) in [
        ("joinTime", m.join_time),
        ("lastSentTime", m.last_sent_time),
    ] {
        if let Some(t) = time {
            o.insert(key.into(), json!(time_text(t, tz)));
        }
    }
    Value::Object(o)
}
