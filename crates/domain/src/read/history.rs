//! `GetHistory`: one page of a chat's history, oldest first, rendered.

use crate::call::CallCtx;
use crate::error::{Error, Result};
use crate::gateway::Gateway;
use crate::model::{ChatRef, Message};
use crate::render;

/// Messages per page when the request asks for 0.
pub const DEFAULT_HISTORY_COUNT: u32 = 20;
/// Most messages per page; larger requests are clamped to this.
pub const MAX_HISTORY_COUNT: u32 = 100;

/// The page size for a requested `count`: 0 means
/// [`DEFAULT_HISTORY_COUNT`], anything else is clamped to
/// `[1, MAX_HISTORY_COUNT]`, never rejected.
pub fn clamp_count(count: i32) -> u32 {
    match count {
        0 => DEFAULT_HISTORY_COUNT,
        n => n.clamp(1, MAX_HISTORY_COUNT as i32) as u32,
    }
}

/// Checks that a chat is given and its id positive; the error names the
/// request field (`chat`, `chat.group_id` or `chat.user_id`).
pub fn validate_chat(chat: Option<ChatRef>) -> Result<ChatRef> {
    match chat {
        None => Err(Error::invalid(
            "chat",
            "chat is required: set chat.group_id or chat.user_id",
        )),
        Some(ChatRef::Group(id)) if id <= 0 => Err(Error::invalid(
            "chat.group_id",
            format!("chat.group_id must be positive, got {id}"),
        )
        .with("group_id", id)),
        Some(ChatRef::Private(id)) if id <= 0 => Err(Error::invalid(
            "chat.user_id",
            format!("chat.user_id must be positive, got {id}"),
        )
        .with("user_id", id)),
        Some(chat) => Ok(chat),
    }
}

/// What `GetHistory` asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistoryRequest {
    /// Account id; empty means `default`.
    pub account_id: String,
    /// The chat; `None` is invalid.
    pub chat: Option<ChatRef>,
    /// Requested count, as the client sent it (see [`clamp_count`]).
    pub count: i32,
    /// Return messages strictly older than this message id.
    pub anchor_message_id: Option<i64>,
    /// Only messages before this time (Unix seconds): the page comes from
    /// the archive merged with the peer's history.
    pub until: Option<i64>,
}

/// One page of history.
#[derive(Debug, Clone, PartialEq)]
pub struct History {
    /// The chat read.
    pub chat: ChatRef,
    /// `group:<id>` / `private:<id>`.
    pub target: String,
    /// At most `count` messages, sorted by time ascending (then by real seq
    /// where reported; otherwise stable for equal times), the newest the
    /// peer gave.
    pub messages: Vec<Message>,
    /// One `[HH:mm:ss] 名字(QQ号): 文本` line per message, or
    /// `（无历史消息）`.
    pub rendered: String,
    /// Anchor of the next (older) page: the oldest message returned, when
    /// the peer may hold older ones; `None` on the oldest page.
    pub next_anchor_message_id: Option<i64>,
}

impl Gateway {
    /// Reads one page of history. The chat, the account and the caller's
    /// scope are checked before anything reaches the peer; a group the bot
    /// is not in fails with `GroupNotFound`.
    pub async fn get_history(&self, req: HistoryRequest, ctx: CallCtx) -> Result<History> {
        let chat = validate_chat(req.chat)?;
        let account = self.account(&req.account_id, &ctx)?;
        ctx.caller.check_chat(chat)?;
        onebot_gateway_telemetry::record_chat(&chat.target());
        if let ChatRef::Group(group_id) = chat {
            self.require_joined(&account, group_id, ctx.deadline)
                .await?;
        }
        let count = clamp_count(req.count);
        let anchor = req.anchor_message_id;
        if let Some(until) = req.until {
            return self
                .history_until(&account, chat, count, anchor, until, &ctx)
                .await;
        }
        let page = account
            .peer
            .get_history(chat, count, anchor, ctx.deadline)
            .await?;
        if let Some(archive) = self.archive() {
            archive.saw_page(&account.id, chat, &page.messages);
        }

        let mut messages = page.messages;
        // The page must never repeat its anchor, whatever the peer did.
        if let Some(anchor) = anchor {
            messages.retain(|m| m.message_id != anchor);
        }
        // Never trust the peer's order. Within one second the real seq
        // decides where the peer reports it (messages without one first);
        // otherwise the sort is stable, keeping the peer's order for equal
        // times. The seq tie-break keeps the page's first message the one the
        // adapter counts as oldest, so the next page neither repeats nor skips
        // messages sharing the boundary second.
        messages.sort_by_key(|m| (m.time, m.message_seq));
        let excess = messages.len().saturating_sub(count as usize);
        messages.drain(..excess);
        let next_anchor_message_id = if page.has_more || excess > 0 {
            messages.first().map(|m| m.message_id)
        } else {
            None
        };
        // Quotes: from this page, the cache, else the peer (one level).
        self.quotes
            .resolve(&account.id, &*account.peer, &mut messages, ctx.deadline)
            .await;
        // Mentions: from this page's senders, the member cache, else the
        // group's member list.
        self.mentions
            .name(&account, &mut messages, ctx.deadline)
            .await;
        Ok(History {
            chat,
            target: chat.target(),
            rendered: render::history_in(&messages, &self.tz, self.config.tools.locale),
            messages,
            next_anchor_message_id,
        })
    }
}
