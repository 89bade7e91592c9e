//! The store of minted message ids: `message-ids.sqlite3` under the data
//! directory, the way back from the numbers the gateway minted for
//! message ids that are not an `i64` to their text (minted id → text,
//! table `message_ids`), behind the domain's `IdMap` port. Its calls
//! block.
//!
//! WAL mode with `synchronous = NORMAL` (mappings survive `kill -9`; a
//! power loss may take the last ones, whose ids then no longer resolve). The
//! state store's lock keeps a second gateway out of the data directory. A
//! file that cannot be opened as this store is never deleted or
//! overwritten: the error names it and what the operator can do
//! ([`db::open`]). The `onebot-ids.redb` of an older gateway is imported on
//! the first start ([`super::migrate`]).

use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use rusqlite::{Connection, OptionalExtension, params};

use super::db::{self, Store, sqlite_err};

/// File name of the store inside the data directory.
pub const STORE_FILE: &str = "message-ids.sqlite3";

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS message_ids (
    id INTEGER PRIMARY KEY,
    text TEXT NOT NULL
);";

/// The durable store of minted message ids.
pub struct IdStore {
    conn: Mutex<Connection>,
    path: PathBuf,
}

impl std::fmt::Debug for IdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl IdStore {
    /// Opens (or creates) `<dir>/message-ids.sqlite3`; imports
    /// `onebot-ids.redb` when the database is new and that file is there.
    pub fn open(dir: &Path) -> Result<IdStore, String> {
        let path = dir.join(STORE_FILE);
        let mut conn = db::open(&path, Store::Ids).map_err(|e| e.to_string())?;
        let err = |e| sqlite_err(Store::Ids, &path, e).to_string();
        let tx = conn.transaction().map_err(err)?;
        let fresh: bool = tx
            .query_row("SELECT count(*) = 0 FROM sqlite_master", [], |r| r.get(0))
            .map_err(err)?;
        tx.execute_batch(SCHEMA).map_err(err)?;
        let imported = if fresh {
            super::migrate::import_ids(dir, &tx).map_err(|e| e.to_string())?
        } else {
            None
        };
        tx.commit().map_err(err)?;
        if let Some(from) = imported {
            super::migrate::retire(&from).map_err(|e| e.to_string())?;
        }
        Ok(IdStore {
            conn: Mutex::new(conn),
            path,
        })
    }

    /// Refuses `<dir>/message-ids.sqlite3` when it exists and is not a
    /// readable database, as [`IdStore::open`] does, without taking the
    /// store: a process keeps the store it opened first, and a later start
    /// over another file still checks that one.
    pub fn check(dir: &Path) -> Result<(), String> {
        let path = dir.join(STORE_FILE);
        if !path.exists() {
            return Ok(());
        }
        db::open(&path, Store::Ids)
            .map(drop)
            .map_err(|e| e.to_string())
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> String + '_ {
        |e| sqlite_err(Store::Ids, &self.path, e).to_string()
    }

    /// The text stored for `id`, if any.
    pub fn get(&self, id: i64) -> Result<Option<String>, String> {
        let conn = self.conn.lock();
        conn.prepare_cached("SELECT text FROM message_ids WHERE id = ?1")
            .and_then(|mut s| s.query_row([id], |r| r.get(0)).optional())
            .map_err(self.err())
    }

    /// Stores mappings, in one transaction; an id already stored keeps
    /// its text (the first text minted to an id keeps it).
    pub fn put(&self, entries: &[(i64, String)]) -> Result<(), String> {
        let mut conn = self.conn.lock();
        let tx = conn.transaction().map_err(self.err())?;
        {
            let mut insert = tx
                .prepare_cached("INSERT OR IGNORE INTO message_ids (id, text) VALUES (?1, ?2)")
                .map_err(self.err())?;
            for (id, text) in entries {
                insert.execute(params![id, text]).map_err(self.err())?;
            }
        }
        tx.commit().map_err(self.err())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_keeps_mappings_across_opens() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (-(1i64 << 40), -(1i64 << 41));
        let store = IdStore::open(dir.path()).unwrap();
        store.put(&[(a, "a".into()), (b, "b".into())]).unwrap();
        drop(store);
        let again = IdStore::open(dir.path()).unwrap();
        assert_eq!(again.get(a).unwrap().as_deref(), Some("a"));
        assert_eq!(again.get(b).unwrap().as_deref(), Some("b"));
        assert_eq!(again.get(-(1i64 << 42)).unwrap(), None);
    }

    #[test]
    fn an_id_stored_keeps_its_first_text() {
        let dir = tempfile::tempdir().unwrap();
        let id = -(1i64 << 40);
        let store = IdStore::open(dir.path()).unwrap();
        store.put(&[(id, "first".into())]).unwrap();
        store
            .put(&[(id, "second".into()), (id - 1, "other".into())])
            .unwrap();
        assert_eq!(store.get(id).unwrap().as_deref(), Some("first"));
        assert_eq!(store.get(id - 1).unwrap().as_deref(), Some("other"));
    }

    #[test]
    fn a_file_that_is_not_a_store_is_refused_with_its_path_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(STORE_FILE);
        let junk = b"not a database".repeat(64);
        std::fs::write(&file, &junk).unwrap();
        let err = IdStore::open(dir.path()).unwrap_err();
        assert!(err.contains(&file.display().to_string()), "{err}");
        assert!(err.contains(".broken"), "{err}");
        assert_eq!(std::fs::read(&file).unwrap(), junk);
    }
}
