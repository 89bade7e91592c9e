//! Group actions of the Milky face: `send_group_message_reaction`, `set_group_essence_message`,
//! `get_group_essence_messages` (paged by `page_index` from 0 and `page_size`, newest mark
//! first, `is_end` on the last page), `get_group_files` (`parent_folder_id`, default `/`),
//! `set_group_member_mute` (`duration` default 0, which lifts), `set_group_whole_mute`
//! (`is_mute` default true), `kick_group_member`, `set_group_member_card`. The bot acts; QQ's
//! rules ([`ops`](crate::ops)) refuse with `-406`, unknown groups, members and messages `-404`.
//! There is no typing action in Milky.

use serde_json::{Value, json};

use super::super::params::Body;
use super::super::{MilkyError, MilkyResult, segments};
use crate::ops;
use crate::shared::Shared;
use crate::state::ChatRef;

/// The message `message_seq` of `group_id`: its id.
fn message_id(shared: &Shared, group_id: i64, seq: i64) -> Result<i64, MilkyError> {
    let w = shared.world.lock();
    if w.group(group_id).is_none() {
        return Err(MilkyError::not_found(format!(
            "group_id: group {group_id} not found"
        )));
    }
    w.by_seq(group_id, seq)
        .map(|m| m.message_id)
        .ok_or_else(|| MilkyError::not_found(format!("message_seq: no message {seq}")))
}

pub(super) fn reaction(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let seq = b.u64("message_seq")?;
    let reaction = b.string("reaction")?;
    match b.opt_string("reaction_type")? {
        None | Some("face" | "emoji") => {}
        Some(_) => return Err(MilkyError::bad("reaction_type: expected face or emoji")),
    }
    let is_add = b.flag_or("is_add", true)?;
    if reaction.is_empty() {
        return Err(MilkyError::bad("reaction: empty"));
    }
    let id = message_id(shared, group_id, seq)?;
    ops::react(shared, id, shared.cfg.self_id, reaction, is_add).map_err(|e| e.milky())?;
    Ok(json!({}))
}

pub(super) fn essence(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let seq = b.u64("message_seq")?;
    let is_set = b.flag_or("is_set", true)?;
    let id = message_id(shared, group_id, seq)?;
    ops::set_essence(shared, id, shared.cfg.self_id, is_set).map_err(|e| e.milky())?;
    Ok(json!({}))
}

pub(super) fn essence_list(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let page_index = b.u64("page_index")?;
    let page_size = b.u64("page_size")?;
    if page_size == 0 {
        return Err(MilkyError::bad("page_size: expected a positive integer"));
    }
    let w = shared.world.lock();
    if w.group(group_id).is_none() {
        return Err(MilkyError::not_found(format!(
            "group_id: group {group_id} not found"
        )));
    }
    let chat = ChatRef::Group(group_id);
    let all: Vec<Value> = w
        .essence
        .iter()
        .rev()
        .filter(|e| e.group_id == group_id)
        .filter_map(|e| {
            let (_, m) = w.find(e.message_id)?;
            Some(json!({
                "group_id": group_id,
                "message_seq": m.seq,
                "message_time": m.time,
                "sender_id": m.sender.user_id,
                "sender_name": w.display_name(group_id, m.sender.user_id),
                "operator_id": e.operator_id,
                "operator_name": w.display_name(group_id, e.operator_id),
                "operation_time": e.time,
                "segments": segments::incoming(&w, chat, &m.segments, 0),
            }))
        })
        .collect();
    let start = usize::try_from(page_index.saturating_mul(page_size)).unwrap_or(usize::MAX);
    let end = start.saturating_add(usize::try_from(page_size).unwrap_or(usize::MAX));
    let messages: Vec<Value> = all.iter().skip(start).take(end - start).cloned().collect();
    Ok(json!({"messages": messages, "is_end": end >= all.len()}))
}

pub(super) fn files(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let parent = b.opt_string("parent_folder_id")?.unwrap_or("/");
    let w = shared.world.lock();
    if w.group(group_id).is_none() {
        return Err(MilkyError::not_found(format!(
            "group_id: group {group_id} not found"
        )));
    }
    if parent != "/"
        && !w
            .group_folders
            .iter()
            .any(|d| d.group_id == group_id && d.folder_id == parent)
    {
        return Err(MilkyError::not_found(format!(
            "parent_folder_id: no folder {parent}"
        )));
    }
    let files: Vec<Value> = w
        .group_files
        .iter()
        .filter(|f| f.group_id == group_id && f.folder_id == parent)
        .map(|f| {
            json!({
                "group_id": group_id,
                "file_id": f.file_id,
                "file_name": f.name,
                "parent_folder_id": f.folder_id,
                "file_size": f.size,
                "uploaded_time": f.upload_time,
                "expire_time": 0,
                "uploader_id": f.uploader,
                "downloaded_times": f.downloads,
            })
        })
        .collect();
    let folders: Vec<Value> = w
        .group_folders
        .iter()
        .filter(|d| d.group_id == group_id && parent == "/")
        .map(|d| {
            let count = w
                .group_files
                .iter()
                .filter(|f| f.group_id == group_id && f.folder_id == d.folder_id)
                .count();
            json!({
                "group_id": group_id,
                "folder_id": d.folder_id,
                "parent_folder_id": "/",
                "folder_name": d.name,
                "created_time": d.create_time,
                "last_modified_time": d.create_time,
                "creator_id": d.creator,
                "file_count": count,
            })
        })
        .collect();
    Ok(json!({"files": files, "folders": folders}))
}

pub(super) fn mute(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let user_id = b.uin("user_id")?;
    let duration = b.opt_i64("duration")?.unwrap_or(0);
    if duration < 0 {
        return Err(MilkyError::bad("duration: expected a non-negative integer"));
    }
    ops::mute(shared, group_id, shared.cfg.self_id, user_id, duration).map_err(|e| e.milky())?;
    Ok(json!({}))
}

pub(super) fn whole_mute(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let is_mute = b.flag_or("is_mute", true)?;
    ops::whole_mute(shared, group_id, shared.cfg.self_id, is_mute).map_err(|e| e.milky())?;
    Ok(json!({}))
}

pub(super) fn kick(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let user_id = b.uin("user_id")?;
    b.flag("reject_add_request")?;
    ops::kick(shared, group_id, shared.cfg.self_id, user_id).map_err(|e| e.milky())?;
    Ok(json!({}))
}

pub(super) fn card(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let group_id = b.uin("group_id")?;
    let user_id = b.uin("user_id")?;
    let card = b.string("card")?;
    ops::set_card(shared, group_id, shared.cfg.self_id, user_id, card).map_err(|e| e.milky())?;
    Ok(json!({}))
}
