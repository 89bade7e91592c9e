//! The embedded durable store: one redb database under the data directory.
//!
//! Holds what must survive a restart or a `kill -9`: the offline send queue,
//! idempotency records and the index of staged media. Every commit is
//! durable (redb's default `Durability::Immediate` fsyncs). redb calls block,
//! so async code goes through [`Store::run`], which moves them to the
//! blocking pool.
//!
//! # Failures
//! - A file that cannot be read as a store (corrupted, truncated, another
//!   format) is never deleted or overwritten: opening fails with an error
//!   naming the file and what the operator can do ([`Store::open`]).
//! - A write that fails (disk full, directory read-only, I/O error) fails
//!   its request with `StorageFailed`; the transaction is not committed, so
//!   what was stored before stays as it was. redb refuses every later call
//!   on a database handle that saw an I/O error, so the store then closes
//!   the handle and reopens the file on the next call: once the operator
//!   freed space the gateway goes on without a restart.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Kind, Result};

/// Offline queue entries keyed by `(account_id, sequence)`; values are JSON.
pub(crate) const QUEUE: TableDefinition<'_, (&str, u64), &[u8]> = TableDefinition::new("queue");
/// Idempotency records keyed by `(account_id, key)`; values are JSON.
pub(crate) const IDEMPOTENCY: TableDefinition<'_, (&str, &str), &[u8]> =
    TableDefinition::new("idempotency");
/// Staged media keyed by media id; values are JSON.
pub(crate) const MEDIA: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("media");
/// Counters (the queue sequence).
pub(crate) const COUNTERS: TableDefinition<'_, &str, u64> = TableDefinition::new("counters");

/// File name of the database inside the data directory.
pub const STORE_FILE: &str = "gateway.redb";

/// Handle to the durable store; cheap to clone.
#[derive(Clone)]
pub struct Store {
    /// The open database; `None` after an I/O failure closed it (reopened
    /// on the next use).
    db: Arc<RwLock<Option<Arc<Database>>>>,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (or creates) `<data_dir>/gateway.redb` and makes sure every
    /// table exists. A file that is not a readable store is left as it is:
    /// the error names it and says how to go on.
    pub fn open(data_dir: &Path) -> Result<Self> {
        create_private_dir(data_dir).map_err(|e| {
            Error::internal(format!("creating data directory: {e}"))
                .with("path", data_dir.display())
        })?;
        let path = data_dir.join(STORE_FILE);
        refuse_empty(&path, "the offline queue and the idempotency records")?;
        create_private_file(&path)?;
        let db = open_db(&path).map_err(|e| open_error(&path, e))?;
        Ok(Self {
            db: Arc::new(RwLock::new(Some(Arc::new(db)))),
            path,
        })
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The database, for blocking code; reopened when an I/O failure
    /// closed it.
    pub(crate) fn db(&self) -> Result<Arc<Database>> {
        if let Some(db) = self.db.read().unwrap_or_else(|p| p.into_inner()).as_ref() {
            return Ok(db.clone());
        }
        let mut slot = self.db.write().unwrap_or_else(|p| p.into_inner());
        if let Some(db) = slot.as_ref() {
            return Ok(db.clone());
        }
        let db = Arc::new(open_db(&self.path).map_err(|e| {
            storage_failed(format!(
                "reopening the store {} failed: {e}",
                self.path.display()
            ))
            .with("path", self.path.display())
        })?);
        tracing::info!(path = %self.path.display(), "store reopened after an I/O failure");
        *slot = Some(db.clone());
        Ok(db)
    }

    /// Closes the database handle after an I/O failure, so the next use
    /// reopens it (redb fails every call on a handle that saw one). When
    /// another call still uses the handle, the next failure closes it.
    fn close_after_failure(&self) {
        let mut slot = self.db.write().unwrap_or_else(|p| p.into_inner());
        if let Some(db) = slot.take() {
            match Arc::try_unwrap(db) {
                Ok(db) => drop(db),
                Err(shared) => *slot = Some(shared),
            }
        }
    }

    /// Runs blocking store code on the blocking pool.
    pub async fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T> + Send + 'static,
    {
        let store = self.clone();
        let result = tokio::task::spawn_blocking(move || {
            let result = f(&store);
            if result
                .as_ref()
                .is_err_and(|e| e.kind == Kind::StorageFailed)
            {
                store.close_after_failure();
            }
            result
        })
        .await
        .map_err(|e| Error::internal(format!("store task failed: {e}")))?;
        result.map_err(|e| match e.kind {
            Kind::StorageFailed => e.with("path", self.path.display()),
            _ => e,
        })
    }

    /// Every staged-media record.
    pub(crate) fn all_media<T: DeserializeOwned>(&self) -> Result<Vec<(String, T)>> {
        let txn = self.db()?.begin_read().map_err(store_err)?;
        let table = txn.open_table(MEDIA).map_err(store_err)?;
        let mut out = Vec::new();
        for row in table.iter().map_err(store_err)? {
            let (k, v) = row.map_err(store_err)?;
            out.push((k.value().to_string(), decode(v.value())?));
        }
        Ok(out)
    }

    /// Inserts or replaces a staged-media record.
    pub(crate) fn put_media<T: Serialize>(&self, id: &str, value: &T) -> Result<()> {
        let bytes = encode(value)?;
        let txn = self.db()?.begin_write().map_err(store_err)?;
        {
            let mut table = txn.open_table(MEDIA).map_err(store_err)?;
            table.insert(id, bytes.as_slice()).map_err(store_err)?;
        }
        txn.commit().map_err(store_err)
    }

    /// Removes staged-media records.
    pub(crate) fn remove_media(&self, ids: &[String]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let txn = self.db()?.begin_write().map_err(store_err)?;
        {
            let mut table = txn.open_table(MEDIA).map_err(store_err)?;
            for id in ids {
                table.remove(id.as_str()).map_err(store_err)?;
            }
        }
        txn.commit().map_err(store_err)
    }
}

/// JSON-encodes a stored value.
pub(crate) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| Error::internal(format!("encoding a record: {e}")))
}

/// Decodes a stored JSON value.
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| Error::internal(format!("decoding a record: {e}")))
}

/// Maps a redb error: an I/O failure (disk full, read-only, failing disk)
/// to `StorageFailed`, anything else to an internal error.
pub(crate) fn store_err(e: impl Into<redb::Error>) -> Error {
    match e.into() {
        e @ (redb::Error::Io(_) | redb::Error::PreviousIo) => storage_failed(format!(
            "writing the store failed: {e}; free space in the data directory or make it writable, then retry"
        )),
        e => Error::internal(format!("store: {e}")),
    }
}

fn storage_failed(message: String) -> Error {
    Error::new(Kind::StorageFailed, message)
}

/// Opens or creates the database and its tables.
fn open_db(path: &Path) -> std::result::Result<Database, redb::Error> {
    let db = Database::create(path)?;
    let txn = db.begin_write()?;
    {
        txn.open_table(QUEUE)?;
        txn.open_table(IDEMPOTENCY)?;
        txn.open_table(MEDIA)?;
        txn.open_table(COUNTERS)?;
    }
    txn.commit()?;
    Ok(db)
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

/// The error of a store file that cannot be opened: which file, why, and
/// what the operator can do. The file itself is left untouched.
fn open_error(path: &Path, e: redb::Error) -> Error {
    let p = path.display();
    let unreadable = match &e {
        redb::Error::Io(io) => io.kind() == std::io::ErrorKind::InvalidData,
        redb::Error::Corrupted(_)
        | redb::Error::UpgradeRequired(_)
        | redb::Error::RepairAborted => true,
        _ => false,
    };
    let message = if unreadable {
        format!(
            "the store file {p} is not a readable gateway store ({e}): it is corrupted, truncated or of another program. \
             The gateway left it untouched. Restore it from a backup, or move it aside \
             (`mv {p} {p}.broken`; the offline queue and idempotency records in it are then not used) \
             and start again with an empty store"
        )
    } else {
        format!(
            "the store file {p} cannot be opened ({e}): check that the data directory exists, is writable \
             by the gateway and has free space, and that no other gateway process uses it"
        )
    };
    Error::new(
        if unreadable {
            Kind::Internal
        } else {
            Kind::StorageFailed
        },
        message,
    )
    .with("path", p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Serialize, serde::Deserialize, PartialEq)]
    struct Rec {
        n: u32,
    }

    #[test]
    fn records_survive_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = Store::open(dir.path()).unwrap();
            store.put_media("a", &Rec { n: 1 }).unwrap();
            store.put_media("b", &Rec { n: 2 }).unwrap();
            store.remove_media(&["b".into()]).unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        let all = store.all_media::<Rec>().unwrap();
        assert_eq!(all, vec![("a".to_string(), Rec { n: 1 })]);
    }

    #[test]
    fn a_file_that_is_not_a_store_is_refused_with_its_path_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(STORE_FILE);
        let junk = b"not a database".repeat(64);
        std::fs::write(&file, &junk).unwrap();
        let err = Store::open(dir.path()).unwrap_err();
        assert!(err.message.contains(&file.display().to_string()), "{err}");
        assert!(err.message.contains(".broken"), "{err}");
        assert_eq!(err.meta("path"), Some(file.display().to_string().as_str()));
        assert_eq!(std::fs::read(&file).unwrap(), junk);
    }

    #[test]
    fn an_empty_store_file_is_refused_with_its_path_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(STORE_FILE);
        std::fs::write(&file, b"").unwrap();
        let err = Store::open(dir.path()).unwrap_err();
        assert!(err.message.contains(&file.display().to_string()), "{err}");
        assert!(err.message.contains("empty (zero bytes)"), "{err}");
        assert!(err.message.contains("offline queue"), "{err}");
        assert!(err.message.contains(".broken"), "{err}");
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 0);
    }

    #[test]
    fn io_failures_are_storage_failures_and_the_rest_internal() {
        let io = store_err(redb::Error::Io(std::io::Error::from_raw_os_error(28)));
        assert_eq!(io.kind, Kind::StorageFailed);
        assert!(io.message.contains("data directory"), "{io}");
        assert_eq!(store_err(redb::Error::PreviousIo).kind, Kind::StorageFailed);
        assert_eq!(
            store_err(redb::Error::Corrupted("x".into())).kind,
            Kind::Internal
        );
    }

    #[tokio::test]
    async fn the_store_reopens_after_a_failure_closed_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        store.put_media("a", &Rec { n: 1 }).unwrap();
        let failed = store
            .run(|_| Err::<(), _>(store_err(redb::Error::PreviousIo)))
            .await
            .unwrap_err();
        assert_eq!(failed.kind, Kind::StorageFailed);
        assert!(failed.meta("path").is_some());
        // The handle was closed; the next call reopens the file.
        assert!(store.db.read().unwrap().is_none());
        let all = store.run(|s| s.all_media::<Rec>()).await.unwrap();
        assert_eq!(all, vec![("a".to_string(), Rec { n: 1 })]);
    }
}
