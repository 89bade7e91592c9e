//! `send_group_nudge` and `send_friend_nudge`: they emit `group_nudge` / `friend_nudge` (the
//! bot the sender) and never land in history.

use serde_json::json;

use super::super::params::Body;
use super::super::{MilkyError, MilkyResult, events};
use crate::shared::Shared;

pub(super) fn group(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let user_id = b.uin("user_id")?;
    {
        let w = shared.world.lock();
        let g = w.group(group_id).ok_or_else(|| {
            MilkyError::not_found(format!("group_id: group {group_id} not found"))
        })?;
        if g.member(user_id).is_none() {
            return Err(MilkyError::not_found(format!(
                "user_id: {user_id} is not a member of group {group_id}"
            )));
        }
    }
    let self_id = shared.cfg.self_id;
    events::emit(
        shared,
        "group_nudge",
        events::group_nudge(group_id, self_id, user_id),
    );
    Ok(json!({}))
}

pub(super) fn friend(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let user_id = b.uin("user_id")?;
    let is_self = b.flag("is_self")?;
    if shared.world.lock().friend(user_id).is_none() {
        return Err(MilkyError::not_found(format!(
            "user_id: {user_id} is not a friend"
        )));
    }
    events::emit(
        shared,
        "friend_nudge",
        events::friend_nudge(user_id, true, is_self),
    );
    Ok(json!({}))
}
