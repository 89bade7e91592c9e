//! Milky events: `{time, self_id, event_type, data}` as the schema's `Event` union, pushed to
//! every `/event` stream and recorded.

use serde_json::{Value, json};

use crate::events::now;
use crate::shared::Shared;
use crate::state::{ChatRef, World};

/// Wraps `data` as an event of `event_type`, records it and pushes it to every stream.
pub(crate) fn emit(shared: &Shared, event_type: &str, data: Value) {
    let ev = json!({
        "time": now().max(0),
        "self_id": shared.cfg.self_id,
        "event_type": event_type,
        "data": data,
    });
    shared.milky_record.event(&ev);
    shared.hub.emit(&ev);
}

/// The scene name of a chat as the world sees it (`friend` or `temp` for a private chat).
pub(crate) fn scene(w: &World, chat: ChatRef) -> &'static str {
    match chat {
        ChatRef::Group(_) => "group",
        ChatRef::Private(u) if w.friend(u).is_some() => "friend",
        ChatRef::Private(_) => "temp",
    }
}

fn peer(chat: ChatRef) -> i64 {
    match chat {
        ChatRef::Group(g) | ChatRef::Private(g) => g,
    }
}

/// `message_recall` data.
pub(crate) fn recall(w: &World, chat: ChatRef, seq: i64, sender: i64, operator: i64) -> Value {
    json!({
        "message_scene": scene(w, chat),
        "peer_id": peer(chat),
        "message_seq": seq,
        "sender_id": sender,
        "operator_id": operator,
        "display_suffix": "",
    })
}

/// `group_nudge` data.
pub(crate) fn group_nudge(group_id: i64, sender_id: i64, receiver_id: i64) -> Value {
    json!({
        "group_id": group_id,
        "sender_id": sender_id,
        "receiver_id": receiver_id,
        "display_action": "戳了戳",
        "display_suffix": "",
        "display_action_img_url": "",
    })
}

/// `friend_nudge` data.
pub(crate) fn friend_nudge(user_id: i64, is_self_send: bool, is_self_receive: bool) -> Value {
    json!({
        "user_id": user_id,
        "is_self_send": is_self_send,
        "is_self_receive": is_self_receive,
        "display_action": "戳了戳",
        "display_suffix": "",
        "display_action_img_url": "",
    })
}

/// `group_member_increase` / `group_member_decrease` data (no operator: the user acted).
pub(crate) fn member_change(group_id: i64, user_id: i64) -> Value {
    json!({"group_id": group_id, "user_id": user_id})
}
