//! Message decoding used by the adapter until the full model decoder
//! (`model.rs` + `cq.rs`, read side) lands; then this file goes.

use serde_json::{Map, Value};

use super::api::ChatRef;
use super::model::{Message, Segment, Sender};

/// Reads an integer the way peers send ids: a JSON integer or a decimal
/// string. Anything else gives `None`.
pub fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn text(obj: &Map<String, Value>, key: &str) -> String {
    match obj.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn segment(kind: &str, data: &Map<String, Value>) -> Segment {
    let size = |k: &str| data.get(k).and_then(int_of).unwrap_or(0);
    match kind {
        "text" => Segment::Text(text(data, "text")),
        "at" => {
            let qq = text(data, "qq");
            let all = qq == "all";
            Segment::At {
                user_id: qq.trim().parse().ok(),
                all,
                name: Some(text(data, "name")).filter(|s| !s.is_empty()),
            }
        }
        "face" => Segment::Face {
            id: text(data, "id"),
        },
        "image" => Segment::Image {
            file: text(data, "file"),
            url: text(data, "url"),
            file_size: size("file_size"),
            summary: text(data, "summary"),
        },
        "record" => Segment::Record {
            file: text(data, "file"),
            url: text(data, "url"),
        },
        "video" => Segment::Video {
            file: text(data, "file"),
            url: text(data, "url"),
        },
        "file" => Segment::File {
            file: Some(text(data, "file"))
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| text(data, "file_id")),
            name: text(data, "name"),
            file_size: size("file_size"),
            url: text(data, "url"),
        },
        "reply" => Segment::Reply {
            id: text(data, "id"),
        },
        "forward" => Segment::Forward {
            id: ["id", "res_id", "forward_id"]
                .iter()
                .map(|k| text(data, k))
                .find(|s| !s.is_empty())
                .unwrap_or_default(),
        },
        "json" => Segment::Json {
            data: match data.get("data") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            },
        },
        "xml" => Segment::Xml {
            data: text(data, "data"),
        },
        "poke" => Segment::Poke {
            kind: text(data, "type"),
            id: text(data, "id"),
        },
        other => Segment::Unknown {
            kind: other.to_string(),
            data: Value::Object(data.clone()),
        },
    }
}

fn segment_of(v: &Value) -> Option<Segment> {
    let kind = v.get("type")?.as_str()?;
    let empty = Map::new();
    let data = v.get("data").and_then(Value::as_object).unwrap_or(&empty);
    Some(segment(kind, data))
}

fn cq_unescape(s: &str) -> String {
    s.replace("&#91;", "[")
        .replace("&#93;", "]")
        .replace("&#44;", ",")
        .replace("&amp;", "&")
}

/// Decodes a CQ-code string into segments.
fn cq_segments(s: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let Some(start) = rest.find("[CQ:") else {
            out.push(Segment::Text(cq_unescape(rest)));
            break;
        };
        if start > 0 {
            out.push(Segment::Text(cq_unescape(&rest[..start])));
        }
        let Some(len) = rest[start..].find(']') else {
            out.push(Segment::Text(cq_unescape(&rest[start..])));
            break;
        };
        let body = &rest[start + 4..start + len];
        let mut parts = body.split(',');
        let kind = parts.next().unwrap_or_default().to_string();
        let data: Map<String, Value> = parts
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.to_string(), Value::String(cq_unescape(v))))
            .collect();
        out.push(segment(&kind, &data));
        rest = &rest[start + len + 1..];
    }
    out
}

impl Message {
    /// Decodes the peer's message object; `None` without a numeric sender
    /// id or `message_id`, or when the chat cannot be derived.
    pub fn from_value(raw: &Value, chat: Option<ChatRef>) -> Option<Message> {
        let obj = raw.as_object()?;
        let empty = Map::new();
        let sender = obj.get("sender").and_then(Value::as_object).unwrap_or(&empty);
        let user_id = sender
            .get("user_id")
            .and_then(int_of)
            .or_else(|| obj.get("user_id").and_then(int_of))?;
        let message_id = obj.get("message_id").and_then(int_of)?;
        let chat = match chat {
            Some(c) => c,
            None => match obj.get("message_type").and_then(Value::as_str) {
                Some("group") => ChatRef::Group(obj.get("group_id").and_then(int_of)?),
                Some("private") => {
                    let self_sent = obj.get("post_type").and_then(Value::as_str) == Some("message_sent");
                    let peer = if self_sent {
                        obj.get("target_id").and_then(int_of)
                    } else {
                        None
                    };
                    ChatRef::Private(peer.unwrap_or(user_id))
                }
                _ => ChatRef::Group(obj.get("group_id").and_then(int_of)?),
            },
        };
        let message_seq = ["real_seq", "message_seq", "real_id"]
            .iter()
            .filter_map(|k| obj.get(*k).and_then(int_of))
            .find(|seq| *seq > 0 && *seq != message_id);
        let segments = match obj.get("message") {
            Some(Value::Array(items)) => items.iter().filter_map(segment_of).collect(),
            Some(v @ Value::Object(_)) => segment_of(v).into_iter().collect(),
            Some(Value::String(s)) => cq_segments(s),
            _ => Vec::new(),
        };
        Some(Message {
            message_id,
            message_seq,
            time: obj.get("time").and_then(int_of).unwrap_or(0),
            sender: Sender {
                user_id,
                nickname: text(sender, "nickname"),
                card: text(sender, "card"),
                role: text(sender, "role"),
            },
            segments,
            chat,
            raw: raw.clone(),
        })
    }
}
