//! `get_message` and `get_history_messages`.
//!
//! History pages go from new to old: `start_message_seq` (absent: the newest message) is the
//! newest seq of the page, inclusive; the page holds the `limit` seqs ending there (`limit`
//! defaults to 20 and is clamped to 1..=30), in ascending order, recalled messages left out;
//! `next_message_seq` is the seq just below the page, absent when the page reached the chat's
//! first message. Paging with it visits every seq once.

use serde_json::{Value, json};

use super::super::entities;
use super::super::params::{Body, Scene};
use super::super::{MilkyError, MilkyResult};
use crate::shared::Shared;
use crate::state::{ChatRef, World};

/// Most messages one history page returns.
pub(crate) const HISTORY_CAP: i64 = 30;

/// Checks the peer exists for the scene.
pub(crate) fn check_peer(w: &World, scene: Scene, peer_id: i64) -> Result<ChatRef, MilkyError> {
    let chat = scene.chat(peer_id);
    let known = match scene {
        Scene::Group => w.group(peer_id).is_some(),
        Scene::Friend => w.friend(peer_id).is_some(),
        Scene::Temp => w.groups.iter().any(|g| g.member(peer_id).is_some()),
    };
    if known {
        Ok(chat)
    } else {
        Err(MilkyError::not_found(format!(
            "peer_id: no such peer {peer_id}"
        )))
    }
}

pub(super) fn get_message(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let scene = b.scene()?;
    let peer_id = b.uin("peer_id")?;
    let seq = b.u64("message_seq")?;
    let w = shared.world.lock();
    let chat = check_peer(&w, scene, peer_id)?;
    let not_found = || MilkyError::not_found(format!("message_seq: no message {seq}"));
    let m = w
        .chat(chat)
        .and_then(|c| c.messages.get(usize::try_from(seq - 1).ok()?))
        .filter(|m| !m.recalled)
        .ok_or_else(not_found)?;
    let message = entities::incoming(&w, chat, m).ok_or_else(not_found)?;
    Ok(json!({"message": message}))
}

pub(super) fn history(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let scene = b.scene()?;
    let peer_id = b.uin("peer_id")?;
    let start = b.opt_u64("start_message_seq")?;
    let limit = b.opt_u64("limit")?.unwrap_or(20).clamp(1, HISTORY_CAP);
    let w = shared.world.lock();
    let chat = check_peer(&w, scene, peer_id)?;
    let Some(c) = w.chat(chat).filter(|c| c.last_seq() > 0) else {
        return Ok(json!({"messages": []}));
    };
    let last = start.unwrap_or(i64::MAX).min(c.last_seq());
    if last < 1 {
        return Ok(json!({"messages": []}));
    }
    let first = (last - limit + 1).max(1);
    let messages: Vec<Value> = c
        .messages
        .iter()
        .skip((first - 1) as usize)
        .take((last - first + 1) as usize)
        .filter(|m| !m.recalled)
        .filter_map(|m| entities::incoming(&w, chat, m))
        .collect();
    let mut out = json!({"messages": messages});
    if first > 1 {
        out["next_message_seq"] = json!(first - 1);
    }
    Ok(out)
}
