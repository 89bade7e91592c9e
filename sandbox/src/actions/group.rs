//! Group actions: reactions, essence, typing status and moderation, each with its flavor's
//! names, parameters, defaults and answers (docs/group-actions.md §1–§4, §7). The bot is the
//! operator; [`ops`](crate::ops) applies QQ's rules and pushes the notices.
//!
//! | action | flavors | quirks |
//! |---|---|---|
//! | `set_msg_emoji_like {message_id, emoji_id, set}` | NapCat, SnowLuma, LLOneBot | `set` defaults to true; LLOneBot ignores it (always adds) |
//! | `unset_msg_emoji_like {message_id, emoji_id}` | LLOneBot | removes |
//! | `set_group_reaction {group_id, message_id, code, is_add}` | Lagrange, SnowLuma | SnowLuma reads `is_set`; both default to true |
//! | `set_essence_msg` / `delete_essence_msg {message_id}` | all | NapCat's delete also takes `group_id` + `msg_seq` |
//! | `get_essence_msg_list {group_id}` | all | each flavor's item shape (see [`essence_item`]) |
//! | `set_input_status {user_id, event_type}` | NapCat (`event_type` required), SnowLuma (default 0) | |
//! | `set_group_ban {group_id, user_id, duration}` | all | `duration` defaults to 0 on NapCat and Lagrange, else 1800 |
//! | `set_group_whole_ban {group_id, enable}` | all | `enable` defaults to true, on Lagrange to false |
//! | `set_group_kick {group_id, user_id, reject_add_request}` | all | |
//! | `set_group_card {group_id, user_id, card}` | all | `card` defaults to "" (clears) |
//!
//! Refusals (the bot lacks the rights, the target is missing or outranks it): Lagrange answers
//! ok to every moderation action whatever happened; NapCat answers ok to a kick without checking
//! and go-cqhttp to a whole-group mute and a card change; the others fail with their text
//! (go-cqhttp with `NOT_MANAGEABLE`, `MEMBER_NOT_FOUND` or `GROUP_NOT_FOUND`).

use serde_json::{Value, json};

use crate::flavor::Flavor;
use crate::ops::{self, Refusal};
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;
use crate::state::{ChatRef, Stored, World};

fn failed(flavor: Flavor, text: impl Into<String>) -> ActionError {
    match flavor {
        Flavor::Lagrange => ActionError::failed(""),
        _ => ActionError::failed(text),
    }
}

fn emoji_param(p: Params<'_>, key: &str) -> Result<String, ActionError> {
    p.str(key)
        .filter(|e| !e.is_empty())
        .ok_or_else(|| ActionError::bad_params(format!("缺少参数 {key}")))
}

/// `set_msg_emoji_like`, `unset_msg_emoji_like`, `set_group_reaction`.
pub(super) fn reaction(shared: &Shared, name: &str, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let message_id = p.req_int("message_id")?;
    let (emoji, add) = match (flavor, name) {
        (Flavor::LlOneBot, "set_msg_emoji_like") => (emoji_param(p, "emoji_id")?, true),
        (Flavor::LlOneBot, _) => (emoji_param(p, "emoji_id")?, false),
        (_, "set_group_reaction") => {
            let flag = if flavor == Flavor::SnowLuma {
                "is_set"
            } else {
                "is_add"
            };
            (emoji_param(p, "code")?, p.bool(flag).unwrap_or(true))
        }
        _ => (emoji_param(p, "emoji_id")?, p.bool("set").unwrap_or(true)),
    };
    if flavor == Flavor::SnowLuma && message_id == 0 {
        return Err(ActionError::bad_params("message_id must be non-zero"));
    }
    if name == "set_group_reaction"
        && let Some(g) = p.int("group_id")?
    {
        let w = shared.world.lock();
        if let Ok((actual, _)) = ops::group_message(&w, message_id)
            && actual != g
        {
            return Err(match flavor {
                Flavor::SnowLuma => {
                    ActionError::bad_params("group_id does not match message session")
                }
                _ => ActionError::failed(""),
            });
        }
    }
    let self_id = shared.cfg.self_id;
    match ops::react(shared, message_id, self_id, &emoji, add) {
        Ok(()) => Ok(match flavor {
            Flavor::NapCat => json!({"result": true}),
            _ => Value::Null,
        }),
        Err(e) => Err(match flavor {
            Flavor::NapCat => ActionError::failed("msg not found"),
            Flavor::SnowLuma if name == "set_group_reaction" => {
                ActionError::failed("message not found or not a group message")
            }
            Flavor::SnowLuma => ActionError::failed("message not found"),
            _ => failed(flavor, e.text()),
        }),
    }
}

/// `set_essence_msg` / `delete_essence_msg`.
pub(super) fn essence(shared: &Shared, on: bool, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let message_id = match p.int("message_id")? {
        Some(id) => id,
        // NapCat's delete also names the message by group and seq.
        None if flavor == Flavor::NapCat && !on => {
            let g = p.req_int("group_id")?;
            let seq = p.req_int("msg_seq")?;
            let w = shared.world.lock();
            w.by_seq(g, seq)
                .map(|m| m.message_id)
                .ok_or_else(|| ActionError::failed("msg not found"))?
        }
        None => return Err(ActionError::bad_params("缺少参数 message_id")),
    };
    let self_id = shared.cfg.self_id;
    match ops::set_essence(shared, message_id, self_id, on) {
        Ok(()) => Ok(match flavor {
            Flavor::NapCat => json!({"errCode": 0, "errMsg": "success"}),
            _ => Value::Null,
        }),
        Err(e @ (Refusal::NoMessage(_) | Refusal::NotGroupMessage(_))) => Err(match flavor {
            Flavor::NapCat => ActionError::failed("msg not found"),
            _ => failed(flavor, e.text()),
        }),
        Err(e) => Err(failed(flavor, e.text()).with_code("ACTION_FAILED")),
    }
}

/// One essence message as `flavor`'s `get_essence_msg_list` lists it; `None` when Lagrange
/// cannot render its content (which fails its whole list).
fn essence_item(flavor: Flavor, w: &World, e: &crate::state::Essence, m: &Stored) -> Option<Value> {
    let g = e.group_id;
    let sender_nick = w.display_name(g, m.sender.user_id);
    let operator_nick = w.display_name(g, e.operator_id);
    let random = ops::msg_random(m.message_id);
    let render = |s: &Value| w.files.render_segment(flavor, ChatRef::Group(g), s);
    Some(match flavor {
        Flavor::NapCat => json!({
            "msg_seq": m.seq,
            "msg_random": random,
            "sender_id": m.sender.user_id,
            "sender_nick": sender_nick,
            "operator_id": e.operator_id,
            "operator_nick": operator_nick,
            "message_id": m.message_id,
            "operator_time": e.time,
            "content": m.segments.iter().map(render).collect::<Vec<_>>(),
        }),
        Flavor::Lagrange => {
            let mut content = Vec::new();
            for s in &m.segments {
                match s["type"].as_str() {
                    Some("text" | "face" | "image" | "video") => content.push(render(s)),
                    _ => return None,
                }
            }
            json!({
                "sender_id": m.sender.user_id,
                "sender_nick": sender_nick,
                "sender_time": m.time,
                "operator_id": e.operator_id,
                "operator_nick": operator_nick,
                "operator_time": e.time,
                "message_id": m.message_id,
                "content": content,
            })
        }
        // The qun.qq.com digest list's own items.
        Flavor::SnowLuma => {
            let content: Vec<Value> = m
                .segments
                .iter()
                .map(|s| match s["type"].as_str() {
                    Some("face") => json!({"msg_type": 2, "face_index": s["data"]["id"]}),
                    Some("image") => {
                        json!({"msg_type": 3, "image_url": render(s)["data"]["url"]})
                    }
                    _ => json!({"msg_type": 1, "text": crate::cq::render(std::slice::from_ref(s))}),
                })
                .collect();
            json!({
                "group_code": g.to_string(),
                "msg_seq": m.seq,
                "msg_random": random,
                "sender_uin": m.sender.user_id.to_string(),
                "sender_nick": sender_nick,
                "sender_time": m.time,
                "add_digest_uin": e.operator_id.to_string(),
                "add_digest_nick": operator_nick,
                "add_digest_time": e.time,
                "msg_content": content,
                "can_be_removed": true,
            })
        }
        Flavor::LlOneBot | Flavor::GoCqhttp => json!({
            "sender_id": m.sender.user_id,
            "sender_nick": sender_nick,
            "sender_time": m.time,
            "operator_id": e.operator_id,
            "operator_nick": operator_nick,
            "operator_time": e.time,
            "message_id": m.message_id,
        }),
    })
}

/// `get_essence_msg_list`: newest mark first.
pub(super) fn essence_list(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let group_id = p.req_int("group_id")?;
    let w = shared.world.lock();
    if w.group(group_id).is_none() {
        return Err(match flavor {
            Flavor::SnowLuma => {
                ActionError::failed(format!("获取精华消息失败: 群{group_id}不存在"))
            }
            _ => failed(flavor, format!("群{group_id}不存在")).with_code("GROUP_NOT_FOUND"),
        });
    }
    let mut items = Vec::new();
    for e in w.essence.iter().rev().filter(|e| e.group_id == group_id) {
        let Some((_, m)) = w.find(e.message_id) else {
            continue;
        };
        match essence_item(flavor, &w, e, m) {
            Some(item) => items.push(item),
            None => return Err(ActionError::failed("")),
        }
    }
    Ok(Value::Array(items))
}

/// `set_input_status` (NapCat, SnowLuma): a private chat's typing status; nothing is stored.
pub(super) fn input_status(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    p.req_int("user_id")?;
    let event_type = match flavor {
        Flavor::NapCat => p.req_int("event_type")?,
        _ => p.int("event_type")?.unwrap_or(0),
    };
    let _ = event_type;
    Ok(match flavor {
        Flavor::NapCat => json!({"result": 0, "errMsg": ""}),
        _ => json!({}),
    })
}

/// A refused moderation action as `flavor` answers it (`Ok` where it answers ok anyway).
fn refused(flavor: Flavor, action: &str, e: Refusal) -> ActionResult {
    if flavor == Flavor::Lagrange {
        return Ok(Value::Null);
    }
    let text = e.text();
    Err(match (flavor, e) {
        (Flavor::GoCqhttp, Refusal::NoGroup(_)) => {
            ActionError::failed(text).with_code("GROUP_NOT_FOUND")
        }
        (Flavor::GoCqhttp, Refusal::NotMember(..)) => {
            ActionError::failed(text).with_code("MEMBER_NOT_FOUND")
        }
        (Flavor::GoCqhttp, _) => ActionError::failed(text).with_code("NOT_MANAGEABLE"),
        (Flavor::NapCat, Refusal::NotMember(..)) if action == "set_group_ban" => {
            ActionError::failed("user not in group")
        }
        (Flavor::NapCat, Refusal::TargetOwner) if action == "set_group_ban" => {
            ActionError::failed("cannot ban owner")
        }
        (Flavor::NapCat, Refusal::TargetAdmin) if action == "set_group_ban" => {
            ActionError::failed("cannot ban admin")
        }
        (Flavor::NapCat, _) if action == "set_group_whole_ban" => {
            ActionError::failed(format!("SetGroupWholeBan failed: {text}"))
        }
        (Flavor::NapCat, _) if action == "set_group_card" => {
            ActionError::failed("设置群名片未生效")
        }
        _ => ActionError::failed(text),
    })
}

/// `set_group_ban`.
pub(super) fn ban(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let group_id = p.req_int("group_id")?;
    let user_id = p.req_int("user_id")?;
    let default = match flavor {
        Flavor::NapCat | Flavor::Lagrange => 0,
        _ => 1800,
    };
    let duration = p.int("duration")?.unwrap_or(default);
    if duration < 0 {
        if flavor == Flavor::SnowLuma {
            return Err(ActionError::bad_params("duration must be >= 0"));
        }
        return Err(ActionError::bad_params("duration 参数格式错误"));
    }
    match ops::mute(shared, group_id, shared.cfg.self_id, user_id, duration) {
        Ok(()) => Ok(Value::Null),
        // go-cqhttp blames a failed mute of 30 days or more on the duration.
        Err(Refusal::NoRights | Refusal::TargetOwner | Refusal::TargetAdmin)
            if flavor == Flavor::GoCqhttp && duration >= 2_592_000 =>
        {
            Err(ActionError::failed("封禁时间超出范围").with_code("DURATION_IS_NOT_IN_RANGE"))
        }
        Err(e) => refused(flavor, "set_group_ban", e),
    }
}

/// `set_group_whole_ban`.
pub(super) fn whole_ban(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let group_id = p.req_int("group_id")?;
    let enable = match flavor {
        // Anything but `false` / `"false"` turns it on.
        Flavor::NapCat => {
            !matches!(p.raw("enable"), Some(Value::Bool(false)))
                && p.raw("enable").and_then(Value::as_str) != Some("false")
        }
        Flavor::Lagrange => p.bool("enable").unwrap_or(false),
        _ => p.bool("enable").unwrap_or(true),
    };
    match ops::whole_mute(shared, group_id, shared.cfg.self_id, enable) {
        Ok(()) => Ok(Value::Null),
        // go-cqhttp answers ok without checking the rights.
        Err(Refusal::NoRights) if flavor == Flavor::GoCqhttp => Ok(Value::Null),
        Err(e) => refused(flavor, "set_group_whole_ban", e),
    }
}

/// `set_group_kick`.
pub(super) fn kick(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let group_id = p.req_int("group_id")?;
    let user_id = p.req_int("user_id")?;
    let _reject = p.bool("reject_add_request").unwrap_or(false);
    match ops::kick(shared, group_id, shared.cfg.self_id, user_id) {
        Ok(()) => Ok(Value::Null),
        // NapCat does not check the kick's result.
        Err(_) if flavor == Flavor::NapCat => Ok(Value::Null),
        Err(e) => refused(flavor, "set_group_kick", e),
    }
}

/// `set_group_card`.
pub(super) fn card(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let group_id = p.req_int("group_id")?;
    let user_id = p.req_int("user_id")?;
    let card = p.str("card").unwrap_or_default();
    match ops::set_card(shared, group_id, shared.cfg.self_id, user_id, &card) {
        Ok(()) => Ok(Value::Null),
        // go-cqhttp only checks that the member exists.
        Err(Refusal::NoRights | Refusal::TargetOwner | Refusal::TargetAdmin)
            if flavor == Flavor::GoCqhttp =>
        {
            Ok(Value::Null)
        }
        Err(Refusal::NotMember(..)) if flavor == Flavor::GoCqhttp => {
            Err(ActionError::failed("群聊不存在").with_code("GROUP_NOT_FOUND"))
        }
        Err(e) => refused(flavor, "set_group_card", e),
    }
}
