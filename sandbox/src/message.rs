//! Message input normalisation and message-object rendering per flavor.

use serde_json::{Map, Value, json};

use crate::cq;
use crate::flavor::Flavor;
use crate::state::{ChatRef, Stored, World};

/// Turns a `message` parameter (segment array, single segment object or CQ string) into segments.
/// `auto_escape` makes a string plain text. Returns `None` for anything malformed.
pub(crate) fn normalize(message: &Value, auto_escape: bool) -> Option<Vec<Value>> {
    match message {
        Value::String(s) if auto_escape => Some(if s.is_empty() {
            Vec::new()
        } else {
            vec![json!({"type": "text", "data": {"text": s}})]
        }),
        Value::String(s) => Some(cq::parse(s)),
        Value::Array(items) => items.iter().map(segment).collect(),
        Value::Object(_) => Some(vec![segment(message)?]),
        _ => None,
    }
}

fn segment(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let kind = o.get("type")?.as_str()?;
    if kind.is_empty() {
        return None;
    }
    let data = match o.get("data") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(d)) => d.clone(),
        Some(_) => return None,
    };
    Some(json!({"type": kind, "data": data}))
}

/// Where a message object is going; a few fields differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum View {
    /// In a `get_*_msg_history` list.
    History,
    /// `get_msg` data.
    GetMsg,
    /// A pushed message / message_sent event.
    Event,
}

/// Renders a stored message as the flavor's message object.
pub(crate) fn render(world: &World, chat: ChatRef, m: &Stored, view: View) -> Value {
    let flavor = world.flavor;
    let mut o = Map::new();
    o.insert("self_id".into(), json!(world.self_id));
    o.insert("user_id".into(), json!(m.sender.user_id));
    o.insert("time".into(), json!(m.time));
    let form = world.id_form;
    o.insert("message_id".into(), form.id(m.message_id));
    match world.ids_flavor {
        Flavor::NapCat => {
            o.insert("message_seq".into(), form.id(m.message_id));
            o.insert("real_id".into(), form.id(m.message_id));
            o.insert("real_seq".into(), json!(m.seq.to_string()));
        }
        Flavor::LlOneBot | Flavor::SnowLuma | Flavor::GoCqhttp => {
            o.insert("message_seq".into(), form.seq(m.seq));
            o.insert("real_id".into(), form.seq(m.seq));
        }
        Flavor::Lagrange => {
            o.insert("real_id".into(), form.seq(m.seq));
        }
    }
    let mut sender = Map::new();
    sender.insert("user_id".into(), json!(m.sender.user_id));
    sender.insert("nickname".into(), json!(m.sender.nickname));
    sender.insert("card".into(), json!(m.sender.card));
    match chat {
        ChatRef::Group(group_id) => {
            o.insert("message_type".into(), json!("group"));
            o.insert("sub_type".into(), json!("normal"));
            // Lagrange's `get_msg` names no group.
            if !(view == View::GetMsg && flavor == Flavor::Lagrange) {
                o.insert("group_id".into(), json!(group_id));
            }
            sender.insert("role".into(), json!(m.sender.role.as_str()));
            if flavor == Flavor::NapCat
                && let Some(g) = world.group(group_id)
            {
                o.insert("group_name".into(), json!(g.name));
            }
            if matches!(flavor, Flavor::SnowLuma | Flavor::GoCqhttp) {
                o.insert("anonymous".into(), Value::Null);
            }
        }
        ChatRef::Private(peer) => {
            o.insert("message_type".into(), json!("private"));
            o.insert("sub_type".into(), json!("friend"));
            if m.self_sent {
                o.insert("target_id".into(), json!(peer));
            }
        }
    }
    if flavor == Flavor::SnowLuma {
        sender.insert("sex".into(), json!("unknown"));
        sender.insert("age".into(), json!(0));
    }
    o.insert("sender".into(), Value::Object(sender));
    o.insert(
        "message".into(),
        Value::Array(
            m.segments
                .iter()
                .map(|seg| world.files.render_segment(flavor, chat, seg))
                .collect(),
        ),
    );
    if !(view == View::GetMsg && flavor == Flavor::Lagrange) {
        o.insert("raw_message".into(), json!(m.raw_message));
    }
    o.insert("font".into(), json!(flavor.font()));
    if flavor == Flavor::NapCat {
        o.insert("message_format".into(), json!("array"));
    }
    let post_type = if m.self_sent {
        "message_sent"
    } else {
        "message"
    };
    let with_post_type = match view {
        View::Event => true,
        View::History | View::GetMsg => {
            matches!(flavor, Flavor::NapCat | Flavor::LlOneBot | Flavor::Lagrange)
        }
    };
    if with_post_type {
        o.insert("post_type".into(), json!(post_type));
    }
    if view == View::GetMsg && flavor == Flavor::GoCqhttp {
        o.insert("group".into(), json!(matches!(chat, ChatRef::Group(_))));
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_all_forms() {
        let one = json!({"type": "text", "data": {"text": "hi"}});
        assert_eq!(normalize(&one, false), Some(vec![one.clone()]));
        assert_eq!(
            normalize(&json!([one.clone()]), false),
            Some(vec![one.clone()])
        );
        assert_eq!(normalize(&json!("hi"), false), Some(vec![one.clone()]));
        assert_eq!(
            normalize(&json!("[CQ:face,id=1]"), true),
            Some(vec![
                json!({"type":"text","data":{"text":"[CQ:face,id=1]"}})
            ])
        );
        assert_eq!(
            normalize(&json!([{"type": "shake"}]), false),
            Some(vec![json!({"type":"shake","data":{}})])
        );
        assert_eq!(normalize(&json!([1]), false), None);
        assert_eq!(normalize(&json!(5), false), None);
    }
}
