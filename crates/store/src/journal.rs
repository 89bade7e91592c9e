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
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use rusqlite::{Connection, OptionalExtension, params};

use super::codec::{decode_event, decode_message, encode_event, encode_message};
use super::db::{self, Store, connect, sqlite_err};
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::journal::{
    EventJournal, JournalEntry, JournalPage, JournalState, Journaled, READ_BYTES, StoredEvent,
};

/// File name of the journal inside the data directory.
pub const JOURNAL_FILE: &str = "journal.sqlite3";

/// The kind of an inbound event's row.
pub(crate) const KIND_EVENT: i64 = 1;
/// The kind of a sent message's row.
pub(crate) const KIND_SENT: i64 = 2;

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
    /// Shared with the checkpoint thread.
    checkpoints: Arc<Checkpoints>,
}

/// What the checkpoint thread and the journal's writer share.
#[derive(Default)]
struct Checkpoints {
    /// Ends the checkpoint thread.
    closed: AtomicBool,
    /// The log holds commits no checkpoint has copied yet: an idle journal
    /// is not checkpointed.
    written: AtomicBool,
}

impl Drop for SqliteJournal {
    fn drop(&mut self) {
        self.checkpoints.closed.store(true, Ordering::Release);
    }
}

/// Checkpoints the write-ahead log of `path` until `closed`; passive: it
/// never waits for the writer, and the writer never waits for it.
fn checkpointer(path: PathBuf, checkpoints: Arc<Checkpoints>) {
    let conn = match connect(&path, Store::Journal) {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(journal = %path.display(), error = %e, "the journal's checkpoints cannot run; SQLite checkpoints on commit instead");
            return;
        }
    };
    while !checkpoints.closed.load(Ordering::Acquire) {
        std::thread::sleep(CHECKPOINT_EVERY);
        if !checkpoints.written.swap(false, Ordering::AcqRel) {
            continue;
        }
        // (busy, frames in the log, frames copied): what a passive
        // checkpoint left behind is copied by the next one.
        match conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
            Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
        }) {
            Ok((logged, copied)) if copied < logged => {
                checkpoints.written.store(true, Ordering::Release);
            }
            Ok(_) => {}
            Err(e) => {
                checkpoints.written.store(true, Ordering::Release);
                tracing::debug!(journal = %path.display(), error = %e, "journal checkpoint failed");
            }
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
    move |e| sqlite_err(Store::Journal, path, e)
}

impl SqliteJournal {
    /// Opens (or creates) `<data_dir>/journal.sqlite3`.
    pub fn open(data_dir: &Path) -> Result<Self> {
        let path = data_dir.join(JOURNAL_FILE);
        let (write, read) = {
            let err = db_err(&path);
            let write = db::open(&path, Store::Journal)?;
            write.execute_batch(SCHEMA).map_err(&err)?;
            // Checkpoints run on their own thread (below), not in commits.
            write
                .pragma_update(None, "wal_autocheckpoint", 0)
                .map_err(&err)?;
            (write, connect(&path, Store::Journal).map_err(&err)?)
        };
        let checkpoints = Arc::new(Checkpoints::default());
        {
            let (path, checkpoints) = (path.clone(), checkpoints.clone());
            std::thread::Builder::new()
                .name("journal-checkpoint".into())
                .spawn(move || checkpointer(path, checkpoints))
                .map_err(|e| Error::internal(format!("starting the journal's checkpoints: {e}")))?;
        }
        Ok(Self {
            write: Mutex::new(write),
            read: Mutex::new(read),
            path,
            checkpoints,
        })
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> Error + '_ {
        db_err(&self.path)
    }
}

/// The entry of a stored row.
pub(crate) fn decode_row(
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

/// The resume buffer of `account` from its event rows `(id, seq,
/// received_ms, body)` read newest first: decoded one at a time until
/// their footprints pass `max_bytes` (the newest is always kept; what is
/// left out is never decoded), oldest first. A row that cannot be decoded
/// is logged, naming `journal`, and left out.
pub(crate) fn resume_buffer(
    journal: &str,
    account: &str,
    rows: impl Iterator<Item = Result<(i64, i64, i64, Vec<u8>)>>,
    max_bytes: usize,
) -> Result<Vec<StoredEvent>> {
    let mut newest_first = Vec::new();
    let mut bytes = 0usize;
    for row in rows {
        let (id, seq, received_ms, body) = row?;
        match decode_row(
            id,
            account.to_owned(),
            Some(seq),
            received_ms,
            KIND_EVENT,
            &body,
        ) {
            Ok(JournalEntry::Event(e)) => {
                bytes = bytes.saturating_add(e.footprint());
                if bytes > max_bytes && !newest_first.is_empty() {
                    break;
                }
                newest_first.push(e);
            }
            Ok(JournalEntry::Sent { .. }) => {}
            Err(e) => {
                tracing::warn!(journal, account_id = %account, id, error = %e, "a journal entry cannot be read; it is left out of the resume buffer");
            }
        }
    }
    newest_first.reverse();
    Ok(newest_first)
}

/// The stored row of `entry`: its sequence number (events only), when it
/// was received, its kind and its encoded body.
pub(crate) fn encode_entry(entry: &JournalEntry) -> (Option<i64>, i64, i64, Vec<u8>) {
    match entry {
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
    }
}

impl EventJournal for SqliteJournal {
    fn open(&self, keep_per_account: usize, max_bytes_per_account: usize) -> Result<JournalState> {
        let conn = self.read.lock();
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
            let journal = self.path.display().to_string();
            let rows = rows.map(|row| row.map_err(&err));
            let recent = resume_buffer(&journal, &account, rows, max_bytes_per_account)?;
            state.recent.extend(recent);
        }
        Ok(state)
    }

    fn append(&self, entries: &[Journaled], checkpoint: Option<u64>) -> Result<()> {
        let mut conn = self.write.lock();
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
                let (seq, received_ms, kind, body) = encode_entry(&j.entry);
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
        tx.commit().map_err(&err)?;
        self.checkpoints.written.store(true, Ordering::Release);
        Ok(())
    }

    fn read_after(&self, after_id: u64, limit: usize) -> Result<JournalPage> {
        let conn = self.read.lock();
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
        let mut conn = self.write.lock();
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
        self.checkpoints.written.store(true, Ordering::Release);
        Ok(deleted as u64)
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

#[cfg(test)]
#[path = "journal_tests.rs"]
mod tests;
