//! `GetHistory` with `until`: the page of messages before a time, from the
//! archive merged with the peer's history.
//!
//! The archive answers by time; the peer only pages back from a message.
//! The peer is read from the caller's anchor, else from the oldest archived
//! message at or after `until` (so its first page starts right at the
//! boundary), else from its newest message, for at most
//! [`UNTIL_PEER_PAGES`] pages until enough messages before `until` are
//! seen. Both sides are merged by message id (the archive's recall marks
//! win: a recalled message is left out), and the newest `count` before
//! `until` are returned. When the peer cannot be read, the archive's
//! messages alone are the page; without an archive the peer's are.

use std::collections::HashSet;
use std::sync::Arc;

use super::history::History;
use crate::account::Account;
use crate::archive::service::CATCH_UP_WAIT;
use crate::archive::store::Query;
use crate::call::CallCtx;
use crate::error::Result;
use crate::gateway::Gateway;
use crate::model::{ChatRef, Message};
use crate::render;

/// Most peer pages one `until` request reads.
pub const UNTIL_PEER_PAGES: usize = 5;
/// Messages asked for per peer page.
const PEER_PAGE: u32 = 100;

impl Gateway {
    /// The page of at most `count` messages of `chat` before `until` (and
    /// older than `anchor`, when given).
    pub(super) async fn history_until(
        &self,
        account: &Arc<Account>,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        until: i64,
        ctx: &CallCtx,
    ) -> Result<History> {
        let mut recalled = HashSet::new();
        let mut archived = Vec::new();
        let mut peer_anchor = anchor;
        let mut archive_more = false;
        if let Some(archive) = self.archive() {
            let wait = ctx
                .deadline
                .remaining()
                .map_or(CATCH_UP_WAIT, |left| left.mul_f64(0.25).min(CATCH_UP_WAIT));
            archive.caught_up(wait).await;
            let store = archive.store();
            let cursor = match anchor {
                Some(id) => store.get(&account.id, chat, id).await?.map(|a| a.position),
                None => None,
            };
            let mut query = Query::chat(&account.id, chat, count as usize + 1);
            query.until = Some(until);
            query.cursor = cursor;
            query.include_recalled = true;
            for a in store.search(query).await? {
                if a.recalled {
                    recalled.insert(a.message.message_id);
                } else {
                    archived.push(a.message);
                }
            }
            archive_more = archived.len() + recalled.len() > count as usize;
            if peer_anchor.is_none() {
                // The oldest archived message at or after `until`: the peer's
                // page before it starts right at the boundary.
                let mut after = Query::chat(&account.id, chat, 1);
                after.since = Some(until);
                after.ascending = true;
                after.include_recalled = true;
                peer_anchor = store
                    .search(after)
                    .await?
                    .first()
                    .map(|a| a.message.message_id);
            }
        }
        let (peer, peer_more) = match self
            .peer_before(account, chat, count, peer_anchor, until, ctx)
            .await
        {
            Ok(found) => found,
            // The archive alone when the peer cannot be read.
            Err(e) if self.archive().is_some() => {
                tracing::debug!(account_id = %account.id, chat = %chat.target(), error = %e, "history before a time: the peer failed; the archive answers alone");
                (Vec::new(), false)
            }
            Err(e) => return Err(e),
        };
        let mut seen = HashSet::new();
        let mut messages: Vec<Message> = archived
            .into_iter()
            .chain(peer)
            .filter(|m| m.time < until && Some(m.message_id) != anchor)
            .filter(|m| !recalled.contains(&m.message_id))
            .filter(|m| seen.insert(m.message_id))
            .collect();
        messages.sort_by_key(|m| (m.time, m.message_seq));
        let excess = messages.len().saturating_sub(count as usize);
        messages.drain(..excess);
        let next_anchor_message_id = if excess > 0 || archive_more || peer_more {
            messages.first().map(|m| m.message_id)
        } else {
            None
        };
        self.mentions
            .name(account, &mut messages, ctx.deadline)
            .await;
        Ok(History {
            chat,
            target: chat.target(),
            rendered: render::history(&messages, &self.tz),
            messages,
            next_anchor_message_id,
        })
    }

    /// Reads the peer's pages back from `anchor` until `count` messages
    /// before `until` are seen, at most [`UNTIL_PEER_PAGES`] pages; returns
    /// them and whether the peer may hold older ones.
    async fn peer_before(
        &self,
        account: &Arc<Account>,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        until: i64,
        ctx: &CallCtx,
    ) -> Result<(Vec<Message>, bool)> {
        let mut anchor = anchor;
        let mut before = Vec::new();
        for _ in 0..UNTIL_PEER_PAGES {
            let page = account
                .peer
                .get_history(chat, PEER_PAGE, anchor, ctx.deadline)
                .await?;
            if let Some(archive) = self.archive() {
                archive.saw_page(&account.id, chat, &page.messages);
            }
            let mut messages = page.messages;
            if let Some(a) = anchor {
                messages.retain(|m| m.message_id != a);
            }
            messages.sort_by_key(|m| (m.time, m.message_seq));
            let Some(oldest) = messages.first().map(|m| m.message_id) else {
                return Ok((before, false));
            };
            before.extend(messages.into_iter().filter(|m| m.time < until));
            if !page.has_more {
                return Ok((before, false));
            }
            if before.len() >= count as usize {
                return Ok((before, true));
            }
            anchor = Some(oldest);
        }
        Ok((before, true))
    }
}
