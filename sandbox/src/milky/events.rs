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

/// `group_member_decrease` data of a kick (`operator_id` kicked `user_id`).
pub(crate) fn kicked(group_id: i64, user_id: i64, operator_id: i64) -> Value {
    json!({"group_id": group_id, "user_id": user_id, "operator_id": operator_id})
}

/// `group_message_reaction` data; `reaction_type` is `face` for a QQ face id (digits), else
/// `emoji`.
pub(crate) fn reaction(
    group_id: i64,
    user_id: i64,
    seq: i64,
    face_id: &str,
    is_add: bool,
) -> Value {
    json!({
        "group_id": group_id,
        "user_id": user_id,
        "message_seq": seq,
        "face_id": face_id,
        "reaction_type": reaction_type(face_id),
        "is_add": is_add,
    })
}

/// `face` for a QQ face id (digits), else `emoji`.
pub(crate) fn reaction_type(face_id: &str) -> &'static str {
    if !face_id.is_empty() && face_id.bytes().all(|b| b.is_ascii_digit()) {
        "face"
    } else {
        "emoji"
    }
}

/// `group_essence_message_change` data.
pub(crate) fn essence(group_id: i64, seq: i64, operator_id: i64, is_set: bool) -> Value {
    json!({"group_id": group_id, "message_seq": seq, "operator_id": operator_id, "is_set": is_set})
}

/// `group_mute` data (`duration` 0 lifts the mute).
pub(crate) fn mute(group_id: i64, user_id: i64, operator_id: i64, duration: i64) -> Value {
    json!({"group_id": group_id, "user_id": user_id, "operator_id": operator_id, "duration": duration})
}

/// `group_whole_mute` data.
pub(crate) fn whole_mute(group_id: i64, operator_id: i64, is_mute: bool) -> Value {
    json!({"group_id": group_id, "operator_id": operator_id, "is_mute": is_mute})
}

/// `group_admin_change` data.
pub(crate) fn admin_change(group_id: i64, user_id: i64, operator_id: i64, is_set: bool) -> Value {
    json!({"group_id": group_id, "user_id": user_id, "operator_id": operator_id, "is_set": is_set})
}

/// `group_file_upload` data.
pub(crate) fn file_upload(
    group_id: i64,
    user_id: i64,
    file_id: &str,
    name: &str,
    size: u64,
) -> Value {
    json!({"group_id": group_id, "user_id": user_id, "file_id": file_id, "file_name": name,
           "file_size": size})
}

/// `group_name_change` data.
pub(crate) fn name_change(group_id: i64, name: &str, operator_id: i64) -> Value {
    json!({"group_id": group_id, "new_group_name": name, "operator_id": operator_id})
}
