//! The peer's message object (a history entry, a `get_msg` result, a
//! message event), decoded by one [`Deserialize`] from text and from trees
//! alike: only the fields a [`Message`] is made of are read, every other
//! key skipped without building anything.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::scalar::{KeyIn, Scalar};
use super::segment::Content;
use crate::ids;
use onebot_gateway_domain::model::{ChatRef, Message, RawJson, Sender};

/// The top-level keys read, besides `sender` and `message`.
const KEYS: [&str; 11] = [
    "user_id",
    "message_id",
    "group_id",
    "message_type",
    "post_type",
    "target_id",
    "real_seq",
    "message_seq",
    "real_id",
    "time",
    "raw_message",
];
const RAW_MESSAGE: usize = 10;
const SENDER: usize = KEYS.len();
const MESSAGE: usize = KEYS.len() + 1;
/// The keys of a `sender` object read.
pub(super) const SENDER_KEYS: [&str; 4] = ["user_id", "nickname", "card", "role"];

/// A message object as read: its fields, strings borrowed from the input;
/// [`into_message`](Self::into_message) makes the [`Message`]. Any JSON
/// value reads: what is not an object is no message. A repeated key keeps
/// its last value, as in a tree.
pub struct PeerMessage<'de>(Option<Fields<'de>>);

struct Fields<'de> {
    top: [Scalar<'de>; KEYS.len()],
    /// `Null`s when `sender` is absent or not an object.
    sender: [Scalar<'de>; SENDER_KEYS.len()],
    content: Content,
}

impl<'de> Fields<'de> {
    fn get(&self, key: &str) -> &Scalar<'de> {
        super::scalar::field(&KEYS, &self.top, key)
    }

    fn sender(&self, key: &str) -> &Scalar<'de> {
        super::scalar::field(&SENDER_KEYS, &self.sender, key)
    }
}

/// The JSON text of `value`, kept as the peer's own object.
pub fn raw_of_value(value: &Value) -> RawJson {
    RawJson::from_text(value.to_string())
}

/// Decodes the peer's message object given as a tree (see
/// [`PeerMessage::into_message`]); `raw` is the tree's text.
pub fn decode_message(raw: &Value, chat: Option<ChatRef>) -> Option<Message> {
    PeerMessage::deserialize(raw)
        .ok()?
        .into_message(chat, || raw_of_value(raw))
}

impl PeerMessage<'_> {
    /// The message, if this is one.
    ///
    /// `None` for anything without a numeric sender id (`sender.user_id`,
    /// else `user_id`) or any `message_id` (ids of every shape are read by
    /// [`ids::message_id_of`]), and when `chat` is `None` and cannot be
    /// derived (`message_type` `group` with a numeric `group_id`, `private`
    /// with the other side's id — `target_id` for the bot's own
    /// `message_sent` — or, without `message_type`, a numeric `group_id`).
    /// Ids may be numbers or numeric strings, negative included.
    ///
    /// `message_seq` is the real QQ sequence: `real_seq` when present
    /// (NapCat, whose `message_seq` and `real_id` are its short id), else
    /// `message_seq`, else `real_id` (go-cqhttp), each only when positive
    /// and different from `message_id`. `peer_seq` is the one the peer
    /// anchors on: `message_seq`, else `real_id`, when positive.
    ///
    /// The segments are `message` in any form, else (none there) those of
    /// the CQ string `raw_message`. `raw` is only asked for once the ids
    /// check out.
    pub fn into_message(
        self,
        chat: Option<ChatRef>,
        raw: impl FnOnce() -> RawJson,
    ) -> Option<Message> {
        let f = self.0?;
        let user_id = f
            .sender("user_id")
            .int()
            .or_else(|| f.get("user_id").int())?;
        let message_id = message_id_of(f.get("message_id"))?;
        let chat = match chat {
            Some(chat) => chat,
            None => derive_chat(&f, user_id)?,
        };
        let message_seq = ["real_seq", "message_seq", "real_id"]
            .iter()
            .filter_map(|k| f.get(k).int())
            .find(|seq| *seq > 0 && *seq != message_id);
        let peer_seq = f
            .get("message_seq")
            .int()
            .or_else(|| f.get("real_id").int())
            .filter(|s| *s > 0);
        let time = f.get("time").time().unwrap_or(0);
        let sender = Sender {
            user_id,
            nickname: f.sender("nickname").clone().text().unwrap_or_default(),
            card: f.sender("card").clone().text().unwrap_or_default(),
            role: f.sender("role").clone().text().unwrap_or_default(),
        };
        let raw_message = f.top[RAW_MESSAGE].as_str();
        let segments = f.content.or_raw(raw_message);
        Some(Message {
            message_id,
            message_seq,
            peer_seq,
            time,
            sender,
            segments,
            chat,
            raw: raw(),
        })
    }
}

/// A message id as [`ids::message_id_of`] reads it.
fn message_id_of(v: &Scalar<'_>) -> Option<i64> {
    match v {
        Scalar::I64(i) => Some(*i),
        Scalar::U64(u) => Some(ids::message_id_of_u64(*u)),
        Scalar::F64(f) => ids::message_id_of_f64(*f),
        Scalar::Str(s) => ids::message_id_of_str(s),
        Scalar::Bool(_) | Scalar::Null | Scalar::Nested => None,
    }
}

fn derive_chat(f: &Fields<'_>, sender_id: i64) -> Option<ChatRef> {
    let group = || f.get("group_id").int().map(ChatRef::Group);
    match f.get("message_type").as_str() {
        Some("group") => group(),
        Some("private") => {
            let self_sent = f.get("post_type").as_str() == Some("message_sent");
            let peer = if self_sent {
                f.get("target_id").int()
            } else {
                None
            };
            let top = f.get("user_id").int();
            Some(ChatRef::Private(peer.or(top).unwrap_or(sender_id)))
        }
        _ => group(),
    }
}

impl<'de> Deserialize<'de> for PeerMessage<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MessageVisitor)
    }
}

/// The index of a message key: [`KEYS`], then `sender` and `message`.
fn message_key(key: &str) -> Option<usize> {
    Some(match key {
        "user_id" => 0,
        "message_id" => 1,
        "group_id" => 2,
        "message_type" => 3,
        "post_type" => 4,
        "target_id" => 5,
        "real_seq" => 6,
        "message_seq" => 7,
        "real_id" => 8,
        "time" => 9,
        "raw_message" => 10,
        "sender" => 11,
        "message" => 12,
        _ => return None,
    })
}

/// The index of a sender key in [`SENDER_KEYS`].
fn sender_key(key: &str) -> Option<usize> {
    Some(match key {
        "user_id" => 0,
        "nickname" => 1,
        "card" => 2,
        "role" => 3,
        _ => return None,
    })
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = PeerMessage<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(PeerMessage(None))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(PeerMessage(None))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(PeerMessage(None))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(PeerMessage(None))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(PeerMessage(None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(PeerMessage(None))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(PeerMessage(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut f = Fields {
            top: Default::default(),
            sender: Default::default(),
            content: Content::default(),
        };
        while let Some(index) = map.next_key_seed(KeyIn(message_key))? {
            match index {
                Some(i) if i < SENDER => f.top[i] = map.next_value()?,
                Some(SENDER) => f.sender = map.next_value::<SenderFields<'de>>()?.0,
                Some(MESSAGE) => f.content = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(PeerMessage(Some(f)))
    }
}

/// The `sender` object's fields; `Null`s when it is not an object.
pub(super) struct SenderFields<'de>(pub(super) [Scalar<'de>; SENDER_KEYS.len()]);

impl<'de> Deserialize<'de> for SenderFields<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SenderVisitor)
    }
}

struct SenderVisitor;

impl<'de> Visitor<'de> for SenderVisitor {
    type Value = SenderFields<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(SenderFields(Default::default()))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(SenderFields(Default::default()))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(SenderFields(Default::default()))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(SenderFields(Default::default()))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(SenderFields(Default::default()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(SenderFields(Default::default()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(SenderFields(Default::default()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields: [Scalar<'de>; SENDER_KEYS.len()] = Default::default();
        while let Some(index) = map.next_key_seed(KeyIn(sender_key))? {
            match index {
                Some(i) => fields[i] = map.next_value()?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(SenderFields(fields))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use onebot_gateway_domain::model::Segment;

    /// The message read from its text, `raw` the text as it came.
    fn by_text(text: &str, chat: Option<ChatRef>) -> Option<Message> {
        serde_json::from_str::<PeerMessage<'_>>(text)
            .unwrap()
            .into_message(chat, || RawJson::from_text(text))
    }

    /// The message read from a tree of `text`, `raw` left out.
    fn by_tree(text: &str, chat: Option<ChatRef>) -> Option<Message> {
        let tree: Value = serde_json::from_str(text).unwrap();
        PeerMessage::deserialize(&tree)
            .unwrap()
            .into_message(chat, RawJson::null)
    }

    fn without_raw(m: Option<Message>) -> Option<Message> {
        m.map(|m| Message {
            raw: RawJson::null(),
            ..m
        })
    }

    #[test]
    fn read_from_text_skipping_what_it_does_not_need() {
        let chat = Some(ChatRef::Group(1));
        // Unknown keys skipped, escaped keys read, later duplicates win,
        // `raw` is the text as it came.
        let text = r#"{"font":{"deep":[1,{"x":null}]},"message_id":1,"message_id":"2","\u0075ser_id":3,"message":[{"type":"text","data":{"text":"hi"}}],"message_seq":"9"}"#;
        let m = by_text(text, chat).unwrap();
        assert_eq!(
            (m.message_id, m.sender.user_id, m.peer_seq),
            (2, 3, Some(9))
        );
        assert_eq!(m.segments, vec![Segment::Text("hi".into())]);
        assert_eq!(m.raw.text(), text);
        assert_eq!(without_raw(by_tree(text, chat)), without_raw(Some(m)));
        for not_a_message in ["[]", "1", "null", "\"x\"", r#"{"message_id":1}"#] {
            assert!(by_text(not_a_message, chat).is_none());
        }
        // The seq the peer anchors on: `message_seq`, else `real_id`, positive.
        let seq = |v: Value| decode_message(&v, chat).unwrap().peer_seq;
        assert_eq!(
            seq(json!({"message_id": 1, "user_id": 2, "real_id": 7})),
            Some(7)
        );
        assert_eq!(
            seq(json!({"message_id": 1, "user_id": 2, "message_seq": 0, "real_id": 7})),
            None
        );
        assert_eq!(seq(json!({"message_id": 1, "user_id": 2})), None);
    }

    /// Fields of odd shapes read the same from text as from a tree: ids
    /// beyond `i64`, floats, strings with escapes, numbers and booleans
    /// where text is expected, containers where a scalar is.
    #[test]
    fn odd_fields_read_alike_from_text_and_tree() {
        let texts = [
            r#"{"message_id":18446744073709551615,"user_id":"12","time":1.7e9,"message_type":"private","post_type":"message_sent","target_id":" 77 ","sender":{"user_id":5,"nickname":"a\"b\u4e2d","card":12.5,"role":true}}"#,
            r#"{"message_id":-3,"user_id":2,"time":18446744073709551615,"group_id":"9","message_type":"group","real_seq":"4","message_seq":3,"sender":{"nickname":null,"card":[1],"role":{"x":1}}}"#,
            r#"{"message_id":" 5 ","user_id":2,"time":"123","message_type":"private","real_id":6.0,"raw_message":"[CQ:face,id=1]\n","sender":[]}"#,
            r#"{"message_id":1e3,"sender":{"user_id":"4"},"time":-1.5,"message_type":7,"group_id":1.5,"message":"x\ty","raw_message":"ignored"}"#,
            r#"{"message_id":"abc","user_id":2,"time":null,"message_type":"private","post_type":"message","target_id":3,"message":{"type":"text"}}"#,
        ];
        let decoded: Vec<Option<Message>> = texts.iter().map(|t| by_text(t, None)).collect();
        for (text, m) in texts.iter().zip(&decoded) {
            assert_eq!(
                without_raw(by_tree(text, None)),
                without_raw(m.clone()),
                "{text}"
            );
        }
        let m = decoded[0].as_ref().unwrap();
        assert_eq!(m.chat, ChatRef::Private(77));
        assert_eq!(m.time, 1_700_000_000);
        assert_eq!(
            (
                m.sender.nickname.as_str(),
                m.sender.card.as_str(),
                m.sender.role.as_str()
            ),
            ("a\"b中", "12.5", "true")
        );
        assert!(onebot_gateway_domain::ids::is_minted(m.message_id));
        let m = decoded[1].as_ref().unwrap();
        assert_eq!(
            (m.chat, m.time, m.message_seq),
            (ChatRef::Group(9), i64::MAX, Some(4))
        );
        assert_eq!((m.sender.user_id, m.sender.card.as_str()), (2, ""));
        let m = decoded[2].as_ref().unwrap();
        assert_eq!((m.message_id, m.time, m.message_seq), (5, 123, Some(6)));
        assert_eq!(
            m.segments,
            vec![Segment::Face { id: "1".into() }, Segment::Text("\n".into())]
        );
        // `group_id` 1.5 names no group, and a `message_type` 7 no chat.
        assert!(decoded[3].is_none());
        let m = by_text(texts[3], Some(ChatRef::Group(1))).unwrap();
        assert_eq!((m.message_id, m.time), (1000, -1));
        assert_eq!(m.segments, vec![Segment::Text("x\ty".into())]);
        assert!(decoded[4].is_some());
    }

    #[test]
    fn ids_as_numbers_or_strings_negative_allowed() {
        let m = decode_message(
            &json!({"message_id": "-1834567890", "time": "1700000000", "sender": {"user_id": "10001"},
                    "message": "hi"}),
            Some(ChatRef::Group(1)),
        )
        .unwrap();
        assert_eq!(m.message_id, -1_834_567_890);
        assert_eq!(m.time, 1_700_000_000);
        assert_eq!(m.sender.user_id, 10001);
        assert_eq!(m.segments, vec![Segment::Text("hi".into())]);
        let m = decode_message(
            &json!({"message_id": 5.0, "user_id": 7, "message": []}),
            Some(ChatRef::Private(7)),
        )
        .unwrap();
        assert_eq!((m.message_id, m.sender.user_id, m.time), (5, 7, 0));
    }

    #[test]
    fn message_ids_of_any_shape_are_kept() {
        let chat = Some(ChatRef::Group(1));
        for id in [
            json!("99999999999999999999"),
            json!("fork-1"),
            json!(u64::MAX),
        ] {
            let m = decode_message(&json!({"message_id": id, "user_id": 2}), chat).unwrap();
            assert!(onebot_gateway_domain::ids::is_minted(m.message_id), "{id}");
        }
    }

    #[test]
    fn entries_without_numeric_ids_are_dropped() {
        let chat = Some(ChatRef::Group(1));
        for v in [
            json!({"message_id": 1, "sender": {"user_id": "abc"}}),
            json!({"message_id": 1, "sender": {}}),
            json!({"message_id": 1.5, "user_id": 2}),
            json!({"message_id": "", "user_id": 2}),
            json!({"message_id": null, "user_id": 2}),
            json!({"user_id": 2}),
            json!({"message_id": 1, "user_id": 1e300}),
            json!("message"),
            json!([1, 2]),
            json!(null),
        ] {
            assert!(decode_message(&v, chat).is_none(), "{v}");
        }
        // `sender.user_id` not numeric, top-level `user_id` is: kept.
        assert!(
            decode_message(
                &json!({"message_id": 1, "sender": {"user_id": "x"}, "user_id": 3}),
                chat
            )
            .is_some()
        );
    }

    #[test]
    fn message_forms() {
        let chat = Some(ChatRef::Group(1));
        let decode = |message: Value, raw: Value| {
            decode_message(
                &json!({"message_id": 1, "user_id": 2, "message": message, "raw_message": raw}),
                chat,
            )
            .unwrap()
            .segments
        };
        let face = Segment::Face { id: "14".into() };
        assert_eq!(
            decode(json!([{"type": "face", "data": {"id": 14}}]), json!(null)),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!({"type": "face", "data": {"id": "14"}}), json!(null)),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!("[CQ:face,id=14]"), json!(null)),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!(null), json!("[CQ:face,id=14]")),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!([]), json!("[CQ:face,id=14]")),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!([1, "x", {"data": {}}]), json!("plain")),
            vec![Segment::Text("plain".into())]
        );
        assert_eq!(decode(json!(""), json!("")), vec![]);
        assert_eq!(decode(json!(42), json!(7)), vec![]);
    }

    #[test]
    fn real_seq_rules() {
        let seq = |v: Value| {
            decode_message(&v, Some(ChatRef::Group(1)))
                .unwrap()
                .message_seq
        };
        // NapCat: message_seq = real_id = short id; real_seq is the real one.
        assert_eq!(
            seq(
                json!({"message_id": 123, "message_seq": 123, "real_id": 123, "real_seq": "4567", "user_id": 1})
            ),
            Some(4567)
        );
        assert_eq!(
            seq(json!({"message_id": 123, "message_seq": 123, "real_id": 123, "user_id": 1})),
            None
        );
        // LLOneBot / SnowLuma: message_seq is the real seq.
        assert_eq!(
            seq(json!({"message_id": -99, "message_seq": 880, "user_id": 1})),
            Some(880)
        );
        // go-cqhttp get_msg: real_id.
        assert_eq!(
            seq(json!({"message_id": 5, "real_id": 77, "user_id": 1})),
            Some(77)
        );
        assert_eq!(
            seq(json!({"message_id": 5, "real_seq": "0", "message_seq": 0, "user_id": 1})),
            None
        );
    }

    #[test]
    fn chat_derivation() {
        let chat = |v: Value| decode_message(&v, None).map(|m| m.chat);
        assert_eq!(
            chat(
                json!({"message_type": "group", "group_id": "20000002", "message_id": 1, "user_id": 2})
            ),
            Some(ChatRef::Group(20000002))
        );
        assert_eq!(
            chat(json!({"message_type": "group", "message_id": 1, "user_id": 2})),
            None
        );
        assert_eq!(
            chat(
                json!({"message_type": "private", "message_id": 1, "user_id": 10001, "sender": {"user_id": 10001}})
            ),
            Some(ChatRef::Private(10001))
        );
        assert_eq!(
            chat(
                json!({"post_type": "message_sent", "message_type": "private", "message_id": 1,
                        "user_id": 99, "target_id": 10001, "sender": {"user_id": 99}})
            ),
            Some(ChatRef::Private(10001))
        );
        assert_eq!(
            chat(json!({"group_id": 3, "message_id": 1, "user_id": 2})),
            Some(ChatRef::Group(3))
        );
        assert_eq!(chat(json!({"message_id": 1, "user_id": 2})), None);
        // A given chat wins.
        assert_eq!(
            chat(json!({"message_type": "group", "group_id": 3, "message_id": 1, "user_id": 2}))
                .and(decode_message(
                    &json!({"message_type": "group", "group_id": 3, "message_id": 1, "user_id": 2}),
                    Some(ChatRef::Group(9))
                ))
                .map(|m| m.chat),
            Some(ChatRef::Group(9))
        );
    }
}
