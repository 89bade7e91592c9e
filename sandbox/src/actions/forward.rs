//! `get_forward_msg`: the nodes of a merged-forward bundle, in each
//! flavor's shape.
//!
//! | flavor    | param                | list under | each node                                              |
//! |-----------|----------------------|------------|--------------------------------------------------------|
//! | NapCat    | `message_id` or `id` | `messages` | a whole message object (nested bundles inline their `content`) |
//! | LLOneBot  | `id` or `message_id` | `messages` | `{content, sender{nickname,user_id}, time, message_format, message_type}` |
//! | go-cqhttp | `message_id` or `id` | `messages` | `{sender{user_id,nickname}, time, content, group_id}`    |
//! | Lagrange  | `id` only            | `message`  | `{type:"node", data:{user_id (a string), nickname, content}}` |
//! | SnowLuma  | `id` or `message_id` | `messages` | `{message, sender{user_id,nickname}, time, user_id, message_id}` |

use serde_json::{Value, json};

use crate::flavor::Flavor;
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;
use crate::state::{ForwardNode, World};

fn not_found(flavor: Flavor) -> ActionError {
    match flavor {
        Flavor::NapCat => ActionError::failed("ResId无效: 找不到相关的聊天记录"),
        Flavor::LlOneBot => ActionError::failed("msg not found"),
        Flavor::GoCqhttp => ActionError::failed("消息不存在").with_code("MSG_NOT_FOUND"),
        Flavor::Lagrange => ActionError::failed(String::new()),
        Flavor::SnowLuma => ActionError::failed("forward message not found"),
    }
}

/// NapCat inlines a nested bundle's nodes in its forward segment.
fn inline_nested(w: &World, segments: &[Value], depth: u8) -> Vec<Value> {
    segments
        .iter()
        .map(|s| {
            let id = s["data"]["id"].as_str().unwrap_or_default();
            match w.forwards.get(id) {
                Some(nodes) if s["type"] == "forward" && depth < 3 => json!({
                    "type": "forward",
                    "data": {"id": id, "content": nodes.iter().enumerate()
                        .map(|(i, n)| napcat_node(w, n, i, depth + 1)).collect::<Vec<_>>()}
                }),
                _ => s.clone(),
            }
        })
        .collect()
}

fn napcat_node(w: &World, n: &ForwardNode, index: usize, depth: u8) -> Value {
    let message = inline_nested(w, &n.segments, depth);
    json!({
        "self_id": w.self_id,
        "user_id": n.user_id,
        "time": n.time,
        "message_id": 1_000_000 + index as i64,
        "message_seq": 1_000_000 + index as i64,
        "real_id": 1_000_000 + index as i64,
        "message_type": "group",
        "sender": {"user_id": n.user_id, "nickname": n.nickname, "card": ""},
        "raw_message": crate::cq::render(&n.segments),
        "font": 14,
        "sub_type": "normal",
        "message": message,
        "message_format": "array",
        "post_type": "message",
    })
}

fn node(w: &World, n: &ForwardNode, index: usize) -> Value {
    match w.flavor {
        Flavor::NapCat => napcat_node(w, n, index, 0),
        Flavor::LlOneBot => json!({
            "content": n.segments,
            "sender": {"nickname": n.nickname, "user_id": n.user_id},
            "time": n.time,
            "message_format": "array",
            "message_type": "group",
        }),
        Flavor::GoCqhttp => json!({
            "sender": {"user_id": n.user_id, "nickname": n.nickname},
            "time": n.time,
            "content": n.segments,
        }),
        Flavor::Lagrange => json!({
            "type": "node",
            "data": {"user_id": n.user_id.to_string(), "nickname": n.nickname, "content": n.segments},
        }),
        Flavor::SnowLuma => json!({
            "message": n.segments,
            "sender": {"user_id": n.user_id, "nickname": n.nickname},
            "time": n.time,
            "user_id": n.user_id,
            "message_id": -(index as i64) - 1,
        }),
    }
}

pub(super) fn get_forward_msg(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let id = match flavor {
        Flavor::Lagrange => p.str("id"),
        _ => p.str("id").or_else(|| p.str("message_id")),
    }
    .filter(|s| !s.is_empty())
    .ok_or_else(|| match flavor {
        Flavor::SnowLuma => ActionError::bad_params("id or message_id is required"),
        _ => ActionError::bad_params("message_id is required"),
    })?;
    let w = shared.world.lock();
    let nodes = w.forwards.get(&id).ok_or_else(|| not_found(flavor))?;
    let list: Vec<Value> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| node(&w, n, i))
        .collect();
    Ok(match flavor {
        Flavor::Lagrange => json!({"message": list}),
        _ => json!({"messages": list}),
    })
}
