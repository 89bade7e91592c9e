//! Stored segments (the world keeps OneBot-shaped ones, so both faces read the same history)
//! as Milky `IncomingSegment`s:
//!
//! | stored                  | Milky                                                            |
//! |-------------------------|------------------------------------------------------------------|
//! | `text`                  | `text`                                                           |
//! | `at` `qq=all` / `qq=N`  | `mention_all` / `mention{user_id, name}` (name: card, else nickname) |
//! | `face`                  | `face{face_id, is_large: false}`                                 |
//! | `reply{id}`             | `reply{message_seq, sender_id, time, segments}` (the quoted message's segments; a quote inside a quote has none); left out when the quoted message is unknown; a recalled message is still quoted, as QQ keeps the quote's content in the reply |
//! | `image`/`record`/`video`| `resource_id` (the stored file's name) and a `temp_url` on the media host, signed now, that expires with the download key |
//! | `file`                  | `file{file_id, file_name, file_size}`                            |
//! | `forward{id}`           | `forward{forward_id, title, preview (≤ 4 lines), summary}`       |
//! | `json` / `xml` / `mface`| `light_app` / `xml` / `market_face`                              |
//! | `markdown`              | `text` of its content                                            |
//! | anything else           | `text` `[<type>]`                                                |

use serde_json::{Map, Value, json};

use super::params::{MAX_UIN, MIN_UIN};
use crate::media::MediaKind;
use crate::state::{ChatRef, ForwardNode, World};

fn text(s: impl Into<String>) -> Value {
    json!({"type": "text", "data": {"text": s.into()}})
}

fn field<'a>(data: &'a Value, key: &str) -> &'a str {
    data.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A number that may be written as a string.
fn number(data: &Value, key: &str) -> Option<i64> {
    match data.get(key)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The name a mention shows: the member's card, else their nickname.
fn mention_name(w: &World, chat: ChatRef, user_id: i64) -> String {
    let s = w.sender_for(chat, user_id);
    if s.card.is_empty() {
        s.nickname
    } else {
        s.card
    }
}

/// Width and height of PNG bytes (from the IHDR chunk).
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return None;
    }
    let w = bytes.get(16..20)?;
    let h = bytes.get(20..24)?;
    Some((
        u32::from_be_bytes([w[0], w[1], w[2], w[3]]),
        u32::from_be_bytes([h[0], h[1], h[2], h[3]]),
    ))
}

/// A stored media segment as Milky's: its resource id and a freshly signed temp URL.
fn media(w: &World, chat: ChatRef, kind: MediaKind, data: &Value) -> Value {
    let name = field(data, "file");
    let file = w.files.get(name);
    let temp_url = match file {
        Some(_) => w.files.signed(kind, chat, name).unwrap_or_default(),
        None => field(data, "url").to_owned(),
    };
    match kind {
        MediaKind::Image => {
            let (width, height) = file.and_then(|f| png_size(&f.bytes())).unwrap_or_default();
            let sticker = number(data, "sub_type").is_some_and(|t| t == 1);
            json!({"type": "image", "data": {
                "resource_id": name, "temp_url": temp_url, "width": width, "height": height,
                "summary": field(data, "summary"),
                "sub_type": if sticker { "sticker" } else { "normal" },
            }})
        }
        MediaKind::Record => json!({"type": "record", "data": {
            "resource_id": name, "temp_url": temp_url,
            "duration": number(data, "duration").unwrap_or(0).max(0),
        }}),
        MediaKind::Video => json!({"type": "video", "data": {
            "resource_id": name, "temp_url": temp_url, "width": 0, "height": 0,
            "duration": number(data, "duration").unwrap_or(0).max(0),
        }}),
        MediaKind::File => {
            let size = number(data, "file_size")
                .or_else(|| file.map(|f| f.len() as i64))
                .unwrap_or(0);
            let id = Some(field(data, "file_id"))
                .filter(|s| !s.is_empty())
                .unwrap_or(name);
            let file_name = Some(field(data, "name"))
                .filter(|s| !s.is_empty())
                .unwrap_or(name);
            json!({"type": "file", "data": {
                "file_id": id, "file_name": file_name, "file_size": size.max(0),
            }})
        }
    }
}

/// One line of plain text for previews.
pub(crate) fn plain(segments: &[Value]) -> String {
    segments
        .iter()
        .map(|s| match s["type"].as_str().unwrap_or_default() {
            "text" => field(&s["data"], "text").to_owned(),
            "at" => format!("@{}", field(&s["data"], "qq")),
            "image" => "[图片]".to_owned(),
            "record" => "[语音]".to_owned(),
            "video" => "[视频]".to_owned(),
            "file" => "[文件]".to_owned(),
            "face" => "[表情]".to_owned(),
            "forward" => "[聊天记录]".to_owned(),
            _ => String::new(),
        })
        .collect()
}

/// The `forward` segment of a stored bundle id.
fn forward(w: &World, id: &str) -> Value {
    let nodes: &[ForwardNode] = w.forwards.get(id).map_or(&[], Vec::as_slice);
    let preview: Vec<String> = nodes
        .iter()
        .take(4)
        .map(|n| format!("{}: {}", n.nickname, plain(&n.segments)))
        .collect();
    json!({"type": "forward", "data": {
        "forward_id": id,
        "title": "群聊的聊天记录",
        "preview": preview,
        "summary": format!("查看{}条转发消息", nodes.len()),
    }})
}

fn reply(w: &World, data: &Value, depth: u8) -> Option<Value> {
    let id = number(data, "id")?;
    let (found, m) = w.find_any(id)?;
    let quoted = if depth == 0 {
        incoming(w, found, &m.segments, depth + 1)
    } else {
        Vec::new()
    };
    Some(json!({"type": "reply", "data": {
        "message_seq": m.seq,
        "sender_id": m.sender.user_id,
        "time": m.time.max(0),
        "segments": quoted,
    }}))
}

fn light_app(data: &Value) -> Value {
    let payload = field(data, "data");
    let app = serde_json::from_str::<Value>(payload)
        .ok()
        .and_then(|v| v.get("app").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default();
    json!({"type": "light_app", "data": {"app_name": app, "json_payload": payload}})
}

fn xml(data: &Value) -> Value {
    let payload = field(data, "data");
    let service_id = payload
        .split_once("serviceID=\"")
        .and_then(|(_, rest)| rest.split('"').next())
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or(0);
    json!({"type": "xml", "data": {"service_id": service_id, "xml_payload": payload}})
}

fn market_face(data: &Value) -> Value {
    let emoji_id = field(data, "emoji_id");
    let dir = emoji_id.get(..2).unwrap_or(emoji_id);
    json!({"type": "market_face", "data": {
        "emoji_package_id": number(data, "emoji_package_id").unwrap_or(0).max(0),
        "emoji_id": emoji_id,
        "key": field(data, "key"),
        "summary": field(data, "summary"),
        "url": format!("https://gxh.vip.qq.com/club/item/parcel/item/{dir}/{emoji_id}/raw300.gif"),
    }})
}

fn one(w: &World, chat: ChatRef, seg: &Value, depth: u8) -> Option<Value> {
    let kind = seg.get("type").and_then(Value::as_str).unwrap_or_default();
    let empty = Value::Object(Map::new());
    let data = seg.get("data").unwrap_or(&empty);
    if let Some(mk) = MediaKind::from_segment_type(kind) {
        return Some(media(w, chat, mk, data));
    }
    Some(match kind {
        "text" => text(field(data, "text")),
        "at" => match field(data, "qq").trim() {
            "all" => json!({"type": "mention_all", "data": {}}),
            qq => match qq.parse::<i64>() {
                Ok(user_id) if (MIN_UIN..=MAX_UIN).contains(&user_id) => {
                    json!({"type": "mention", "data": {
                        "user_id": user_id, "name": mention_name(w, chat, user_id),
                    }})
                }
                _ => text(format!("@{qq}")),
            },
        },
        "face" => json!({"type": "face", "data": {
            "face_id": number(data, "id").map(|n| n.to_string()).unwrap_or_default(),
            "is_large": false,
        }}),
        "reply" => return reply(w, data, depth),
        "forward" => forward(w, field(data, "id")),
        "json" => light_app(data),
        "xml" => xml(data),
        "mface" => market_face(data),
        "markdown" => text(field(data, "content")),
        other => text(format!("[{other}]")),
    })
}

/// Stored segments as Milky incoming segments; `depth` > 0 inside a quote.
pub(crate) fn incoming(w: &World, chat: ChatRef, segments: &[Value], depth: u8) -> Vec<Value> {
    segments
        .iter()
        .filter_map(|s| one(w, chat, s, depth))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_dimensions() {
        let png = crate::files::sample_media(MediaKind::Image, 200);
        assert_eq!(png_size(&png), Some((1, 1)));
        assert_eq!(png_size(b"GIF89a"), None);
    }
}
