//! The durable state's ports: what the offline queue, the idempotency keys
//! and the media indexes need of a store, and the filesystem rules every
//! store under the data directory follows.
//!
//! The ports deal in opaque bytes the domain encodes (JSON, [`encode`] and
//! [`decode`]); ordering, expiry, limits and error kinds stay in the domain.
//! An implementation holds what must survive a restart or a `kill -9`:
//! every write it reports done is durable.
//!
//! # Failures
//! - A file that cannot be read as a store is never deleted or
//!   overwritten: opening it fails with an error naming the file and what
//!   the operator can do.
//! - A write that fails (disk full, directory read-only, I/O error) fails
//!   with `StorageFailed` and the `path` of the store; nothing of it is
//!   kept, so what was stored before stays as it was. The store goes on
//!   with the next call once the operator freed space.
//!
//! Calls block: async code makes them through [`blocking`], which moves
//! them to the blocking pool.

use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Kind, Result};

/// The offline queues of every account: entries keyed by `(account,
/// sequence)`, listed in sequence order.
pub trait QueueStore: Send + Sync + std::fmt::Debug {
    /// How many entries each account has waiting.
    fn depths(&self) -> Result<Vec<(String, usize)>>;

    /// The entries of `account`, in sequence order.
    fn list(&self, account: &str) -> Result<Vec<Vec<u8>>>;

    /// Runs `f` in one write transaction, committed when `f` returns `Ok`;
    /// nothing of it is kept when `f` (or the commit) fails.
    fn write(&self, f: &mut dyn FnMut(&mut dyn QueueTxn) -> Result<()>) -> Result<()>;
}

/// One write transaction over the offline queues.
pub trait QueueTxn {
    /// The entries of `account` as of this transaction, in sequence order.
    fn entries(&mut self, account: &str) -> Result<Vec<Vec<u8>>>;

    /// Inserts or replaces the entry `(account, seq)`.
    fn put(&mut self, account: &str, seq: u64, value: &[u8]) -> Result<()>;

    /// Removes the entry `(account, seq)` (nothing when there is none).
    fn remove(&mut self, account: &str, seq: u64) -> Result<()>;

    /// The next queue sequence number (1 first, then increasing across
    /// accounts and restarts).
    fn next_seq(&mut self) -> Result<u64>;
}

/// What [`IdempotencyStore::update`] stores: the new record, or `None` to
/// leave the one there as it is.
pub type Replacement = Option<Vec<u8>>;

/// Idempotency records keyed by `(account, key)`.
pub trait IdempotencyStore: Send + Sync + std::fmt::Debug {
    /// The record of `(account, key)`.
    fn get(&self, account: &str, key: &str) -> Result<Option<Vec<u8>>>;

    /// Reads the record of `(account, key)` and stores what `f` returns for
    /// it (`None`: leaves it as it is), in one write transaction.
    fn update(
        &self,
        account: &str,
        key: &str,
        f: &mut dyn FnMut(Option<&[u8]>) -> Result<Replacement>,
    ) -> Result<()>;

    /// Removes the record of `(account, key)`.
    fn remove(&self, account: &str, key: &str) -> Result<()>;

    /// Keeps the records `keep` accepts and removes the others; returns
    /// how many went.
    fn retain(&self, keep: &mut dyn FnMut(&[u8]) -> bool) -> Result<usize>;
}

/// The index of staged media, keyed by media id.
pub trait MediaIndex: Send + Sync + std::fmt::Debug {
    /// Every record.
    fn all(&self) -> Result<Vec<(String, Vec<u8>)>>;

    /// Inserts or replaces the record of `id`.
    fn put(&self, id: &str, value: &[u8]) -> Result<()>;

    /// Removes the records of `ids`, in one write transaction.
    fn remove(&self, ids: &[String]) -> Result<()>;
}

/// The index of received media, keyed by `<account>\0<media id>`, and the
/// secret its media ids are derived from.
pub trait ReceivedIndex: Send + Sync + std::fmt::Debug {
    /// The stored secret; `fresh`, stored now, when there is none (or it is
    /// not 32 bytes).
    fn secret(&self, fresh: [u8; 32]) -> Result<[u8; 32]>;

    /// Every record.
    fn all(&self) -> Result<Vec<(String, Vec<u8>)>>;

    /// Inserts or replaces the records of `put` and removes those of
    /// `remove`, in one write transaction.
    fn apply(&self, put: &[(String, Vec<u8>)], remove: &[String]) -> Result<()>;
}

/// Runs blocking store code on the blocking pool.
pub async fn blocking<T, F>(f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Error::internal(format!("store task failed: {e}")))?
}

/// JSON-encodes a stored value.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| Error::internal(format!("encoding a record: {e}")))
}

/// Decodes a stored JSON value.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| Error::internal(format!("decoding a record: {e}")))
}

/// Owner-only modes of what the gateway creates under its data directory:
/// the stores hold users' messages and the offline queue, so no other local
/// user may read them.
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// See [`PRIVATE_DIR_MODE`].
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Creates `dir` and its missing parents owner-only (0700). A directory
/// that exists keeps its mode: the operator chose it.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, PRIVATE_DIR_MODE);
    builder.create(dir)
}

/// Options that create a new file owner-only (0600).
pub fn private_file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, PRIVATE_FILE_MODE);
    options
}

/// Creates the store file `path` owner-only (0600) when it does not exist,
/// before its database library opens it (SQLite gives its `-wal` and `-shm`
/// files the database file's mode). An existing file is left as it is.
pub fn create_private_file(path: &Path) -> Result<()> {
    match private_file_options()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Error::new(
            Kind::StorageFailed,
            format!(
                "creating the store file {} failed: {e}; check that the data directory exists and is writable by the gateway",
                path.display()
            ),
        )
        .with("path", path.display())),
    }
}

/// Refuses a store file that exists with zero length. Every store the
/// gateway writes has a header once created, so an empty file was cut
/// short (a full disk, a failed copy or restore); opening it would start an
/// empty store over it and silently lose `lost`. The file is left as it is;
/// the error names it, what is lost and the remedy.
pub fn refuse_empty(path: &Path, lost: &str) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() == 0 => {
            let p = path.display();
            Err(Error::internal(format!(
                "the store file {p} is empty (zero bytes): it was truncated (a full disk, a failed copy or restore). \
                 The gateway left it untouched and does not start with an empty store over it, which would lose {lost}. \
                 Restore it from a backup, or move it aside (`mv {p} {p}.broken`) to start with an empty one"
            ))
            .with("path", p))
        }
        _ => Ok(()),
    }
}
