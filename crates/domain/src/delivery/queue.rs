//! The durable offline queue: text sends accepted while an account was
//! offline, kept in the [`Store`] until they are sent.
//!
//! One entry is one request (all its chunks) with its progress, so a flush
//! interrupted by another disconnect resumes at the next unsent chunk. A
//! full queue refuses new entries (`QueueFull`) and never evicts. Entries
//! past their TTL are removed by [`OfflineQueue::take_expired`] and
//! reported by the caller (log and metrics), never dropped silently.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use redb::{ReadableTable, WriteTransaction};
use serde::{Deserialize, Serialize};

use super::lead::Lead;
use crate::error::{Error, Kind, Result};
use crate::model::ChatRef;
use crate::store::{COUNTERS, QUEUE, Store, decode, encode, store_err};

/// One queued request.
///
/// Entries written before private sends existed have only `group_id`: they
/// read as group entries with no lead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedEntry {
    /// Position in the account's queue (increasing).
    pub seq: u64,
    /// Target group; 0 for a private chat.
    pub group_id: i64,
    /// Target private chat (the other side's QQ number); `None` for a group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<i64>,
    /// The quote and mentions of the first message, until it is sent.
    #[serde(default, skip_serializing_if = "Lead::is_empty")]
    pub lead: Lead,
    /// The text chunks, in order (none for a send of only a lead).
    pub chunks: Vec<String>,
    /// Chunks already delivered.
    pub sent: usize,
    /// When it was queued, Unix milliseconds.
    pub enqueued_ms: i64,
    /// When it expires, Unix milliseconds.
    pub expires_ms: i64,
}

/// The queues of every account, over the store.
#[derive(Debug)]
pub struct OfflineQueue {
    store: Store,
    depth: Mutex<HashMap<String, usize>>,
}

fn range_of(account: &str) -> std::ops::RangeInclusive<(&str, u64)> {
    (account, 0)..=(account, u64::MAX)
}

fn entries_in(txn: &WriteTransaction, account: &str) -> Result<Vec<QueuedEntry>> {
    let table = txn.open_table(QUEUE).map_err(store_err)?;
    let mut out = Vec::new();
    for row in table.range(range_of(account)).map_err(store_err)? {
        let (_, v) = row.map_err(store_err)?;
        out.push(decode(v.value())?);
    }
    Ok(out)
}

/// What a new entry sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEntry {
    /// Where.
    pub chat: ChatRef,
    /// The quote and mentions of its first message.
    pub lead: Lead,
    /// The text chunks, in order.
    pub chunks: Vec<String>,
}

impl NewEntry {
    /// Text chunks to a group, without a lead.
    pub fn group_text(group_id: i64, chunks: Vec<String>) -> Self {
        Self {
            chat: ChatRef::Group(group_id),
            lead: Lead::default(),
            chunks,
        }
    }
}

impl QueuedEntry {
    /// The chat it goes to.
    pub fn chat(&self) -> ChatRef {
        match self.user_id {
            Some(user) => ChatRef::Private(user),
            None => ChatRef::Group(self.group_id),
        }
    }

    /// Messages it sends in all: its chunks, or one message of only its
    /// lead.
    pub fn messages(&self) -> usize {
        if self.chunks.is_empty() && !self.lead.is_empty() {
            1
        } else {
            self.chunks.len()
        }
    }
}

impl OfflineQueue {
    /// The queues in `store`.
    pub fn open(store: Store) -> Result<Self> {
        let mut depth = HashMap::new();
        {
            use redb::ReadableDatabase;
            let txn = store.db()?.begin_read().map_err(store_err)?;
            let table = txn.open_table(QUEUE).map_err(store_err)?;
            for row in table.iter().map_err(store_err)? {
                let (k, _) = row.map_err(store_err)?;
                *depth.entry(k.value().0.to_string()).or_insert(0) += 1;
            }
        }
        Ok(Self {
            store,
            depth: Mutex::new(depth),
        })
    }

    fn depths(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        // Plain counters: a panic elsewhere cannot leave them inconsistent.
        self.depth
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn set_depth(&self, account: &str, n: usize) {
        self.depths().insert(account.to_string(), n);
    }

    /// Entries waiting for `account`.
    pub fn depth(&self, account: &str) -> usize {
        self.depths().get(account).copied().unwrap_or(0)
    }

    /// Queues a request, after removing expired entries (returned, to be
    /// reported). Fails with `QueueFull` when `max_entries` are waiting.
    pub async fn push(
        &self,
        account: &str,
        new: NewEntry,
        max_entries: usize,
        ttl: Duration,
        now_ms: i64,
    ) -> Result<(QueuedEntry, Vec<QueuedEntry>)> {
        let account_owned = account.to_string();
        let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        let (entry, expired, depth) = self
            .store
            .run(move |store| {
                let account = account_owned.as_str();
                let txn = store.db()?.begin_write().map_err(store_err)?;
                let expired = remove_expired(&txn, account, now_ms)?;
                let waiting = entries_in(&txn, account)?.len();
                if waiting >= max_entries {
                    // Commit the expiry even when refusing.
                    txn.commit().map_err(store_err)?;
                    return Err(Error::new(
                        Kind::QueueFull,
                        format!("the offline queue of account {account:?} is full ({max_entries} entries)"),
                    )
                    .with("account_id", account)
                    .with("max_entries", max_entries)
                    .with("expired", expired.len())
                    .retry_after(Duration::from_secs(30)));
                }
                let seq = {
                    let mut counters = txn.open_table(COUNTERS).map_err(store_err)?;
                    let next = counters
                        .get("queue_seq")
                        .map_err(store_err)?
                        .map_or(1, |v| v.value() + 1);
                    counters.insert("queue_seq", next).map_err(store_err)?;
                    next
                };
                let NewEntry { chat, lead, chunks } = new;
                let (group_id, user_id) = match chat {
                    ChatRef::Group(g) => (g, None),
                    ChatRef::Private(u) => (0, Some(u)),
                };
                let entry = QueuedEntry {
                    seq,
                    group_id,
                    user_id,
                    lead,
                    chunks,
                    sent: 0,
                    enqueued_ms: now_ms,
                    expires_ms: now_ms.saturating_add(ttl_ms),
                };
                {
                    let mut table = txn.open_table(QUEUE).map_err(store_err)?;
                    table
                        .insert((account, seq), encode(&entry)?.as_slice())
                        .map_err(store_err)?;
                }
                txn.commit().map_err(store_err)?;
                Ok((entry, expired, waiting + 1))
            })
            .await
            .inspect_err(|e| {
                if e.kind == Kind::QueueFull {
                    self.set_depth(account, max_entries);
                }
            })?;
        self.set_depth(account, depth);
        Ok((entry, expired))
    }

    /// Every entry of `account`, oldest first.
    pub async fn list(&self, account: &str) -> Result<Vec<QueuedEntry>> {
        let account = account.to_string();
        self.store
            .run(move |store| {
                use redb::ReadableDatabase;
                let txn = store.db()?.begin_read().map_err(store_err)?;
                let table = txn.open_table(QUEUE).map_err(store_err)?;
                let mut out = Vec::new();
                for row in table.range(range_of(&account)).map_err(store_err)? {
                    let (_, v) = row.map_err(store_err)?;
                    out.push(decode(v.value())?);
                }
                Ok(out)
            })
            .await
    }

    /// Saves an entry's progress.
    pub async fn update(&self, account: &str, entry: &QueuedEntry) -> Result<()> {
        let account = account.to_string();
        let entry = entry.clone();
        self.store
            .run(move |store| {
                let txn = store.db()?.begin_write().map_err(store_err)?;
                {
                    let mut table = txn.open_table(QUEUE).map_err(store_err)?;
                    table
                        .insert((account.as_str(), entry.seq), encode(&entry)?.as_slice())
                        .map_err(store_err)?;
                }
                txn.commit().map_err(store_err)
            })
            .await
    }

    /// Removes an entry (sent, or failed for good).
    pub async fn remove(&self, account: &str, seq: u64) -> Result<()> {
        let owned = account.to_string();
        let depth = self
            .store
            .run(move |store| {
                let txn = store.db()?.begin_write().map_err(store_err)?;
                {
                    let mut table = txn.open_table(QUEUE).map_err(store_err)?;
                    table.remove((owned.as_str(), seq)).map_err(store_err)?;
                }
                let depth = entries_in(&txn, &owned)?.len();
                txn.commit().map_err(store_err)?;
                Ok(depth)
            })
            .await?;
        self.set_depth(account, depth);
        Ok(())
    }

    /// Removes and returns the entries of `account` expired at `now_ms`.
    pub async fn take_expired(&self, account: &str, now_ms: i64) -> Result<Vec<QueuedEntry>> {
        let owned = account.to_string();
        let (expired, depth) = self
            .store
            .run(move |store| {
                let txn = store.db()?.begin_write().map_err(store_err)?;
                let expired = remove_expired(&txn, &owned, now_ms)?;
                let depth = entries_in(&txn, &owned)?.len();
                txn.commit().map_err(store_err)?;
                Ok((expired, depth))
            })
            .await?;
        self.set_depth(account, depth);
        Ok(expired)
    }
}

fn remove_expired(txn: &WriteTransaction, account: &str, now_ms: i64) -> Result<Vec<QueuedEntry>> {
    let expired: Vec<QueuedEntry> = entries_in(txn, account)?
        .into_iter()
        .filter(|e| e.expires_ms <= now_ms)
        .collect();
    let mut table = txn.open_table(QUEUE).map_err(store_err)?;
    for e in &expired {
        table.remove((account, e.seq)).map_err(store_err)?;
    }
    Ok(expired)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TTL: Duration = Duration::from_secs(1800);
    const G7: ChatRef = ChatRef::Group(7);

    #[tokio::test]
    async fn entries_keep_order_survive_reopen_and_never_evict() {
        let dir = tempfile::tempdir().unwrap();
        {
            let q = OfflineQueue::open(Store::open(dir.path()).unwrap()).unwrap();
            for i in 0..3 {
                q.push(
                    "a",
                    NewEntry::group_text(7, vec![format!("m{i}")]),
                    3,
                    TTL,
                    1000,
                )
                .await
                .unwrap();
            }
            q.push(
                "b",
                NewEntry::group_text(8, vec!["other".into()]),
                3,
                TTL,
                1000,
            )
            .await
            .unwrap();
            let err = q
                .push(
                    "a",
                    NewEntry::group_text(7, vec!["m3".into()]),
                    3,
                    TTL,
                    1000,
                )
                .await
                .unwrap_err();
            assert_eq!(err.kind, Kind::QueueFull);
            assert_eq!(q.depth("a"), 3);
        }
        let q = OfflineQueue::open(Store::open(dir.path()).unwrap()).unwrap();
        assert_eq!(q.depth("a"), 3);
        assert_eq!(q.depth("b"), 1);
        let a = q.list("a").await.unwrap();
        let texts: Vec<&str> = a.iter().map(|e| e.chunks[0].as_str()).collect();
        assert_eq!(texts, ["m0", "m1", "m2"]);
        let mut first = a[0].clone();
        first.sent = 1;
        q.update("a", &first).await.unwrap();
        assert_eq!(q.list("a").await.unwrap()[0].sent, 1);
        q.remove("a", first.seq).await.unwrap();
        assert_eq!(q.depth("a"), 2);
        assert_eq!(q.list("a").await.unwrap()[0].chunks, ["m1"]);
    }

    #[tokio::test]
    async fn expired_entries_are_returned_not_dropped_silently() {
        let dir = tempfile::tempdir().unwrap();
        let q = OfflineQueue::open(Store::open(dir.path()).unwrap()).unwrap();
        q.push(
            "a",
            NewEntry::group_text(7, vec!["old".into()]),
            2,
            Duration::from_secs(1),
            0,
        )
        .await
        .unwrap();
        q.push(
            "a",
            NewEntry::group_text(7, vec!["new".into()]),
            2,
            TTL,
            500,
        )
        .await
        .unwrap();
        // Full, but the old entry has expired by now: it makes room.
        let (_, expired) = q
            .push(
                "a",
                NewEntry::group_text(7, vec!["newer".into()]),
                2,
                TTL,
                1000,
            )
            .await
            .unwrap();
        assert_eq!(expired.len(), 1);
        assert_eq!(expired[0].chunks, ["old"]);
        let expired = q.take_expired("a", 500 + 1_800_000).await.unwrap();
        assert_eq!(expired.len(), 1);
        assert_eq!(q.depth("a"), 1);
    }

    #[tokio::test]
    async fn private_entries_and_leads_round_trip_and_old_entries_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let q = OfflineQueue::open(Store::open(dir.path()).unwrap()).unwrap();
        let lead = Lead {
            reply_to: Some(5),
            mentions: vec![],
            mention_all: false,
        };
        let (entry, _) = q
            .push(
                "a",
                NewEntry {
                    chat: ChatRef::Private(42),
                    lead: lead.clone(),
                    chunks: vec![],
                },
                5,
                TTL,
                0,
            )
            .await
            .unwrap();
        assert_eq!((entry.chat(), entry.messages()), (ChatRef::Private(42), 1));
        let listed = &q.list("a").await.unwrap()[0];
        assert_eq!((listed.chat(), &listed.lead), (ChatRef::Private(42), &lead));
        // An entry stored before private sends existed.
        let old =
            r#"{"seq":9,"group_id":7,"chunks":["hi"],"sent":0,"enqueued_ms":1,"expires_ms":2}"#;
        let old: QueuedEntry = decode(old.as_bytes()).unwrap();
        assert_eq!(
            (old.chat(), old.lead.is_empty(), old.messages()),
            (G7, true, 1)
        );
        let text = String::from_utf8(encode(&old).unwrap()).unwrap();
        assert!(
            !text.contains("user_id") && !text.contains("lead"),
            "{text}"
        );
    }
}
