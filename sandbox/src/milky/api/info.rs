//! `get_login_info`, `get_impl_info`, the friend, group and member lists and infos
//! (`get_friend_info` too).

use serde_json::{Value, json};

use super::super::entities;
use super::super::params::Body;
use super::super::{MilkyError, MilkyResult};
use crate::shared::Shared;

pub(super) fn login_info(shared: &Shared) -> Value {
    let w = shared.world.lock();
    json!({"uin": w.self_id, "nickname": w.nickname})
}

pub(super) fn impl_info() -> Value {
    json!({
        "impl_name": "onebot-sandbox",
        "impl_version": env!("CARGO_PKG_VERSION"),
        "qq_protocol_version": "9.9.19-34740",
        "qq_protocol_type": "linux",
        "milky_version": "1.2",
    })
}

pub(super) fn friend_list(shared: &Shared, b: Body<'_>) -> MilkyResult {
    b.flag("no_cache")?;
    let w = shared.world.lock();
    let friends: Vec<Value> = w.friends.iter().map(entities::friend).collect();
    Ok(json!({"friends": friends}))
}

pub(super) fn group_list(shared: &Shared, b: Body<'_>) -> MilkyResult {
    b.flag("no_cache")?;
    let w = shared.world.lock();
    let groups: Vec<Value> = w.groups.iter().map(entities::group).collect();
    Ok(json!({"groups": groups}))
}

pub(super) fn friend_info(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let user_id = b.uin("user_id")?;
    b.flag("no_cache")?;
    let w = shared.world.lock();
    let f = w
        .friend(user_id)
        .ok_or_else(|| MilkyError::not_found(format!("user_id: {user_id} is not a friend")))?;
    Ok(json!({"friend": entities::friend(f)}))
}

fn no_group(group_id: i64) -> MilkyError {
    MilkyError::not_found(format!("group_id: group {group_id} not found"))
}

pub(super) fn group_info(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    b.flag("no_cache")?;
    let w = shared.world.lock();
    let g = w.group(group_id).ok_or_else(|| no_group(group_id))?;
    Ok(json!({"group": entities::group(g)}))
}

pub(super) fn member_list(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    b.flag("no_cache")?;
    let w = shared.world.lock();
    let g = w.group(group_id).ok_or_else(|| no_group(group_id))?;
    let members: Vec<Value> = g
        .members
        .iter()
        .map(|m| entities::member(group_id, m))
        .collect();
    Ok(json!({"members": members}))
}

pub(super) fn member_info(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let user_id = b.uin("user_id")?;
    b.flag("no_cache")?;
    let w = shared.world.lock();
    let g = w.group(group_id).ok_or_else(|| no_group(group_id))?;
    let m = g.member(user_id).ok_or_else(|| {
        MilkyError::not_found(format!(
            "user_id: {user_id} is not a member of group {group_id}"
        ))
    })?;
    Ok(json!({"member": entities::member(group_id, m)}))
}
