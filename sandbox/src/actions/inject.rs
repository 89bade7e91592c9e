//! `sandbox_inject_message`: the sandbox's own action, which no
//! implementation has. It lets a test that drives a running sandbox from
//! outside the process (another language's test suite, over HTTP) make a
//! user say something: the message is stored and its event emitted exactly
//! as [`SandboxControl::inject_group_message`](crate::SandboxControl::inject_group_message)
//! and [`inject_private_message`](crate::SandboxControl::inject_private_message) do.
//!
//! Params: `user_id` (required), `group_id` (absent: a private message from
//! `user_id`), `message` (segments, one segment, a CQ string or text).
//! Data: `{"message_id": <id>}`, and `message_seq` on the Milky face.

use serde_json::{Value, json};

use crate::control::inject_message;
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;
use crate::state::ChatRef;

pub(super) fn inject(shared: &Shared, p: Params<'_>) -> ActionResult {
    let user_id = p.req_int("user_id")?;
    let chat = match p.int("group_id")? {
        Some(group_id) => ChatRef::Group(group_id),
        None => ChatRef::Private(user_id),
    };
    let message = p
        .raw("message")
        .filter(|m| !m.is_null())
        .cloned()
        .ok_or_else(|| ActionError::bad_params("缺少参数 message"))?;
    let message = match message {
        Value::String(s) if s.is_empty() => return Err(ActionError::bad_params("message 为空")),
        m => m,
    };
    let id = inject_message(shared, chat, user_id, message);
    let mut data = json!({ "message_id": id });
    if shared.milky() {
        // The Milky face names messages by their seq in the chat.
        let seq = shared.world.lock().find_any(id).map(|(_, m)| m.seq);
        data["message_seq"] = json!(seq);
    }
    Ok(data)
}
