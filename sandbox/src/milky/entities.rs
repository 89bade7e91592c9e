//! Milky entities built from the world: `GroupEntity`, `GroupMemberEntity`, `FriendEntity`, and
//! `IncomingMessage` (friend, group, temp) from a stored message.
//!
//! A private chat renders as `friend` when its peer is a friend, else as `temp` (with the first
//! group the peer and the bot share, when there is one). A group message carries its `group`
//! and the sender's `group_member`: the current member record, or one made from the message's
//! sender snapshot when the sender has left.

use serde_json::{Value, json};

use super::segments;
use crate::state::{ChatRef, Friend, Group, Member, Sender, Stored, World};

/// A `GroupEntity`.
pub(crate) fn group(g: &Group) -> Value {
    let created = g.members.iter().map(|m| m.join_time).min().unwrap_or(0);
    json!({
        "group_id": g.group_id,
        "group_name": g.name,
        "member_count": g.members.len(),
        "max_member_count": g.max_member_count,
        "remark": "",
        "created_time": created.max(0),
        "description": "",
        "question": "",
        "announcement": "",
    })
}

/// A `GroupMemberEntity`.
pub(crate) fn member(group_id: i64, m: &Member) -> Value {
    json!({
        "user_id": m.user_id,
        "nickname": m.nickname,
        "sex": m.sex,
        "group_id": group_id,
        "card": m.card,
        "title": m.title,
        "level": m.level,
        "role": m.role.as_str(),
        "join_time": m.join_time.max(0),
        "last_sent_time": m.last_sent_time.max(0),
    })
}

/// A `FriendEntity`.
pub(crate) fn friend(f: &Friend) -> Value {
    json!({
        "user_id": f.user_id,
        "nickname": f.nickname,
        "sex": "unknown",
        "qid": "",
        "remark": f.remark,
        "category": {"category_id": 0, "category_name": "我的好友"},
    })
}

/// The member record of a group message's sender.
fn sender_member(g: &Group, s: &Sender, time: i64) -> Value {
    match g.member(s.user_id) {
        Some(m) => member(g.group_id, m),
        None => json!({
            "user_id": s.user_id,
            "nickname": s.nickname,
            "sex": "unknown",
            "group_id": g.group_id,
            "card": s.card,
            "title": "",
            "level": 1,
            "role": s.role.as_str(),
            "join_time": 0,
            "last_sent_time": time.max(0),
        }),
    }
}

/// The stored message as an `IncomingMessage`; `None` when its group is gone.
pub(crate) fn incoming(w: &World, chat: ChatRef, m: &Stored) -> Option<Value> {
    let segments = segments::incoming(w, chat, &m.segments, 0);
    let mut o = json!({
        "peer_id": 0,
        "message_seq": m.seq,
        "sender_id": m.sender.user_id,
        "time": m.time.max(0),
        "segments": segments,
    });
    match chat {
        ChatRef::Group(group_id) => {
            let g = w.group(group_id)?;
            o["message_scene"] = json!("group");
            o["peer_id"] = json!(group_id);
            o["group"] = group(g);
            o["group_member"] = sender_member(g, &m.sender, m.time);
        }
        ChatRef::Private(peer) => {
            o["peer_id"] = json!(peer);
            match w.friend(peer) {
                Some(f) => {
                    o["message_scene"] = json!("friend");
                    o["friend"] = friend(f);
                }
                None => {
                    o["message_scene"] = json!("temp");
                    let shared = w
                        .groups
                        .iter()
                        .find(|g| g.member(peer).is_some() && g.member(w.self_id).is_some());
                    if let Some(g) = shared {
                        o["group"] = group(g);
                    }
                }
            }
        }
    }
    Some(o)
}
