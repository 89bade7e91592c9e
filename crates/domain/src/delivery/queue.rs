//! The durable offline queue: text sends accepted while an account was
//! offline, kept in a [`QueueStore`] until they are sent.
//!
//! One entry is one request (all its chunks) with its progress, so a flush
//! interrupted by another disconnect resumes at the next unsent chunk. A
//! full queue refuses new entries (`QueueFull`) and never evicts. Entries
//! past their TTL are removed by [`OfflineQueue::take_expired`] and
//! reported by the caller (log and metrics), never dropped silently.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::lead::Lead;
use crate::error::{Error, Kind, Result};
use crate::model::ChatRef;
use crate::store::{QueueStore, QueueTxn, blocking, decode, encode};

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
    store: Arc<dyn QueueStore>,
    depth: Mutex<HashMap<String, usize>>,
}

fn entries_in(txn: &mut dyn QueueTxn, account: &str) -> Result<Vec<QueuedEntry>> {
    txn.entries(account)?.iter().map(|v| decode(v)).collect()
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
    pub fn open(store: Arc<dyn QueueStore>) -> Result<Self> {
        let depth = store.depths()?.into_iter().collect();
        Ok(Self {
            store,
            depth: Mutex::new(depth),
        })
    }

    fn set_depth(&self, account: &str, n: usize) {
        self.depth.lock().insert(account.to_string(), n);
    }

    /// Entries waiting for `account`.
    pub fn depth(&self, account: &str) -> usize {
        self.depth.lock().get(account).copied().unwrap_or(0)
    }

    /// Reads how many entries `account` has waiting from the store again.
    /// The depths are read at [`OfflineQueue::open`] and then kept by this
    /// queue's own writes; under `[ha]` a gateway that comes to lead an
    /// account calls this first, so it sees the queue the former leader
    /// left.
    pub async fn refresh(&self, account: &str) -> Result<()> {
        let store = self.store.clone();
        let owned = account.to_string();
        let depth = blocking(move || {
            Ok(store
                .depths()?
                .into_iter()
                .find_map(|(a, n)| (a == owned).then_some(n))
                .unwrap_or(0))
        })
        .await?;
        self.set_depth(account, depth);
        Ok(())
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
        let store = self.store.clone();
        let pushed = blocking(move || {
            let account = account_owned.as_str();
            let mut new = Some(new);
            let mut outcome = None;
            store.write(&mut |txn| {
                let expired = remove_expired(txn, account, now_ms)?;
                let waiting = entries_in(txn, account)?.len();
                if waiting >= max_entries {
                    // The expiry is committed even when refusing.
                    outcome = Some(Err(expired));
                    return Ok(());
                }
                let seq = txn.next_seq()?;
                let NewEntry { chat, lead, chunks } = new
                    .take()
                    .ok_or_else(|| Error::internal("queue entry already written"))?;
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
                txn.put(account, seq, &encode(&entry)?)?;
                outcome = Some(Ok((entry, expired, waiting + 1)));
                Ok(())
            })?;
            match outcome {
                Some(Ok(pushed)) => Ok(pushed),
                Some(Err(expired)) => Err(Error::new(
                    Kind::QueueFull,
                    format!(
                        "the offline queue of account {account:?} is full ({max_entries} entries)"
                    ),
                )
                .with("account_id", account)
                .with("max_entries", max_entries)
                .with("expired", expired.len())
                .retry_after(Duration::from_secs(30))),
                None => Err(Error::internal("the queue transaction did not run")),
            }
        })
        .await;
        let (entry, expired, depth) = pushed.inspect_err(|e| {
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
        let store = self.store.clone();
        blocking(move || store.list(&account)?.iter().map(|v| decode(v)).collect()).await
    }

    /// Saves an entry's progress.
    pub async fn update(&self, account: &str, entry: &QueuedEntry) -> Result<()> {
        let account = account.to_string();
        let store = self.store.clone();
        let (seq, value) = (entry.seq, encode(entry)?);
        blocking(move || store.write(&mut |txn| txn.put(&account, seq, &value))).await
    }

    /// Removes an entry (sent, or failed for good).
    pub async fn remove(&self, account: &str, seq: u64) -> Result<()> {
        let owned = account.to_string();
        let store = self.store.clone();
        let depth = blocking(move || {
            let mut depth = 0;
            store.write(&mut |txn| {
                txn.remove(&owned, seq)?;
                depth = txn.entries(&owned)?.len();
                Ok(())
            })?;
            Ok(depth)
        })
        .await?;
        self.set_depth(account, depth);
        Ok(())
    }

    /// Removes and returns the entries of `account` expired at `now_ms`.
    pub async fn take_expired(&self, account: &str, now_ms: i64) -> Result<Vec<QueuedEntry>> {
        let owned = account.to_string();
        let store = self.store.clone();
        let (expired, depth) = blocking(move || {
            let (mut expired, mut depth) = (Vec::new(), 0);
            store.write(&mut |txn| {
                expired = remove_expired(txn, &owned, now_ms)?;
                depth = txn.entries(&owned)?.len();
                Ok(())
            })?;
            Ok((expired, depth))
        })
        .await?;
        self.set_depth(account, depth);
        Ok(expired)
    }
}

fn remove_expired(txn: &mut dyn QueueTxn, account: &str, now_ms: i64) -> Result<Vec<QueuedEntry>> {
    let expired: Vec<QueuedEntry> = entries_in(txn, account)?
        .into_iter()
        .filter(|e| e.expires_ms <= now_ms)
        .collect();
    for e in &expired {
        txn.remove(account, e.seq)?;
    }
    Ok(expired)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// The entries by `(account, seq)`, and the last sequence number.
    type Rows = (BTreeMap<(String, u64), Vec<u8>>, u64);

    /// Queues in memory, shared by the queues opened over it (as the
    /// gateways of `[ha]` share their database).
    #[derive(Debug, Default)]
    struct Shared {
        rows: Mutex<Rows>,
    }

    struct Txn(Rows);

    impl QueueTxn for Txn {
        fn entries(&mut self, account: &str) -> Result<Vec<Vec<u8>>> {
            Ok(self
                .0
                .0
                .iter()
                .filter(|((a, _), _)| a == account)
                .map(|(_, v)| v.clone())
                .collect())
        }

        fn put(&mut self, account: &str, seq: u64, value: &[u8]) -> Result<()> {
            self.0.0.insert((account.to_string(), seq), value.to_vec());
            Ok(())
        }

        fn remove(&mut self, account: &str, seq: u64) -> Result<()> {
            self.0.0.remove(&(account.to_string(), seq));
            Ok(())
        }

        fn next_seq(&mut self) -> Result<u64> {
            self.0.1 += 1;
            Ok(self.0.1)
        }
    }

    impl QueueStore for Shared {
        fn depths(&self) -> Result<Vec<(String, usize)>> {
            let mut depths = BTreeMap::new();
            for (account, _) in self.rows.lock().0.keys() {
                *depths.entry(account.clone()).or_insert(0) += 1;
            }
            Ok(depths.into_iter().collect())
        }

        fn list(&self, account: &str) -> Result<Vec<Vec<u8>>> {
            Txn(self.rows.lock().clone()).entries(account)
        }

        fn write(&self, f: &mut dyn FnMut(&mut dyn QueueTxn) -> Result<()>) -> Result<()> {
            let mut rows = self.rows.lock();
            let mut txn = Txn(rows.clone());
            f(&mut txn)?;
            *rows = txn.0;
            Ok(())
        }
    }

    #[tokio::test]
    async fn refresh_reads_the_depth_another_queue_left() {
        let store = Arc::new(Shared::default());
        let mine = OfflineQueue::open(store.clone()).unwrap();
        let former = OfflineQueue::open(store.clone()).unwrap();
        let ttl = Duration::from_secs(60);
        for text in ["a", "b"] {
            let new = NewEntry::group_text(1, vec![text.to_string()]);
            former.push("acc", new, 10, ttl, 1_000).await.unwrap();
        }
        assert_eq!((former.depth("acc"), mine.depth("acc")), (2, 0));
        mine.refresh("acc").await.unwrap();
        assert_eq!(mine.depth("acc"), 2);
        let first = mine.list("acc").await.unwrap()[0].seq;
        former.remove("acc", first).await.unwrap();
        former.remove("acc", first + 1).await.unwrap();
        mine.refresh("acc").await.unwrap();
        assert_eq!(mine.depth("acc"), 0);
    }
}
