//! `SearchMessages`: one page of the archive's matches, newest page first,
//! each page oldest first and rendered.

use base64::Engine;
use sha2::{Digest, Sha256};

use super::history::validate_chat;
use crate::archive::service::CATCH_UP_WAIT;
use crate::archive::store::{Archived, ChatScope, Position, Query, chat_key};
use crate::call::CallCtx;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::ChatRef;
use crate::render;

/// Matches per page when the request asks for 0.
pub const DEFAULT_SEARCH_LIMIT: usize = 20;
/// Most matches per page; larger requests are clamped to this.
pub const MAX_SEARCH_LIMIT: usize = 100;

/// The page size for a requested `limit`: 0 means
/// [`DEFAULT_SEARCH_LIMIT`], anything else is clamped to
/// `[1, MAX_SEARCH_LIMIT]`.
pub fn clamp_limit(limit: i32) -> usize {
    match limit {
        0 => DEFAULT_SEARCH_LIMIT,
        n => n.clamp(1, MAX_SEARCH_LIMIT as i32) as usize,
    }
}

/// What `SearchMessages` asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchRequest {
    /// Account id; empty means `default`.
    pub account_id: String,
    /// Only this chat; `None`: every archived chat the caller may read.
    pub chat: Option<ChatRef>,
    /// Substring of the text; empty (after trimming): every message.
    pub query: String,
    /// Only messages at or after this time (Unix seconds).
    pub since: Option<i64>,
    /// Only messages before this time (Unix seconds).
    pub until: Option<i64>,
    /// Only this sender.
    pub sender_id: Option<i64>,
    /// Requested page size, as sent (see [`clamp_limit`]).
    pub limit: i32,
    /// The previous page's token; empty for the first page.
    pub page_token: String,
    /// Recalled messages too.
    pub include_recalled: bool,
}

/// One page of matches.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage {
    /// At most `limit` matches, sorted by position ascending.
    pub messages: Vec<Archived>,
    /// The history lines (see the proto).
    pub rendered: String,
    /// Token of the next (older) page; empty on the last.
    pub next_page_token: String,
}

/// What a page token carries: the search it belongs to and where the next
/// page starts.
fn fingerprint(account_id: &str, req: &SearchRequest, query: &str) -> String {
    let chat = req.chat.map(|c| c.target()).unwrap_or_default();
    let text = format!(
        "{account_id}\u{1f}{chat}\u{1f}{query}\u{1f}{:?}\u{1f}{:?}\u{1f}{:?}\u{1f}{}",
        req.since, req.until, req.sender_id, req.include_recalled
    );
    hex::encode(&Sha256::digest(text.as_bytes())[..8])
}

fn encode_token(fp: &str, p: &Position) -> String {
    let text = format!("2\u{1f}{fp}\u{1f}{}\u{1f}{}", p.time, p.row);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

fn bad_token(why: &str) -> Error {
    Error::invalid(
        "page_token",
        format!(
            "page_token {why}: pass next_page_token of the previous response unchanged, with the same search fields"
        ),
    )
}

fn decode_token(token: &str, fp: &str) -> Result<Option<Position>> {
    if token.is_empty() {
        return Ok(None);
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .map_err(|_| bad_token("is not a page token"))?;
    let text = String::from_utf8(bytes).map_err(|_| bad_token("is not a page token"))?;
    let parts: Vec<&str> = text.split('\u{1f}').collect();
    let [version, token_fp, time, row] = parts.as_slice() else {
        return Err(bad_token("is not a page token"));
    };
    if *version != "2" {
        return Err(bad_token("is not a page token"));
    }
    if token_fp != &fp {
        return Err(bad_token("belongs to a different search"));
    }
    let number = |s: &str| {
        s.parse::<i64>()
            .map_err(|_| bad_token("is not a page token"))
    };
    Ok(Some(Position {
        time: number(time)?,
        row: number(row)?,
    }))
}

/// The `ChatNotArchived` error of `chat`.
fn not_archived(chat: ChatRef) -> Error {
    let target = chat.target();
    Error::new(
        Kind::ChatNotArchived,
        format!(
            "{target} is not a chat the archive keeps (the account's whitelisted groups and users, and [archive] chats): a search of it would always be empty"
        ),
    )
    .with("target", target)
}

/// The text of a search without matches.
pub const NO_MATCHES: &str = "（没有找到匹配的消息）";
/// What ends the line of a recalled message.
pub const RECALLED_MARK: &str = "（已撤回）";

impl Gateway {
    /// Searches the archive; see the proto for the rules. A chat given is
    /// checked in order: valid, in the caller's scope, the archive on, a
    /// group the bot is in (`GroupNotFound`), a chat the archive keeps
    /// (`ChatNotArchived`).
    pub async fn search_messages(&self, req: SearchRequest, ctx: CallCtx) -> Result<SearchPage> {
        if let Some(chat) = req.chat {
            validate_chat(Some(chat))?;
        }
        let account = self.account(&req.account_id, &ctx)?;
        if let Some(chat) = req.chat {
            ctx.caller.check_chat(chat)?;
            onebot_gateway_telemetry::record_chat(&chat.target());
        }
        if let (Some(since), Some(until)) = (req.since, req.until)
            && since >= until
        {
            return Err(Error::invalid("since", "since must be before until")
                .with("since", since)
                .with("until", until));
        }
        let archive = self.archive().ok_or_else(|| {
            Error::new(
                Kind::ArchiveDisabled,
                "the message archive is turned off (archive.enabled = false)",
            )
        })?;
        if let Some(chat) = req.chat {
            if let ChatRef::Group(group_id) = chat {
                self.require_joined(&account, group_id, ctx.deadline)
                    .await?;
            }
            if !archive.is_archived(&account.id, chat) {
                return Err(not_archived(chat));
            }
        }
        let query = req.query.trim().to_string();
        let fp = fingerprint(&account.id, &req, &query);
        let before = decode_token(&req.page_token, &fp)?;
        let chats = match (req.chat, ctx.caller.allowed_chats()) {
            (Some(chat), _) => ChatScope::Only(vec![chat]),
            (None, Some(chats)) => ChatScope::Only(chats),
            (None, None) => ChatScope::All,
        };
        let limit = clamp_limit(req.limit);
        let wait = ctx
            .deadline
            .remaining()
            .map_or(CATCH_UP_WAIT, |left| left.mul_f64(0.5).min(CATCH_UP_WAIT));
        archive.caught_up(wait).await;
        let mut found = archive
            .store()
            .search(Query {
                account_id: account.id.clone(),
                chats,
                text: query,
                since: req.since,
                until: req.until,
                sender_id: req.sender_id,
                include_recalled: req.include_recalled,
                cursor: before,
                ascending: false,
                limit: limit + 1,
            })
            .await?;
        let more = found.len() > limit;
        found.truncate(limit);
        let next_page_token = match (more, found.last()) {
            (true, Some(oldest)) => encode_token(&fp, &oldest.position),
            _ => String::new(),
        };
        found.reverse();
        self.mentions
            .name(
                &account,
                found.iter_mut().map(|a| &mut a.message),
                ctx.deadline,
            )
            .await;
        let rendered = self.render_matches(&found);
        Ok(SearchPage {
            messages: found,
            rendered,
            next_page_token,
        })
    }

    /// History lines, each with its chat when the page spans several.
    fn render_matches(&self, found: &[Archived]) -> String {
        if found.is_empty() {
            return NO_MATCHES.to_owned();
        }
        let first = found[0].message.chat;
        let spans = found.iter().any(|a| a.message.chat != first);
        found
            .iter()
            .map(|a| {
                let line = render::history_line(&a.message, &self.tz);
                let line = if spans {
                    let (kind, id) = chat_key(a.message.chat);
                    format!("{kind}:{id} {line}")
                } else {
                    line
                };
                if a.recalled {
                    format!("{line} {RECALLED_MARK}")
                } else {
                    line
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}
