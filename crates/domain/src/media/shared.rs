//! Media bytes shared by the gateways of one deployment (`[ha]`): the
//! [`SharedBlobs`] port, where the received-media store and the staging
//! area put the bytes they keep, so that a gateway taking an account over
//! serves media another gateway captured or staged.
//!
//! A store with shared blobs keeps its local directory as a cache: bytes
//! go into the shared store before the record that names them is written,
//! and an item whose record is known but whose local file is missing is
//! fetched from the shared store into the directory first (one fetch per
//! file; others wait for it).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use tokio::io::{AsyncWrite, AsyncWriteExt as _};

use super::staging::{TEMP_PREFIX, TempFile, random_hex};
use crate::error::{Error, Result};

/// The most bytes one part of a shared blob holds (what an implementation
/// keeps in memory at once).
pub const PART_BYTES: usize = 1024 * 1024;

/// The prefix of the shared names of received media (followed by the
/// account and the bytes' SHA-256).
pub const RECEIVED_PREFIX: &str = "received/";

/// The prefix of the shared names of staged media (followed by the media
/// id).
pub const STAGED_PREFIX: &str = "staged/";

/// Bytes stored by name where every gateway of the deployment reads them.
///
/// A name always stands for the same bytes: storing a name again stores
/// nothing. Bytes move in parts of at most [`PART_BYTES`], never whole in
/// memory.
#[async_trait::async_trait]
pub trait SharedBlobs: Send + Sync + std::fmt::Debug + 'static {
    /// Stores the bytes of the file at `path` under `name`, all of them or
    /// none; nothing when `name` is stored already (concurrent stores of
    /// one name all succeed).
    async fn put(&self, name: &str, path: &Path) -> Result<()>;

    /// Writes the bytes stored under `name` to `out`, in order; false
    /// (nothing written) when there are none. Bytes removed while they are
    /// read fail the call.
    async fn fetch(&self, name: &str, out: &mut (dyn AsyncWrite + Send + Unpin)) -> Result<bool>;

    /// Removes the bytes stored under `names` (names not stored are
    /// ignored).
    async fn remove(&self, names: &[String]) -> Result<()>;
}

/// The shared name of the bytes with SHA-256 `sha256` that `account`
/// received: each account's own, so the gateway leading one account never
/// removes bytes another account's items name.
pub fn received_name(account: &str, sha256: &str) -> String {
    format!("{RECEIVED_PREFIX}{account}/{sha256}")
}

/// The shared name of staged media `id`.
pub fn staged_name(id: &str) -> String {
    format!("{STAGED_PREFIX}{id}")
}

/// Fetches of shared bytes into local files, one at a time per file.
#[derive(Debug, Default)]
pub(super) struct Fetches {
    running: Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>,
}

impl Fetches {
    /// Makes sure the file at `path` exists: when it does not, fetches
    /// `name` from `blobs` into a temporary file beside it and moves it in
    /// once its size is `size`. False when the shared store has no bytes
    /// under `name`. A fetch of the same file in progress is waited for,
    /// not repeated.
    pub(super) async fn ensure(
        &self,
        blobs: &dyn SharedBlobs,
        name: &str,
        path: &Path,
        size: u64,
    ) -> Result<bool> {
        if present(path).await {
            return Ok(true);
        }
        let lock = self
            .running
            .lock()
            .entry(path.to_path_buf())
            .or_default()
            .clone();
        let result = {
            let _one = lock.lock().await;
            if present(path).await {
                Ok(true)
            } else {
                fetch_into(blobs, name, path, size).await
            }
        };
        let mut running = self.running.lock();
        // The map's and ours: no one else waits for this file.
        if Arc::strong_count(&lock) == 2 {
            running.remove(path);
        }
        result
    }
}

async fn present(path: &Path) -> bool {
    tokio::fs::metadata(path).await.is_ok_and(|m| m.is_file())
}

/// Fetches `name` into a temporary file in `path`'s directory and moves it
/// to `path` when it holds `size` bytes.
async fn fetch_into(blobs: &dyn SharedBlobs, name: &str, path: &Path, size: u64) -> Result<bool> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::internal("a media file has no directory"))?;
    let temp = TempFile {
        path: dir.join(format!("{TEMP_PREFIX}{}", random_hex(12))),
    };
    let io_err = |what: &'static str| {
        let shown = temp.path.display().to_string();
        move |e: std::io::Error| {
            Error::internal(format!("{what} shared media: {e}")).with("path", shown.clone())
        }
    };
    let file = tokio::fs::OpenOptions::from(crate::store::private_file_options())
        .write(true)
        .create_new(true)
        .open(&temp.path)
        .await
        .map_err(io_err("creating a file for"))?;
    let mut out = tokio::io::BufWriter::with_capacity(256 * 1024, file);
    if !blobs.fetch(name, &mut out).await? {
        return Ok(false);
    }
    out.flush().await.map_err(io_err("writing"))?;
    let file = out.into_inner();
    file.sync_all().await.map_err(io_err("writing"))?;
    let got = file.metadata().await.map_err(io_err("reading"))?.len();
    drop(file);
    if got != size {
        return Err(Error::internal(format!(
            "the shared media {name} has {got} bytes, not the {size} its record names"
        )));
    }
    tokio::fs::rename(&temp.path, path)
        .await
        .map_err(io_err("keeping"))?;
    Ok(true)
}

/// Removes `names` from `blobs`, logging a failure (the bytes stay behind,
/// named by no record).
pub(super) async fn remove_logged(blobs: &dyn SharedBlobs, names: Vec<String>) {
    if names.is_empty() {
        return;
    }
    if let Err(e) = blobs.remove(&names).await {
        tracing::warn!(error = %e, count = names.len(), "cannot remove shared media");
    }
}
