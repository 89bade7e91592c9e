//! `get_forwarded_messages`: the nodes of a merged-forward bundle, `message_seq` counting from 1
//! in bundle order.

use serde_json::{Value, json};

use super::super::params::Body;
use super::super::{MilkyError, MilkyResult, segments};
use crate::shared::Shared;
use crate::state::ChatRef;

pub(super) fn get(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let id = b.string("forward_id")?;
    let w = shared.world.lock();
    let nodes = w
        .forwards
        .get(id)
        .ok_or_else(|| MilkyError::not_found(format!("forward_id: no forward {id}")))?;
    // Media inside a bundle are signed as group media.
    let chat = ChatRef::Group(0);
    let messages: Vec<Value> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            json!({
                "message_seq": i + 1,
                "sender_name": n.nickname,
                "avatar_url": format!("https://q1.qlogo.cn/g?b=qq&nk={}&s=640", n.user_id),
                "time": n.time.max(0),
                "segments": segments::incoming(&w, chat, &n.segments, 0),
            })
        })
        .collect();
    Ok(json!({"messages": messages}))
}
