//! `delete_msg` (recall) with QQ's rules: the bot's own messages within
//! [`RECALL_WINDOW_SECS`]; in a group where the bot is owner or admin, the
//! messages of members below it at any age; nothing else.
//!
//! A recall marks the message recalled (gone from history and `get_msg`) and
//! emits the flavor's recall notice (`group_recall` / `friend_recall`), as
//! NapCat does for the bot's own `delete_msg`. Refusals per flavor:
//!
//! | flavor    | unknown id                               | refused                                    |
//! |-----------|------------------------------------------|--------------------------------------------|
//! | NapCat    | `Recall failed`                          | `Timeout: NTEvent … recallMsg … EventRet` with the kernel's result |
//! | LLOneBot  | `消息<id>不存在`                          | the kernel's `errMsg`                       |
//! | go-cqhttp | 100 `MESSAGE_NOT_FOUND` `消息不存在`      | 100 `RECALL_API_ERROR` (`CANNOT_RECALL_FRIEND_MSG` for the other side's private message) |
//! | Lagrange  | failure, no text                         | failure, no text                            |
//! | SnowLuma  | `message not found or not retractable`   | the same                                    |

use crate::events;
use crate::flavor::Flavor;
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;
use crate::state::{ChatRef, Role};

/// How long the bot may recall its own messages, in seconds.
pub const RECALL_WINDOW_SECS: i64 = 120;

/// Why QQ refuses a recall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// The bot's own message, older than the window.
    TooOld,
    /// The other side's private message.
    OthersPrivate,
    /// Someone else's group message, and the bot outranks nobody there.
    NoRights,
}

fn refused(flavor: Flavor, why: Refusal) -> ActionError {
    let (result, text) = match why {
        Refusal::TooOld => (1001, "超过可撤回时间（2 分钟）"),
        Refusal::OthersPrivate => (1002, "无法撤回对方消息"),
        Refusal::NoRights => (1003, "没有权限撤回该消息"),
    };
    match flavor {
        Flavor::NapCat => ActionError::failed(format!(
            "Timeout: NTEvent serviceAndMethod:NodeIKernelMsgService/recallMsg ListenerName:NodeIKernelMsgListener/onMsgInfoListUpdate EventRet:\n{{\"result\":{result},\"errMsg\":\"{text}\"}}"
        )),
        Flavor::LlOneBot => ActionError::failed(text),
        Flavor::GoCqhttp if why == Refusal::OthersPrivate => {
            ActionError::failed(text).with_code("CANNOT_RECALL_FRIEND_MSG")
        }
        Flavor::GoCqhttp => {
            ActionError::failed(format!("撤回消息失败: {text}")).with_code("RECALL_API_ERROR")
        }
        Flavor::Lagrange => ActionError::failed(String::new()),
        Flavor::SnowLuma => ActionError::failed("message not found or not retractable"),
    }
}

fn unknown(flavor: Flavor, id: i64) -> ActionError {
    match flavor {
        Flavor::NapCat => ActionError::failed("Recall failed"),
        Flavor::LlOneBot => ActionError::failed(format!("消息{id}不存在")),
        Flavor::GoCqhttp => ActionError::failed("消息不存在").with_code("MESSAGE_NOT_FOUND"),
        Flavor::Lagrange => ActionError::failed(String::new()),
        Flavor::SnowLuma => ActionError::failed("message not found or not retractable"),
    }
}

fn rank(role: Option<Role>) -> u8 {
    match role {
        Some(Role::Owner) => 2,
        Some(Role::Admin) => 1,
        _ => 0,
    }
}

pub(super) fn delete_msg(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let id = p.req_int("message_id")?;
    let self_id = shared.cfg.self_id;
    let notice = {
        let mut w = shared.world.lock();
        let Some((chat, m)) = w.find(id) else {
            return Err(unknown(flavor, id));
        };
        let author = m.sender.user_id;
        let own = author == self_id;
        let refusal = match chat {
            _ if own => (events::now() - m.time > RECALL_WINDOW_SECS).then_some(Refusal::TooOld),
            ChatRef::Private(_) => Some(Refusal::OthersPrivate),
            ChatRef::Group(g) => {
                let mine = rank(w.role(g, self_id));
                let theirs = rank(w.role(g, author));
                (mine == 0 || theirs >= mine).then_some(Refusal::NoRights)
            }
        };
        if let Some(why) = refusal {
            return Err(refused(flavor, why));
        }
        if let Some((_, m)) = w.find_mut(id) {
            m.recalled = true;
        }
        match chat {
            ChatRef::Group(g) => events::group_recall(self_id, g, author, self_id, id),
            ChatRef::Private(u) => events::friend_recall(self_id, u, id),
        }
    };
    shared.emit(&notice);
    Ok(serde_json::Value::Null)
}
