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

use serde_json::{Map, Value};

use super::value::{int_of, raw_of_value, segments_of, str_of};
use crate::domain::model::{ChatRef, Message, Sender};

fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> &'a Value {
    obj.get(key).unwrap_or(&Value::Null)
}

fn first<'a>(obj: &'a Map<String, Value>, keys: &[&str]) -> &'a Value {
    keys.iter()
        .map(|k| field(obj, k))
        .find(|v| !v.is_null())
        .unwrap_or(&Value::Null)
}

/// The node list of a `get_forward_msg` answer's `data`.
fn node_list(data: &Value) -> &[Value] {
    match data {
        Value::Array(items) => items,
        Value::Object(o) => match first(o, &["messages", "message"]) {
            Value::Array(items) => items,
            _ => &[],
        },
        _ => &[],
    }
}

/// Decodes the nodes of a `get_forward_msg` answer (see the module docs).
pub fn decode_forward(data: &Value) -> Vec<Message> {
    node_list(data).iter().filter_map(decode_node).collect()
}

/// One node: a `node` segment or a message-like object.
fn decode_node(item: &Value) -> Option<Message> {
    let obj = item.as_object()?;
    // A `node` segment carries the node in its `data`.
    let node = match (field(obj, "type").as_str(), field(obj, "data")) {
        (Some("node"), Value::Object(data)) => data,
        _ => obj,
    };
    let sender = field(node, "sender").as_object();
    let from_sender = |key: &str| sender.map_or(&Value::Null, |s| field(s, key));
    let user_id =
        int_of(from_sender("user_id")).or_else(|| int_of(first(node, &["user_id", "uin"])))?;
    let text = |v: &Value| str_of(v).unwrap_or_default();
    let sender = Sender {
        user_id,
        nickname: match text(from_sender("nickname")) {
            n if n.is_empty() => text(first(node, &["nickname", "name"])),
            n => n,
        },
        card: text(from_sender("card")),
        role: text(from_sender("role")),
    };
    let content = first(node, &["content", "message"]);
    let segments = segments_of(content, field(node, "raw_message").as_str());
    let chat = int_of(field(node, "group_id"))
        .filter(|g| *g > 0)
        .map_or(ChatRef::Private(user_id), ChatRef::Group);
    let message_id = int_of(first(node, &["message_id", "id"])).unwrap_or(0);
    let message_seq = int_of(field(node, "real_seq"))
        .or_else(|| int_of(field(node, "message_seq")))
        .filter(|s| *s > 0 && *s != message_id);
    Some(Message {
        message_id,
        message_seq,
        peer_seq: None,
        time: int_of(field(node, "time")).unwrap_or(0),
        sender,
        segments,
        chat,
        raw: raw_of_value(item),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::model::Segment;

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
