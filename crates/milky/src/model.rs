//! The peer's objects → domain types: messages (`IncomingMessage`), their
//! segments, group members, groups and forwarded messages, read from JSON
//! trees with lenient accessors (a missing or mistyped field reads as empty;
//! nothing here panics on peer input).
//!
//! Every Milky segment becomes exactly one domain segment, so a media
//! segment's index is the same in both (received media look their fields up
//! by it). A `reply` carries the quoted message's own segments (Milky 1.2):
//! the domain segment's `quoted` is filled from them, so no `get_message`
//! is needed to render it.

use compact_str::CompactString;
use serde_json::Value;

use crate::ids::{MessageKey, Scene, mint_id};
use onebot_gateway_domain::model::{
    ChatRef, GroupInfo, GroupMember, Message, RawJson, Segment, Sender,
};

/// An integer field (`None` when absent or not an integer).
pub(crate) fn int(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

/// A string field (empty when absent or not a string).
pub(crate) fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn compact(v: &Value, key: &str) -> CompactString {
    CompactString::from(v.get(key).and_then(Value::as_str).unwrap_or_default())
}

/// The value kept verbatim.
pub(crate) fn raw(v: &Value) -> RawJson {
    RawJson::from_text(v.to_string())
}

/// Decodes segments in the chat `at` (`None`: a forwarded message, whose
/// quotes cannot be addressed).
pub(crate) fn segments(
    account: &str,
    list: Option<&Value>,
    at: Option<(Scene, i64)>,
) -> Vec<Segment> {
    list.and_then(Value::as_array)
        .map(|segs| segs.iter().map(|s| segment(account, s, at)).collect())
        .unwrap_or_default()
}

/// One Milky segment as the domain's.
pub(crate) fn segment(account: &str, seg: &Value, at: Option<(Scene, i64)>) -> Segment {
    let kind = seg.get("type").and_then(Value::as_str).unwrap_or_default();
    let null = Value::Null;
    let data = seg.get("data").unwrap_or(&null);
    match kind {
        "text" => Segment::Text(text(data, "text")),
        "mention" => Segment::At {
            user_id: int(data, "user_id"),
            all: false,
            name: Some(text(data, "name")).filter(|n| !n.is_empty()),
        },
        "mention_all" => Segment::At {
            user_id: None,
            all: true,
            name: None,
        },
        "face" => Segment::Face {
            id: text(data, "face_id"),
        },
        "reply" => reply(account, data, at),
        "image" => Segment::Image {
            file: text(data, "resource_id"),
            url: text(data, "temp_url"),
            file_size: 0,
            summary: text(data, "summary"),
        },
        "record" => Segment::Record {
            file: text(data, "resource_id"),
            url: text(data, "temp_url"),
        },
        "video" => Segment::Video {
            file: text(data, "resource_id"),
            url: text(data, "temp_url"),
        },
        "file" => Segment::File {
            file: text(data, "file_id"),
            name: text(data, "file_name"),
            file_size: int(data, "file_size").filter(|n| *n > 0).unwrap_or(0),
            url: String::new(),
        },
        "forward" => Segment::Forward {
            id: text(data, "forward_id"),
        },
        "light_app" => Segment::Json {
            data: text(data, "json_payload"),
        },
        "xml" => Segment::Xml {
            data: text(data, "xml_payload"),
        },
        other => Segment::Unknown {
            kind: other.to_string(),
            data_json: match data {
                Value::Object(_) => data.to_string(),
                _ => "{}".into(),
            },
        },
    }
}

/// A `reply` segment: the quoted message's id, and the quoted message
/// itself when the peer sent its segments.
fn reply(account: &str, data: &Value, at: Option<(Scene, i64)>) -> Segment {
    let seq = int(data, "message_seq");
    let key = match (at, seq) {
        (Some((scene, peer)), Some(seq)) => Some(MessageKey { scene, peer, seq }),
        _ => None,
    };
    let id = key.map_or(0, |k| mint_id(account, k));
    let quoted = match (key, data.get("segments")) {
        (Some(key), Some(Value::Array(_))) => Some(Box::new(Message {
            message_id: id,
            message_seq: Some(key.seq),
            peer_seq: Some(key.seq),
            time: int(data, "time").unwrap_or(0),
            sender: Sender {
                user_id: int(data, "sender_id").unwrap_or(0),
                nickname: text(data, "sender_name"),
                ..Sender::default()
            },
            // The quote's own quotes stay ids (one level deep).
            segments: segments(account, data.get("segments"), None)
                .into_iter()
                .map(|s| match s {
                    Segment::Reply { id, .. } => Segment::reply(id),
                    other => other,
                })
                .collect(),
            chat: key.chat(),
            raw: raw(data),
        })),
        _ => None,
    };
    Segment::Reply {
        id: id.to_string(),
        quoted,
    }
}

/// Decodes an `IncomingMessage`; `None` without a scene, peer or seq.
pub fn message(account: &str, v: &Value) -> Option<Message> {
    let scene = Scene::from_name(v.get("message_scene")?.as_str()?)?;
    let peer = int(v, "peer_id")?;
    let seq = int(v, "message_seq")?;
    let user_id = int(v, "sender_id").unwrap_or(0);
    let sender = match scene {
        Scene::Group => {
            let null = Value::Null;
            let member = v.get("group_member").unwrap_or(&null);
            Sender {
                user_id,
                nickname: text(member, "nickname"),
                card: text(member, "card"),
                role: text(member, "role"),
            }
        }
        Scene::Friend => {
            let null = Value::Null;
            let friend = v.get("friend").unwrap_or(&null);
            // The friend entity is the chat's peer; it names the sender only
            // when the peer sent the message.
            let nickname = if int(friend, "user_id") == Some(user_id) {
                text(friend, "nickname")
            } else {
                String::new()
            };
            Sender {
                user_id,
                nickname,
                ..Sender::default()
            }
        }
        Scene::Temp => Sender {
            user_id,
            ..Sender::default()
        },
    };
    let key = MessageKey { scene, peer, seq };
    Some(Message {
        message_id: mint_id(account, key),
        message_seq: Some(seq),
        peer_seq: Some(seq),
        time: int(v, "time").unwrap_or(0),
        sender,
        segments: segments(account, v.get("segments"), Some((scene, peer))),
        chat: key.chat(),
        raw: raw(v),
    })
}

/// Names the senders of inline quotes that came without a name (Milky
/// names a quoted sender only inside forwards) from the senders of
/// `messages` themselves, by QQ number.
pub fn name_quotes(messages: &mut [Message]) {
    let known: foldhash::HashMap<i64, Sender> = messages
        .iter()
        .filter(|m| !m.sender.nickname.is_empty() || !m.sender.card.is_empty())
        .map(|m| (m.sender.user_id, m.sender.clone()))
        .collect();
    for m in messages.iter_mut() {
        for seg in &mut m.segments {
            if let Segment::Reply {
                quoted: Some(q), ..
            } = seg
                && q.sender.nickname.is_empty()
                && q.sender.card.is_empty()
                && let Some(s) = known.get(&q.sender.user_id)
            {
                q.sender = s.clone();
            }
        }
    }
}

/// Decodes an `IncomingForwardedMessage`: no sender number and no chat are
/// reported (both 0), the sender's name is its nickname.
pub fn forwarded(account: &str, v: &Value) -> Message {
    Message {
        message_id: 0,
        message_seq: int(v, "message_seq"),
        peer_seq: None,
        time: int(v, "time").unwrap_or(0),
        sender: Sender {
            user_id: 0,
            nickname: text(v, "sender_name"),
            ..Sender::default()
        },
        segments: segments(account, v.get("segments"), None),
        chat: ChatRef::Private(0),
        raw: raw(v),
    }
}

/// Decodes a `GroupMemberEntity`.
pub fn member(v: &Value) -> GroupMember {
    let nonzero = |key| int(v, key).filter(|n| *n != 0);
    let role = compact(v, "role");
    GroupMember {
        user_id: int(v, "user_id"),
        nickname: compact(v, "nickname"),
        card: compact(v, "card"),
        role: if role.is_empty() {
            CompactString::const_new("member")
        } else {
            role
        },
        title: compact(v, "title"),
        level: v
            .get("level")
            .and_then(Value::as_i64)
            .map(|l| CompactString::from(l.to_string()))
            .unwrap_or_default(),
        join_time: nonzero("join_time"),
        last_sent_time: nonzero("last_sent_time"),
        raw: raw(v),
    }
}

/// Decodes a `GroupEntity`; `None` without a group number.
pub fn group(v: &Value) -> Option<GroupInfo> {
    Some(GroupInfo {
        group_id: int(v, "group_id")?,
        group_name: text(v, "group_name"),
        member_count: int(v, "member_count").unwrap_or(0),
        max_member_count: int(v, "max_member_count").unwrap_or(0),
        raw: raw(v),
    })
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
