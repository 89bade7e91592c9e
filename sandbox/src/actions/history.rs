//! `get_msg` and the history actions, with each flavor's anchor rules:
//!
//! | flavor    | anchor param  | anchor meaning      | window                                   | nothing found      |
//! |-----------|---------------|---------------------|------------------------------------------|--------------------|
//! | NapCat    | `message_seq` | short `message_id`  | `count` ending at anchor (incl.)         | failed `消息<seq>不存在` |
//! | LLOneBot  | `message_seq` | real seq            | `count` with seq ≤ anchor                | `[]`               |
//! | Lagrange  | `message_id`  | hash id (0 = newest)| seqs `seq-count ..= seq`                 | `[]`               |
//! | SnowLuma  | `message_id`  | signed hash id      | `count` (1..200) ending at anchor (incl.)| `[]`; unanchored & unobserved ⇒ `[]` |
//! | go-cqhttp | `message_seq` | real seq (0 = last) | seqs `max(seq-19,1) ..= seq` (no count)  | `[]`               |

use serde_json::{Value, json};

use crate::flavor::Flavor;
use crate::message::{self, View};
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;
use crate::state::{Chat, ChatRef, Stored, World};

pub(super) fn get_msg(shared: &Shared, p: Params<'_>) -> ActionResult {
    let w = shared.world.lock();
    let id = message_id(&w, p, "message_id")?
        .ok_or_else(|| ActionError::bad_params("缺少参数 message_id"))?;
    match w.find(id) {
        Some((chat, m)) => Ok(message::render(&w, chat, m, View::GetMsg)),
        None if shared.cfg.behaviour.lenient => Ok(json!({})),
        None => Err(not_found(w.flavor, w.find_any(id).is_some())),
    }
}

/// Each flavor's answer to `get_msg` of an id it does not know (or of a
/// recalled message).
fn not_found(flavor: Flavor, recalled: bool) -> ActionError {
    match flavor {
        Flavor::NapCat if recalled => ActionError::failed("消息不存在或已被撤回"),
        Flavor::NapCat | Flavor::LlOneBot => ActionError::failed("消息不存在"),
        Flavor::GoCqhttp => ActionError::failed("消息不存在").with_code("MSG_NOT_FOUND"),
        Flavor::SnowLuma => ActionError::failed("message not found"),
        // Lagrange says nothing: only its failure retcode.
        Flavor::Lagrange => ActionError::failed(String::new()),
    }
}

/// A message id parameter in the world's id form (`None`: absent, empty or "latest").
fn message_id(w: &World, p: Params<'_>, key: &str) -> Result<Option<i64>, ActionError> {
    w.id_form
        .parse(p.raw(key))
        .map_err(|()| ActionError::bad_params(format!("{key} 参数格式错误")))
}

pub(super) fn group(shared: &Shared, p: Params<'_>) -> ActionResult {
    let group_id = p.req_int("group_id")?;
    history(shared, ChatRef::Group(group_id), p)
}

pub(super) fn friend(shared: &Shared, p: Params<'_>) -> ActionResult {
    let user_id = p.req_int("user_id")?;
    history(shared, ChatRef::Private(user_id), p)
}

fn history(shared: &Shared, chat: ChatRef, p: Params<'_>) -> ActionResult {
    let w = shared.world.lock();
    let empty = Chat::default();
    let c = w.chat(chat).unwrap_or(&empty);
    let (range, reverse) = match w.history_flavor {
        Flavor::NapCat => napcat(&w, chat, c, p)?,
        Flavor::LlOneBot => (llonebot(c, p)?, reverse_flag(p)),
        Flavor::Lagrange => (lagrange(&w, chat, c, p)?, false),
        Flavor::SnowLuma => (snowluma(&w, chat, c, p)?, false),
        Flavor::GoCqhttp => (gocq(c, p)?, false),
    };
    let mut messages: Vec<Value> = range
        .iter()
        .filter(|m| !m.recalled)
        .map(|m| message::render(&w, chat, m, View::History))
        .collect();
    if reverse {
        messages.reverse();
    }
    Ok(json!({"messages": messages}))
}

fn reverse_flag(p: Params<'_>) -> bool {
    p.bool("reverse_order")
        .or_else(|| p.bool("reverseOrder"))
        .unwrap_or(false)
}

fn count(p: Params<'_>, default: i64) -> Result<usize, ActionError> {
    Ok(p.int("count")?.unwrap_or(default).max(0) as usize)
}

/// The `count` messages ending at index `end` (exclusive).
fn ending_at(c: &Chat, end: usize, count: usize) -> &[Stored] {
    let end = end.min(c.messages.len());
    &c.messages[end.saturating_sub(count)..end]
}

/// Index just past the message with public id `id` in this chat.
fn end_after_id(w: &World, chat: ChatRef, id: i64) -> Option<usize> {
    match w.find_any(id) {
        Some((found, m)) if found == chat => Some(m.seq as usize),
        _ => None,
    }
}

fn napcat<'c>(
    w: &World,
    chat: ChatRef,
    c: &'c Chat,
    p: Params<'_>,
) -> Result<(&'c [Stored], bool), ActionError> {
    let not_found = || ActionError::failed(format!("消息{}不存在", p.js_display("message_seq")));
    let count = count(p, 20)?;
    // Anchor is a short message_id; absent/0/"" means "latest".
    let end = match message_id(w, p, "message_seq") {
        Ok(None) | Ok(Some(0)) => c.messages.len(),
        Ok(Some(id)) => end_after_id(w, chat, id).ok_or_else(not_found)?,
        Err(_) => return Err(not_found()),
    };
    let range = ending_at(c, end, count);
    if range.is_empty() {
        return Err(not_found());
    }
    Ok((range, reverse_flag(p)))
}

fn llonebot<'c>(c: &'c Chat, p: Params<'_>) -> Result<&'c [Stored], ActionError> {
    let count = count(p, 20)?;
    let end = match p.int("message_seq")? {
        None | Some(0) => c.messages.len(),
        Some(seq) => seq.max(0) as usize,
    };
    Ok(ending_at(c, end, count))
}

fn lagrange<'c>(
    w: &World,
    chat: ChatRef,
    c: &'c Chat,
    p: Params<'_>,
) -> Result<&'c [Stored], ActionError> {
    let count = count(p, 20)?;
    let seq = match message_id(w, p, "message_id")? {
        None | Some(0) => c.messages.len(),
        Some(id) => {
            end_after_id(w, chat, id).ok_or_else(|| ActionError::failed("message not found"))?
        }
    };
    // GetGroupMessage(group, seq - count, seq): both ends inclusive.
    Ok(ending_at(c, seq, count + 1))
}

fn snowluma<'c>(
    w: &World,
    chat: ChatRef,
    c: &'c Chat,
    p: Params<'_>,
) -> Result<&'c [Stored], ActionError> {
    let count = count(p, 20)?.clamp(1, 200);
    let end = match message_id(w, p, "message_id")? {
        None | Some(0) if !c.observed => return Ok(&[]),
        None | Some(0) => c.messages.len(),
        Some(id) => end_after_id(w, chat, id)
            .ok_or_else(|| ActionError::failed(format!("message {id} not found")))?,
    };
    Ok(ending_at(c, end, count))
}

fn gocq<'c>(c: &'c Chat, p: Params<'_>) -> Result<&'c [Stored], ActionError> {
    let seq = match p.int("message_seq")? {
        None | Some(0) => c.last_seq(),
        Some(seq) => seq,
    };
    if seq <= 0 {
        return Ok(&[]);
    }
    let first = (seq - 19).max(1) as usize;
    let end = (seq as usize).min(c.messages.len());
    if first > end {
        return Ok(&[]);
    }
    Ok(&c.messages[first - 1..end])
}
