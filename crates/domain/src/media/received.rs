//! The store of received media: bytes kept content-addressed under
//! `<data_dir>/received/<sha256>` (the same bytes once, however many
//! messages carried them), each item indexed in the durable store by
//! `(account, media id)` so it survives restarts until its TTL, under a
//! quota of its own (`media.capture.quota_bytes`, beside the staging area's).
//!
//! When a new item does not fit, the oldest items are evicted first; an
//! evicted or expired item leaves a tombstone, so its id answers
//! `MediaNotFound` saying so (tombstones go after another TTL). Items being
//! fetched are tracked in memory, so a download of one waits for it instead
//! of fetching it twice.
//!
//! Opened with [`SharedBlobs`] (`[ha]`), the directory is a cache of bytes
//! every gateway reads: a new blob goes into the shared store before its
//! record is written, a record whose file is missing here is kept (its
//! bytes are fetched when it is read, see [`ReceivedStore::ensure_local`]),
//! a blob no record uses any more leaves the shared store with its file,
//! and [`ReceivedStore::reload`] takes in the records other gateways wrote.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::blob::BlobWriter;
use super::ids::MediaIds;
use super::kind::{OCTET_STREAM, sniff};
use super::received_index::{Claim, Expiry, Record, State};
use super::shared::{Fetches, SharedBlobs, received_name, remove_logged};
use super::staging::{TempFile, remove_quietly};
use super::sweeper::spawn_sweeper;
use crate::clock::now_ms;
use crate::error::{Error, Kind, Result};
use crate::model::{ChatRef, ReceivedKind};
use crate::store::{ReceivedIndex, blocking, decode, encode};
use onebot_gateway_config::CaptureConfig;

/// Name of the received-media directory inside the data directory.
pub const RECEIVED_DIR: &str = "received";

/// Why an item is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Gone {
    /// Its TTL passed.
    Expired,
    /// The quota needed its room.
    Evicted,
}

/// What a received item is, when its bytes are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredItem {
    /// The media id.
    pub media_id: String,
    /// The chat it was received in.
    pub chat: ChatRef,
    /// The message.
    pub message_id: i64,
    /// The segment's index.
    pub index: usize,
    /// Kind.
    pub kind: ReceivedKind,
    /// SHA-256, lowercase hex.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
    /// Sniffed MIME type.
    pub mime: String,
    /// File name (may be empty).
    pub file_name: String,
    /// When it was stored, Unix ms.
    pub created_ms: i64,
    /// When it expires, Unix ms.
    pub expires_ms: i64,
    /// Where the bytes are.
    pub path: PathBuf,
}

/// The answer of [`ReceivedStore::lookup`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The bytes are kept.
    Stored(StoredItem),
    /// It was kept, and is gone: why and when (Unix ms).
    Gone(Gone, i64, ChatRef),
    /// Never kept (or its tombstone is gone too).
    Unknown,
}

/// How a fetch in progress ended, for those waiting for it.
pub type Outcome = std::result::Result<(), Error>;

/// Describes an item being committed.
#[derive(Debug, Clone)]
pub struct ItemMeta {
    /// The media id.
    pub media_id: String,
    /// The chat.
    pub chat: ChatRef,
    /// The message.
    pub message_id: i64,
    /// The segment's index.
    pub index: usize,
    /// Kind.
    pub kind: ReceivedKind,
    /// File name (may be empty).
    pub file_name: String,
}

struct Inner {
    dir: PathBuf,
    store: Arc<dyn ReceivedIndex>,
    config: CaptureConfig,
    ids: MediaIds,
    state: Mutex<State>,
    inflight: Mutex<HashMap<String, watch::Receiver<Option<Outcome>>>>,
    seq: std::sync::atomic::AtomicU64,
    blobs: Option<Arc<dyn SharedBlobs>>,
    fetches: Fetches,
}

/// The received-media store. Cheap to clone.
#[derive(Clone)]
pub struct ReceivedStore {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ReceivedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReceivedStore")
            .field("dir", &self.inner.dir)
            .field("used", &self.used_bytes())
            .finish()
    }
}

fn key(account_id: &str, media_id: &str) -> String {
    format!("{account_id}\0{media_id}")
}

/// The `(account, sha256)` of every live record: what names shared bytes
/// (an account's bytes are its own in the shared store, so one gateway
/// letting an item go never takes bytes another's account still uses).
fn live_pairs(state: &State) -> HashSet<(String, String)> {
    state
        .records
        .iter()
        .filter(|(_, r)| r.gone.is_none())
        .map(|(k, r)| {
            let account = k.split('\0').next().unwrap_or_default();
            (account.to_owned(), r.sha256.clone())
        })
        .collect()
}

impl ReceivedStore {
    /// Opens the store under `data_dir`: reads (or creates) the id key,
    /// loads the index, removes temporary files, blobs no record uses and
    /// records whose blob is missing.
    pub fn open(
        data_dir: &Path,
        store: Arc<dyn ReceivedIndex>,
        config: CaptureConfig,
    ) -> Result<Self> {
        Self::open_inner(data_dir, store, config, None)
    }

    /// Opens the store under `data_dir` with its bytes in `blobs` too, for
    /// gateways sharing `store` and `blobs`: as [`ReceivedStore::open`],
    /// except that records whose file is missing here are kept (their
    /// bytes are in `blobs`) and an incomplete file is removed.
    pub fn open_with_blobs(
        data_dir: &Path,
        store: Arc<dyn ReceivedIndex>,
        config: CaptureConfig,
        blobs: Arc<dyn SharedBlobs>,
    ) -> Result<Self> {
        Self::open_inner(data_dir, store, config, Some(blobs))
    }

    fn open_inner(
        data_dir: &Path,
        store: Arc<dyn ReceivedIndex>,
        config: CaptureConfig,
        blobs: Option<Arc<dyn SharedBlobs>>,
    ) -> Result<Self> {
        let dir = data_dir.join(RECEIVED_DIR);
        crate::store::create_private_dir(&dir).map_err(|e| {
            Error::internal(format!("creating the received-media directory: {e}"))
                .with("path", dir.display())
        })?;
        let mut fresh = [0u8; 32];
        rand::rng().fill(&mut fresh);
        let secret = store.secret(fresh)?;
        let mut records = HashMap::new();
        for (k, v) in store.all()? {
            let rec: Record = decode(&v)?;
            records.insert(k, rec);
        }
        let (state, dropped) = State::load(&dir, records, blobs.is_some());
        if !dropped.is_empty() {
            store.apply(&[], &dropped)?;
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if !state.blobs.contains_key(&name) {
                    remove_quietly(&entry.path());
                }
            }
        }
        let next_seq = state.records.values().map(|r| r.seq).max().unwrap_or(0) + 1;
        Ok(Self {
            inner: Arc::new(Inner {
                dir,
                store,
                config,
                ids: MediaIds::new(secret),
                state: Mutex::new(state),
                inflight: Mutex::new(HashMap::new()),
                seq: std::sync::atomic::AtomicU64::new(next_seq),
                blobs,
                fetches: Fetches::default(),
            }),
        })
    }

    /// Takes in the index as the durable store has it now: records other
    /// gateways wrote are added, records they removed or changed follow,
    /// and the quota use is counted again from the records; the files of
    /// blobs no record uses any more are removed here (their shared bytes
    /// are removed by the gateway that retired their last record). Records
    /// a commit in progress is writing keep their state in memory. Run it
    /// when this gateway comes to lead an account whose media other
    /// gateways captured.
    pub async fn reload(&self) -> Result<()> {
        let store = self.inner.store.clone();
        let stored = blocking(move || store.all()).await?;
        let mut records = HashMap::with_capacity(stored.len());
        for (k, v) in stored {
            let rec: Record = decode(&v)?;
            records.insert(k, rec);
        }
        let next_seq = records.values().map(|r| r.seq).max().unwrap_or(0) + 1;
        self.inner
            .seq
            .fetch_max(next_seq, std::sync::atomic::Ordering::Relaxed);
        let dead = self.inner.state.lock().merge(records);
        let dir = self.inner.dir.clone();
        blocking(move || {
            for sha in &dead {
                remove_quietly(&dir.join(sha));
            }
            Ok(())
        })
        .await
    }

    /// Makes sure the bytes of `item` (an answer of
    /// [`ReceivedStore::lookup`]) are in its file: with shared blobs, a
    /// file missing here is fetched from them first (once, however many
    /// ask at the same time). False when no gateway has the bytes any more
    /// (or the item went meanwhile): the item is not kept. Without shared
    /// blobs, always true.
    pub async fn ensure_local(&self, account_id: &str, item: &StoredItem) -> Result<bool> {
        let Some(blobs) = &self.inner.blobs else {
            return Ok(true);
        };
        let name = received_name(account_id, &item.sha256);
        let found = self
            .inner
            .fetches
            .ensure(blobs.as_ref(), &name, &item.path, item.size)
            .await?;
        if found && !self.inner.state.lock().blobs.contains_key(&item.sha256) {
            // Retired while it was fetched: its file goes with it.
            remove_quietly(&item.path);
            return Ok(false);
        }
        Ok(found)
    }

    /// Removes the shared bytes of the `(account, sha256)` pairs that no
    /// live record of that account uses (again).
    async fn remove_shared(&self, mut gone: Vec<(String, String)>) {
        let Some(blobs) = &self.inner.blobs else {
            return;
        };
        if gone.is_empty() {
            return;
        }
        {
            let live = live_pairs(&self.inner.state.lock());
            gone.retain(|pair| !live.contains(pair));
        }
        let names = gone
            .iter()
            .map(|(account, sha)| received_name(account, sha))
            .collect();
        remove_logged(blobs.as_ref(), names).await;
    }

    /// The live pairs of the state, when the bytes are shared too (what the
    /// shared names are); empty otherwise.
    fn shared_pairs(&self, state: &State) -> HashSet<(String, String)> {
        if self.inner.blobs.is_some() {
            live_pairs(state)
        } else {
            HashSet::new()
        }
    }

    /// The media ids of this gateway.
    pub fn ids(&self) -> &MediaIds {
        &self.inner.ids
    }

    /// The capture settings.
    pub fn config(&self) -> &CaptureConfig {
        &self.inner.config
    }

    /// Bytes of kept blobs.
    pub fn used_bytes(&self) -> u64 {
        self.inner.state.lock().used
    }

    /// Number of items whose bytes are kept.
    pub fn len(&self) -> usize {
        self.inner
            .state
            .lock()
            .records
            .values()
            .filter(|r| r.gone.is_none())
            .count()
    }

    /// True when no item is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What is known of `media_id` of `account_id`.
    pub fn lookup(&self, account_id: &str, media_id: &str) -> Lookup {
        let state = self.inner.state.lock();
        match state.records.get(&key(account_id, media_id)) {
            Some(rec) => match rec.gone {
                Some(g) => Lookup::Gone(g, rec.gone_ms, rec.chat()),
                None if rec.expires_ms <= now_ms() => {
                    Lookup::Gone(Gone::Expired, rec.expires_ms, rec.chat())
                }
                None => match self.item(media_id, rec) {
                    Some(item) => Lookup::Stored(item),
                    None => Lookup::Unknown,
                },
            },
            None => Lookup::Unknown,
        }
    }

    fn item(&self, media_id: &str, rec: &Record) -> Option<StoredItem> {
        Some(StoredItem {
            media_id: media_id.to_string(),
            chat: rec.chat(),
            message_id: rec.message_id,
            index: rec.index,
            kind: ReceivedKind::from_name(&rec.kind)?,
            sha256: rec.sha256.clone(),
            size: rec.size,
            mime: rec.mime.clone(),
            file_name: rec.file_name.clone(),
            created_ms: rec.created_ms,
            expires_ms: rec.expires_ms,
            path: self.inner.dir.join(&rec.sha256),
        })
    }

    /// Marks `media_id` of `account_id` as being fetched; `None` when it
    /// already is (wait with [`ReceivedStore::wait`]).
    pub fn begin(&self, account_id: &str, media_id: &str) -> Option<Fetching> {
        let k = key(account_id, media_id);
        let mut inflight = self.inner.inflight.lock();
        if inflight.contains_key(&k) {
            return None;
        }
        let (tx, rx) = watch::channel(None);
        inflight.insert(k.clone(), rx);
        Some(Fetching {
            store: self.clone(),
            key: k,
            tx: Some(tx),
        })
    }

    /// Waits for a fetch of `media_id` in progress, until `until`; `None`
    /// when none is running (or it ended).
    pub async fn wait(
        &self,
        account_id: &str,
        media_id: &str,
        until: Option<tokio::time::Instant>,
    ) -> Option<Outcome> {
        let rx = self
            .inner
            .inflight
            .lock()
            .get(&key(account_id, media_id))
            .cloned();
        let mut rx = rx?;
        let done = async {
            match rx.wait_for(Option::is_some).await {
                Ok(v) => v.clone(),
                // The fetch was dropped without an outcome.
                Err(_) => Some(Err(Error::new(
                    Kind::MediaDownloadFailed,
                    "the fetch of this media was abandoned",
                ))),
            }
        };
        match until {
            Some(until) => match tokio::time::timeout_at(until, done).await {
                Ok(v) => v,
                Err(_) => Some(Err(Error::new(
                    Kind::DeadlineExceeded,
                    "the deadline passed while the media was still being fetched",
                ))),
            },
            None => done.await,
        }
    }

    /// A writer for new bytes, bounded by `limit`.
    pub async fn writer(&self, limit: u64) -> Result<BlobWriter> {
        BlobWriter::create(&self.inner.dir, limit).await
    }

    /// Keeps the bytes of `writer` as item `meta` of `account_id`, evicting
    /// the oldest items when the quota needs room. Bytes larger than the
    /// whole quota are not kept: the returned item's file lives only as
    /// long as the [`Kept`] does.
    pub async fn commit(
        &self,
        account_id: &str,
        meta: ItemMeta,
        writer: BlobWriter,
    ) -> Result<Kept> {
        let (temp, sha256, size, prefix) = writer.finish().await?;
        let mime = sniff(&prefix).unwrap_or(OCTET_STREAM).to_string();
        let now = now_ms();
        let rec = self.record(&meta, sha256.clone(), size, mime, now);
        let quota = self.inner.config.quota_bytes;
        if size > quota {
            let item = StoredItem {
                path: temp.path.clone(),
                ..self
                    .item(&meta.media_id, &rec)
                    .ok_or_else(|| Error::internal("unknown kind"))?
            };
            return Ok(Kept {
                item,
                _temp: Some(temp),
            });
        }
        let k = key(account_id, &meta.media_id);
        // Claim room and the blob under the lock; the file work follows.
        let (claim, held, gone) = {
            let mut state = self.inner.state.lock();
            let before = self.shared_pairs(&state);
            let claim = state.claim(&k, &rec, quota, now);
            let after = self.shared_pairs(&state);
            let gone: Vec<(String, String)> = before.difference(&after).cloned().collect();
            let mut held = vec![k.clone()];
            held.extend(claim.tombstones.iter().map(|(t, _)| t.clone()));
            state.hold(&held);
            (claim, held, gone)
        };
        let dir = self.inner.dir.clone();
        let evicted = claim.evicted.clone();
        if let Err(e) = self.keep(temp, &k, &rec, claim).await {
            // Undo the claim: the record is not kept.
            let mut state = self.inner.state.lock();
            state.unhold(&held);
            state.records.remove(&k);
            if let Some(dead) = state.release(&sha256) {
                drop(state);
                remove_quietly(&dir.join(dead));
            }
            return Err(e);
        }
        self.inner.state.lock().unhold(&held);
        if !evicted.is_empty() {
            tracing::debug!(count = evicted.len(), "evicted received media for room");
        }
        self.remove_shared(gone).await;
        let item = self
            .item(&meta.media_id, &rec)
            .ok_or_else(|| Error::internal("unknown kind"))?;
        Ok(Kept { item, _temp: None })
    }

    /// The record of item `meta` with the given bytes, committed at `now`.
    fn record(&self, meta: &ItemMeta, sha256: String, size: u64, mime: String, now: i64) -> Record {
        let ttl_ms =
            i64::try_from(self.inner.config.ttl_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
        let (chat_kind, chat_id) = match meta.chat {
            ChatRef::Group(g) => ("group", g),
            ChatRef::Private(u) => ("private", u),
        };
        Record {
            chat_kind: chat_kind.to_string(),
            chat_id,
            message_id: meta.message_id,
            index: meta.index,
            kind: meta.kind.name().to_string(),
            sha256,
            size,
            mime,
            file_name: meta.file_name.clone(),
            created_ms: now,
            expires_ms: now.saturating_add(ttl_ms),
            gone: None,
            gone_ms: 0,
            seq: self
                .inner
                .seq
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// Makes `claim` durable: puts the bytes in the shared blobs (when
    /// there are), moves a new blob from `temp` into place, stores record
    /// `rec` under `k` with the tombstones, and removes the evicted blobs'
    /// files.
    async fn keep(&self, temp: TempFile, k: &str, rec: &Record, claim: Claim) -> Result<()> {
        let Claim {
            evicted,
            new_blob,
            tombstones,
        } = claim;
        if let Some(blobs) = &self.inner.blobs {
            let account = k.split('\0').next().unwrap_or_default();
            blobs
                .put(&received_name(account, &rec.sha256), &temp.path)
                .await?;
        }
        let dir = self.inner.dir.clone();
        let (store_rec, store_key) = (rec.clone(), k.to_owned());
        let from = temp.path.clone();
        let to = dir.join(&rec.sha256);
        let evicted_paths: Vec<PathBuf> = evicted.iter().map(|s| dir.join(s)).collect();
        let store = self.inner.store.clone();
        let result = blocking(move || {
            if new_blob {
                std::fs::rename(&from, &to).map_err(|e| {
                    Error::internal(format!("keeping received media: {e}"))
                        .with("path", to.display())
                })?;
            }
            let mut put = Vec::with_capacity(tombstones.len() + 1);
            for (k, r) in &tombstones {
                put.push((k.clone(), encode(r)?));
            }
            put.push((store_key, encode(&store_rec)?));
            store.apply(&put, &[])?;
            for p in &evicted_paths {
                remove_quietly(p);
            }
            Ok(())
        })
        .await;
        drop(temp);
        result
    }

    /// Expires items whose TTL passed (as of `now_ms`) and forgets
    /// tombstones older than another TTL; returns how many expired.
    pub async fn sweep(&self, now_ms: i64) -> Result<usize> {
        let ttl_ms =
            i64::try_from(self.inner.config.ttl_secs.saturating_mul(1000)).unwrap_or(i64::MAX);
        let (
            Expiry {
                dead_blobs,
                changed,
                forgotten,
                expired,
            },
            gone,
        ) = {
            let mut state = self.inner.state.lock();
            let before = self.shared_pairs(&state);
            let expiry = state.expire(now_ms, ttl_ms);
            let after = self.shared_pairs(&state);
            let gone: Vec<(String, String)> = before.difference(&after).cloned().collect();
            (expiry, gone)
        };
        if changed.is_empty() && forgotten.is_empty() {
            return Ok(0);
        }
        let mut held: Vec<String> = changed.iter().map(|(k, _)| k.clone()).collect();
        held.extend(forgotten.iter().cloned());
        self.inner.state.lock().hold(&held);
        let dir = self.inner.dir.clone();
        let store = self.inner.store.clone();
        let dead = dead_blobs;
        let result = blocking(move || {
            let put = changed
                .iter()
                .map(|(k, r)| Ok((k.clone(), encode(r)?)))
                .collect::<Result<Vec<_>>>()?;
            store.apply(&put, &forgotten)?;
            for sha in &dead {
                remove_quietly(&dir.join(sha));
            }
            Ok(())
        })
        .await;
        self.inner.state.lock().unhold(&held);
        result?;
        self.remove_shared(gone).await;
        Ok(expired)
    }

    /// Sweeps every `min(ttl / 4, 60 s)` until `shutdown`.
    pub fn spawn_sweeper(&self, shutdown: CancellationToken) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        spawn_sweeper(
            self.inner.config.ttl_secs,
            "received-media",
            shutdown,
            move |now| {
                let this = this.clone();
                async move { this.sweep(now).await }
            },
        )
    }
}

/// A fetch in progress: those waiting for it learn its outcome when it is
/// finished, or that it was abandoned when it is dropped.
pub struct Fetching {
    store: ReceivedStore,
    key: String,
    tx: Option<watch::Sender<Option<Outcome>>>,
}

impl std::fmt::Debug for Fetching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetching").field("key", &self.key).finish()
    }
}

impl Fetching {
    /// Ends the fetch with `outcome`.
    pub fn finish(mut self, outcome: Outcome) {
        self.store.inner.inflight.lock().remove(&self.key);
        if let Some(tx) = self.tx.take() {
            tx.send_replace(Some(outcome));
        }
    }
}

impl Drop for Fetching {
    fn drop(&mut self) {
        if self.tx.is_some() {
            self.store.inner.inflight.lock().remove(&self.key);
        }
    }
}

/// A kept item; its file lives at least as long as this value.
#[derive(Debug)]
pub struct Kept {
    /// The item.
    pub item: StoredItem,
    _temp: Option<TempFile>,
}

/// The MediaTooLarge error of a received kind.
pub fn received_too_large(kind: ReceivedKind, limit: u64) -> Error {
    Error::new(
        Kind::MediaTooLarge,
        format!("the {} is larger than {limit} bytes", kind.name()),
    )
    .with("limit_bytes", limit)
    .with("kind", kind.name())
}
