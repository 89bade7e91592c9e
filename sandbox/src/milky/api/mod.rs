//! Milky API handlers, one file per area; [`call`] is the routing table. Handlers lock the world
//! briefly, never across an `.await` (media `uri`s are resolved before the lock), and emit
//! events after unlocking.

mod file;
mod forward;
mod group;
mod info;
mod message;
mod nudge;
mod recall;
mod send;

use serde_json::{Map, Value};

use super::MilkyResult;
use super::params::Body;
use crate::shared::Shared;

/// Runs `api` on `body`; `None` when there is no such API.
pub(crate) async fn call(
    shared: &Shared,
    api: &str,
    body: &Map<String, Value>,
) -> Option<MilkyResult> {
    let b = Body(body);
    Some(match api {
        "get_login_info" => Ok(info::login_info(shared)),
        "get_impl_info" => Ok(info::impl_info()),
        "get_friend_list" => info::friend_list(shared, b),
        "get_friend_info" => info::friend_info(shared, b),
        "get_group_list" => info::group_list(shared, b),
        "get_group_info" => info::group_info(shared, b),
        "get_group_member_list" => info::member_list(shared, b),
        "get_group_member_info" => info::member_info(shared, b),
        "get_message" => message::get_message(shared, b),
        "get_history_messages" => message::history(shared, b),
        "send_group_message" => send::send(shared, b, true).await,
        "send_private_message" => send::send(shared, b, false).await,
        "recall_group_message" => recall::recall(shared, b, true),
        "recall_private_message" => recall::recall(shared, b, false),
        "send_group_nudge" => nudge::group(shared, b),
        "send_friend_nudge" => nudge::friend(shared, b),
        "get_forwarded_messages" => forward::get(shared, b),
        "upload_group_file" => file::upload(shared, b, true).await,
        "upload_private_file" => file::upload(shared, b, false).await,
        "get_resource_temp_url" => file::temp_url(shared, b),
        "get_group_file_download_url" => file::download_url(shared, b, true),
        "get_private_file_download_url" => file::download_url(shared, b, false),
        "send_group_message_reaction" => group::reaction(shared, b),
        "set_group_essence_message" => group::essence(shared, b),
        "get_group_essence_messages" => group::essence_list(shared, b),
        "get_group_files" => group::files(shared, b),
        "set_group_member_mute" => group::mute(shared, b),
        "set_group_whole_mute" => group::whole_mute(shared, b),
        "kick_group_member" => group::kick(shared, b),
        "set_group_member_card" => group::card(shared, b),
        _ => return None,
    })
}
