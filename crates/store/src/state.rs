//! The gateway's durable state in one redb database, `gateway.redb` under
//! the data directory: the offline send queue, idempotency records and the
//! indexes of staged and received media (the domain's [`QueueStore`],
//! [`IdempotencyStore`], [`MediaIndex`] and [`ReceivedIndex`]).
//!
//! Every commit is durable (redb's default `Durability::Immediate` fsyncs).
//! Every call blocks: the domain makes them on the blocking pool.
//!
//! # Failures
//! - A file that cannot be read as a store (corrupted, truncated, another
//!   format) is never deleted or overwritten: opening fails with an error
//!   naming the file and what the operator can do ([`StateStore::open`]).
//! - A write that fails (disk full, directory read-only, I/O error) fails
//!   its request with `StorageFailed`; the transaction is not committed, so
//!   what was stored before stays as it was. redb refuses every later call
//!   on a database handle that saw an I/O error, so the store then closes
//!   the handle and reopens the file on the next call: once the operator
//!   freed space the gateway goes on without a restart.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};

use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::store::{
    IdempotencyStore, MediaIndex, QueueStore, QueueTxn, ReceivedIndex, Replacement,
    create_private_dir, create_private_file, refuse_empty,
};

/// Offline queue entries keyed by `(account_id, sequence)`; values are JSON.
const QUEUE: TableDefinition<'_, (&str, u64), &[u8]> = TableDefinition::new("queue");
/// Idempotency records keyed by `(account_id, key)`; values are JSON.
const IDEMPOTENCY: TableDefinition<'_, (&str, &str), &[u8]> = TableDefinition::new("idempotency");
/// Staged media keyed by media id; values are JSON.
const MEDIA: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("media");
/// Counters (the queue sequence).
const COUNTERS: TableDefinition<'_, &str, u64> = TableDefinition::new("counters");
/// Received-media records keyed by `<account>\0<media id>`; values JSON.
const RECEIVED: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("received_media");
/// Secrets of the received-media store (the media id key).
const SECRETS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("received_secrets");

/// The counter of queue sequence numbers.
const QUEUE_SEQ: &str = "queue_seq";
/// The received-media secret's key.
const MEDIA_ID_KEY: &str = "media_id_key";

/// File name of the database inside the data directory.
pub const STORE_FILE: &str = "gateway.redb";

/// Handle to the durable state.
pub struct StateStore {
    /// The open database; `None` after an I/O failure closed it (reopened
    /// on the next use).
    db: RwLock<Option<Arc<Database>>>,
    path: PathBuf,
}

impl std::fmt::Debug for StateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateStore")
            .field("path", &self.path)
            .finish()
    }
}

impl StateStore {
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
            db: RwLock::new(Some(Arc::new(db))),
            path,
        })
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The database; reopened when an I/O failure closed it.
    fn db(&self) -> Result<Arc<Database>> {
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

    /// Runs `f` over the database. A `StorageFailed` error closes the
    /// handle (the next call reopens it) and names the file.
    fn op<T>(&self, f: impl FnOnce(&Database) -> Result<T>) -> Result<T> {
        let result = self.db().and_then(|db| f(&db));
        result.map_err(|e| {
            if e.kind == Kind::StorageFailed {
                self.close_after_failure();
                e.with("path", self.path.display())
            } else {
                e
            }
        })
    }

    /// Runs `f` in one write transaction, committed when it returns `Ok`.
    fn write_txn<T>(&self, f: impl FnOnce(&WriteTransaction) -> Result<T>) -> Result<T> {
        self.op(|db| {
            let txn = db.begin_write().map_err(store_err)?;
            let out = f(&txn)?;
            txn.commit().map_err(store_err)?;
            Ok(out)
        })
    }

    /// Every row of a table keyed by text.
    fn all_of(&self, table: TableDefinition<'_, &str, &[u8]>) -> Result<Vec<(String, Vec<u8>)>> {
        self.op(|db| {
            let txn = db.begin_read().map_err(store_err)?;
            let table = txn.open_table(table).map_err(store_err)?;
            let mut out = Vec::new();
            for row in table.iter().map_err(store_err)? {
                let (k, v) = row.map_err(store_err)?;
                out.push((k.value().to_string(), v.value().to_vec()));
            }
            Ok(out)
        })
    }
}

fn range_of(account: &str) -> std::ops::RangeInclusive<(&str, u64)> {
    (account, 0)..=(account, u64::MAX)
}

/// A write transaction over the queue tables.
struct QueueWrite<'t> {
    txn: &'t WriteTransaction,
}

impl QueueTxn for QueueWrite<'_> {
    fn entries(&mut self, account: &str) -> Result<Vec<Vec<u8>>> {
        let table = self.txn.open_table(QUEUE).map_err(store_err)?;
        let mut out = Vec::new();
        for row in table.range(range_of(account)).map_err(store_err)? {
            let (_, v) = row.map_err(store_err)?;
            out.push(v.value().to_vec());
        }
        Ok(out)
    }

    fn put(&mut self, account: &str, seq: u64, value: &[u8]) -> Result<()> {
        let mut table = self.txn.open_table(QUEUE).map_err(store_err)?;
        table.insert((account, seq), value).map_err(store_err)?;
        Ok(())
    }

    fn remove(&mut self, account: &str, seq: u64) -> Result<()> {
        let mut table = self.txn.open_table(QUEUE).map_err(store_err)?;
        table.remove((account, seq)).map_err(store_err)?;
        Ok(())
    }

    fn next_seq(&mut self) -> Result<u64> {
        let mut counters = self.txn.open_table(COUNTERS).map_err(store_err)?;
        let next = counters
            .get(QUEUE_SEQ)
            .map_err(store_err)?
            .map_or(1, |v| v.value() + 1);
        counters.insert(QUEUE_SEQ, next).map_err(store_err)?;
        Ok(next)
    }
}

impl QueueStore for StateStore {
    fn depths(&self) -> Result<Vec<(String, usize)>> {
        self.op(|db| {
            let txn = db.begin_read().map_err(store_err)?;
            let table = txn.open_table(QUEUE).map_err(store_err)?;
            let mut depths: Vec<(String, usize)> = Vec::new();
            for row in table.iter().map_err(store_err)? {
                let (k, _) = row.map_err(store_err)?;
                let account = k.value().0;
                match depths.last_mut() {
                    Some((last, n)) if last == account => *n += 1,
                    _ => depths.push((account.to_string(), 1)),
                }
            }
            Ok(depths)
        })
    }

    fn list(&self, account: &str) -> Result<Vec<Vec<u8>>> {
        self.op(|db| {
            let txn = db.begin_read().map_err(store_err)?;
            let table = txn.open_table(QUEUE).map_err(store_err)?;
            let mut out = Vec::new();
            for row in table.range(range_of(account)).map_err(store_err)? {
                let (_, v) = row.map_err(store_err)?;
                out.push(v.value().to_vec());
            }
            Ok(out)
        })
    }

    fn write(&self, f: &mut dyn FnMut(&mut dyn QueueTxn) -> Result<()>) -> Result<()> {
        self.write_txn(|txn| f(&mut QueueWrite { txn }))
    }
}

impl IdempotencyStore for StateStore {
    fn get(&self, account: &str, key: &str) -> Result<Option<Vec<u8>>> {
        self.op(|db| {
            let txn = db.begin_read().map_err(store_err)?;
            let table = txn.open_table(IDEMPOTENCY).map_err(store_err)?;
            Ok(table
                .get((account, key))
                .map_err(store_err)?
                .map(|v| v.value().to_vec()))
        })
    }

    fn update(
        &self,
        account: &str,
        key: &str,
        f: &mut dyn FnMut(Option<&[u8]>) -> Result<Replacement>,
    ) -> Result<()> {
        self.write_txn(|txn| {
            let mut table = txn.open_table(IDEMPOTENCY).map_err(store_err)?;
            let existing = table
                .get((account, key))
                .map_err(store_err)?
                .map(|v| v.value().to_vec());
            if let Some(new) = f(existing.as_deref())? {
                table
                    .insert((account, key), new.as_slice())
                    .map_err(store_err)?;
            }
            Ok(())
        })
    }

    fn remove(&self, account: &str, key: &str) -> Result<()> {
        self.write_txn(|txn| {
            let mut table = txn.open_table(IDEMPOTENCY).map_err(store_err)?;
            table.remove((account, key)).map_err(store_err)?;
            Ok(())
        })
    }

    fn retain(&self, keep: &mut dyn FnMut(&[u8]) -> bool) -> Result<usize> {
        self.write_txn(|txn| {
            let mut table = txn.open_table(IDEMPOTENCY).map_err(store_err)?;
            let mut removed = 0usize;
            table
                .retain(|_, v| {
                    let kept = keep(v);
                    if !kept {
                        removed += 1;
                    }
                    kept
                })
                .map_err(store_err)?;
            Ok(removed)
        })
    }
}

impl MediaIndex for StateStore {
    fn all(&self) -> Result<Vec<(String, Vec<u8>)>> {
        self.all_of(MEDIA)
    }

    fn put(&self, id: &str, value: &[u8]) -> Result<()> {
        self.write_txn(|txn| {
            let mut table = txn.open_table(MEDIA).map_err(store_err)?;
            table.insert(id, value).map_err(store_err)?;
            Ok(())
        })
    }

    fn remove(&self, ids: &[String]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        self.write_txn(|txn| {
            let mut table = txn.open_table(MEDIA).map_err(store_err)?;
            for id in ids {
                table.remove(id.as_str()).map_err(store_err)?;
            }
            Ok(())
        })
    }
}

impl ReceivedIndex for StateStore {
    fn secret(&self, fresh: [u8; 32]) -> Result<[u8; 32]> {
        self.write_txn(|txn| {
            let mut secrets = txn.open_table(SECRETS).map_err(store_err)?;
            let existing = secrets
                .get(MEDIA_ID_KEY)
                .map_err(store_err)?
                .and_then(|v| <[u8; 32]>::try_from(v.value()).ok());
            match existing {
                Some(k) => Ok(k),
                None => {
                    secrets
                        .insert(MEDIA_ID_KEY, fresh.as_slice())
                        .map_err(store_err)?;
                    Ok(fresh)
                }
            }
        })
    }

    fn all(&self) -> Result<Vec<(String, Vec<u8>)>> {
        self.all_of(RECEIVED)
    }

    fn apply(&self, put: &[(String, Vec<u8>)], remove: &[String]) -> Result<()> {
        if put.is_empty() && remove.is_empty() {
            return Ok(());
        }
        self.write_txn(|txn| {
            let mut table = txn.open_table(RECEIVED).map_err(store_err)?;
            for (k, v) in put {
                table.insert(k.as_str(), v.as_slice()).map_err(store_err)?;
            }
            for k in remove {
                table.remove(k.as_str()).map_err(store_err)?;
            }
            Ok(())
        })
    }
}

/// Maps a redb error: an I/O failure (disk full, read-only, failing disk)
/// to `StorageFailed`, anything else to an internal error.
fn store_err(e: impl Into<redb::Error>) -> Error {
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
        txn.open_table(RECEIVED)?;
        txn.open_table(SECRETS)?;
    }
    txn.commit()?;
    Ok(db)
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

    fn media(store: &StateStore) -> Vec<(String, Vec<u8>)> {
        MediaIndex::all(store).unwrap()
    }

    #[test]
    fn records_survive_reopen() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = StateStore::open(dir.path()).unwrap();
            MediaIndex::put(&store, "a", b"1").unwrap();
            MediaIndex::put(&store, "b", b"2").unwrap();
            MediaIndex::remove(&store, &["b".into()]).unwrap();
        }
        let store = StateStore::open(dir.path()).unwrap();
        assert_eq!(media(&store), vec![("a".to_string(), b"1".to_vec())]);
    }

    #[test]
    fn a_file_that_is_not_a_store_is_refused_with_its_path_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(STORE_FILE);
        let junk = b"not a database".repeat(64);
        std::fs::write(&file, &junk).unwrap();
        let err = StateStore::open(dir.path()).unwrap_err();
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
        let err = StateStore::open(dir.path()).unwrap_err();
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

    #[test]
    fn the_store_reopens_after_a_failure_closed_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = StateStore::open(dir.path()).unwrap();
        MediaIndex::put(&store, "a", b"1").unwrap();
        let failed = store
            .op(|_| Err::<(), _>(store_err(redb::Error::PreviousIo)))
            .unwrap_err();
        assert_eq!(failed.kind, Kind::StorageFailed);
        assert!(failed.meta("path").is_some());
        // The handle was closed; the next call reopens the file.
        assert!(store.db.read().unwrap().is_none());
        assert_eq!(media(&store), vec![("a".to_string(), b"1".to_vec())]);
    }

    #[test]
    fn a_failed_transaction_keeps_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = StateStore::open(dir.path()).unwrap();
        let failed = QueueStore::write(&store, &mut |txn| {
            let seq = txn.next_seq()?;
            txn.put("a", seq, b"x")?;
            Err(Error::internal("refused"))
        });
        assert!(failed.is_err());
        assert!(QueueStore::list(&store, "a").unwrap().is_empty());
        QueueStore::write(&store, &mut |txn| {
            assert_eq!(txn.next_seq()?, 1, "the counter was not advanced");
            Ok(())
        })
        .unwrap();
    }
}
