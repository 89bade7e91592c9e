//! The request bodies the adapter sends, one function per API (each shape
//! valid per the Milky 1.2 schemas: only the fields they define, optional
//! ones left out unless set).

use serde_json::{Value, json};

use crate::body::Body;
use crate::ids::{MessageKey, Scene, key_of};
use crate::media::MediaUris;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::{ChatRef, MediaPayload};
use onebot_gateway_domain::ports::OutSegment;

/// Most messages one `get_history_messages` call returns.
pub const HISTORY_LIMIT: u32 = 30;

/// `get_history_messages`: up to `limit` messages from `start` (inclusive)
/// backwards, or the newest.
pub fn history(scene: Scene, peer: i64, start: Option<i64>, limit: u32) -> Value {
    let mut v = json!({
        "message_scene": scene.name(),
        "peer_id": peer,
        "limit": limit.min(HISTORY_LIMIT),
    });
    if let (Some(start), Some(map)) = (start, v.as_object_mut()) {
        map.insert("start_message_seq".into(), start.into());
    }
    v
}

/// `get_group_member_list`; `no_cache` only when given.
pub fn member_list(group_id: i64, no_cache: Option<bool>) -> Value {
    let mut v = json!({ "group_id": group_id });
    if let (Some(no_cache), Some(map)) = (no_cache, v.as_object_mut()) {
        map.insert("no_cache".into(), no_cache.into());
    }
    v
}

/// `get_message` of `key`.
pub fn get_message(key: MessageKey) -> Value {
    json!({ "message_scene": key.scene.name(), "peer_id": key.peer, "message_seq": key.seq })
}

/// `recall_group_message` / `recall_private_message` of `key`.
pub fn recall(key: MessageKey) -> (&'static str, Value) {
    match key.scene {
        Scene::Group => (
            "recall_group_message",
            json!({ "group_id": key.peer, "message_seq": key.seq }),
        ),
        Scene::Friend | Scene::Temp => (
            "recall_private_message",
            json!({ "user_id": key.peer, "message_seq": key.seq }),
        ),
    }
}

/// `get_forwarded_messages`.
pub fn forwarded(forward_id: &str) -> Value {
    json!({ "forward_id": forward_id })
}

/// `send_group_nudge`.
pub fn group_nudge(group_id: i64, user_id: i64) -> Value {
    json!({ "group_id": group_id, "user_id": user_id })
}

/// `get_resource_temp_url`.
pub fn resource_temp_url(resource_id: &str) -> Value {
    json!({ "resource_id": resource_id })
}

/// `get_group_file_download_url`.
pub fn group_file_url(group_id: i64, file_id: &str) -> Value {
    json!({ "group_id": group_id, "file_id": file_id })
}

/// `get_private_file_download_url`.
pub fn private_file_url(user_id: i64, file_id: &str, file_hash: &str) -> Value {
    json!({ "user_id": user_id, "file_id": file_id, "file_hash": file_hash })
}

/// The first numeric reaction id that is a Unicode emoji's code point
/// (U+203C ‼, the first emoji past Latin-1's © and ®): QQ face ids are far
/// below it, and QQ's emoji reactions include BMP emoji such as U+2600 ☀.
pub const FIRST_EMOJI_CODE_POINT: u32 = 0x203C;

/// The `reaction` and `reaction_type` of a gateway emoji id (a QQ face id
/// or a Unicode emoji's code point, as decimal text): a number below
/// [`FIRST_EMOJI_CODE_POINT`] is a face (`face`, the default, left out of
/// the request); a number from it up is an emoji code point (`emoji`); one
/// emoji character (an optional U+FE0F after it) goes as its code point
/// (`emoji`). `None` for anything else.
pub fn reaction_of(emoji_id: &str) -> Option<(String, Option<&'static str>)> {
    let id = emoji_id.trim();
    if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
        let n: u32 = id.parse().ok()?;
        return if n < FIRST_EMOJI_CODE_POINT {
            Some((n.to_string(), None))
        } else {
            char::from_u32(n).map(|_| (n.to_string(), Some("emoji")))
        };
    }
    let mut chars = id.chars();
    let c = chars.next()?;
    let rest = chars.as_str();
    (u32::from(c) >= FIRST_EMOJI_CODE_POINT && (rest.is_empty() || rest == "\u{FE0F}"))
        .then(|| (u32::from(c).to_string(), Some("emoji")))
}

/// `send_group_message_reaction` on message `seq` of `group_id`;
/// `reaction_type` only for an emoji (the default is `face`).
pub fn group_reaction(
    group_id: i64,
    seq: i64,
    reaction: &str,
    reaction_type: Option<&str>,
    add: bool,
) -> Value {
    let mut v = json!({
        "group_id": group_id,
        "message_seq": seq,
        "reaction": reaction,
        "is_add": add,
    });
    if let (Some(kind), Some(map)) = (reaction_type, v.as_object_mut()) {
        map.insert("reaction_type".into(), kind.into());
    }
    v
}

/// `set_group_essence_message` on message `seq` of `group_id`.
pub fn group_essence(group_id: i64, seq: i64, set: bool) -> Value {
    json!({ "group_id": group_id, "message_seq": seq, "is_set": set })
}

/// `get_group_essence_messages`: page `page_index` (from 0) of `page_size`.
pub fn group_essence_list(group_id: i64, page_index: u32, page_size: u32) -> Value {
    json!({ "group_id": group_id, "page_index": page_index, "page_size": page_size })
}

/// `get_group_files` of the folder `folder_id` (`/` for the root).
pub fn group_files(group_id: i64, folder_id: Option<&str>) -> Value {
    let folder = folder_id.filter(|f| !f.is_empty()).unwrap_or("/");
    json!({ "group_id": group_id, "parent_folder_id": folder })
}

/// `set_group_member_mute` for `duration` seconds (0 lifts; always sent).
pub fn member_mute(group_id: i64, user_id: i64, duration: u32) -> Value {
    json!({ "group_id": group_id, "user_id": user_id, "duration": duration })
}

/// `set_group_whole_mute` (`is_mute` always sent).
pub fn whole_mute(group_id: i64, on: bool) -> Value {
    json!({ "group_id": group_id, "is_mute": on })
}

/// `kick_group_member`.
pub fn kick_member(group_id: i64, user_id: i64, reject_add_request: bool) -> Value {
    json!({ "group_id": group_id, "user_id": user_id, "reject_add_request": reject_add_request })
}

/// `set_group_member_card` (an empty card clears it).
pub fn member_card(group_id: i64, user_id: i64, card: &str) -> Value {
    json!({ "group_id": group_id, "user_id": user_id, "card": card })
}

/// `send_group_message` / `send_private_message` of `segments` in their
/// order, each image's and video's `uri` as `uris` names it; a quote of an
/// id not minted for `account` fails `MessageNotFound`.
pub fn send(
    account: &str,
    chat: ChatRef,
    segments: &[OutSegment<'_>],
    uris: &mut MediaUris,
) -> Result<(&'static str, Body)> {
    let (api, head) = match chat {
        ChatRef::Group(g) => (
            "send_group_message",
            format!("{{\"group_id\":{g},\"message\":["),
        ),
        ChatRef::Private(u) => (
            "send_private_message",
            format!("{{\"user_id\":{u},\"message\":["),
        ),
    };
    let mut body = Body::builder().raw(head);
    for (i, seg) in segments.iter().enumerate() {
        if i > 0 {
            body = body.raw(",");
        }
        body = match *seg {
            OutSegment::Text(t) => body.value(&json!({"type": "text", "data": {"text": t}})),
            OutSegment::At(user_id) => {
                body.value(&json!({"type": "mention", "data": {"user_id": user_id}}))
            }
            OutSegment::AtAll => body.value(&json!({"type": "mention_all", "data": {}})),
            OutSegment::Reply(id) => {
                let key = key_of(account, id).ok_or_else(|| not_found(account, id))?;
                body.value(&json!({"type": "reply", "data": {"message_seq": key.seq}}))
            }
            OutSegment::Image(media) => body
                .raw("{\"type\":\"image\",\"data\":{\"uri\":")
                .media_uri(media, uris)
                .raw(",\"sub_type\":\"normal\"}}"),
            OutSegment::Video(media) => body
                .raw("{\"type\":\"video\",\"data\":{\"uri\":")
                .media_uri(media, uris)
                .raw("}}"),
            OutSegment::Voice(media) => body
                .raw("{\"type\":\"record\",\"data\":{\"uri\":")
                .media_uri(media, uris)
                .raw("}}"),
        };
    }
    Ok((api, body.raw("]}")))
}

/// `upload_group_file` / `upload_private_file` of `file` named `name`, its
/// `file_uri` as `uris` names it.
pub fn upload(
    chat: ChatRef,
    file: &MediaPayload,
    name: &str,
    uris: &mut MediaUris,
) -> (&'static str, Body) {
    let (api, head) = match chat {
        ChatRef::Group(g) => (
            "upload_group_file",
            format!("{{\"group_id\":{g},\"file_uri\":"),
        ),
        ChatRef::Private(u) => (
            "upload_private_file",
            format!("{{\"user_id\":{u},\"file_uri\":"),
        ),
    };
    let body = Body::builder()
        .raw(head)
        .media_uri(file, uris)
        .raw(",\"file_name\":")
        .value(&Value::from(name))
        .raw("}");
    (api, body)
}

/// The error of an id that names no message of `account`.
pub fn not_found(account: &str, id: i64) -> Error {
    Error::new(
        Kind::MessageNotFound,
        format!("message {id} is not a message of the Milky account {account:?}"),
    )
    .with("account_id", account)
    .with("message_id", id)
}

#[cfg(test)]
#[path = "requests_tests.rs"]
mod tests;
