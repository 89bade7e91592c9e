//! The staging area: uploaded media on disk under `<data_dir>/staging`,
//! each item indexed in the durable store so it survives a restart until
//! its TTL, with a quota over everything staged or being uploaded, of which
//! one client (its token, or its address without authentication) holds at
//! most its share. An upload leases quota as its bytes arrive.
//!
//! A finished upload (see `upload`) is renamed into
//! `<data_dir>/staging/<media_id>` and indexed; a background sweep deletes
//! expired items; an upload that fails or is dropped (client cancel) removes
//! its temporary file and returns its quota. URL fetches reuse the same
//! machinery as *transient* media, deleted when the send is done.
//!
//! Opened with [`SharedBlobs`] (`[ha]`), the directory is a cache of bytes
//! every gateway reads: a finished upload's bytes go into the shared store
//! before its record is written, a record whose file is missing here is
//! kept (its bytes are fetched when it is read, see
//! [`MediaStore::get_local`]), an item swept or undone leaves the shared
//! store too, and [`MediaStore::reload`] takes in the records other
//! gateways wrote.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::shared::{Fetches, SharedBlobs, remove_logged, staged_name};
use super::sweeper::spawn_sweeper;
use crate::caller::Caller;
use crate::clock::now_ms;
use crate::error::{Error, Kind, Result};
use crate::model::MediaKind;
use crate::shares::{self, Refusal, Shares};
use crate::store::{MediaIndex, blocking, decode, encode};
use onebot_gateway_config::MediaConfig;

/// Name of the staging directory inside the data directory.
pub const STAGING_DIR: &str = "staging";

/// Prefix of temporary files in the staging directory.
pub const TEMP_PREFIX: &str = ".tmp-";

/// Who may use a staged media item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MediaOwner {
    /// The account it was uploaded for.
    pub account_id: String,
    /// The name of the bearer token that uploaded it (`None` without
    /// authentication); `None` matches only `None`.
    pub token: Option<String>,
}

impl MediaOwner {
    /// The owner for `caller` on `account_id`: media staged by one token
    /// are usable only by that token.
    pub fn of(account_id: &str, caller: &Caller) -> Self {
        Self {
            account_id: account_id.to_string(),
            token: caller.token_name().map(str::to_string),
        }
    }

    /// An owner without token.
    pub fn account(account_id: &str) -> Self {
        Self {
            account_id: account_id.to_string(),
            token: None,
        }
    }
}

/// A staged media item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedMedia {
    /// The media id.
    pub id: String,
    /// Kind declared at upload.
    pub kind: MediaKind,
    /// File name given at upload (sanitised; may be empty).
    pub file_name: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256, lowercase hex.
    pub sha256: String,
    /// Detected MIME type (`application/octet-stream` when unknown).
    pub mime: String,
    /// Expiry, Unix milliseconds.
    pub expires_at_ms: i64,
    /// Where the bytes are.
    pub path: PathBuf,
}

/// Bytes fetched for one send (a URL download): deleted, and its quota
/// returned, when dropped.
#[derive(Debug)]
pub struct TransientMedia {
    /// Size in bytes.
    pub size: u64,
    /// SHA-256, lowercase hex.
    pub sha256: String,
    /// Detected MIME type.
    pub mime: String,
    /// Where the bytes are (deleted on drop).
    pub path: PathBuf,
    pub(super) _temp: TempFile,
    pub(super) _quota: QuotaLease,
}

/// The persisted index entry of a staged item.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct MediaRecord {
    pub(super) owner: MediaOwner,
    pub(super) kind: String,
    pub(super) file_name: String,
    pub(super) size: u64,
    pub(super) sha256: String,
    pub(super) mime: String,
    pub(super) created_ms: i64,
    pub(super) expires_ms: i64,
    /// The client whose share of the quota the item holds (its token, or
    /// its address without authentication); kept across restarts. Records
    /// written without it count for their owner's token.
    #[serde(default)]
    pub(super) client: Option<Arc<str>>,
}

/// The staging area of the gateway. Cheap to clone.
#[derive(Clone)]
pub struct MediaStore {
    inner: Arc<Inner>,
}

struct Inner {
    dir: PathBuf,
    store: Arc<dyn MediaIndex>,
    config: MediaConfig,
    quota: Arc<Shares>,
    index: Mutex<HashMap<String, MediaRecord>>,
    active: watch::Sender<usize>,
    blobs: Option<Arc<dyn SharedBlobs>>,
    fetches: Fetches,
    /// Ids whose commit is in progress (left alone by a reload).
    committing: Mutex<HashSet<String>>,
}

impl std::fmt::Debug for MediaStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaStore")
            .field("dir", &self.inner.dir)
            .field("used", &self.inner.quota.used())
            .finish()
    }
}

impl MediaStore {
    /// Opens the staging area under `data_dir` without shares per client
    /// (see [`MediaStore::open_shared`]).
    pub fn open(data_dir: &Path, store: Arc<dyn MediaIndex>, config: MediaConfig) -> Result<Self> {
        let quota = config.staging_quota_bytes;
        Self::open_shared(data_dir, store, config, quota)
    }

    /// Opens the staging area under `data_dir`, of whose quota one client
    /// holds at most `share` bytes, reconciling the index with the files:
    /// temporary files of interrupted uploads, files without an index
    /// entry, entries without a (complete) file and expired items are
    /// removed.
    pub fn open_shared(
        data_dir: &Path,
        store: Arc<dyn MediaIndex>,
        config: MediaConfig,
        share: u64,
    ) -> Result<Self> {
        Self::open_inner(data_dir, store, config, share, None)
    }

    /// Opens the staging area under `data_dir` with its bytes in `blobs`
    /// too, for gateways sharing `store` and `blobs`: as
    /// [`MediaStore::open_shared`], except that entries whose file is
    /// missing here are kept (their bytes are in `blobs`; an incomplete
    /// file is removed) and expired ones are left to the sweep, which
    /// removes their shared bytes.
    pub fn open_with_blobs(
        data_dir: &Path,
        store: Arc<dyn MediaIndex>,
        config: MediaConfig,
        share: u64,
        blobs: Arc<dyn SharedBlobs>,
    ) -> Result<Self> {
        Self::open_inner(data_dir, store, config, share, Some(blobs))
    }

    fn open_inner(
        data_dir: &Path,
        store: Arc<dyn MediaIndex>,
        config: MediaConfig,
        share: u64,
        blobs: Option<Arc<dyn SharedBlobs>>,
    ) -> Result<Self> {
        let dir = data_dir.join(STAGING_DIR);
        crate::store::create_private_dir(&dir).map_err(|e| {
            Error::internal(format!("creating the staging directory: {e}"))
                .with("path", dir.display())
        })?;
        let now = now_ms();
        let mut index = HashMap::new();
        let mut stale = Vec::new();
        for (id, rec) in store.all()? {
            let rec: MediaRecord = decode(&rec)?;
            let path = dir.join(&id);
            let found = std::fs::metadata(&path).ok().filter(|m| m.is_file());
            let complete = found.as_ref().is_some_and(|m| m.len() == rec.size);
            if blobs.is_some() && valid_id(&id) {
                if found.is_some() && !complete {
                    remove_quietly(&path);
                }
                index.insert(id, with_client(rec));
            } else if rec.expires_ms <= now || !complete || !valid_id(&id) {
                stale.push(id);
            } else {
                index.insert(id, with_client(rec));
            }
        }
        for id in &stale {
            if valid_id(id) {
                remove_quietly(&dir.join(id));
            }
        }
        store.remove(&stale)?;
        let entries = std::fs::read_dir(&dir).map_err(|e| {
            Error::internal(format!("listing the staging directory: {e}"))
                .with("path", dir.display())
        })?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !index.contains_key(&name) {
                remove_quietly(&entry.path());
            }
        }
        let quota = Shares::new(config.staging_quota_bytes, share);
        for rec in index.values() {
            quota.count(rec.client.as_ref(), rec.size);
        }
        Ok(Self {
            inner: Arc::new(Inner {
                dir,
                store,
                config,
                quota,
                index: Mutex::new(index),
                active: watch::channel(0).0,
                blobs,
                fetches: Fetches::default(),
                committing: Mutex::new(HashSet::new()),
            }),
        })
    }

    /// Takes in the index as the durable store has it now: entries other
    /// gateways wrote are added and counted against the quota, entries
    /// they removed are dropped (their quota returned, their file here
    /// removed). Entries whose commit is in progress here are left alone.
    /// Run it when this gateway comes to lead an account whose media other
    /// gateways staged.
    pub async fn reload(&self) -> Result<()> {
        let store = self.inner.store.clone();
        let stored = blocking(move || store.all()).await?;
        let mut records = HashMap::with_capacity(stored.len());
        for (id, v) in stored {
            if valid_id(&id) {
                let rec: MediaRecord = decode(&v)?;
                records.insert(id, with_client(rec));
            }
        }
        let gone: Vec<String> = {
            let mut index = self.inner.index.lock();
            let committing = self.inner.committing.lock();
            let gone: Vec<String> = index
                .keys()
                .filter(|id| !records.contains_key(*id) && !committing.contains(*id))
                .cloned()
                .collect();
            for id in &gone {
                if let Some(rec) = index.remove(id) {
                    self.inner.quota.give_back(rec.client.as_ref(), rec.size);
                }
            }
            for (id, rec) in records {
                if committing.contains(&id) || index.contains_key(&id) {
                    continue;
                }
                self.inner.quota.count(rec.client.as_ref(), rec.size);
                index.insert(id, rec);
            }
            gone
        };
        let dir = self.inner.dir.clone();
        blocking(move || {
            for id in &gone {
                remove_quietly(&dir.join(id));
            }
            Ok(())
        })
        .await
    }

    /// As [`MediaStore::get`], with the item's bytes in its file: with
    /// shared blobs, a file missing here is fetched from them first (once,
    /// however many ask at the same time); `MediaNotFound` when no gateway
    /// has the bytes any more.
    pub async fn get_local(&self, id: &str, owner: &MediaOwner) -> Result<StagedMedia> {
        let staged = self.get(id, owner)?;
        let Some(blobs) = &self.inner.blobs else {
            return Ok(staged);
        };
        let found = self
            .inner
            .fetches
            .ensure(blobs.as_ref(), &staged_name(id), &staged.path, staged.size)
            .await?;
        if found && !self.inner.index.lock().contains_key(id) {
            // Swept while it was fetched: its file goes with it.
            remove_quietly(&staged.path);
            return Err(not_found(id));
        }
        if !found {
            return Err(not_found(id));
        }
        Ok(staged)
    }

    /// The staging directory.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// Bytes currently staged or being uploaded.
    pub fn used_bytes(&self) -> u64 {
        self.inner.quota.used()
    }

    /// Bytes `client` has staged or is uploading.
    pub fn used_by(&self, client: &str) -> u64 {
        self.inner.quota.held_by(client)
    }

    /// Number of staged items.
    pub fn len(&self) -> usize {
        self.inner.index.lock().len()
    }

    /// True when nothing is staged.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A watch on the number of uploads in progress (a dropped upload is no
    /// longer counted once its temporary file is gone).
    pub fn watch_active_uploads(&self) -> watch::Receiver<usize> {
        self.inner.active.subscribe()
    }

    /// How long staged items are kept, in seconds.
    pub(super) fn ttl_secs(&self) -> u64 {
        self.inner.config.ttl_secs
    }

    /// The size limit of a kind.
    pub fn limit(&self, kind: MediaKind) -> u64 {
        let c = &self.inner.config;
        match kind {
            MediaKind::Image => c.image_max_bytes,
            MediaKind::Video => c.video_max_bytes,
            MediaKind::File => c.file_max_bytes,
            MediaKind::Voice => c.voice_max_bytes,
        }
    }

    /// A staged item usable by `owner`. Unknown, expired and foreign ids are
    /// all `MediaNotFound` (no hint that an id exists).
    pub fn get(&self, id: &str, owner: &MediaOwner) -> Result<StagedMedia> {
        let now = now_ms();
        let index = self.inner.index.lock();
        match index.get(id) {
            Some(rec) if rec.owner == *owner && rec.expires_ms > now => {
                self.staged(id, rec).ok_or_else(|| not_found(id))
            }
            _ => Err(not_found(id)),
        }
    }

    /// Deletes expired items (as of `now_ms`); returns how many.
    pub async fn sweep(&self, now_ms: i64) -> Result<usize> {
        let expired: Vec<(String, u64)> = self
            .inner
            .index
            .lock()
            .iter()
            .filter(|(_, r)| r.expires_ms <= now_ms)
            .map(|(id, r)| (id.clone(), r.size))
            .collect();
        if expired.is_empty() {
            return Ok(0);
        }
        let ids: Vec<String> = expired.iter().map(|(id, _)| id.clone()).collect();
        let dir = self.inner.dir.clone();
        let removed_ids = ids.clone();
        let store = self.inner.store.clone();
        blocking(move || {
            store.remove(&removed_ids)?;
            for id in &removed_ids {
                remove_quietly(&dir.join(id));
            }
            Ok(())
        })
        .await?;
        {
            let mut index = self.inner.index.lock();
            for (id, _) in &expired {
                if let Some(rec) = index.remove(id) {
                    self.inner.quota.give_back(rec.client.as_ref(), rec.size);
                }
            }
        }
        if let Some(blobs) = &self.inner.blobs {
            remove_logged(
                blobs.as_ref(),
                ids.iter().map(|id| staged_name(id)).collect(),
            )
            .await;
        }
        tracing::debug!(count = ids.len(), "swept expired media");
        Ok(ids.len())
    }

    /// Sweeps expired media every `min(ttl / 4, 60 s)` until `shutdown`.
    pub fn spawn_sweeper(&self, shutdown: CancellationToken) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        spawn_sweeper(self.inner.config.ttl_secs, "media", shutdown, move |now| {
            let this = this.clone();
            async move { this.sweep(now).await }
        })
    }

    pub(super) fn staged(&self, id: &str, rec: &MediaRecord) -> Option<StagedMedia> {
        Some(StagedMedia {
            id: id.to_string(),
            kind: MediaKind::from_name(&rec.kind)?,
            file_name: rec.file_name.clone(),
            size: rec.size,
            sha256: rec.sha256.clone(),
            mime: rec.mime.clone(),
            expires_at_ms: rec.expires_ms,
            path: self.inner.dir.join(id),
        })
    }

    pub(super) fn create_temp(&self) -> Result<(TempFile, std::fs::File)> {
        let path = self
            .inner
            .dir
            .join(format!("{TEMP_PREFIX}{}", random_hex(16)));
        let file = crate::store::private_file_options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| {
                Error::internal(format!("creating a staging file: {e}"))
                    .with("path", path.display())
            })?;
        Ok((TempFile { path }, file))
    }

    pub(super) async fn commit(
        &self,
        upload_temp: &TempFile,
        rec: MediaRecord,
        active: ActiveUpload,
    ) -> Result<String> {
        let id = format!("m{}", random_hex(16));
        let final_path = self.inner.dir.join(&id);
        let from = upload_temp.path.clone();
        let (rec_id, stored, store) = (id.clone(), encode(&rec)?, self.inner.store.clone());
        let committing = Committing::new(self, &id);
        let work = match self.inner.blobs.clone() {
            None => tokio::task::spawn_blocking(move || {
                std::fs::rename(&from, &final_path).map_err(|e| {
                    Error::internal(format!("committing a staged file: {e}"))
                        .with("path", final_path.display())
                })?;
                if let Err(e) = store.put(&rec_id, &stored) {
                    remove_quietly(&final_path);
                    return Err(e);
                }
                Ok(())
            }),
            Some(blobs) => tokio::spawn(async move {
                let to = final_path.clone();
                blocking(move || {
                    std::fs::rename(&from, &to).map_err(|e| {
                        Error::internal(format!("committing a staged file: {e}"))
                            .with("path", to.display())
                    })
                })
                .await?;
                // The shared bytes first: a record never names bytes no
                // gateway has.
                let name = staged_name(&rec_id);
                let result = match blobs.put(&name, &final_path).await {
                    Ok(()) => blocking(move || store.put(&rec_id, &stored)).await,
                    Err(e) => Err(e),
                };
                if let Err(e) = result {
                    remove_quietly(&final_path);
                    remove_logged(blobs.as_ref(), vec![name]).await;
                    return Err(e);
                }
                Ok(())
            }),
        };
        // If this future is dropped mid-commit (the client cancelled: hyper
        // ends a reset request body like a finished one, then drops the
        // handler), the guard undoes the commit once it has run.
        let mut pending = PendingCommit {
            work: Some(work),
            id: id.clone(),
            media: self.clone(),
            active: Some(active),
            committing: Some(committing),
        };
        let result = match pending.work.as_mut() {
            Some(work) => work.await,
            None => return Err(Error::internal("commit already done")),
        };
        pending.work = None;
        result.map_err(|e| Error::internal(format!("commit task failed: {e}")))??;
        self.inner.index.lock().insert(id.clone(), rec);
        Ok(id)
    }
}

/// A commit whose caller went away: removes its file and record once the
/// blocking work has finished.
struct PendingCommit {
    work: Option<tokio::task::JoinHandle<Result<()>>>,
    id: String,
    media: MediaStore,
    // The upload counts as in progress until its commit is settled.
    active: Option<ActiveUpload>,
    // Dropped after the entry is in the index, or once it is undone.
    committing: Option<Committing>,
}

/// Marks an id as being committed until dropped.
struct Committing {
    inner: Arc<Inner>,
    id: String,
}

impl Committing {
    fn new(media: &MediaStore, id: &str) -> Self {
        media.inner.committing.lock().insert(id.to_owned());
        Self {
            inner: media.inner.clone(),
            id: id.to_owned(),
        }
    }
}

impl Drop for Committing {
    fn drop(&mut self) {
        self.inner.committing.lock().remove(&self.id);
    }
}

impl Drop for PendingCommit {
    fn drop(&mut self) {
        let Some(work) = self.work.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (id, media, active) = (self.id.clone(), self.media.clone(), self.active.take());
        let committing = self.committing.take();
        runtime.spawn(async move {
            let _ = work.await;
            let dir = media.inner.dir.clone();
            let ids = vec![id];
            let store = media.inner.store.clone();
            let names: Vec<String> = ids.iter().map(|id| staged_name(id)).collect();
            let result = blocking(move || {
                store.remove(&ids)?;
                for id in &ids {
                    remove_quietly(&dir.join(id));
                }
                Ok(())
            })
            .await;
            if let Err(e) = result {
                tracing::warn!(error = %e, "undoing a cancelled upload failed");
            } else if let Some(blobs) = &media.inner.blobs {
                remove_logged(blobs.as_ref(), names).await;
            }
            drop(committing);
            drop(active);
        });
    }
}

fn not_found(id: &str) -> Error {
    Error::new(
        Kind::MediaNotFound,
        "the media id is unknown, expired, or belongs to another account",
    )
    .with("media_id", id)
}

/// `rec` with the client whose share it holds: its own, else its owner's
/// token's.
fn with_client(rec: MediaRecord) -> MediaRecord {
    let client = rec
        .client
        .clone()
        .or_else(|| rec.owner.token.as_deref().map(shares::token_client));
    MediaRecord { client, ..rec }
}

fn valid_id(id: &str) -> bool {
    id.len() == 33 && id.starts_with('m') && id[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

/// `bytes` random bytes as lowercase hex: names no one can guess (media ids,
/// temporary and shared-directory files).
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill(buf.as_mut_slice());
    hex::encode(buf)
}

/// Removes `path`; a file already gone is not an error, any other failure
/// is logged.
pub(super) fn remove_quietly(path: &Path) {
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(path = %path.display(), error = %e, "cannot remove a media file");
    }
}

/// A file removed when dropped.
#[derive(Debug)]
pub(super) struct TempFile {
    pub(super) path: PathBuf,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        remove_quietly(&self.path);
    }
}

/// Counts an upload as in progress until dropped.
pub(super) struct ActiveUpload {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ActiveUpload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ActiveUpload")
    }
}

impl ActiveUpload {
    pub(super) fn new(media: &MediaStore) -> Self {
        let inner = media.inner.clone();
        inner.active.send_modify(|n| *n += 1);
        Self { inner }
    }
}

impl Drop for ActiveUpload {
    fn drop(&mut self) {
        self.inner.active.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// Bytes of the staging quota held by one upload; returned when dropped.
pub(super) struct QuotaLease {
    inner: Arc<Inner>,
    client: Option<Arc<str>>,
    held: u64,
}

impl std::fmt::Debug for QuotaLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuotaLease")
            .field("client", &self.client)
            .field("held", &self.held)
            .finish()
    }
}

impl QuotaLease {
    /// A lease of nothing yet, for `client`.
    pub(super) fn new(media: &MediaStore, client: Option<Arc<str>>) -> Self {
        Self {
            inner: media.inner.clone(),
            client,
            held: 0,
        }
    }

    /// The client it leases for.
    pub(super) fn client(&self) -> Option<Arc<str>> {
        self.client.clone()
    }

    /// Fails when `more` bytes would not fit now (the quota, or the
    /// client's share), leasing nothing.
    pub(super) fn check_room(&self, more: u64) -> Result<()> {
        let quota = &self.inner.quota;
        quota
            .take(self.client.as_ref(), more)
            .map_err(quota_exceeded)?;
        quota.give_back(self.client.as_ref(), more);
        Ok(())
    }

    /// Makes sure at least `total` bytes are held.
    pub(super) fn grow_to(&mut self, total: u64) -> Result<()> {
        if total <= self.held {
            return Ok(());
        }
        self.inner
            .quota
            .take(self.client.as_ref(), total - self.held)
            .map_err(quota_exceeded)?;
        self.held = total;
        Ok(())
    }

    /// Hands the held bytes over to a committed item.
    pub(super) fn keep(mut self) {
        self.held = 0;
    }
}

fn quota_exceeded(refusal: Refusal) -> Error {
    match refusal {
        Refusal::Full { used, total } => Error::new(
            Kind::StagingQuotaExceeded,
            format!("the staging area is full ({used} of {total} bytes used)"),
        )
        .with("quota_bytes", total)
        .with("used_bytes", used),
        Refusal::Share { held, share } => Error::new(
            Kind::StagingQuotaExceeded,
            format!(
                "this client's share of the staging area is full ({held} of {share} bytes used; limits.max_share_per_client)"
            ),
        )
        .with("share_bytes", share)
        .with("used_bytes", held),
    }
    .retry_after(Duration::from_secs(60))
}

impl Drop for QuotaLease {
    fn drop(&mut self) {
        if self.held > 0 {
            self.inner.quota.give_back(self.client.as_ref(), self.held);
        }
    }
}
