//! Action handlers. One file per area; [`dispatch`] is the single routing table.
//!
//! Handlers are synchronous: they lock the world briefly, emit events after unlocking and
//! return an [`ActionResult`]. Transport concerns (faults that delay, drop or reorder replies,
//! echo, wire shape) are handled by the caller.

mod file;
mod forward;
mod group;
mod group_file;
mod history;
mod info;
mod inject;
pub(crate) mod media;
mod poke;
mod recall;
mod send;
mod simulate;

use serde_json::{Map, Value, json};

use crate::flavor::Flavor;
use crate::media::DigestCache;
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;

pub use recall::RECALL_WINDOW_SECS;

/// Strips the spec's `_async` / `_rate_limited` suffixes: NapCat maps them to the same
/// synchronous handler and go-cqhttp strips `_async`.
pub(crate) fn canonical_name(action: &str) -> &str {
    action
        .strip_suffix("_async")
        .or_else(|| action.strip_suffix("_rate_limited"))
        .unwrap_or(action)
}

/// The flavor's "no such action" error.
pub(crate) fn unknown_action(flavor: Flavor, action: &str) -> ActionError {
    match flavor {
        Flavor::NapCat => ActionError::unknown(format!("不支持的API {action}")),
        Flavor::LlOneBot => ActionError::unknown(format!("{action} API 不存在")),
        Flavor::SnowLuma => ActionError::unknown("unknown action"),
        Flavor::GoCqhttp => ActionError::unknown("API不存在").with_code("API_NOT_FOUND"),
        Flavor::Lagrange => ActionError::unknown(String::new()),
    }
}

/// Runs one action.
pub(crate) fn dispatch(
    shared: &Shared,
    action: &str,
    params: &Map<String, Value>,
    cache: &DigestCache<'_>,
) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let p = Params(params);
    let name = canonical_name(action);
    match name {
        "get_login_info" => info::login_info(shared),
        "get_version_info" => Ok(info::version_info(
            shared.cfg.behaviour.name.unwrap_or(flavor),
        )),
        "get_status" => Ok(info::status(flavor)),
        "get_group_list" => Ok(info::group_list(shared)),
        "get_group_info" => info::group_info(shared, p),
        "get_group_member_list" => info::member_list(shared, p),
        "get_group_member_info" => info::member_info(shared, p),
        "get_friend_list" => Ok(info::friend_list(shared)),
        "can_send_image" | "can_send_record" => Ok(json!({"yes": true})),
        "get_msg" => history::get_msg(shared, p),
        "get_group_msg_history" => history::group(shared, p),
        "get_friend_msg_history" if flavor.has_extensions() => history::friend(shared, p),
        "send_group_msg" | "send_private_msg" | "send_msg" => send::send(shared, name, p, cache),
        "upload_group_file" => file::upload_group_file(shared, p, cache),
        "delete_msg" => recall::delete_msg(shared, p),
        "get_forward_msg" => forward::get_forward_msg(shared, p),
        "group_poke" | "friend_poke" | "send_poke" if flavor.has_extensions() => {
            poke::poke(shared, name, p)
        }
        "set_msg_emoji_like"
            if matches!(flavor, Flavor::NapCat | Flavor::LlOneBot | Flavor::SnowLuma) =>
        {
            group::reaction(shared, name, p)
        }
        "unset_msg_emoji_like" if flavor == Flavor::LlOneBot => group::reaction(shared, name, p),
        "set_group_reaction" if matches!(flavor, Flavor::Lagrange | Flavor::SnowLuma) => {
            group::reaction(shared, name, p)
        }
        "set_essence_msg" => group::essence(shared, true, p),
        "delete_essence_msg" => group::essence(shared, false, p),
        "get_essence_msg_list" => group::essence_list(shared, p),
        "set_input_status" if matches!(flavor, Flavor::NapCat | Flavor::SnowLuma) => {
            group::input_status(shared, p)
        }
        "get_group_root_files" => group_file::list(shared, false, p),
        "get_group_files_by_folder" => group_file::list(shared, true, p),
        "get_group_file_url" => group_file::url(shared, p),
        "set_group_ban" => group::ban(shared, p),
        "set_group_whole_ban" => group::whole_ban(shared, p),
        "set_group_kick" => group::kick(shared, p),
        "set_group_card" => group::card(shared, p),
        // The sandbox's own: tests outside the process make users speak and act.
        "sandbox_inject_message" => inject::inject(shared, p),
        _ if simulate::handles(name) => simulate::run(shared, name, p, cache),
        "get_image" if flavor != Flavor::Lagrange => media::get_image_or_file(shared, name, p),
        "get_file" if !matches!(flavor, Flavor::Lagrange | Flavor::GoCqhttp) => {
            media::get_image_or_file(shared, name, p)
        }
        "get_record" if !matches!(flavor, Flavor::Lagrange | Flavor::GoCqhttp) => {
            media::get_record(shared, p)
        }
        "nc_get_rkey" if matches!(flavor, Flavor::NapCat | Flavor::SnowLuma) => {
            media::rkeys(shared, name)
        }
        "get_rkey" if !matches!(flavor, Flavor::GoCqhttp) => media::rkeys(shared, name),
        // Some mocks answer whatever they do not know with an empty success.
        _ if shared.cfg.behaviour.lenient => Ok(json!({})),
        _ => Err(unknown_action(flavor, action)),
    }
}

/// True for the sandbox's control endpoints that make a user act (`sandbox_react`, …).
pub(crate) fn is_simulation(name: &str) -> bool {
    simulate::handles(name)
}

/// True for the stream download actions of flavors that have them (many
/// reply frames with one echo).
pub(crate) fn is_stream(flavor: Flavor, action: &str) -> bool {
    matches!(flavor, Flavor::NapCat | Flavor::SnowLuma)
        && matches!(
            action,
            "download_file_stream" | "download_file_image_stream" | "download_file_record_stream"
        )
}

/// A copy of `params` for the action log, with every `base64://` payload replaced by
/// `base64://<sha256>:<len>` (digests are cached for the handler that runs next).
pub(crate) fn redact<'a>(v: &'a Value, cache: &mut DigestCache<'a>) -> Value {
    match v {
        Value::String(s) => match s.strip_prefix("base64://") {
            Some(payload) => match cache.remember(payload) {
                Some(d) => Value::String(format!("base64://{}:{}", d.sha256, d.len)),
                None => v.clone(),
            },
            None => v.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(|i| redact(i, cache)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), redact(v, cache)))
                .collect(),
        ),
        other => other.clone(),
    }
}
