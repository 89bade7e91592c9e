//! The journal's embedded store: `journal.sqlite3` in the data directory.
//!
//! SQLite in WAL mode with `synchronous = NORMAL`: a commit is in the
//! write-ahead log before `append` returns, so it survives the process being
//! killed (`kill -9`) at any point; only a power loss can take the last
//! commits. One table of entries (events carry their account's sequence
//! number), and the archive's checkpoint.
//!
//! The write-ahead log is copied back into the database (checkpointed, with
//! its fsync) by a thread of its own, never by the commit that delivers
//! events, so a slow disk does not hold up the event stream.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use super::codec::{decode_event, decode_message, encode_event, encode_message};
use crate::domain::journal::{
    EventJournal, JournalEntry, JournalPage, JournalState, Journaled, READ_BYTES, StoredEvent,
};
use crate::error::{Error, Kind, Result};

/// File name of the journal inside the data directory.
pub const JOURNAL_FILE: &str = "journal.sqlite3";

const KIND_EVENT: i64 = 1;
const KIND_SENT: i64 = 2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS journal (
    id INTEGER PRIMARY KEY,
    account TEXT NOT NULL,
    seq INTEGER,
    received_ms INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    body BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_events ON journal(account, seq) WHERE seq IS NOT NULL;
CREATE INDEX IF NOT EXISTS journal_sent ON journal(id) WHERE seq IS NULL;
CREATE TABLE IF NOT EXISTS journal_meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
";

/// The entries after `?1`, oldest first; the caller stops after the page
/// it wants. No `LIMIT ?`: SQLite (built with STAT4) re-prepares a statement
/// whenever the value bound to its LIMIT changes, and a cached statement's
/// bindings are cleared after every use, so it would be compiled again on
/// every read.
const READ_AFTER: &str = "SELECT id, account, seq, received_ms, kind, body FROM journal \
                          WHERE id > ?1 ORDER BY id";

/// Time between two checkpoints of the write-ahead log.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

/// The journal in an SQLite file.
pub struct SqliteJournal {
    path: PathBuf,
    write: Mutex<Connection>,
    read: Mutex<Connection>,
    /// Ends the checkpoint thread.
    closed: Arc<AtomicBool>,
}

impl Drop for SqliteJournal {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
    }
}

/// Checkpoints the write-ahead log of `path` until `closed`; passive: it
/// never waits for the writer, and the writer never waits for it.
fn checkpointer(path: PathBuf, closed: Arc<AtomicBool>) {
    let conn = match connect(&path) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(journal = %path.display(), error = %e, "the journal's checkpoints cannot run; SQLite checkpoints on commit instead");
            return;
        }
    };
    while !closed.load(Ordering::Acquire) {
        std::thread::sleep(CHECKPOINT_EVERY);
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::debug!(journal = %path.display(), error = %e, "journal checkpoint failed");
        }
    }
}

impl std::fmt::Debug for SqliteJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteJournal")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn db_err(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| sqlite_err("journal", path, e)
}

/// Maps an SQLite error of the file at `path` (`what`: which store): the
/// disk full, read-only or failing to `StorageFailed`, anything else to an
/// internal error; both name the file (metadata `path`).
pub(super) fn sqlite_err(what: &str, path: &Path, e: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode as C;
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
            lost_with(what)
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

/// What is lost when the SQLite store `what` is moved aside.
pub(super) fn lost_with(what: &str) -> &'static str {
    match what {
        "journal" => {
            "events not yet archived are lost, and event streams cannot resume from before the new start"
        }
        _ => "the archived messages (history and search from the archive) are lost",
    }
}

/// Opens an SQLite connection in WAL mode with the settings both embedded
/// stores use.
pub(super) fn connect(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(5))?;
    let mode: String =
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "journal_mode stays {mode}"
        )));
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(conn)
}

impl SqliteJournal {
    /// Opens (or creates) `<data_dir>/journal.sqlite3`.
    pub fn open(data_dir: &Path) -> Result<Self> {
        let path = data_dir.join(JOURNAL_FILE);
        // SQLite takes an empty file for an empty database.
        crate::domain::store::refuse_empty(&path, lost_with("journal"))?;
        crate::domain::store::create_private_file(&path)?;
        let (write, read) = {
            let err = db_err(&path);
            let write = connect(&path).map_err(&err)?;
            write.execute_batch(SCHEMA).map_err(&err)?;
            // Checkpoints run on their own thread (below), not in commits.
            write
                .pragma_update(None, "wal_autocheckpoint", 0)
                .map_err(&err)?;
            (write, connect(&path).map_err(&err)?)
        };
        let closed = Arc::new(AtomicBool::new(false));
        {
            let (path, closed) = (path.clone(), closed.clone());
            std::thread::Builder::new()
                .name("journal-checkpoint".into())
                .spawn(move || checkpointer(path, closed))
                .map_err(|e| Error::internal(format!("starting the journal's checkpoints: {e}")))?;
        }
        Ok(Self {
            write: Mutex::new(write),
            read: Mutex::new(read),
            path,
            closed,
        })
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> Error + '_ {
        db_err(&self.path)
    }
}

fn lock(m: &Mutex<Connection>) -> std::sync::MutexGuard<'_, Connection> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn decode_row(
    id: i64,
    account: String,
    seq: Option<i64>,
    received_ms: i64,
    kind: i64,
    body: &[u8],
) -> Result<JournalEntry> {
    let account_id: std::sync::Arc<str> = std::sync::Arc::from(account);
    match (kind, seq) {
        (KIND_EVENT, Some(seq)) => Ok(JournalEntry::Event(StoredEvent::new(
            account_id,
            seq as u64,
            received_ms,
            std::sync::Arc::new(decode_event(body)?),
        ))),
        (KIND_SENT, _) => Ok(JournalEntry::Sent {
            account_id,
            message: Box::new(decode_message(body)?),
        }),
        _ => Err(Error::internal(format!(
            "journal entry {id} has an unknown kind {kind}"
        ))),
    }
}

impl EventJournal for SqliteJournal {
    fn open(&self, keep_per_account: usize, max_bytes_per_account: usize) -> Result<JournalState> {
        let conn = lock(&self.read);
        let err = self.err();
        let last_id: i64 = conn
            .query_row("SELECT coalesce(max(id), 0) FROM journal", [], |r| r.get(0))
            .map_err(&err)?;
        let checkpoint: i64 = conn
            .query_row(
                "SELECT value FROM journal_meta WHERE key = 'checkpoint'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(&err)?
            .unwrap_or(0);
        let mut state = JournalState {
            // Trims may have taken the newest entries (ones the archive took);
            // new ids still go past everything the checkpoint covers.
            last_id: last_id.max(checkpoint) as u64,
            checkpoint: checkpoint as u64,
            ..JournalState::default()
        };
        let accounts: Vec<(String, i64)> = conn
            .prepare("SELECT account, max(seq) FROM journal WHERE seq IS NOT NULL GROUP BY account")
            .map_err(&err)?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(&err)?
            .collect::<rusqlite::Result<_>>()
            .map_err(&err)?;
        let mut recent = conn
            .prepare(
                "SELECT id, seq, received_ms, body FROM journal \
                 WHERE account = ?1 AND seq IS NOT NULL ORDER BY seq DESC LIMIT ?2",
            )
            .map_err(&err)?;
        for (account, last) in accounts {
            state.last_sequences.insert(account.clone(), last as u64);
            let rows = recent
                .query_map(params![account, keep_per_account as i64], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, Vec<u8>>(3)?))
                })
                .map_err(&err)?;
            // Newest first, one row at a time, until the byte bound.
            let mut newest_first = Vec::new();
            let mut bytes = 0usize;
            for row in rows {
                let (id, seq, received_ms, body) = row.map_err(&err)?;
                match decode_row(
                    id,
                    account.clone(),
                    Some(seq),
                    received_ms,
                    KIND_EVENT,
                    &body,
                ) {
                    Ok(JournalEntry::Event(e)) => {
                        bytes = bytes.saturating_add(e.footprint());
                        if bytes > max_bytes_per_account && !newest_first.is_empty() {
                            break;
                        }
                        newest_first.push(e);
                    }
                    Ok(JournalEntry::Sent { .. }) => {}
                    Err(e) => {
                        tracing::warn!(journal = %self.path.display(), id, error = %e, "a journal entry cannot be read; it is left out of the resume buffer")
                    }
                }
            }
            state.recent.extend(newest_first.into_iter().rev());
        }
        Ok(state)
    }

    fn append(&self, entries: &[Journaled], checkpoint: Option<u64>) -> Result<()> {
        let mut conn = lock(&self.write);
        let err = self.err();
        let tx = conn.transaction().map_err(&err)?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO journal (id, account, seq, received_ms, kind, body) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(&err)?;
            for j in entries {
                let (seq, received_ms, kind, body) = match &j.entry {
                    JournalEntry::Event(e) => (
                        Some(e.sequence as i64),
                        e.received_ms,
                        KIND_EVENT,
                        encode_event(&e.event),
                    ),
                    JournalEntry::Sent { message, .. } => (
                        None,
                        jiff::Timestamp::now().as_millisecond(),
                        KIND_SENT,
                        encode_message(message),
                    ),
                };
                insert
                    .execute(params![
                        j.id as i64,
                        j.entry.account_id(),
                        seq,
                        received_ms,
                        kind,
                        body
                    ])
                    .map_err(&err)?;
            }
            if let Some(c) = checkpoint {
                tx.prepare_cached(
                    "INSERT INTO journal_meta (key, value) VALUES ('checkpoint', ?1) \
                     ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)",
                )
                .map_err(&err)?
                .execute(params![c as i64])
                .map_err(&err)?;
            }
        }
        tx.commit().map_err(&err)
    }

    fn read_after(&self, after_id: u64, limit: usize) -> Result<JournalPage> {
        let conn = lock(&self.read);
        let err = self.err();
        let mut stmt = conn.prepare_cached(READ_AFTER).map_err(&err)?;
        let rows = stmt
            .query_map(params![after_id as i64], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, Vec<u8>>(5)?,
                ))
            })
            .map_err(&err)?;
        let mut page = JournalPage::default();
        let mut bytes = 0usize;
        for row in rows.take(limit) {
            if bytes >= READ_BYTES {
                break;
            }
            let (id, account, seq, received_ms, kind, body) = row.map_err(&err)?;
            bytes = bytes.saturating_add(body.len());
            page.last_id = Some(id as u64);
            match decode_row(id, account, seq, received_ms, kind, &body) {
                Ok(entry) => page.entries.push(Journaled {
                    id: id as u64,
                    entry,
                }),
                Err(e) => {
                    tracing::warn!(journal = %self.path.display(), id, error = %e, "a journal entry cannot be read; the archive skips it");
                }
            }
        }
        Ok(page)
    }

    fn trim(&self, keep_per_account: usize, checkpoint: u64) -> Result<u64> {
        let mut conn = lock(&self.write);
        let err = self.err();
        let tx = conn.transaction().map_err(&err)?;
        let lasts: Vec<(String, i64)> = tx
            .prepare_cached(
                "SELECT account, max(seq) FROM journal WHERE seq IS NOT NULL GROUP BY account",
            )
            .map_err(&err)?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(&err)?
            .collect::<rusqlite::Result<_>>()
            .map_err(&err)?;
        let mut deleted = 0;
        for (account, last) in lasts {
            deleted += tx
                .prepare_cached(
                    "DELETE FROM journal WHERE account = ?1 AND seq IS NOT NULL \
                     AND seq <= ?2 AND id <= ?3",
                )
                .map_err(&err)?
                .execute(params![
                    account,
                    last - keep_per_account as i64,
                    checkpoint as i64
                ])
                .map_err(&err)?;
        }
        deleted += tx
            .prepare_cached("DELETE FROM journal WHERE seq IS NULL AND id <= ?1")
            .map_err(&err)?
            .execute(params![checkpoint as i64])
            .map_err(&err)?;
        tx.commit().map_err(&err)?;
        Ok(deleted as u64)
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
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
            let e = sqlite_err("journal", path, failure(code));
            assert_eq!(e.kind, Kind::StorageFailed, "{e}");
            assert!(e.message.contains("/data/journal.sqlite3"), "{e}");
            assert_eq!(
                e.metadata.get("path").map(String::as_str),
                Some("/data/journal.sqlite3")
            );
        }
        let e = sqlite_err("archive", path, failure(rusqlite::ffi::SQLITE_CORRUPT));
        assert_eq!(e.kind, Kind::Internal);
        assert!(e.message.contains("/data/journal.sqlite3"), "{e}");
    }

    #[test]
    fn reading_after_each_append_pages_in_order_without_recompiling() {
        let dir = tempfile::tempdir().unwrap();
        let journal = SqliteJournal::open(dir.path()).unwrap();
        let event = |id: u64| Journaled {
            id,
            entry: JournalEntry::Event(StoredEvent::new(
                Arc::from("a"),
                id,
                0,
                Arc::new(crate::domain::model::InboundEvent::Poke {
                    group_id: 1,
                    user_id: 2,
                    target_id: 3,
                    time: id as i64,
                }),
            )),
        };
        for id in 1..=20 {
            journal.append(&[event(id)], None).unwrap();
            let page = journal.read_after(id - 1, 64).unwrap();
            assert_eq!(page.last_id, Some(id));
            assert_eq!(page.entries.len(), 1);
        }
        // A page stops at its limit, oldest first.
        let page = journal.read_after(5, 3).unwrap();
        let ids: Vec<u64> = page.entries.iter().map(|j| j.id).collect();
        assert_eq!(ids, [6, 7, 8]);
        assert_eq!(page.last_id, Some(8));
        // The cached statement was compiled once, not once per read.
        let conn = lock(&journal.read);
        let stmt = conn.prepare_cached(READ_AFTER).unwrap();
        assert_eq!(stmt.get_status(rusqlite::StatementStatus::RePrepare), 0);
        assert_eq!(stmt.get_status(rusqlite::StatementStatus::Run), 21);
    }

    fn message(id: i64) -> crate::domain::model::Message {
        use crate::domain::model::{ChatRef, Message, RawJson, Segment, Sender};
        Message {
            message_id: id,
            message_seq: Some(id + 100),
            peer_seq: None,
            time: 1_700_000_000 + id,
            sender: Sender {
                user_id: 20,
                nickname: "昵称".into(),
                card: "群名片".into(),
                role: "admin".into(),
            },
            segments: vec![
                Segment::At {
                    user_id: Some(10),
                    all: false,
                    name: Some("机器人".into()),
                },
                Segment::Text(format!(" 第{id}条")),
            ],
            chat: ChatRef::Group(30),
            raw: RawJson::from_text(format!("{{\"message_id\":{id}}}")),
        }
    }

    /// A group message event of account `a`, numbered `id`.
    fn event(id: i64) -> StoredEvent {
        let event = crate::domain::model::InboundEvent::Message {
            message: message(id),
            self_sent: false,
        };
        StoredEvent::new(Arc::from("a"), id as u64, 0, Arc::new(event))
    }

    /// The journal's writer over `store`, as it was left.
    fn start(
        store: Arc<dyn EventJournal>,
        archived: bool,
        checkpoint_delay: Duration,
    ) -> crate::domain::journal::Journal {
        use crate::domain::journal::{Journal, JournalOptions};
        let state = store.open(64, usize::MAX).unwrap();
        let options = JournalOptions {
            keep_per_account: 64,
            archived,
            checkpoint_delay,
        };
        let stop = tokio_util::sync::CancellationToken::new();
        Journal::start(store, &state, options, Box::new(|_| {}), stop).unwrap()
    }

    /// Starts the journal over `dir`, submits `events` message events and
    /// one sent message, and returns once all of them are committed.
    fn committed(
        dir: &Path,
        archived: bool,
        events: i64,
    ) -> (crate::domain::journal::Journal, Arc<SqliteJournal>) {
        let store = Arc::new(SqliteJournal::open(dir).unwrap());
        let journal = start(
            store.clone(),
            archived,
            crate::domain::journal::CHECKPOINT_DELAY,
        );
        let first = journal.last_committed() as i64 + 1;
        for id in first..first + events {
            journal.submit_event(event(id));
        }
        // Resolved once committed, with every entry submitted before it.
        journal
            .submit_sent(Arc::from("a"), message(0))
            .blocking_recv()
            .unwrap();
        (journal, store)
    }

    fn same_entries(handed: &JournalPage, read: &JournalPage) {
        assert_eq!(handed.last_id, read.last_id);
        assert_eq!(handed.entries.len(), read.entries.len());
        for (h, r) in handed.entries.iter().zip(&read.entries) {
            assert_eq!(h.id, r.id);
            match (&h.entry, &r.entry) {
                (JournalEntry::Event(h), JournalEntry::Event(r)) => {
                    assert_eq!((&h.account_id, h.sequence), (&r.account_id, r.sequence));
                    assert_eq!(*h.event, *r.event);
                }
                (
                    JournalEntry::Sent {
                        account_id: ha,
                        message: hm,
                    },
                    JournalEntry::Sent {
                        account_id: ra,
                        message: rm,
                    },
                ) => assert_eq!((ha, hm), (ra, rm)),
                (h, r) => panic!("entry {}: handed {h:?}, read {r:?}", r.account_id()),
            }
        }
    }

    #[test]
    fn the_archive_takes_what_was_just_committed_as_the_journal_would_read_it() {
        let dir = tempfile::tempdir().unwrap();
        let (journal, store) = committed(dir.path(), true, 9);
        // Ids 1..=9 are the events, 10 the sent message.
        let first = journal.take_committed(0, 4).unwrap();
        same_entries(&first, &store.read_after(0, 4).unwrap());
        assert_eq!(first.last_id, Some(4));
        let rest = journal.take_committed(4, 100).unwrap();
        same_entries(&rest, &store.read_after(4, 100).unwrap());
        assert_eq!(rest.last_id, Some(10));
        // Nothing committed after the last one: an empty page, as a read.
        let none = journal.take_committed(10, 100).unwrap();
        assert!(none.entries.is_empty() && none.last_id.is_none());
        // What was taken is gone from memory: the reader reads the journal.
        assert!(journal.take_committed(2, 100).is_none());
    }

    #[test]
    fn a_reader_that_fell_behind_the_handoff_reads_the_journal_then_catches_up() {
        use crate::domain::journal::HANDOFF_CAP;
        let dir = tempfile::tempdir().unwrap();
        let events = HANDOFF_CAP as i64 + 10;
        let (journal, store) = committed(dir.path(), true, events);
        let last = events as u64 + 1;
        // The oldest entries were dropped from memory.
        assert!(journal.take_committed(0, 1024).is_none());
        let dropped = last - HANDOFF_CAP as u64;
        assert!(journal.take_committed(dropped - 1, 1024).is_none());
        let page = journal.take_committed(dropped, 8).unwrap();
        same_entries(&page, &store.read_after(dropped, 8).unwrap());
        assert_eq!(page.entries[0].id, dropped + 1);
    }

    #[test]
    fn entries_committed_before_a_restart_or_without_an_archive_are_read_from_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let (journal, _) = committed(dir.path(), false, 3);
        assert!(journal.take_committed(0, 100).is_none());
        drop(journal);
        let (journal, store) = committed(dir.path(), true, 2);
        // Ids 1..=4 were committed by the first start, 5..=7 by this one.
        assert!(journal.take_committed(0, 100).is_none());
        assert!(journal.take_committed(3, 100).is_none());
        let page = journal.take_committed(4, 100).unwrap();
        same_entries(&page, &store.read_after(4, 100).unwrap());
        assert_eq!(page.last_id, Some(7));
    }

    /// The journal's store, telling each append's entry count and checkpoint.
    struct Recording(SqliteJournal, std::sync::mpsc::Sender<(usize, Option<u64>)>);

    impl EventJournal for Recording {
        fn open(&self, keep_per_account: usize, max_bytes: usize) -> Result<JournalState> {
            self.0.open(keep_per_account, max_bytes)
        }
        fn append(&self, entries: &[Journaled], checkpoint: Option<u64>) -> Result<()> {
            self.0.append(entries, checkpoint)?;
            let _ = self.1.send((entries.len(), checkpoint));
            Ok(())
        }
        fn read_after(&self, after_id: u64, limit: usize) -> Result<JournalPage> {
            self.0.read_after(after_id, limit)
        }
        fn trim(&self, keep_per_account: usize, checkpoint: u64) -> Result<u64> {
            self.0.trim(keep_per_account, checkpoint)
        }
        fn describe(&self) -> String {
            self.0.describe()
        }
    }

    /// A journal over a [`Recording`] store in `dir`, and what it records.
    fn recorded(
        dir: &Path,
        checkpoint_delay: Duration,
    ) -> (
        crate::domain::journal::Journal,
        std::sync::mpsc::Receiver<(usize, Option<u64>)>,
    ) {
        let (tx, appends) = std::sync::mpsc::channel();
        let store = Arc::new(Recording(SqliteJournal::open(dir).unwrap(), tx));
        (start(store, true, checkpoint_delay), appends)
    }

    #[test]
    fn the_archives_checkpoint_rides_with_the_next_entries_instead_of_a_commit_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        // Longer than any test runs: a checkpoint is never stored alone.
        let (journal, appends) = recorded(dir.path(), Duration::from_secs(3600));
        journal.submit_event(event(1));
        assert_eq!(appends.recv().unwrap(), (1, None));
        journal.checkpoint(1);
        journal.submit_event(event(2));
        assert_eq!(appends.recv().unwrap(), (1, Some(1)));
        // Stored when the journal stops, though its wait is not over.
        journal.checkpoint(2);
        drop(journal);
        assert_eq!(appends.recv().unwrap(), (0, Some(2)));
        assert!(appends.recv().is_err(), "nothing else was committed");
        let reopened = SqliteJournal::open(dir.path()).unwrap();
        assert_eq!(reopened.open(64, usize::MAX).unwrap().checkpoint, 2);
    }

    #[test]
    fn a_checkpoint_with_no_entries_after_it_is_stored_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (journal, appends) = recorded(dir.path(), Duration::ZERO);
        journal.submit_event(event(1));
        assert_eq!(appends.recv().unwrap(), (1, None));
        journal.checkpoint(1);
        assert_eq!(appends.recv().unwrap(), (0, Some(1)));
        let reopened = SqliteJournal::open(dir.path()).unwrap();
        assert_eq!(reopened.open(64, usize::MAX).unwrap().checkpoint, 1);
        drop(journal);
    }

    /// The journal's store, holding its first append until `open` says go.
    struct Gated(SqliteJournal, Mutex<std::sync::mpsc::Receiver<()>>);

    impl EventJournal for Gated {
        fn open(&self, keep_per_account: usize, max_bytes: usize) -> Result<JournalState> {
            self.0.open(keep_per_account, max_bytes)
        }
        fn append(&self, entries: &[Journaled], checkpoint: Option<u64>) -> Result<()> {
            let _ = self.1.lock().unwrap().recv();
            self.0.append(entries, checkpoint)
        }
        fn read_after(&self, after_id: u64, limit: usize) -> Result<JournalPage> {
            self.0.read_after(after_id, limit)
        }
        fn trim(&self, keep_per_account: usize, checkpoint: u64) -> Result<u64> {
            self.0.trim(keep_per_account, checkpoint)
        }
        fn describe(&self) -> String {
            self.0.describe()
        }
    }

    #[test]
    fn submitters_wait_while_the_writer_holds_its_bytes() {
        use crate::domain::journal::{JournalEntry, QUEUE_BYTES};
        let big = |sequence: u64| {
            let event = crate::domain::model::InboundEvent::Unknown {
                post_type: "notice".into(),
                group_id: None,
                time: 0,
                raw: crate::domain::model::RawJson::from_text("x".repeat(4 << 20)),
            };
            StoredEvent::new(Arc::from("a"), sequence, 0, Arc::new(event))
        };
        let size = JournalEntry::Event(big(1)).approx_bytes();
        let fit = QUEUE_BYTES / size;
        let dir = tempfile::tempdir().unwrap();
        let (open, gate) = std::sync::mpsc::channel();
        let store = Arc::new(Gated(
            SqliteJournal::open(dir.path()).unwrap(),
            Mutex::new(gate),
        ));
        let journal = start(store, false, Duration::ZERO);
        let (progress, submitted) = std::sync::mpsc::channel();
        let submitter = std::thread::spawn(move || {
            for sequence in 1..=3 * fit as u64 {
                journal.submit_event(big(sequence));
                let queued = journal.queued_bytes();
                assert!(
                    queued <= QUEUE_BYTES + size,
                    "{queued} bytes queued behind a stalled writer"
                );
                progress.send(sequence).unwrap();
            }
        });
        // The writer holds the first batch in its append; the submitter gets
        // as far as the bytes allow, then waits for room.
        for want in 1..=fit as u64 {
            assert_eq!(submitted.recv().unwrap(), want);
        }
        drop(open);
        for want in fit as u64 + 1..=3 * fit as u64 {
            assert_eq!(submitted.recv().unwrap(), want);
        }
        submitter.join().unwrap();
    }
}
