//! Every SQLite file of the crate, opened one way: the journal, the
//! embedded archive, the durable state, the message ids and the
//! governance records.
//!
//! - [`open`] refuses a file that exists with zero length, creates a new
//!   one owner-only, sets the pragmas ([`connect`]) and runs
//!   `PRAGMA quick_check`: a file that is not a readable database
//!   (garbage, truncated, of another program) is refused at start with an
//!   error naming it and the remedy, and is never deleted or overwritten.
//! - [`connect`]: WAL mode, the store's `synchronous` level and a busy
//!   timeout, on every connection; the state store in SQLite's exclusive
//!   locking mode, so one data directory serves one process: a second one
//!   is refused at once, naming the file.
//! - [`sqlite_err`]: a full, read-only or failing disk is `StorageFailed`
//!   (the transaction is rolled back, what was committed stays, and the
//!   same connection goes on once space is freed); an unreadable file is
//!   an internal error with the remedy; both name the file.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension};

use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::store::{create_private_file, refuse_empty};

/// The SQLite stores of the data directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// `journal.sqlite3`.
    Journal,
    /// `archive.sqlite3`.
    Archive,
    /// `gateway.sqlite3`.
    State,
    /// `message-ids.sqlite3`.
    Ids,
    /// `governance.sqlite3`.
    Governance,
}

impl Store {
    /// How errors name the store.
    pub fn name(self) -> &'static str {
        match self {
            Store::Journal => "journal",
            Store::Archive => "archive",
            Store::State => "state store",
            Store::Ids => "message id store",
            Store::Governance => "governance store",
        }
    }

    /// What is lost when the store is moved aside.
    pub fn lost(self) -> &'static str {
        match self {
            Store::Journal => {
                "events not yet archived are lost, and event streams cannot resume from before the new start"
            }
            Store::Archive => {
                "the archived messages (history and search from the archive) are lost"
            }
            Store::State => {
                "the offline queue (texts not yet sent) and the idempotency records are lost, and staged and received media must be uploaded or received again"
            }
            Store::Ids => {
                "the way back from the numbers given to the peer's non-numeric message ids is lost: those message ids can no longer be quoted or fetched by their number"
            }
            Store::Governance => {
                "the approvals (pending ones can no longer be decided) and the audit trail are lost"
            }
        }
    }

    /// Whether the store holds its file's lock for as long as it is open
    /// (`locking_mode = EXCLUSIVE`). The state store does: the gateway opens
    /// it first, so a second process over the same data directory stops
    /// there, before it opens any other store.
    fn exclusive(self) -> bool {
        self == Store::State
    }

    /// `synchronous`: `FULL` fsyncs the write-ahead log on every commit
    /// (survives a power loss); `NORMAL` survives `kill -9`, and a power
    /// loss may take the last commits. The governance store fsyncs too: a
    /// decision acted upon must not come back undecided.
    fn synchronous(self) -> &'static str {
        match self {
            Store::State | Store::Governance => "FULL",
            Store::Journal | Store::Archive | Store::Ids => "NORMAL",
        }
    }
}

/// Opens an SQLite connection to `path` with the pragmas of `store`: WAL
/// mode, its `synchronous` level and a busy timeout.
pub(crate) fn connect(path: &Path, store: Store) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    if store.exclusive() {
        // Set before WAL mode is entered: the lock is then taken when the
        // file is first read and kept until the connection closes, and the
        // WAL index lives in memory (no -shm file). A held lock is an
        // answer, not a wait.
        conn.pragma_update(None, "locking_mode", "EXCLUSIVE")?;
        conn.busy_timeout(Duration::ZERO)?;
    } else {
        conn.busy_timeout(Duration::from_secs(5))?;
    }
    let mode: String =
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "journal_mode stays {mode}"
        )));
    }
    conn.pragma_update(None, "synchronous", store.synchronous())?;
    Ok(conn)
}

/// Opens (or creates) the store file `path` and checks that it is a
/// readable database. A zero-length file (SQLite would take it for an
/// empty database) and a file that fails `quick_check` are refused and
/// left as they are; the error names the file, what is lost and the
/// remedy.
pub(crate) fn open(path: &Path, store: Store) -> Result<Connection> {
    refuse_empty(path, store.lost())?;
    create_private_file(path)?;
    let err = |e: rusqlite::Error| {
        if store.exclusive() && e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) {
            in_use(store, path)
        } else {
            sqlite_err(store, path, e)
        }
    };
    let conn = connect(path, store).map_err(err)?;
    let problems: Vec<String> = conn
        .prepare("PRAGMA quick_check")
        .and_then(|mut s| {
            s.query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .map_err(err)?;
    if problems != ["ok"] {
        return Err(err(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            Some(format!("quick_check: {}", problems.join("; "))),
        )));
    }
    Ok(conn)
}

/// The error of a store another process (or another handle of this one)
/// holds.
fn in_use(store: Store, path: &Path) -> Error {
    let p = path.display();
    Error::new(
        Kind::StorageFailed,
        format!(
            "the {} file {p} is in use by another gateway process: one data directory serves one gateway. \
             Stop the other process, or give this one another `server.data_dir`",
            store.name()
        ),
    )
    .with("path", p)
}

/// Maps an SQLite error of the file at `path`: the disk full, read-only or
/// failing to `StorageFailed`, a file that is not a readable database to
/// an internal error with the remedy, anything else to an internal error;
/// all name the file (metadata `path`).
pub(crate) fn sqlite_err(store: Store, path: &Path, e: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode as C;
    let what = store.name();
    let disk = matches!(
        e.sqlite_error_code(),
        Some(C::DiskFull | C::SystemIoFailure | C::ReadOnly | C::CannotOpen)
    );
    let unreadable = matches!(
        e.sqlite_error_code(),
        Some(C::NotADatabase | C::DatabaseCorrupt)
    );
    let e = if unreadable {
        let p = path.display();
        Error::internal(format!(
            "the {what} file {p} is not a readable SQLite database ({e}): it is corrupted, truncated or of another program. \
             The gateway left it untouched; without it {}. Restore it from a backup, or move it aside \
             (`mv {p} {p}.broken`, with its -wal and -shm files) and start again with an empty one",
            store.lost()
        ))
    } else if disk {
        Error::new(
            Kind::StorageFailed,
            format!(
                "writing the {what} {} failed: {e}; free space in the data directory or make it writable",
                path.display()
            ),
        )
    } else {
        Error::internal(format!("{what} {}: {e}", path.display()))
    };
    e.with("path", path.display())
}

/// Applies the `migrations` the file lacks, each in its own transaction,
/// recording the version (the number of migrations applied) under the key
/// `schema` of the table `meta`. A file of a newer version (more
/// migrations than this build knows) is refused.
pub(crate) fn migrate(
    conn: &mut Connection,
    meta: &str,
    migrations: &[&str],
) -> rusqlite::Result<()> {
    let latest = migrations.len() as i64;
    conn.execute_batch(&format!(
        "CREATE TABLE IF NOT EXISTS {meta} (key TEXT PRIMARY KEY, value INTEGER NOT NULL)"
    ))?;
    let version: i64 = conn
        .query_row(
            &format!("SELECT value FROM {meta} WHERE key = 'schema'"),
            [],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(0);
    if version > latest {
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "schema version {version} is newer than this gateway's {latest}; run a newer gateway"
        )));
    }
    for (i, migration) in migrations.iter().enumerate().skip(version as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(migration)?;
        tx.execute(
            &format!(
                "INSERT INTO {meta} (key, value) VALUES ('schema', ?1) \
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value"
            ),
            [(i + 1) as i64],
        )?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: std::os::raw::c_int) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None)
    }

    #[test]
    fn a_full_or_failing_disk_is_storage_failed_naming_the_file() {
        let path = Path::new("/data/journal.sqlite3");
        for code in [
            rusqlite::ffi::SQLITE_FULL,
            rusqlite::ffi::SQLITE_IOERR,
            rusqlite::ffi::SQLITE_READONLY,
            rusqlite::ffi::SQLITE_CANTOPEN,
        ] {
            let e = sqlite_err(Store::Journal, path, failure(code));
            assert_eq!(e.kind, Kind::StorageFailed, "{e}");
            assert!(e.message.contains("/data/journal.sqlite3"), "{e}");
            assert_eq!(
                e.metadata.get("path").map(String::as_str),
                Some("/data/journal.sqlite3")
            );
        }
        let e = sqlite_err(Store::Archive, path, failure(rusqlite::ffi::SQLITE_CORRUPT));
        assert_eq!(e.kind, Kind::Internal);
        assert!(e.message.contains("/data/journal.sqlite3"), "{e}");
    }

    /// Garbage, a truncated database and a zero-length file, for every
    /// store: refused naming the file, what is lost and the remedy, and
    /// left byte for byte as they were.
    #[test]
    fn a_file_that_is_not_a_readable_database_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.sqlite3");
        {
            let conn = open(&good, Store::State).unwrap();
            conn.execute_batch(
                "CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB);
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
                 INSERT INTO t SELECT i, zeroblob(2000) FROM n;
                 CREATE INDEX t_v ON t(v);",
            )
            .unwrap();
        }
        let whole = std::fs::read(&good).unwrap();
        assert!(whole.len() > 100_000, "{}", whole.len());
        let cases: [(&str, Vec<u8>); 3] = [
            ("garbage", b"this is not a database".repeat(300)),
            ("truncated", whole[..whole.len() / 3].to_vec()),
            ("empty", Vec::new()),
        ];
        for store in [
            Store::Journal,
            Store::Archive,
            Store::State,
            Store::Ids,
            Store::Governance,
        ] {
            for (what, bytes) in &cases {
                let file = dir.path().join(format!("{store:?}-{what}.sqlite3"));
                std::fs::write(&file, bytes).unwrap();
                let err = open(&file, store).unwrap_err();
                let p = file.display().to_string();
                assert!(err.message.contains(&p), "{what}: {err}");
                assert!(err.message.contains(".broken"), "{what}: {err}");
                assert!(err.message.contains(store.lost()), "{what}: {err}");
                assert_eq!(err.meta("path"), Some(p.as_str()), "{what}");
                assert_eq!(&std::fs::read(&file).unwrap(), bytes, "{what}: untouched");
            }
        }
    }

    #[test]
    fn an_open_state_store_is_refused_to_a_second_handle_until_it_closes() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("gateway.sqlite3");
        let held = open(&file, Store::State).unwrap();
        let err = open(&file, Store::State).unwrap_err();
        assert_eq!(err.kind, Kind::StorageFailed);
        assert!(err.message.contains("another gateway process"), "{err}");
        assert!(err.message.contains(&file.display().to_string()), "{err}");
        drop(held);
        open(&file, Store::State).unwrap();
        // The other stores share their files.
        let ids = dir.path().join("message-ids.sqlite3");
        let _first = open(&ids, Store::Ids).unwrap();
        open(&ids, Store::Ids).unwrap();
    }

    #[test]
    fn the_state_and_governance_stores_fsync_every_commit_and_the_others_survive_kill() {
        let dir = tempfile::tempdir().unwrap();
        for (store, level) in [
            (Store::State, 2),
            (Store::Governance, 2),
            (Store::Ids, 1),
            (Store::Journal, 1),
            (Store::Archive, 1),
        ] {
            let conn = open(&dir.path().join(format!("{store:?}.sqlite3")), store).unwrap();
            let sync: i64 = conn
                .query_row("PRAGMA synchronous", [], |r| r.get(0))
                .unwrap();
            let mode: String = conn
                .query_row("PRAGMA journal_mode", [], |r| r.get(0))
                .unwrap();
            assert_eq!((sync, mode.as_str()), (level, "wal"), "{store:?}");
        }
    }
}
