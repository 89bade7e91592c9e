//! The sandbox's own control endpoints, which no implementation has: a test (or
//! `onebot-gateway sandbox inject`) makes a sandbox USER act in a group, and the flavor's notice
//! (on the Milky face the Milky event) is pushed as if QQ reported it. On the OneBot face they
//! are actions (`POST /<name>` over HTTP, or a WebSocket frame); on the Milky face
//! `POST /<name>` with the same JSON body. QQ's rules apply to the acting user (see
//! [`ops`](crate::ops)); a refusal fails with its text.
//!
//! | endpoint | body | data |
//! |---|---|---|
//! | `sandbox_react` | `user_id`, `message_id` (or `group_id` + `message_seq`), `emoji_id`, `is_add` (default true) | `{}` |
//! | `sandbox_set_essence` | `operator_id`, `message_id` (or `group_id` + `message_seq`), `is_set` (default true) | `{}` |
//! | `sandbox_mute` | `group_id`, `operator_id`, `user_id`, `duration` (seconds, 0 lifts) | `{}` |
//! | `sandbox_whole_mute` | `group_id`, `operator_id`, `is_mute` (default true) | `{}` |
//! | `sandbox_set_admin` | `group_id`, `user_id`, `is_set` (default true); the owner acts | `{}` |
//! | `sandbox_upload_group_file` | `group_id`, `user_id`, `name`, `file` (`base64://…` or a local path), `folder_id` (default `/`) | `{file_id, size}` |
//! | `sandbox_rename_group` | `group_id`, `operator_id`, `name` | `{}` |

use serde_json::{Value, json};

use crate::media::{self, DigestCache};
use crate::ops::{self, Refusal};
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;

/// The endpoints this module serves.
pub(crate) const ENDPOINTS: [&str; 7] = [
    "sandbox_react",
    "sandbox_set_essence",
    "sandbox_mute",
    "sandbox_whole_mute",
    "sandbox_set_admin",
    "sandbox_upload_group_file",
    "sandbox_rename_group",
];

pub(crate) fn handles(name: &str) -> bool {
    ENDPOINTS.contains(&name)
}

fn refused(e: Refusal) -> ActionError {
    ActionError::failed(e.text())
}

/// The message named by `message_id`, or by `group_id` + `message_seq`.
fn message(shared: &Shared, p: Params<'_>) -> Result<i64, ActionError> {
    if let Some(id) = p.int("message_id")? {
        return Ok(id);
    }
    let group_id = p.req_int("group_id")?;
    let seq = p.req_int("message_seq")?;
    shared
        .world
        .lock()
        .by_seq(group_id, seq)
        .map(|m| m.message_id)
        .ok_or_else(|| ActionError::failed(format!("群{group_id}没有消息{seq}")))
}

fn string(p: Params<'_>, key: &str) -> Result<String, ActionError> {
    p.str(key)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ActionError::bad_params(format!("缺少参数 {key}")))
}

pub(super) fn run(
    shared: &Shared,
    name: &str,
    p: Params<'_>,
    cache: &DigestCache<'_>,
) -> ActionResult {
    match name {
        "sandbox_react" => {
            let user_id = p.req_int("user_id")?;
            let message_id = message(shared, p)?;
            let emoji = string(p, "emoji_id")?;
            let add = p.bool("is_add").unwrap_or(true);
            ops::react(shared, message_id, user_id, &emoji, add).map_err(refused)?;
        }
        "sandbox_set_essence" => {
            let operator_id = p.req_int("operator_id")?;
            let message_id = message(shared, p)?;
            let on = p.bool("is_set").unwrap_or(true);
            ops::set_essence(shared, message_id, operator_id, on).map_err(refused)?;
        }
        "sandbox_mute" => {
            let group_id = p.req_int("group_id")?;
            let operator_id = p.req_int("operator_id")?;
            let user_id = p.req_int("user_id")?;
            let duration = p.req_int("duration")?;
            ops::mute(shared, group_id, operator_id, user_id, duration).map_err(refused)?;
        }
        "sandbox_whole_mute" => {
            let group_id = p.req_int("group_id")?;
            let operator_id = p.req_int("operator_id")?;
            let on = p.bool("is_mute").unwrap_or(true);
            ops::whole_mute(shared, group_id, operator_id, on).map_err(refused)?;
        }
        "sandbox_set_admin" => {
            let group_id = p.req_int("group_id")?;
            let user_id = p.req_int("user_id")?;
            let on = p.bool("is_set").unwrap_or(true);
            ops::set_admin(shared, group_id, user_id, on).map_err(refused)?;
        }
        "sandbox_upload_group_file" => {
            let group_id = p.req_int("group_id")?;
            let user_id = p.req_int("user_id")?;
            let name = string(p, "name")?;
            let file = string(p, "file")?;
            let folder = p
                .str("folder_id")
                .filter(|f| !f.is_empty())
                .unwrap_or_else(|| "/".to_owned());
            let loaded =
                media::load(&file, cache).map_err(|e| ActionError::failed(e.to_string()))?;
            if loaded.bytes.is_none() {
                return Err(ActionError::bad_params(
                    "file: base64:// or a readable local path",
                ));
            }
            let f = ops::upload(shared, group_id, user_id, &name, &folder, &loaded, true)
                .map_err(refused)?;
            return Ok(json!({"file_id": f.file_id, "size": f.size}));
        }
        "sandbox_rename_group" => {
            let group_id = p.req_int("group_id")?;
            let operator_id = p.req_int("operator_id")?;
            let name = string(p, "name")?;
            ops::rename(shared, group_id, operator_id, &name).map_err(refused)?;
        }
        _ => return Err(ActionError::unknown(name.to_owned())),
    }
    Ok(Value::Object(Default::default()))
}
