//! `recall_group_message` and `recall_private_message`, with QQ's rules (as on the OneBot
//! face): the bot's own messages within [`RECALL_WINDOW_SECS`]; in a group where the bot is
//! owner or admin, the messages of members below it at any age; nothing else (`-406`). A
//! recall leaves history and `get_message` and emits `message_recall`.

use serde_json::json;

use super::super::params::{Body, Scene};
use super::super::{MilkyError, MilkyResult, events};
use super::message::check_peer;
use crate::RECALL_WINDOW_SECS;
use crate::events::now;
use crate::shared::Shared;
use crate::state::{ChatRef, Role};

fn rank(role: Option<Role>) -> u8 {
    match role {
        Some(Role::Owner) => 2,
        Some(Role::Admin) => 1,
        _ => 0,
    }
}

pub(super) fn recall(shared: &Shared, b: Body<'_>, group: bool) -> MilkyResult {
    let (scene, peer) = if group {
        (Scene::Group, b.uin("group_id")?)
    } else {
        (Scene::Friend, b.uin("user_id")?)
    };
    let seq = b.u64("message_seq")?;
    let self_id = shared.cfg.self_id;
    let data = {
        let mut w = shared.world.lock();
        let chat = if group {
            check_peer(&w, scene, peer)?
        } else {
            ChatRef::Private(peer)
        };
        let not_found = || MilkyError::not_found(format!("message_seq: no message {seq}"));
        let m = w
            .chat(chat)
            .and_then(|c| c.messages.get(usize::try_from(seq - 1).ok()?))
            .filter(|m| !m.recalled)
            .ok_or_else(not_found)?;
        let author = m.sender.user_id;
        let id = m.message_id;
        let allowed = match chat {
            _ if author == self_id => now() - m.time <= RECALL_WINDOW_SECS,
            ChatRef::Private(_) => false,
            ChatRef::Group(g) => {
                let mine = rank(w.role(g, self_id));
                mine > 0 && rank(w.role(g, author)) < mine
            }
        };
        if !allowed {
            return Err(MilkyError::refused(
                "message_seq: the message cannot be recalled (too old, or no rights)",
            ));
        }
        if let Some((_, m)) = w.find_mut(id) {
            m.recalled = true;
        }
        events::recall(&w, chat, seq, author, self_id)
    };
    events::emit(shared, "message_recall", data);
    Ok(json!({}))
}
