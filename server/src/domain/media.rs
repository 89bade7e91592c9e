//! Media staging: streamed uploads written to disk as they arrive.
//!
//! An [`Upload`] takes chunks of any size. Each chunk is counted against the
//! kind's limit and the staging quota *before* it is accepted, then handed to
//! a writer on the blocking pool that hashes (SHA-256) and writes it, so the
//! network, the hash and the disk work in parallel and at most
//! [`WRITE_BUDGET_BYTES`] of an upload wait in memory. The first bytes are
//! kept to sniff the content type (magic numbers, crate `infer`).
//!
//! A finished upload is renamed into `<data_dir>/staging/<media_id>` and
//! indexed in the durable [`Store`], so staged media survive a restart until
//! their TTL; a background sweep deletes expired ones. An upload that fails
//! or is dropped (client cancel) removes its temporary file and returns its
//! quota. URL fetches reuse the same machinery as *transient* media that are
//! deleted when the send is done.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::Rng as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::MediaKind;
use super::store::Store;
use crate::config::MediaConfig;
use crate::error::{Error, Kind, Result};

/// Bytes of an upload that may wait in memory for the disk writer.
pub const WRITE_BUDGET_BYTES: usize = 8 * 1024 * 1024;

/// Leading bytes kept for content sniffing.
pub const SNIFF_BYTES: usize = 8 * 1024;

/// Name of the staging directory inside the data directory.
pub const STAGING_DIR: &str = "staging";

/// Prefix of temporary files in the staging directory.
const TEMP_PREFIX: &str = ".tmp-";

/// MIME type of files whose type is not recognised.
pub const OCTET_STREAM: &str = "application/octet-stream";

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
    pub fn of(account_id: &str, caller: &crate::auth::Caller) -> Self {
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

/// What a client declares before streaming bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadHeader {
    /// Kind of media.
    pub kind: MediaKind,
    /// File name (may be empty).
    pub file_name: String,
    /// Declared size in bytes.
    pub size: Option<u64>,
    /// Declared SHA-256, lowercase hex.
    pub sha256: Option<String>,
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
    _temp: TempFile,
    _quota: QuotaLease,
}

/// The persisted index entry of a staged item.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct MediaRecord {
    owner: MediaOwner,
    kind: String,
    file_name: String,
    size: u64,
    sha256: String,
    mime: String,
    created_ms: i64,
    expires_ms: i64,
}

/// Lower-case name of a kind.
pub fn kind_name(kind: MediaKind) -> &'static str {
    match kind {
        MediaKind::Image => "image",
        MediaKind::Video => "video",
        MediaKind::File => "file",
    }
}

fn kind_from_name(name: &str) -> Option<MediaKind> {
    match name {
        "image" => Some(MediaKind::Image),
        "video" => Some(MediaKind::Video),
        "file" => Some(MediaKind::File),
        _ => None,
    }
}

/// MIME types accepted as images: JPEG, PNG, GIF, BMP, WEBP.
pub const IMAGE_MIMES: [&str; 5] = [
    "image/jpeg",
    "image/png",
    "image/gif",
    "image/bmp",
    "image/webp",
];

/// MIME types accepted as videos: MP4 (and M4V), MOV, WEBM, FLV, AVI, MKV.
pub const VIDEO_MIMES: [&str; 7] = [
    "video/mp4",
    "video/x-m4v",
    "video/quicktime",
    "video/webm",
    "video/x-flv",
    "video/x-msvideo",
    "video/x-matroska",
];

/// The MIME type of content by its leading bytes, if recognised.
pub fn sniff(prefix: &[u8]) -> Option<&'static str> {
    infer::get(prefix).map(|t| t.mime_type())
}

/// Checks sniffed content against the kind it is used as and returns the
/// MIME type to report. Files accept anything.
pub fn check_kind(kind: MediaKind, detected: Option<&str>) -> Result<String> {
    let ok = match kind {
        MediaKind::Image => detected.is_some_and(|m| IMAGE_MIMES.contains(&m)),
        MediaKind::Video => detected.is_some_and(|m| VIDEO_MIMES.contains(&m)),
        // A file staged without a recognised type is reported as octet-stream.
        MediaKind::File => true,
    };
    if ok {
        return Ok(detected.unwrap_or(OCTET_STREAM).to_string());
    }
    let detected = detected.filter(|m| *m != OCTET_STREAM).unwrap_or("unknown");
    let expected = match kind {
        MediaKind::Image => "JPEG, PNG, GIF, BMP or WEBP",
        _ => "MP4, MOV, WEBM, FLV, AVI or MKV",
    };
    Err(Error::new(
        Kind::MediaTypeMismatch,
        format!(
            "the content is not a supported {} ({expected}); detected {detected}",
            kind_name(kind)
        ),
    )
    .with("detected", detected)
    .with("kind", kind_name(kind)))
}

/// The MediaTooLarge error of a kind.
pub fn too_large(kind: MediaKind, limit: u64) -> Error {
    Error::new(
        Kind::MediaTooLarge,
        format!("the {} is larger than {limit} bytes", kind_name(kind)),
    )
    .with("limit_bytes", limit)
    .with("kind", kind_name(kind))
}

/// Keeps a display name to its last path component without control
/// characters, at most 255 bytes.
pub fn sanitize_file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let mut out = String::new();
    for c in base.chars().filter(|c| !c.is_control()) {
        if out.len() + c.len_utf8() > 255 {
            break;
        }
        out.push(c);
    }
    let trimmed = out.trim();
    if trimmed == "." || trimmed == ".." {
        return String::new();
    }
    trimmed.to_string()
}

/// Current time as Unix milliseconds.
pub fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

/// The staging area of the gateway. Cheap to clone.
#[derive(Clone)]
pub struct MediaStore {
    inner: Arc<Inner>,
}

struct Inner {
    dir: PathBuf,
    store: Store,
    config: MediaConfig,
    used: AtomicU64,
    index: Mutex<HashMap<String, MediaRecord>>,
    active: watch::Sender<usize>,
}

impl std::fmt::Debug for MediaStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaStore")
            .field("dir", &self.inner.dir)
            .field("used", &self.inner.used.load(Ordering::Relaxed))
            .finish()
    }
}

impl MediaStore {
    /// Opens the staging area under `data_dir`, reconciling the index with
    /// the files: temporary files of interrupted uploads, files without an
    /// index entry, entries without a (complete) file and expired items are
    /// removed.
    pub fn open(data_dir: &Path, store: Store, config: MediaConfig) -> Result<Self> {
        let dir = data_dir.join(STAGING_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| {
            Error::internal(format!("creating the staging directory: {e}"))
                .with("path", dir.display())
        })?;
        let now = now_ms();
        let mut index = HashMap::new();
        let mut stale = Vec::new();
        for (id, rec) in store.all_media::<MediaRecord>()? {
            let path = dir.join(&id);
            let complete =
                std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == rec.size);
            if rec.expires_ms <= now || !complete || !valid_id(&id) {
                stale.push(id);
            } else {
                index.insert(id, rec);
            }
        }
        for id in &stale {
            if valid_id(id) {
                remove_quietly(&dir.join(id));
            }
        }
        store.remove_media(&stale)?;
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
        let used = index.values().map(|r| r.size).sum();
        Ok(Self {
            inner: Arc::new(Inner {
                dir,
                store,
                config,
                used: AtomicU64::new(used),
                index: Mutex::new(index),
                active: watch::channel(0).0,
            }),
        })
    }

    /// The staging directory.
    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// Bytes currently staged or being uploaded.
    pub fn used_bytes(&self) -> u64 {
        self.inner.used.load(Ordering::Relaxed)
    }

    /// Number of staged items.
    pub fn len(&self) -> usize {
        self.index().len()
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

    /// The size limit of a kind.
    pub fn limit(&self, kind: MediaKind) -> u64 {
        let c = &self.inner.config;
        match kind {
            MediaKind::Image => c.image_max_bytes,
            MediaKind::Video => c.video_max_bytes,
            MediaKind::File => c.file_max_bytes,
        }
    }

    /// Starts an upload. Fails at once when the declared size is over the
    /// kind's limit or the quota, or the declared SHA-256 is malformed.
    pub fn begin(&self, owner: MediaOwner, header: UploadHeader) -> Result<Upload> {
        let limit = self.limit(header.kind);
        if let Some(sha) = &header.sha256
            && (sha.len() != 64 || !sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        {
            return Err(Error::invalid(
                "header.sha256",
                "sha256 must be 64 lowercase hex digits",
            ));
        }
        if let Some(size) = header.size
            && size > limit
        {
            return Err(too_large(header.kind, limit).with("declared", size));
        }
        let mut quota = QuotaLease::new(self.inner.clone());
        if let Some(size) = header.size {
            quota.grow_to(size)?;
        }
        let (temp, file) = self.create_temp()?;
        let active = ActiveUpload::new(self.inner.clone());
        let budget = Arc::new(Semaphore::new(WRITE_BUDGET_BYTES));
        let (tx, rx) = mpsc::unbounded_channel();
        let writer = tokio::task::spawn_blocking(move || write_loop(file, rx));
        Ok(Upload {
            media: self.clone(),
            owner,
            header: UploadHeader {
                file_name: sanitize_file_name(&header.file_name),
                ..header
            },
            limit,
            received: 0,
            prefix: Vec::new(),
            sniffed: None,
            tx: Some(tx),
            budget,
            writer: Some(writer),
            temp,
            quota,
            _active: active,
        })
    }

    /// A staged item usable by `owner`. Unknown, expired and foreign ids are
    /// all `MediaNotFound` (no hint that an id exists).
    pub fn get(&self, id: &str, owner: &MediaOwner) -> Result<StagedMedia> {
        let now = now_ms();
        let index = self.index();
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
            .index()
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
        self.inner
            .store
            .run(move |store| {
                store.remove_media(&removed_ids)?;
                for id in &removed_ids {
                    remove_quietly(&dir.join(id));
                }
                Ok(())
            })
            .await?;
        let mut index = self.index();
        for (id, size) in &expired {
            if index.remove(id).is_some() {
                self.inner.used.fetch_sub(*size, Ordering::Relaxed);
            }
        }
        tracing::debug!(count = ids.len(), "swept expired media");
        Ok(ids.len())
    }

    /// Sweeps expired media every `min(ttl / 4, 60 s)` until `shutdown`.
    pub fn spawn_sweeper(&self, shutdown: CancellationToken) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        let ttl = Duration::from_secs(self.inner.config.ttl_secs);
        let period = (ttl / 4).clamp(Duration::from_secs(1), Duration::from_secs(60));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tick.tick() => {
                        if let Err(e) = this.sweep(now_ms()).await {
                            tracing::warn!(error = %e, "media sweep failed");
                        }
                    }
                }
            }
        })
    }

    fn index(&self) -> std::sync::MutexGuard<'_, HashMap<String, MediaRecord>> {
        // A poisoned lock only means another thread panicked mid-update of a
        // plain map; the map itself is still consistent.
        self.inner
            .index
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn staged(&self, id: &str, rec: &MediaRecord) -> Option<StagedMedia> {
        Some(StagedMedia {
            id: id.to_string(),
            kind: kind_from_name(&rec.kind)?,
            file_name: rec.file_name.clone(),
            size: rec.size,
            sha256: rec.sha256.clone(),
            mime: rec.mime.clone(),
            expires_at_ms: rec.expires_ms,
            path: self.inner.dir.join(id),
        })
    }

    fn create_temp(&self) -> Result<(TempFile, std::fs::File)> {
        let path = self
            .inner
            .dir
            .join(format!("{TEMP_PREFIX}{}", random_hex(16)));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| {
                Error::internal(format!("creating a staging file: {e}"))
                    .with("path", path.display())
            })?;
        Ok((TempFile { path }, file))
    }

    async fn commit(
        &self,
        upload_temp: &TempFile,
        rec: MediaRecord,
        active: ActiveUpload,
    ) -> Result<String> {
        let id = format!("m{}", random_hex(16));
        let final_path = self.inner.dir.join(&id);
        let from = upload_temp.path.clone();
        let (rec_id, stored, store) = (id.clone(), rec.clone(), self.inner.store.clone());
        let work = tokio::task::spawn_blocking(move || {
            std::fs::rename(&from, &final_path).map_err(|e| {
                Error::internal(format!("committing a staged file: {e}"))
                    .with("path", final_path.display())
            })?;
            if let Err(e) = store.put_media(&rec_id, &stored) {
                remove_quietly(&final_path);
                return Err(e);
            }
            Ok(())
        });
        // If this future is dropped mid-commit (the client cancelled: hyper
        // ends a reset request body like a finished one, then drops the
        // handler), the guard undoes the commit once it has run.
        let mut pending = PendingCommit {
            work: Some(work),
            id: id.clone(),
            media: self.clone(),
            active: Some(active),
        };
        let result = match pending.work.as_mut() {
            Some(work) => work.await,
            None => return Err(Error::internal("commit already done")),
        };
        pending.work = None;
        result.map_err(|e| Error::internal(format!("commit task failed: {e}")))??;
        self.index().insert(id.clone(), rec);
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
        runtime.spawn(async move {
            let _ = work.await;
            let dir = media.inner.dir.clone();
            let ids = vec![id];
            let result = media
                .inner
                .store
                .run(move |store| {
                    store.remove_media(&ids)?;
                    for id in &ids {
                        remove_quietly(&dir.join(id));
                    }
                    Ok(())
                })
                .await;
            if let Err(e) = result {
                tracing::warn!(error = %e, "undoing a cancelled upload failed");
            }
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

fn valid_id(id: &str) -> bool {
    id.len() == 33 && id.starts_with('m') && id[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill(buf.as_mut_slice());
    hex::encode(buf)
}

fn remove_quietly(path: &Path) {
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(path = %path.display(), error = %e, "cannot remove a staging file");
    }
}

/// A file removed when dropped.
#[derive(Debug)]
struct TempFile {
    path: PathBuf,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        remove_quietly(&self.path);
    }
}

/// Counts an upload as in progress until dropped.
struct ActiveUpload {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ActiveUpload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ActiveUpload")
    }
}

impl ActiveUpload {
    fn new(inner: Arc<Inner>) -> Self {
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
struct QuotaLease {
    inner: Arc<Inner>,
    held: u64,
}

impl std::fmt::Debug for QuotaLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuotaLease")
            .field("held", &self.held)
            .finish()
    }
}

impl QuotaLease {
    fn new(inner: Arc<Inner>) -> Self {
        Self { inner, held: 0 }
    }

    /// Makes sure at least `total` bytes are held.
    fn grow_to(&mut self, total: u64) -> Result<()> {
        if total <= self.held {
            return Ok(());
        }
        let extra = total - self.held;
        let quota = self.inner.config.staging_quota_bytes;
        self.inner
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(extra).filter(|n| *n <= quota)
            })
            .map_err(|used| {
                Error::new(
                    Kind::StagingQuotaExceeded,
                    format!("the staging area is full ({used} of {quota} bytes used)"),
                )
                .with("quota_bytes", quota)
                .with("used_bytes", used)
                .retry_after(Duration::from_secs(60))
            })?;
        self.held = total;
        Ok(())
    }

    /// Hands the held bytes over to a committed item.
    fn keep(mut self) {
        self.held = 0;
    }
}

impl Drop for QuotaLease {
    fn drop(&mut self) {
        if self.held > 0 {
            self.inner.used.fetch_sub(self.held, Ordering::AcqRel);
        }
    }
}

type Chunk = (Vec<u8>, Option<OwnedSemaphorePermit>);

/// The blocking writer: hashes and writes chunks in order.
fn write_loop(
    file: std::fs::File,
    mut rx: mpsc::UnboundedReceiver<Chunk>,
) -> std::io::Result<[u8; 32]> {
    let mut out = std::io::BufWriter::with_capacity(256 * 1024, file);
    let mut hasher = Sha256::new();
    while let Some((buf, permit)) = rx.blocking_recv() {
        hasher.update(&buf);
        out.write_all(&buf)?;
        drop(permit);
    }
    out.flush()?;
    Ok(hasher.finalize().into())
}

/// An upload in progress. Dropping it (client cancel, error) removes the
/// temporary file and returns the quota.
#[derive(Debug)]
pub struct Upload {
    media: MediaStore,
    owner: MediaOwner,
    header: UploadHeader,
    limit: u64,
    received: u64,
    prefix: Vec<u8>,
    sniffed: Option<String>,
    tx: Option<mpsc::UnboundedSender<Chunk>>,
    budget: Arc<Semaphore>,
    writer: Option<tokio::task::JoinHandle<std::io::Result<[u8; 32]>>>,
    temp: TempFile,
    quota: QuotaLease,
    // Declared last: dropped after the temporary file is removed.
    _active: ActiveUpload,
}

impl Upload {
    /// Bytes accepted so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Accepts the next chunk. Fails (and the upload must be dropped) when
    /// the kind's limit, the declared size or the quota would be passed, or
    /// the first bytes are not of the declared kind.
    pub async fn write(&mut self, chunk: Vec<u8>) -> Result<()> {
        if chunk.is_empty() {
            return Ok(());
        }
        let len = chunk.len() as u64;
        let total = self.received.saturating_add(len);
        if total > self.limit {
            return Err(too_large(self.header.kind, self.limit).with("received", total));
        }
        if let Some(declared) = self.header.size
            && total > declared
        {
            return Err(size_mismatch(declared, total));
        }
        self.quota.grow_to(total)?;
        if self.prefix.len() < SNIFF_BYTES {
            let take = (SNIFF_BYTES - self.prefix.len()).min(chunk.len());
            self.prefix
                .extend_from_slice(chunk.get(..take).unwrap_or(&[]));
            if self.prefix.len() == SNIFF_BYTES {
                self.sniffed = Some(check_kind(self.header.kind, sniff(&self.prefix))?);
            }
        }
        let want = chunk.len().min(WRITE_BUDGET_BYTES) as u32;
        let permit = self
            .budget
            .clone()
            .acquire_many_owned(want)
            .await
            .map_err(|_| Error::internal("the staging writer stopped"))?;
        let sent = self
            .tx
            .as_ref()
            .is_some_and(|tx| tx.send((chunk, Some(permit))).is_ok());
        if !sent {
            return Err(self.writer_error().await);
        }
        self.received = total;
        Ok(())
    }

    async fn writer_error(&mut self) -> Error {
        self.tx = None;
        match self.writer.take() {
            Some(w) => match w.await {
                Ok(Err(e)) => Error::internal(format!("writing the staging file: {e}")),
                Ok(Ok(_)) => Error::internal("the staging writer stopped early"),
                Err(e) => Error::internal(format!("the staging writer failed: {e}")),
            },
            None => Error::internal("the staging writer is gone"),
        }
    }

    async fn complete(&mut self) -> Result<(String, String)> {
        self.tx = None;
        let digest = match self.writer.take() {
            Some(w) => w
                .await
                .map_err(|e| Error::internal(format!("the staging writer failed: {e}")))?
                .map_err(|e| Error::internal(format!("writing the staging file: {e}")))?,
            None => return Err(Error::internal("the upload was already finished")),
        };
        if let Some(declared) = self.header.size
            && declared != self.received
        {
            return Err(size_mismatch(declared, self.received));
        }
        if self.received == 0 {
            return Err(Error::invalid("chunk", "the upload has no content"));
        }
        let sha = hex::encode(digest);
        if let Some(declared) = &self.header.sha256
            && *declared != sha
        {
            return Err(Error::new(
                Kind::MediaChecksumMismatch,
                "the content's SHA-256 differs from the declared one",
            )
            .with("declared", declared)
            .with("actual", &sha));
        }
        let mime = match self.sniffed.take() {
            Some(m) => m,
            None => check_kind(self.header.kind, sniff(&self.prefix))?,
        };
        Ok((sha, mime))
    }

    /// Verifies size, checksum and type, and stages the bytes for the TTL.
    pub async fn finish(mut self) -> Result<StagedMedia> {
        let (sha256, mime) = self.complete().await?;
        let now = now_ms();
        let ttl_ms = i64::try_from(self.media.inner.config.ttl_secs.saturating_mul(1000))
            .unwrap_or(i64::MAX);
        let rec = MediaRecord {
            owner: self.owner.clone(),
            kind: kind_name(self.header.kind).to_string(),
            file_name: self.header.file_name.clone(),
            size: self.received,
            sha256,
            mime,
            created_ms: now,
            expires_ms: now.saturating_add(ttl_ms),
        };
        let Upload {
            media,
            quota,
            temp,
            _active,
            ..
        } = self;
        let id = media.commit(&temp, rec.clone(), _active).await?;
        quota.keep();
        media
            .staged(&id, &rec)
            .ok_or_else(|| Error::internal("staged media has an unknown kind"))
    }

    /// Verifies size, checksum and type, and keeps the bytes only as long as
    /// the returned value lives.
    pub async fn finish_transient(mut self) -> Result<TransientMedia> {
        let (sha256, mime) = self.complete().await?;
        let Upload {
            temp,
            quota,
            received,
            ..
        } = self;
        Ok(TransientMedia {
            size: received,
            sha256,
            mime,
            path: temp.path.clone(),
            _temp: temp,
            _quota: quota,
        })
    }
}

fn size_mismatch(declared: u64, actual: u64) -> Error {
    Error::new(
        Kind::MediaSizeMismatch,
        format!("the content is {actual} bytes, not the declared {declared}"),
    )
    .with("declared", declared)
    .with("received", actual)
}

#[cfg(test)]
mod tests;
