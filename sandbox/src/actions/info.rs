//! Account, group, member and friend queries.

use serde_json::{Value, json};

use crate::flavor::Flavor;
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;
use crate::state::{Group, Member};

pub(super) fn login_info(shared: &Shared) -> ActionResult {
    let w = shared.world.lock();
    Ok(json!({"user_id": w.self_id, "nickname": w.nickname}))
}

/// `get_version_info` of a peer that calls itself `flavor`.
pub(super) fn version_info(flavor: Flavor) -> Value {
    json!({
        "app_name": flavor.app_name(),
        "app_version": flavor.app_version(),
        "protocol_version": "v11",
    })
}

pub(super) fn status(flavor: Flavor) -> Value {
    match flavor {
        Flavor::NapCat => json!({"online": true, "good": true, "stat": {}}),
        Flavor::GoCqhttp => json!({
            "app_initialized": true,
            "app_enabled": true,
            "plugins_good": null,
            "app_good": true,
            "online": true,
            "good": true,
            "stat": {
                "packet_received": 0, "packet_sent": 0, "packet_lost": 0,
                "message_received": 0, "message_sent": 0,
                "disconnect_times": 0, "lost_times": 0, "last_message_time": 0
            }
        }),
        _ => json!({"online": true, "good": true}),
    }
}

/// A group object; NapCat's `group_all_shut` is -1 under a whole-group mute, else 0.
fn group_object(flavor: Flavor, g: &Group, whole_muted: bool) -> Value {
    let mut v = json!({
        "group_id": g.group_id,
        "group_name": g.name,
        "member_count": g.members.len(),
        "max_member_count": g.max_member_count,
    });
    if let Some(o) = v.as_object_mut() {
        match flavor {
            Flavor::NapCat => {
                o.insert("group_all_shut".into(), json!(-i64::from(whole_muted)));
                o.insert("group_remark".into(), json!(""));
            }
            Flavor::GoCqhttp => {
                o.insert("group_memo".into(), json!(""));
                o.insert("group_create_time".into(), json!(0));
                o.insert("group_level".into(), json!(0));
            }
            _ => {}
        }
    }
    v
}

fn member_object(self_id: i64, group_id: i64, m: &Member) -> Value {
    json!({
        "group_id": group_id,
        "user_id": m.user_id,
        "nickname": m.nickname,
        "card": m.card,
        "sex": m.sex,
        "age": m.age,
        "area": "",
        "level": m.level.to_string(),
        "qq_level": 0,
        "join_time": m.join_time,
        "last_sent_time": m.last_sent_time,
        "title_expire_time": 0,
        "unfriendly": false,
        "card_changeable": true,
        "is_robot": m.user_id == self_id,
        "shut_up_timestamp": m.shut_up_until,
        "role": m.role.as_str(),
        "title": m.title,
    })
}

pub(super) fn group_list(shared: &Shared) -> Value {
    let w = shared.world.lock();
    Value::Array(
        w.groups
            .iter()
            .map(|g| group_object(w.flavor, g, w.whole_muted.contains(&g.group_id)))
            .collect(),
    )
}

fn no_group(group_id: i64) -> ActionError {
    ActionError::failed(format!("群{group_id}不存在")).with_code("GROUP_NOT_FOUND")
}

pub(super) fn group_info(shared: &Shared, p: Params<'_>) -> ActionResult {
    let group_id = p.req_int("group_id")?;
    let w = shared.world.lock();
    let g = w.group(group_id).ok_or_else(|| no_group(group_id))?;
    Ok(group_object(w.flavor, g, w.whole_muted.contains(&group_id)))
}

pub(super) fn member_list(shared: &Shared, p: Params<'_>) -> ActionResult {
    let group_id = p.req_int("group_id")?;
    let _no_cache = p.bool("no_cache");
    let w = shared.world.lock();
    let g = w.group(group_id).ok_or_else(|| no_group(group_id))?;
    Ok(Value::Array(
        g.members
            .iter()
            .map(|m| member_object(w.self_id, group_id, m))
            .collect(),
    ))
}

pub(super) fn member_info(shared: &Shared, p: Params<'_>) -> ActionResult {
    let group_id = p.req_int("group_id")?;
    let user_id = p.req_int("user_id")?;
    let w = shared.world.lock();
    let g = w.group(group_id).ok_or_else(|| no_group(group_id))?;
    let m = g.member(user_id).ok_or_else(|| {
        ActionError::failed(format!("群({group_id})成员{user_id}不存在"))
            .with_code("MEMBER_NOT_FOUND")
    })?;
    Ok(member_object(w.self_id, group_id, m))
}

pub(super) fn friend_list(shared: &Shared) -> Value {
    let w = shared.world.lock();
    Value::Array(
        w.friends
            .iter()
            .map(|f| json!({"user_id": f.user_id, "nickname": f.nickname, "remark": f.remark}))
            .collect(),
    )
}
