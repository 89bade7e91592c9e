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
