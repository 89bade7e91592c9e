//! Gap healing: after an account connects (once at start, and after every
//! reconnect), the messages its archived chats received while the gateway
//! was not listening are read back from the peer's history and archived.
//!
//! For each archived chat with a message in the archive within the
//! retention window, the peer's history is paged from the newest message
//! back to the newest message the archive holds, at most
//! `archive.backfill_max_messages` per chat, one page at a time with a
//! pause between pages ([`PAGE_INTERVAL`]) so the peer's own limits are
//! never approached. A chat whose gap could not be closed (the bound was
//! reached, the peer's history ended, or the peer failed) is logged once
//! per run with the range that stays missing.
//!
//! The messages a run reads back after the newest archived one that were
//! sent before the account came back online (at or before that second) are
//! also delivered as message events, marked as backfilled, oldest first per
//! chat, through the event path ([`Inbound::publish_backfilled`]), which
//! delivers each message once: a live copy of the same message that came or
//! comes as an event is the same event. Of the messages of the newest
//! archived one's second, those with an earlier message seq than it (when
//! both carry one) are not delivered: they came before the gap.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::service::Archive;
use super::store::{ArchiveOp, Source};
use crate::account::Account;
use crate::call::Deadline;
use crate::error::Kind;
use crate::inbound::Inbound;
use crate::model::{ChatRef, Message};
use onebot_gateway_telemetry::metrics;

/// Messages asked for per history page.
const PAGE: u32 = 50;
/// Pause between two history pages of one account.
pub const PAGE_INTERVAL: Duration = Duration::from_millis(200);
/// Longest a history page may take.
const PAGE_TIMEOUT: Duration = Duration::from_secs(30);

/// How one chat's backfill ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Healed {
    /// Reached the newest archived message: nothing is missing.
    Closed {
        /// Messages newly stored.
        stored: u64,
    },
    /// Stopped before reaching it: messages after `held_until` (the newest
    /// archived message) and before `read_back_to` (the oldest one read
    /// back) may be missing.
    Open {
        /// Messages newly stored.
        stored: u64,
        /// Time of the newest message the archive held (Unix seconds).
        held_until: i64,
        /// Time of the oldest message read back (Unix seconds).
        read_back_to: i64,
        /// Why it stopped.
        why: String,
    },
}

/// Where a run delivers the messages it healed.
#[derive(Clone, Copy)]
pub struct Delivery<'a> {
    /// The event path.
    pub inbound: &'a Inbound,
    /// The second the account came back online: messages sent after it came
    /// as events.
    pub online_at: i64,
}

/// Runs one account's backfills until `shutdown`: once when the account
/// first comes online, then after every reconnect; healed messages are
/// delivered through `inbound`.
pub async fn run(
    archive: Arc<Archive>,
    account: Arc<Account>,
    inbound: Arc<Inbound>,
    shutdown: CancellationToken,
) {
    let mut status = account.peer.watch_status();
    let mut was_online = false;
    loop {
        let online = status.borrow_and_update().online;
        if online && !was_online {
            let delivery = Delivery {
                inbound: &inbound,
                online_at: jiff::Timestamp::now().as_second(),
            };
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = heal_account(&archive, &account, Some(delivery)) => {}
            }
            archive.backfill_finished(&account.id);
        }
        was_online = online;
        tokio::select! {
            _ = shutdown.cancelled() => return,
            changed = status.changed() => if changed.is_err() { return },
        }
    }
}

/// Backfills every archived chat of `account` with recent activity,
/// delivering what it healed through `delivery` when given.
pub async fn heal_account(archive: &Archive, account: &Account, delivery: Option<Delivery<'_>>) {
    let retention = i64::from(archive.config().retention_days) * 86_400;
    let since = jiff::Timestamp::now().as_second() - retention;
    let active = match archive.store().active_chats(&account.id, since).await {
        Ok(chats) => chats,
        Err(e) => {
            tracing::warn!(account_id = %account.id, error = %e, "backfill skipped: the archive cannot list its chats");
            return;
        }
    };
    let max = archive.config().backfill_max_messages;
    for chat in active
        .into_iter()
        .filter(|c| archive.is_archived(&account.id, *c))
    {
        let newest = match archive.store().newest(&account.id, chat).await {
            Ok(Some(m)) => m,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(account_id = %account.id, chat = %chat.target(), error = %e, "backfill skipped: the archive cannot read the chat");
                continue;
            }
        };
        match heal_chat(archive, account, chat, &newest, max, delivery).await {
            Healed::Closed { stored } => {
                if stored > 0 {
                    tracing::info!(account_id = %account.id, chat = %chat.target(), stored, "backfill closed the gap");
                }
            }
            Healed::Open {
                stored,
                held_until,
                read_back_to,
                why,
            } => tracing::warn!(
                account_id = %account.id,
                chat = %chat.target(),
                stored,
                missing_after = %time_text(held_until),
                missing_before = %time_text(read_back_to),
                why,
                "backfill could not close the gap: messages between these times may be missing from the archive"
            ),
        }
    }
}

fn time_text(secs: i64) -> String {
    jiff::Timestamp::from_second(secs).map_or_else(|_| secs.to_string(), |t| t.to_string())
}

/// Pages `chat`'s history back to `newest` (the newest archived message),
/// storing what the archive lacks; then delivers what it stored that was
/// sent before the account came online, oldest first, when `delivery` is
/// given.
pub async fn heal_chat(
    archive: &Archive,
    account: &Account,
    chat: ChatRef,
    newest: &Message,
    max: u32,
    delivery: Option<Delivery<'_>>,
) -> Healed {
    let mut healed = Vec::new();
    let outcome = read_back(archive, account, chat, newest, max, &mut healed).await;
    if let Some(d) = delivery {
        deliver(d, account, newest, healed);
    }
    outcome
}

/// Hands the healed messages sent by `online_at` and after `newest` to the
/// event path, oldest first.
fn deliver(d: Delivery<'_>, account: &Account, newest: &Message, mut healed: Vec<Message>) {
    healed.retain(|m| {
        let after_newest = m.time > newest.time
            || match (newest.message_seq, m.message_seq) {
                (Some(held), Some(seq)) => seq > held,
                _ => true,
            };
        m.time <= d.online_at && after_newest
    });
    healed.sort_by_key(|m| (m.time, m.message_seq));
    healed.dedup_by_key(|m| m.message_id);
    let self_id = account.peer.self_id();
    for m in healed {
        let self_sent = self_id != 0 && m.sender.user_id == self_id;
        d.inbound.publish_backfilled(&account.id, m, self_sent);
    }
}

/// The pages of [`heal_chat`]; every message read after `newest` (stored
/// now or before) is pushed to `healed`.
async fn read_back(
    archive: &Archive,
    account: &Account,
    chat: ChatRef,
    newest: &Message,
    max: u32,
    healed: &mut Vec<Message>,
) -> Healed {
    let mut anchor = None;
    let mut read = 0u32;
    let mut stored = 0u64;
    let mut oldest_read = i64::MAX;
    loop {
        let want = PAGE.min(max - read);
        let page = match account
            .peer
            .get_history(chat, want, anchor, Deadline::after(PAGE_TIMEOUT))
            .await
        {
            Ok(page) => page,
            Err(e) => {
                let why = if e.kind == Kind::HistoryUnsupported {
                    "the peer has no history for this chat".to_string()
                } else {
                    format!("the peer failed: {e}")
                };
                return open(stored, oldest_read, newest, why);
            }
        };
        let mut messages = page.messages;
        if let Some(a) = anchor {
            messages.retain(|m| m.message_id != a);
        }
        messages.sort_by_key(|m| (m.time, m.message_seq));
        if messages.is_empty() {
            return open(
                stored,
                oldest_read,
                newest,
                "the peer's history ended".into(),
            );
        }
        read = read.saturating_add(messages.len() as u32);
        oldest_read = oldest_read.min(messages[0].time);
        let reached = messages
            .iter()
            .any(|m| m.message_id == newest.message_id || m.time < newest.time);
        let missed: Vec<ArchiveOp> = messages
            .iter()
            .filter(|m| m.message_id != newest.message_id && m.time >= newest.time)
            .map(|m| ArchiveOp::Put {
                account_id: account.id.clone(),
                message: m.clone(),
                source: Source::Backfill,
                media_ids: super::ingest::captured_media(m),
            })
            .collect();
        if !missed.is_empty() {
            let batch: Vec<Message> = missed
                .iter()
                .filter_map(|op| match op {
                    ArchiveOp::Put { message, .. } => Some(message.clone()),
                    _ => None,
                })
                .collect();
            match archive.apply(missed).await {
                Ok(applied) => {
                    healed.extend(batch);
                    let n = applied.stored_total();
                    stored += n;
                    metrics::backfilled(&account.id, n);
                    for (account, source, n) in &applied.stored {
                        metrics::archived(account, source.name(), *n);
                    }
                }
                Err(e) => {
                    return open(
                        stored,
                        oldest_read,
                        newest,
                        format!("the archive failed: {e}"),
                    );
                }
            }
        }
        if reached {
            return Healed::Closed { stored };
        }
        if !page.has_more {
            return open(
                stored,
                oldest_read,
                newest,
                "the peer's history ended".into(),
            );
        }
        if read >= max {
            return open(
                stored,
                oldest_read,
                newest,
                format!("archive.backfill_max_messages ({max}) reached"),
            );
        }
        anchor = messages.first().map(|m| m.message_id);
        tokio::time::sleep(PAGE_INTERVAL).await;
    }
}

fn open(stored: u64, oldest_read: i64, newest: &Message, why: String) -> Healed {
    Healed::Open {
        stored,
        held_until: newest.time,
        read_back_to: if oldest_read == i64::MAX {
            jiff::Timestamp::now().as_second()
        } else {
            oldest_read
        },
        why,
    }
}
