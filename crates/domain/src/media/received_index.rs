//! The received-media store's index in memory: each item's record (live or
//! a tombstone), the live records using each blob and the bytes the blobs
//! take. It is changed only under the store's lock; the files and the
//! durable store are brought in line after the lock is released.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::received::Gone;
use super::staging::remove_quietly;
use crate::model::ChatRef;

/// The persisted record of one received item.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Record {
    /// `group` or `private`.
    pub(super) chat_kind: String,
    pub(super) chat_id: i64,
    pub(super) message_id: i64,
    pub(super) index: usize,
    pub(super) kind: String,
    /// Empty for a tombstone.
    pub(super) sha256: String,
    pub(super) size: u64,
    pub(super) mime: String,
    pub(super) file_name: String,
    pub(super) created_ms: i64,
    pub(super) expires_ms: i64,
    pub(super) gone: Option<Gone>,
    /// When it went (tombstones).
    pub(super) gone_ms: i64,
    /// Order of commits (eviction order within one millisecond).
    #[serde(default)]
    pub(super) seq: u64,
}

impl Record {
    pub(super) fn chat(&self) -> ChatRef {
        if self.chat_kind == "private" {
            ChatRef::Private(self.chat_id)
        } else {
            ChatRef::Group(self.chat_id)
        }
    }
}

#[derive(Default)]
pub(super) struct State {
    pub(super) records: HashMap<String, Record>,
    /// sha256 → (size, live records using it).
    pub(super) blobs: HashMap<String, (u64, usize)>,
    pub(super) used: u64,
    /// Keys a commit in progress is writing, and how many commits.
    pub(super) pending: HashMap<String, usize>,
}

/// What [`State::claim`] changed.
pub(super) struct Claim {
    /// Blobs no record uses any more: their files go.
    pub(super) evicted: Vec<String>,
    /// The committed bytes are a blob not kept before: its file is moved in.
    pub(super) new_blob: bool,
    /// Records turned into tombstones to make room, to store.
    pub(super) tombstones: Vec<(String, Record)>,
}

/// What [`State::expire`] changed.
pub(super) struct Expiry {
    /// Blobs no record uses any more: their files go.
    pub(super) dead_blobs: Vec<String>,
    /// Records that became tombstones, to store.
    pub(super) changed: Vec<(String, Record)>,
    /// Tombstones forgotten, to delete from the store.
    pub(super) forgotten: Vec<String>,
    /// How many items expired.
    pub(super) expired: usize,
}

/// A valid blob name: a SHA-256 in lowercase hex.
fn valid_sha(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl State {
    /// The index of the stored `records`, whose blobs are under `dir`; also
    /// the keys of the live records whose blob is missing or incomplete
    /// (left out). With `keep_missing` (the bytes are in shared blobs too),
    /// such records stay, and an incomplete file is removed (fetched again
    /// when needed).
    pub(super) fn load(
        dir: &Path,
        mut records: HashMap<String, Record>,
        keep_missing: bool,
    ) -> (Self, Vec<String>) {
        let mut dropped = Vec::new();
        records.retain(|k, rec| {
            if rec.gone.is_some() {
                return true;
            }
            if !valid_sha(&rec.sha256) {
                dropped.push(k.clone());
                return false;
            }
            let path = dir.join(&rec.sha256);
            let found = std::fs::metadata(&path).ok().filter(|m| m.is_file());
            if found.as_ref().is_some_and(|m| m.len() == rec.size) {
                return true;
            }
            if !keep_missing {
                dropped.push(k.clone());
                return false;
            }
            if found.is_some() {
                remove_quietly(&path);
            }
            true
        });
        (Self::index(records), dropped)
    }

    /// The index of `records`, as they are (no file is looked at).
    pub(super) fn index(records: HashMap<String, Record>) -> Self {
        let mut state = State::default();
        for (k, rec) in records {
            if rec.gone.is_none() {
                let blob = state
                    .blobs
                    .entry(rec.sha256.clone())
                    .or_insert((rec.size, 0));
                if blob.1 == 0 {
                    state.used += rec.size;
                }
                blob.1 += 1;
            }
            state.records.insert(k, rec);
        }
        state
    }

    /// Takes `stored`, the records as the durable store has them now, for
    /// the records in memory; those a commit in progress is writing stay
    /// as they are in memory. Returns the blobs no record uses any more.
    pub(super) fn merge(&mut self, mut stored: HashMap<String, Record>) -> Vec<String> {
        for k in self.pending.keys() {
            match self.records.get(k) {
                Some(rec) => stored.insert(k.clone(), rec.clone()),
                None => stored.remove(k),
            };
        }
        let mut next = Self::index(stored);
        next.pending = std::mem::take(&mut self.pending);
        let dead = self
            .blobs
            .keys()
            .filter(|sha| !next.blobs.contains_key(*sha))
            .cloned()
            .collect();
        *self = next;
        dead
    }

    /// Marks `keys` as being written by a commit (see [`State::merge`]).
    pub(super) fn hold(&mut self, keys: &[String]) {
        for k in keys {
            *self.pending.entry(k.clone()).or_default() += 1;
        }
    }

    /// Ends what [`State::hold`] began.
    pub(super) fn unhold(&mut self, keys: &[String]) {
        for k in keys {
            if let Some(n) = self.pending.get_mut(k) {
                *n -= 1;
                if *n == 0 {
                    self.pending.remove(k);
                }
            }
        }
    }

    /// Keeps `rec` under `k`. When its blob is new, the oldest other live
    /// items are evicted (as of `now`) until it fits in `quota`; a record
    /// already live under `k` gives its blob up.
    pub(super) fn claim(&mut self, k: &str, rec: &Record, quota: u64, now: i64) -> Claim {
        let size = rec.size;
        let mut victims = Vec::new();
        let replaced = self.records.get(k).filter(|r| r.gone.is_none()).cloned();
        let new_blob = !self.blobs.contains_key(&rec.sha256);
        let mut evicted = Vec::new();
        if new_blob {
            while self.used + size > quota {
                let oldest = self
                    .records
                    .iter()
                    .filter(|(other, r)| r.gone.is_none() && *other != k)
                    .min_by_key(|(_, r)| (r.created_ms, r.seq))
                    .map(|(other, _)| other.clone());
                let Some(victim) = oldest else { break };
                if let Some(dead) = self.retire(&victim, Gone::Evicted, now) {
                    evicted.push(dead);
                }
                victims.push(victim);
            }
            self.used += size;
        }
        let blob = self.blobs.entry(rec.sha256.clone()).or_insert((size, 0));
        blob.1 += 1;
        if let Some(old) = &replaced {
            // The same id captured again (a peer reusing message ids):
            // the new bytes replace the old.
            if let Some(dead) = self.release(&old.sha256) {
                evicted.push(dead);
            }
        }
        self.records.insert(k.to_owned(), rec.clone());
        let tombstones: Vec<(String, Record)> = victims
            .into_iter()
            .filter_map(|v| self.records.get(&v).map(|r| (v.clone(), r.clone())))
            .collect();
        Claim {
            evicted,
            new_blob,
            tombstones,
        }
    }

    /// Turns record `k` into a tombstone; returns the blob to delete when
    /// it was its last user.
    pub(super) fn retire(&mut self, k: &str, why: Gone, now: i64) -> Option<String> {
        let rec = self.records.get_mut(k)?;
        if rec.gone.is_some() {
            return None;
        }
        rec.gone = Some(why);
        rec.gone_ms = now;
        let sha = std::mem::take(&mut rec.sha256);
        self.release(&sha)
    }

    /// Drops one user of blob `sha`; returns it when it has none left.
    pub(super) fn release(&mut self, sha: &str) -> Option<String> {
        let entry = self.blobs.get_mut(sha)?;
        entry.1 = entry.1.saturating_sub(1);
        if entry.1 > 0 {
            return None;
        }
        let size = entry.0;
        self.blobs.remove(sha);
        self.used = self.used.saturating_sub(size);
        Some(sha.to_string())
    }

    /// Turns the items whose TTL passed (as of `now_ms`) into tombstones
    /// and forgets tombstones older than `ttl_ms`.
    pub(super) fn expire(&mut self, now_ms: i64, ttl_ms: i64) -> Expiry {
        let due: Vec<String> = self
            .records
            .iter()
            .filter(|(_, r)| r.gone.is_none() && r.expires_ms <= now_ms)
            .map(|(k, _)| k.clone())
            .collect();
        let mut dead_blobs = Vec::new();
        for k in &due {
            if let Some(b) = self.retire(k, Gone::Expired, now_ms) {
                dead_blobs.push(b);
            }
        }
        let forgotten: Vec<String> = self
            .records
            .iter()
            .filter(|(_, r)| r.gone.is_some() && r.gone_ms.saturating_add(ttl_ms) <= now_ms)
            .map(|(k, _)| k.clone())
            .collect();
        for k in &forgotten {
            self.records.remove(k);
        }
        let changed: Vec<(String, Record)> = due
            .iter()
            .filter_map(|k| self.records.get(k).map(|r| (k.clone(), r.clone())))
            .collect();
        Expiry {
            dead_blobs,
            changed,
            forgotten,
            expired: due.len(),
        }
    }
}
