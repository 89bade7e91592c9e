//! The OneBot adapter's message-id store: `onebot-ids.redb` under the data
//! directory, the way back from the numbers the adapter gave the peer's
//! non-numeric message ids to their text (mapped id → text, table
//! `message_ids`). Its calls block.
//!
//! A file that cannot be opened as this store is never deleted or
//! overwritten: the error names it and what the operator can do.

use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use onebot_gateway_domain::store::private_file_options;

/// File name of the store inside the data directory.
pub const STORE_FILE: &str = "onebot-ids.redb";

/// Mapped id → the peer's text.
const TABLE: TableDefinition<'_, i64, &str> = TableDefinition::new("message_ids");

/// The durable store of mapped message ids.
pub struct IdStore {
    db: Database,
}

impl std::fmt::Debug for IdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdStore")
    }
}

impl IdStore {
    /// Opens (or creates) `<dir>/onebot-ids.redb`.
    pub fn open(dir: &Path) -> Result<IdStore, String> {
        let path = dir.join(STORE_FILE);
        // Created owner-only (0600) before redb opens it, as every store.
        match private_file_options()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("creating the store file {}: {e}", path.display())),
        }
        let db = Database::create(&path).map_err(|e| {
            let p = path.display();
            format!(
                "the store file {p} cannot be opened as a message id store ({e}). If it is corrupted or truncated, \
                 the gateway left it untouched: restore it from a backup, or move it aside (`mv {p} {p}.broken`; \
                 the peer's non-numeric message ids seen before can then no longer be quoted or fetched by their number)"
            )
        })?;
        let txn = db.begin_write().map_err(|e| e.to_string())?;
        txn.open_table(TABLE).map_err(|e| e.to_string())?;
        txn.commit().map_err(|e| e.to_string())?;
        Ok(IdStore { db })
    }

    /// Every mapping stored.
    pub fn load(&self) -> Result<Vec<(i64, String)>, String> {
        let txn = self.db.begin_read().map_err(|e| e.to_string())?;
        let table = txn.open_table(TABLE).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        for entry in table.iter().map_err(|e| e.to_string())? {
            let (k, v) = entry.map_err(|e| e.to_string())?;
            out.push((k.value(), v.value().to_owned()));
        }
        Ok(out)
    }

    /// Stores mappings, in one transaction.
    pub fn put(&self, entries: &[(i64, String)]) -> Result<(), String> {
        let txn = self.db.begin_write().map_err(|e| e.to_string())?;
        {
            let mut table = txn.open_table(TABLE).map_err(|e| e.to_string())?;
            for (id, text) in entries {
                table
                    .insert(*id, text.as_str())
                    .map_err(|e| e.to_string())?;
            }
        }
        txn.commit().map_err(|e| e.to_string())
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
        let mut got = again.load().unwrap();
        got.sort();
        assert_eq!(got, vec![(b, "b".to_string()), (a, "a".to_string())]);
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
