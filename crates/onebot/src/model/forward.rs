//! Decoding `get_forward_msg` answers: the nodes of a merged-forward bundle.
//!
//! | peer      | list under  | each item                                              |
//! |-----------|-------------|--------------------------------------------------------|
//! | spec      | `message`   | `node` segments                                        |
//! | go-cqhttp | `messages`  | `{sender{user_id,nickname}, time, content, group_id}`  |
//! | NapCat    | `messages`  | whole message objects (`message_id`, `sender`, `message`) |
//! | LLOneBot  | `messages`  | `{content, sender{nickname,user_id}, time, …}`         |
//! | Lagrange  | `message`   | `{type:"node", data:{user_id (a string), nickname, content}}` |
//! | SnowLuma  | `messages`  | message objects (`message`, `sender`)                  |
//!
//! So: the list is `messages`, else `message`, else the data itself when it
//! is an array; an item's segments are `content`, else `message` (of the
//! item, or of a `node` segment's `data`), in any message form; its sender
//! is `sender`, else the item's own `user_id` / `nickname` (`uin` / `name`
//! for some `node`s). Nested bundles stay `forward` segments (a NapCat
//! `forward` segment's inline `content` is not read). Items without a
//! numeric sender are skipped.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::message::{SENDER_KEYS, SenderFields, raw_of_value};
use super::scalar::{KeyIn, Scalar};
use super::segment::Content;
use onebot_gateway_domain::model::{ChatRef, Message, RawJson, Sender};

/// The node list of a `get_forward_msg` answer's `data`: `messages`, else
/// `message` (the first that is not `null`), else the data itself.
fn node_list(data: &Value) -> &[Value] {
    let list = match data {
        Value::Object(o) => ["messages", "message"]
            .iter()
            .filter_map(|k| o.get(*k))
            .find(|v| !v.is_null()),
        other => Some(other),
    };
    match list {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

/// Decodes the nodes of a `get_forward_msg` answer (see the module docs).
pub fn decode_forward(data: &Value) -> Vec<Message> {
    node_list(data)
        .iter()
        .filter_map(|item| {
            PeerNode::deserialize(item)
                .ok()?
                .into_message(|| raw_of_value(item))
        })
        .collect()
}

/// The keys of a node read, besides `sender`, `content`, `message` and
/// `data`.
const KEYS: [&str; 12] = [
    "type",
    "user_id",
    "uin",
    "nickname",
    "name",
    "raw_message",
    "group_id",
    "message_id",
    "id",
    "real_seq",
    "message_seq",
    "time",
];
const RAW_MESSAGE: usize = 5;

/// One node of a bundle: a `node` segment or a message-like object. Any
/// JSON value reads; what is not an object is no node. A repeated key
/// keeps its last value, as in a tree.
pub struct PeerNode<'de>(Option<Node<'de>>);

struct Node<'de> {
    top: [Scalar<'de>; KEYS.len()],
    /// `Null`s when `sender` is absent or not an object.
    sender: [Scalar<'de>; SENDER_KEYS.len()],
    content: Content,
    message: Content,
    /// `data`, when it is an object: the node of a `node` segment.
    data: Option<Box<Node<'de>>>,
}

impl<'de> Node<'de> {
    fn get(&self, key: &str) -> &Scalar<'de> {
        super::scalar::field(&KEYS, &self.top, key)
    }

    /// The first of `a` and `b` that is not `null`.
    fn first(&self, a: &str, b: &str) -> &Scalar<'de> {
        match self.get(a) {
            Scalar::Null => self.get(b),
            v => v,
        }
    }

    fn sender(&self, key: &str) -> &Scalar<'de> {
        super::scalar::field(&SENDER_KEYS, &self.sender, key)
    }
}

impl PeerNode<'_> {
    /// The node as a message; `None` without a numeric sender id. `raw` is
    /// only asked for once the sender checks out.
    pub fn into_message(self, raw: impl FnOnce() -> RawJson) -> Option<Message> {
        let outer = self.0?;
        // A `node` segment carries the node in its `data`.
        let is_node = outer.get("type").as_str() == Some("node");
        let node = match outer.data {
            Some(data) if is_node => *data,
            _ => Node {
                data: None,
                ..outer
            },
        };
        let user_id = node
            .sender("user_id")
            .int()
            .or_else(|| node.first("user_id", "uin").int())?;
        let text = |v: &Scalar<'_>| v.clone().text().unwrap_or_default();
        let sender = Sender {
            user_id,
            nickname: match text(node.sender("nickname")) {
                n if n.is_empty() => text(node.first("nickname", "name")),
                n => n,
            },
            card: text(node.sender("card")),
            role: text(node.sender("role")),
        };
        let chat = node
            .get("group_id")
            .int()
            .filter(|g| *g > 0)
            .map_or(ChatRef::Private(user_id), ChatRef::Group);
        let message_id = node.first("message_id", "id").int().unwrap_or(0);
        let message_seq = node
            .get("real_seq")
            .int()
            .or_else(|| node.get("message_seq").int())
            .filter(|s| *s > 0 && *s != message_id);
        let time = node.get("time").int().unwrap_or(0);
        let raw_message = node.top[RAW_MESSAGE].as_str();
        let content = if node.content.null {
            node.message
        } else {
            node.content
        };
        let segments = content.or_raw(raw_message);
        Some(Message {
            message_id,
            message_seq,
            peer_seq: None,
            time,
            sender,
            segments,
            chat,
            raw: raw(),
        })
    }
}

impl<'de> Deserialize<'de> for PeerNode<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor).map(PeerNode)
    }
}

/// The index of a node key: [`KEYS`], then `sender`, `content`,
/// `message` and `data`.
fn node_key(key: &str) -> Option<usize> {
    Some(match key {
        "type" => 0,
        "user_id" => 1,
        "uin" => 2,
        "nickname" => 3,
        "name" => 4,
        "raw_message" => 5,
        "group_id" => 6,
        "message_id" => 7,
        "id" => 8,
        "real_seq" => 9,
        "message_seq" => 10,
        "time" => 11,
        "sender" => 12,
        "content" => 13,
        "message" => 14,
        "data" => 15,
        _ => return None,
    })
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Option<Node<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut node = Node {
            top: Default::default(),
            sender: Default::default(),
            content: Content {
                segments: Vec::new(),
                null: true,
            },
            message: Content {
                segments: Vec::new(),
                null: true,
            },
            data: None,
        };
        while let Some(index) = map.next_key_seed(KeyIn(node_key))? {
            match index {
                Some(i) if i < KEYS.len() => node.top[i] = map.next_value()?,
                Some(12) => node.sender = map.next_value::<SenderFields<'de>>()?.0,
                Some(13) => node.content = map.next_value()?,
                Some(14) => node.message = map.next_value()?,
                Some(_) => node.data = map.next_value::<PeerNode<'de>>()?.0.map(Box::new),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(node))
    }
}
#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use onebot_gateway_domain::model::Segment;

    fn texts(nodes: &[Message]) -> Vec<String> {
        nodes
            .iter()
            .map(|m| {
                m.segments
                    .iter()
                    .map(|s| match s {
                        Segment::Text(t) => t.clone(),
                        other => format!("[{}]", other.kind()),
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_peer_shape() {
        // go-cqhttp: `messages`, `content` as a CQ string, `group_id`.
        let gocq = json!({"messages": [
            {"sender": {"user_id": 1, "nickname": "甲"}, "time": 5, "content": "你好[CQ:face,id=1]", "group_id": 7},
            {"sender": {"user_id": 2, "nickname": "乙"}, "time": 6, "content": [{"type": "text", "data": {"text": "hi"}}]}
        ]});
        let n = decode_forward(&gocq);
        assert_eq!(texts(&n), ["你好[face]", "hi"]);
        assert_eq!(
            (n[0].chat, n[1].chat),
            (ChatRef::Group(7), ChatRef::Private(2))
        );
        assert_eq!((n[0].sender.nickname.as_str(), n[0].time), ("甲", 5));
        // NapCat: whole messages, with a nested forward left as a segment.
        let napcat = json!({"messages": [
            {"message_id": 11, "user_id": 3, "time": 7, "message_type": "group", "group_id": 8,
             "sender": {"user_id": 3, "nickname": "丙", "card": "卡"},
             "message": [{"type": "forward", "data": {"id": "inner", "content": [{"message": "x"}]}}]}
        ]});
        let n = decode_forward(&napcat);
        assert_eq!(n[0].message_id, 11);
        assert_eq!(n[0].sender.card, "卡");
        assert_eq!(n[0].segments, vec![Segment::Forward { id: "inner".into() }]);
        // Lagrange: `message`, node segments, user_id a string.
        let lagrange = json!({"message": [
            {"type": "node", "data": {"user_id": "4", "nickname": "丁", "content": [{"type": "text", "data": {"text": "嗨"}}]}}
        ]});
        let n = decode_forward(&lagrange);
        assert_eq!(
            (
                n[0].sender.user_id,
                n[0].sender.nickname.as_str(),
                n[0].message_id
            ),
            (4, "丁", 0)
        );
        assert_eq!(texts(&n), ["嗨"]);
        // The spec's bare node list; items without a sender are skipped.
        let spec = json!([
            {"type": "node", "data": {"uin": 5, "name": "戊", "content": "ok"}},
            {"type": "node", "data": {"content": "nobody"}},
            "junk"
        ]);
        let n = decode_forward(&spec);
        assert_eq!((n.len(), n[0].sender.nickname.as_str()), (1, "戊"));
        for empty in [json!(null), json!({}), json!({"messages": 3}), json!("x")] {
            assert!(decode_forward(&empty).is_empty());
        }
    }
}
