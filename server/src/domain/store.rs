//! The embedded durable store: one redb database under the data directory.
//!
//! Holds what must survive a restart or a `kill -9`: the offline send queue,
//! idempotency records and the index of staged media. Every commit is
//! durable (redb's default `Durability::Immediate` fsyncs). redb calls block,
//! so async code goes through [`Store::run`], which moves them to the
//! blocking pool.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

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
    db: Arc<Database>,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (or creates) `<data_dir>/gateway.redb` and makes sure every
    /// table exists.
    pub fn open(data_dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            Error::internal(format!("creating data directory: {e}"))
                .with("path", data_dir.display())
        })?;
        let path = data_dir.join(STORE_FILE);
        let db = Database::create(&path).map_err(|e| {
            Error::internal(format!("opening the store: {e}")).with("path", path.display())
        })?;
        let txn = db.begin_write().map_err(store_err)?;
        {
            txn.open_table(QUEUE).map_err(store_err)?;
            txn.open_table(IDEMPOTENCY).map_err(store_err)?;
            txn.open_table(MEDIA).map_err(store_err)?;
            txn.open_table(COUNTERS).map_err(store_err)?;
        }
        txn.commit().map_err(store_err)?;
        Ok(Self {
            db: Arc::new(db),
            path,
        })
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The database, for blocking code.
    pub(crate) fn db(&self) -> &Database {
        &self.db
    }

    /// Runs blocking store code on the blocking pool.
    pub async fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T> + Send + 'static,
    {
        let store = self.clone();
        tokio::task::spawn_blocking(move || f(&store))
            .await
            .map_err(|e| Error::internal(format!("store task failed: {e}")))?
    }

    /// Every staged-media record.
    pub(crate) fn all_media<T: DeserializeOwned>(&self) -> Result<Vec<(String, T)>> {
        let txn = self.db.begin_read().map_err(store_err)?;
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
        let txn = self.db.begin_write().map_err(store_err)?;
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
        let txn = self.db.begin_write().map_err(store_err)?;
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

/// Maps any redb error to an internal error.
pub(crate) fn store_err(e: impl Into<redb::Error>) -> Error {
    Error::internal(format!("store: {}", e.into()))
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
}
