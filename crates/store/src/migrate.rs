//! Imports the redb stores of older gateways into their SQLite stores:
//! `gateway.redb` into `gateway.sqlite3` ([`import_state`]) and
//! `onebot-ids.redb` into `message-ids.sqlite3` ([`import_ids`]).
//!
//! A store imports only while its SQLite database holds no table yet, in
//! the transaction that creates its tables: the import is whole or
//! nothing, and a start that fails or is killed before the commit imports
//! again on the next one. After the commit the redb file is renamed to
//! `<name>.migrated` ([`retire`]) and kept; it is never deleted. A redb
//! file that cannot be read stops the start with an error naming it; it is
//! left as it is.

use std::path::{Path, PathBuf};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition, TableError};
use rusqlite::{Transaction, params};

use onebot_gateway_domain::error::{Error, Result};

/// The redb state file of older gateways.
pub const OLD_STATE_FILE: &str = "gateway.redb";
/// The redb message-id file of older gateways.
pub const OLD_IDS_FILE: &str = "onebot-ids.redb";

/// The tables of `gateway.redb`.
const QUEUE: TableDefinition<'_, (&str, u64), &[u8]> = TableDefinition::new("queue");
const IDEMPOTENCY: TableDefinition<'_, (&str, &str), &[u8]> = TableDefinition::new("idempotency");
const MEDIA: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("media");
const COUNTERS: TableDefinition<'_, &str, u64> = TableDefinition::new("counters");
const RECEIVED: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("received_media");
const SECRETS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("received_secrets");
/// The table of `onebot-ids.redb`.
const MESSAGE_IDS: TableDefinition<'_, i64, &str> = TableDefinition::new("message_ids");

/// Copies every record of `<data_dir>/gateway.redb`, when there is one, into
/// the new state tables of `tx`; returns the file to [`retire`] once `tx`
/// is committed.
pub(crate) fn import_state(data_dir: &Path, tx: &Transaction<'_>) -> Result<Option<PathBuf>> {
    let path = data_dir.join(OLD_STATE_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let what = "the offline queue, the idempotency records and the media indexes";
    let db = open_old(&path, what)?;
    let old = |e: redb::Error| old_err(&path, what, e);
    let new = |e: rusqlite::Error| {
        Error::internal(format!(
            "importing {} into the state store: {e}",
            path.display()
        ))
    };
    let txn = db.begin_read().map_err(|e| old(e.into()))?;

    let mut counts = [0usize; 6];
    if let Some(table) = table(&txn, QUEUE).map_err(old)? {
        let mut insert = tx
            .prepare("INSERT INTO queue (account, seq, value) VALUES (?1, ?2, ?3)")
            .map_err(new)?;
        for row in table.iter().map_err(|e| old(e.into()))? {
            let (k, v) = row.map_err(|e| old(e.into()))?;
            let (account, seq) = k.value();
            insert
                .execute(params![account, seq as i64, v.value()])
                .map_err(new)?;
            counts[0] += 1;
        }
    }
    if let Some(table) = table(&txn, IDEMPOTENCY).map_err(old)? {
        let mut insert = tx
            .prepare("INSERT INTO idempotency (account, key, value) VALUES (?1, ?2, ?3)")
            .map_err(new)?;
        for row in table.iter().map_err(|e| old(e.into()))? {
            let (k, v) = row.map_err(|e| old(e.into()))?;
            let (account, key) = k.value();
            insert
                .execute(params![account, key, v.value()])
                .map_err(new)?;
            counts[1] += 1;
        }
    }
    let by_text = [
        (MEDIA, "INSERT INTO media (id, value) VALUES (?1, ?2)"),
        (
            RECEIVED,
            "INSERT INTO received_media (key, value) VALUES (?1, ?2)",
        ),
        (
            SECRETS,
            "INSERT INTO received_secrets (name, value) VALUES (?1, ?2)",
        ),
    ];
    for (i, (definition, sql)) in by_text.into_iter().enumerate() {
        if let Some(table) = table(&txn, definition).map_err(old)? {
            let mut insert = tx.prepare(sql).map_err(new)?;
            for row in table.iter().map_err(|e| old(e.into()))? {
                let (k, v) = row.map_err(|e| old(e.into()))?;
                insert.execute(params![k.value(), v.value()]).map_err(new)?;
                counts[2 + i] += 1;
            }
        }
    }
    if let Some(table) = table(&txn, COUNTERS).map_err(old)? {
        let mut insert = tx
            .prepare("INSERT INTO counters (name, value) VALUES (?1, ?2)")
            .map_err(new)?;
        for row in table.iter().map_err(|e| old(e.into()))? {
            let (k, v) = row.map_err(|e| old(e.into()))?;
            insert
                .execute(params![k.value(), v.value() as i64])
                .map_err(new)?;
            counts[5] += 1;
        }
    }
    let [queue, idempotency, media, received, secrets, counters] = counts;
    tracing::info!(
        from = %path.display(),
        queue,
        idempotency,
        media,
        received,
        secrets,
        counters,
        "imported the state of an older gateway"
    );
    Ok(Some(path))
}

/// Copies every mapping of `<dir>/onebot-ids.redb`, when there is one,
/// into the new `message_ids` table of `tx`; returns the file to
/// [`retire`] once `tx` is committed.
pub(crate) fn import_ids(dir: &Path, tx: &Transaction<'_>) -> Result<Option<PathBuf>> {
    let path = dir.join(OLD_IDS_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let what = "the mapped message ids";
    let db = open_old(&path, what)?;
    let old = |e: redb::Error| old_err(&path, what, e);
    let txn = db.begin_read().map_err(|e| old(e.into()))?;
    let mut count = 0usize;
    if let Some(table) = table(&txn, MESSAGE_IDS).map_err(old)? {
        let mut insert = tx
            .prepare("INSERT INTO message_ids (id, text) VALUES (?1, ?2)")
            .map_err(|e| Error::internal(format!("importing {}: {e}", path.display())))?;
        for row in table.iter().map_err(|e| old(e.into()))? {
            let (k, v) = row.map_err(|e| old(e.into()))?;
            insert
                .execute(params![k.value(), v.value()])
                .map_err(|e| Error::internal(format!("importing {}: {e}", path.display())))?;
            count += 1;
        }
    }
    tracing::info!(from = %path.display(), message_ids = count, "imported the message ids of an older gateway");
    Ok(Some(path))
}

/// Renames an imported redb file to `<name>.migrated`.
pub(crate) fn retire(path: &Path) -> Result<()> {
    let mut to = path.as_os_str().to_owned();
    to.push(".migrated");
    std::fs::rename(path, &to).map_err(|e| {
        Error::internal(format!(
            "renaming the imported file {} to {}: {e}; its records are in the new store, \
             move it aside by hand",
            path.display(),
            PathBuf::from(&to).display()
        ))
        .with("path", path.display())
    })?;
    tracing::info!(from = %path.display(), to = %PathBuf::from(&to).display(), "the imported file is kept under a new name");
    Ok(())
}

fn open_old(path: &Path, what: &str) -> Result<Database> {
    Database::builder()
        .set_check_integrity_on_open(true)
        .open(path)
        .map_err(|e| old_err(path, what, e.into()))
}

/// The table `definition` of `txn`; `None` when the file never had it.
fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
    txn: &redb::ReadTransaction,
    definition: TableDefinition<'_, K, V>,
) -> std::result::Result<Option<redb::ReadOnlyTable<K, V>>, redb::Error> {
    match txn.open_table(definition) {
        Ok(t) => Ok(Some(t)),
        Err(TableError::TableDoesNotExist(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn old_err(path: &Path, what: &str, e: redb::Error) -> Error {
    let p = path.display();
    Error::internal(format!(
        "the store file {p} of an older gateway cannot be read to import {what} ({e}). \
         The gateway left it untouched and starts only once it is imported or gone: stop any other gateway using it, \
         restore it from a backup, or move it aside (`mv {p} {p}.broken`; what it held is then not used)"
    ))
    .with("path", p)
}

#[cfg(test)]
mod tests {
    use redb::{Database, TableDefinition};

    use crate::ids::IdStore;
    use crate::state::StateStore;
    use onebot_gateway_domain::store::{IdempotencyStore, MediaIndex, QueueStore, ReceivedIndex};

    /// `gateway.redb` as the redb state store wrote it: one table per
    /// record kind, JSON values.
    fn write_old_state(path: &std::path::Path) {
        const QUEUE: TableDefinition<'_, (&str, u64), &[u8]> = TableDefinition::new("queue");
        const IDEMPOTENCY: TableDefinition<'_, (&str, &str), &[u8]> =
            TableDefinition::new("idempotency");
        const MEDIA: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("media");
        const COUNTERS: TableDefinition<'_, &str, u64> = TableDefinition::new("counters");
        const RECEIVED: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("received_media");
        const SECRETS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("received_secrets");
        let db = Database::create(path).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut queue = txn.open_table(QUEUE).unwrap();
            queue.insert(("a", 7), br#"{"t":"a7"}"#.as_slice()).unwrap();
            queue.insert(("a", 9), br#"{"t":"a9"}"#.as_slice()).unwrap();
            queue.insert(("b", 8), br#"{"t":"b8"}"#.as_slice()).unwrap();
            let mut idem = txn.open_table(IDEMPOTENCY).unwrap();
            idem.insert(("a", "k1"), br#"{"r":1}"#.as_slice()).unwrap();
            idem.insert(("b", "k2"), br#"{"r":2}"#.as_slice()).unwrap();
            let mut media = txn.open_table(MEDIA).unwrap();
            media.insert("m1", br#"{"m":1}"#.as_slice()).unwrap();
            let mut counters = txn.open_table(COUNTERS).unwrap();
            counters.insert("queue_seq", 9).unwrap();
            let mut received = txn.open_table(RECEIVED).unwrap();
            received
                .insert("a\0r1", br#"{"r":"r1"}"#.as_slice())
                .unwrap();
            let mut secrets = txn.open_table(SECRETS).unwrap();
            secrets
                .insert("media_id_key", [5u8; 32].as_slice())
                .unwrap();
        }
        txn.commit().unwrap();
    }

    fn write_old_ids(path: &std::path::Path, entries: &[(i64, &str)]) {
        const IDS: TableDefinition<'_, i64, &str> = TableDefinition::new("message_ids");
        let db = Database::create(path).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut table = txn.open_table(IDS).unwrap();
            for (id, text) in entries {
                table.insert(*id, *text).unwrap();
            }
        }
        txn.commit().unwrap();
    }

    #[test]
    fn the_first_start_imports_every_redb_record_and_keeps_the_old_files_renamed() {
        let dir = tempfile::tempdir().unwrap();
        write_old_state(&dir.path().join("gateway.redb"));
        let ids = [(-(1i64 << 40), "peer-a"), (-(1i64 << 41), "peer-b")];
        write_old_ids(&dir.path().join("onebot-ids.redb"), &ids);

        let store = StateStore::open(dir.path()).unwrap();
        assert_eq!(
            QueueStore::depths(&store).unwrap(),
            [("a".to_string(), 2), ("b".to_string(), 1)]
        );
        assert_eq!(
            QueueStore::list(&store, "a").unwrap(),
            [br#"{"t":"a7"}"#.to_vec(), br#"{"t":"a9"}"#.to_vec()]
        );
        assert_eq!(
            IdempotencyStore::get(&store, "b", "k2").unwrap(),
            Some(br#"{"r":2}"#.to_vec())
        );
        assert_eq!(
            IdempotencyStore::get(&store, "a", "k1").unwrap(),
            Some(br#"{"r":1}"#.to_vec())
        );
        assert_eq!(
            MediaIndex::all(&store).unwrap(),
            [("m1".to_string(), br#"{"m":1}"#.to_vec())]
        );
        assert_eq!(
            ReceivedIndex::all(&store).unwrap(),
            [("a\0r1".to_string(), br#"{"r":"r1"}"#.to_vec())]
        );
        assert_eq!(ReceivedIndex::secret(&store, [0; 32]).unwrap(), [5; 32]);
        QueueStore::write(&store, &mut |txn| {
            assert_eq!(txn.next_seq()?, 10, "the sequence goes on from the old one");
            Ok(())
        })
        .unwrap();
        assert!(!dir.path().join("gateway.redb").exists());
        assert!(dir.path().join("gateway.redb.migrated").exists());

        let id_store = IdStore::open(dir.path()).unwrap();
        for (id, text) in ids {
            assert_eq!(id_store.get(id).unwrap().as_deref(), Some(text));
        }
        assert!(!dir.path().join("onebot-ids.redb").exists());
        assert!(dir.path().join("onebot-ids.redb.migrated").exists());

        // Later starts import nothing again.
        drop(store);
        drop(id_store);
        let store = StateStore::open(dir.path()).unwrap();
        assert_eq!(QueueStore::list(&store, "a").unwrap().len(), 2);
    }

    #[test]
    fn an_unreadable_redb_file_stops_the_start_untouched_and_imports_once_readable() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("gateway.redb");
        let junk = b"not a redb file".repeat(300);
        std::fs::write(&old, &junk).unwrap();
        let err = StateStore::open(dir.path()).unwrap_err();
        assert!(err.message.contains(&old.display().to_string()), "{err}");
        assert!(err.message.contains(".broken"), "{err}");
        assert_eq!(std::fs::read(&old).unwrap(), junk);

        // The failed start imported nothing and left no store that would
        // keep the next one from importing.
        std::fs::remove_file(&old).unwrap();
        write_old_state(&old);
        let store = StateStore::open(dir.path()).unwrap();
        assert_eq!(QueueStore::list(&store, "b").unwrap().len(), 1);
        assert!(dir.path().join("gateway.redb.migrated").exists());
    }
}
