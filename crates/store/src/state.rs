//! The gateway's durable state in one SQLite database, `gateway.sqlite3`
//! under the data directory: the offline send queue, idempotency records
//! and the indexes of staged and received media (the domain's
//! [`QueueStore`], [`IdempotencyStore`], [`MediaIndex`] and
//! [`ReceivedIndex`]).
//!
//! WAL mode with `synchronous = FULL`: every commit is fsynced before the
//! call returns, so the offline queue and the idempotency keys survive
//! `kill -9` and a power loss. One process at a time: the store holds its
//! file's lock while it is open (SQLite's exclusive locking mode,
//! [`db::connect`]), and a second open is refused naming the file. Every call blocks: the
//! domain makes them on the blocking pool.
//!
//! # Failures
//! - A file that cannot be read as a database (corrupted, truncated,
//!   zero-length, another format) is never deleted or overwritten: opening
//!   fails with an error naming the file and what the operator can do
//!   ([`db::open`]).
//! - A write that fails (disk full, directory read-only, I/O error) fails
//!   its request with `StorageFailed`; its transaction is rolled back, so
//!   what was stored before stays as it was, and the next call goes on
//!   over the same connection once the operator freed space.
//! - A data directory of an older gateway (`gateway.redb`) is imported on
//!   the first start ([`super::migrate`]).

use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::db::{self, Store, sqlite_err};
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::store::{
    IdempotencyStore, MediaIndex, QueueStore, QueueTxn, ReceivedIndex, Replacement,
    create_private_dir,
};

/// The tables. Keys are compared bytewise (SQLite's `BINARY` collation),
/// so rows list in the order of their keys' bytes.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS queue (
    account TEXT NOT NULL,
    seq INTEGER NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (account, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS idempotency (
    account TEXT NOT NULL,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (account, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS media (
    id TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS received_media (
    key TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS received_secrets (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;
";

/// The counter of queue sequence numbers.
const QUEUE_SEQ: &str = "queue_seq";
/// The received-media secret's key.
const MEDIA_ID_KEY: &str = "media_id_key";

/// File name of the database inside the data directory.
pub const STORE_FILE: &str = "gateway.sqlite3";

/// Handle to the durable state.
pub struct StateStore {
    conn: Mutex<Connection>,
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
    /// Opens (or creates) `<data_dir>/gateway.sqlite3` and makes sure every
    /// table exists; imports `gateway.redb` when the database is new and
    /// that file is there. A file that is not a readable store is left as
    /// it is: the error names it and says how to go on.
    pub fn open(data_dir: &Path) -> Result<Self> {
        create_private_dir(data_dir).map_err(|e| {
            Error::internal(format!("creating data directory: {e}"))
                .with("path", data_dir.display())
        })?;
        let path = data_dir.join(STORE_FILE);
        let mut conn = db::open(&path, Store::State)?;
        let err = |e| sqlite_err(Store::State, &path, e);
        {
            let tx = conn.transaction().map_err(err)?;
            let fresh = is_fresh(&tx).map_err(err)?;
            tx.execute_batch(SCHEMA).map_err(err)?;
            let imported = if fresh {
                super::migrate::import_state(data_dir, &tx)?
            } else {
                None
            };
            tx.commit().map_err(err)?;
            if let Some(from) = imported {
                super::migrate::retire(&from)?;
            }
        }
        Ok(Self {
            conn: Mutex::new(conn),
            path,
        })
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> Error + '_ {
        |e| sqlite_err(Store::State, &self.path, e)
    }

    /// Runs `f` in one write transaction, committed when it returns `Ok`
    /// and rolled back otherwise.
    fn write_txn<T>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.conn.lock();
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(self.err())?;
        let out = f(&tx)?;
        tx.commit().map_err(self.err())?;
        Ok(out)
    }

    /// Every row of a two-column table, in key order.
    fn all_of(&self, sql: &str) -> Result<Vec<(String, Vec<u8>)>> {
        let conn = self.conn.lock();
        rows(&conn, sql, [], |r| Ok((r.get(0)?, r.get(1)?))).map_err(self.err())
    }
}

/// True when the database holds no table yet (it was just created).
fn is_fresh(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row("SELECT count(*) = 0 FROM sqlite_master", [], |r| r.get(0))
}

fn rows<T, P: rusqlite::Params>(
    conn: &Connection,
    sql: &str,
    params: P,
    f: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    conn.prepare_cached(sql)?
        .query_map(params, f)?
        .collect::<rusqlite::Result<_>>()
}

const QUEUE_OF: &str = "SELECT value FROM queue WHERE account = ?1 ORDER BY seq";

/// A write transaction over the queue tables.
struct QueueWrite<'a, 't> {
    tx: &'a Transaction<'t>,
    path: &'a Path,
}

impl QueueWrite<'_, '_> {
    fn err(&self) -> impl Fn(rusqlite::Error) -> Error + '_ {
        |e| sqlite_err(Store::State, self.path, e)
    }
}

impl QueueTxn for QueueWrite<'_, '_> {
    fn entries(&mut self, account: &str) -> Result<Vec<Vec<u8>>> {
        rows(self.tx, QUEUE_OF, [account], |r| r.get(0)).map_err(self.err())
    }

    fn put(&mut self, account: &str, seq: u64, value: &[u8]) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO queue (account, seq, value) VALUES (?1, ?2, ?3)",
            )
            .and_then(|mut s| s.execute(params![account, seq as i64, value]))
            .map_err(self.err())?;
        Ok(())
    }

    fn remove(&mut self, account: &str, seq: u64) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM queue WHERE account = ?1 AND seq = ?2")
            .and_then(|mut s| s.execute(params![account, seq as i64]))
            .map_err(self.err())?;
        Ok(())
    }

    fn next_seq(&mut self) -> Result<u64> {
        let next: i64 = self
            .tx
            .prepare_cached(
                "INSERT INTO counters (name, value) VALUES (?1, 1) \
                 ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
            )
            .and_then(|mut s| s.query_row([QUEUE_SEQ], |r| r.get(0)))
            .map_err(self.err())?;
        Ok(next as u64)
    }
}

impl QueueStore for StateStore {
    fn depths(&self) -> Result<Vec<(String, usize)>> {
        let conn = self.conn.lock();
        rows(
            &conn,
            "SELECT account, count(*) FROM queue GROUP BY account ORDER BY account",
            [],
            |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as usize)),
        )
        .map_err(self.err())
    }

    fn list(&self, account: &str) -> Result<Vec<Vec<u8>>> {
        let conn = self.conn.lock();
        rows(&conn, QUEUE_OF, [account], |r| r.get(0)).map_err(self.err())
    }

    fn write(&self, f: &mut dyn FnMut(&mut dyn QueueTxn) -> Result<()>) -> Result<()> {
        self.write_txn(|tx| {
            f(&mut QueueWrite {
                tx,
                path: &self.path,
            })
        })
    }
}

const IDEMPOTENCY_OF: &str = "SELECT value FROM idempotency WHERE account = ?1 AND key = ?2";

impl IdempotencyStore for StateStore {
    fn get(&self, account: &str, key: &str) -> Result<Option<Vec<u8>>> {
        let conn = self.conn.lock();
        conn.prepare_cached(IDEMPOTENCY_OF)
            .and_then(|mut s| s.query_row([account, key], |r| r.get(0)).optional())
            .map_err(self.err())
    }

    fn update(
        &self,
        account: &str,
        key: &str,
        f: &mut dyn FnMut(Option<&[u8]>) -> Result<Replacement>,
    ) -> Result<()> {
        self.write_txn(|tx| {
            let existing: Option<Vec<u8>> = tx
                .prepare_cached(IDEMPOTENCY_OF)
                .and_then(|mut s| s.query_row([account, key], |r| r.get(0)).optional())
                .map_err(self.err())?;
            if let Some(new) = f(existing.as_deref())? {
                tx.prepare_cached(
                    "INSERT OR REPLACE INTO idempotency (account, key, value) VALUES (?1, ?2, ?3)",
                )
                .and_then(|mut s| s.execute(params![account, key, new]))
                .map_err(self.err())?;
            }
            Ok(())
        })
    }

    fn remove(&self, account: &str, key: &str) -> Result<()> {
        self.write_txn(|tx| {
            tx.prepare_cached("DELETE FROM idempotency WHERE account = ?1 AND key = ?2")
                .and_then(|mut s| s.execute([account, key]))
                .map_err(self.err())?;
            Ok(())
        })
    }

    fn retain(&self, keep: &mut dyn FnMut(&[u8]) -> bool) -> Result<usize> {
        self.write_txn(|tx| {
            let all: Vec<(String, String, Vec<u8>)> = rows(
                tx,
                "SELECT account, key, value FROM idempotency ORDER BY account, key",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(self.err())?;
            let mut delete = tx
                .prepare_cached("DELETE FROM idempotency WHERE account = ?1 AND key = ?2")
                .map_err(self.err())?;
            let mut removed = 0usize;
            for (account, key, value) in all {
                if !keep(&value) {
                    delete.execute([account, key]).map_err(self.err())?;
                    removed += 1;
                }
            }
            Ok(removed)
        })
    }
}

impl MediaIndex for StateStore {
    fn all(&self) -> Result<Vec<(String, Vec<u8>)>> {
        self.all_of("SELECT id, value FROM media ORDER BY id")
    }

    fn put(&self, id: &str, value: &[u8]) -> Result<()> {
        self.write_txn(|tx| {
            tx.prepare_cached("INSERT OR REPLACE INTO media (id, value) VALUES (?1, ?2)")
                .and_then(|mut s| s.execute(params![id, value]))
                .map_err(self.err())?;
            Ok(())
        })
    }

    fn remove(&self, ids: &[String]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        self.write_txn(|tx| {
            let mut delete = tx
                .prepare_cached("DELETE FROM media WHERE id = ?1")
                .map_err(self.err())?;
            for id in ids {
                delete.execute([id]).map_err(self.err())?;
            }
            Ok(())
        })
    }
}

impl ReceivedIndex for StateStore {
    fn secret(&self, fresh: [u8; 32]) -> Result<[u8; 32]> {
        self.write_txn(|tx| {
            let existing: Option<Vec<u8>> = tx
                .prepare_cached("SELECT value FROM received_secrets WHERE name = ?1")
                .and_then(|mut s| s.query_row([MEDIA_ID_KEY], |r| r.get(0)).optional())
                .map_err(self.err())?;
            match existing.and_then(|v| <[u8; 32]>::try_from(v.as_slice()).ok()) {
                Some(k) => Ok(k),
                None => {
                    tx.prepare_cached(
                        "INSERT OR REPLACE INTO received_secrets (name, value) VALUES (?1, ?2)",
                    )
                    .and_then(|mut s| s.execute(params![MEDIA_ID_KEY, fresh.as_slice()]))
                    .map_err(self.err())?;
                    Ok(fresh)
                }
            }
        })
    }

    fn all(&self) -> Result<Vec<(String, Vec<u8>)>> {
        self.all_of("SELECT key, value FROM received_media ORDER BY key")
    }

    fn apply(&self, put: &[(String, Vec<u8>)], remove: &[String]) -> Result<()> {
        if put.is_empty() && remove.is_empty() {
            return Ok(());
        }
        self.write_txn(|tx| {
            let mut insert = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO received_media (key, value) VALUES (?1, ?2)",
                )
                .map_err(self.err())?;
            for (k, v) in put {
                insert.execute(params![k, v]).map_err(self.err())?;
            }
            let mut delete = tx
                .prepare_cached("DELETE FROM received_media WHERE key = ?1")
                .map_err(self.err())?;
            for k in remove {
                delete.execute([k]).map_err(self.err())?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onebot_gateway_domain::error::Kind;

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
    fn a_second_open_of_the_same_directory_is_refused_while_the_first_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let first = StateStore::open(dir.path()).unwrap();
        MediaIndex::put(&first, "a", b"1").unwrap();
        let err = StateStore::open(dir.path()).unwrap_err();
        assert_eq!(err.kind, Kind::StorageFailed);
        assert!(err.message.contains("another gateway process"), "{err}");
        assert_eq!(media(&first), vec![("a".to_string(), b"1".to_vec())]);
        drop(first);
        let again = StateStore::open(dir.path()).unwrap();
        assert_eq!(media(&again), vec![("a".to_string(), b"1".to_vec())]);
    }

    #[test]
    fn keys_list_in_byte_order_and_keep_their_nul_separators() {
        let dir = tempfile::tempdir().unwrap();
        let store = StateStore::open(dir.path()).unwrap();
        let put: Vec<(String, Vec<u8>)> = ["b\0x", "a\0z", "a\0y", "a\u{e9}\0q"]
            .iter()
            .map(|k| (k.to_string(), k.as_bytes().to_vec()))
            .collect();
        ReceivedIndex::apply(&store, &put, &[]).unwrap();
        ReceivedIndex::apply(&store, &[], &["a\0z".to_string()]).unwrap();
        let keys: Vec<String> = ReceivedIndex::all(&store)
            .unwrap()
            .into_iter()
            .map(|(k, v)| {
                assert_eq!(k.as_bytes(), v.as_slice());
                k
            })
            .collect();
        assert_eq!(keys, ["a\0y", "a\u{e9}\0q", "b\0x"]);
        QueueStore::write(&store, &mut |txn| {
            for account in ["b", "a", "b"] {
                let seq = txn.next_seq()?;
                txn.put(account, seq, account.as_bytes())?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(
            QueueStore::depths(&store).unwrap(),
            [("a".to_string(), 1), ("b".to_string(), 2)]
        );
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
