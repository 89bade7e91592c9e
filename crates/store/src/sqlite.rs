//! The embedded archive: `archive.sqlite3` in the data directory.
//!
//! SQLite (WAL mode, `synchronous = NORMAL`: commits survive `kill -9`)
//! with one row per message, B-tree indexes for chat, time and sender, and
//! an FTS5 index over the text's character bigrams (see
//! [`onebot_gateway_domain::archive::text`]): a text query is an FTS5 phrase query,
//! so a two-character Chinese query is one index lookup, never a scan. The
//! FTS table is contentless (it stores only the index; the text is in the
//! message row) and allows deletes. Writes go through one connection, reads
//! through a small pool, each call on the blocking pool.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::{Mutex, MutexGuard};
use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, Transaction, params, params_from_iter};

use super::codec::encode_message;
use super::db::{self, Store, connect, sqlite_err};
use super::query::{Binds, Columns, filters, order};
use super::row::{StoredRow, archived, count_put, counted_bytes, message_text};
use onebot_gateway_domain::archive::store::{
    Applied, ArchiveOp, ArchiveStore, Archived, Deleted, Pruned, PurgeScope, Query, Source, Usage,
    chat_key, chat_of_key,
};
use onebot_gateway_domain::archive::text::{fold, fts_query, tokens};
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::model::{ChatRef, Message};

/// File name of the archive inside the data directory.
pub const ARCHIVE_FILE: &str = "archive.sqlite3";

/// Each migration takes the schema from the version before it to its own.
const MIGRATIONS: &[&str] = &["
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    account TEXT NOT NULL,
    chat_kind TEXT NOT NULL,
    chat_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    time INTEGER NOT NULL,
    sender_id INTEGER NOT NULL,
    text TEXT NOT NULL,
    body BLOB,
    recalled INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL,
    source TEXT NOT NULL,
    stored_ms INTEGER NOT NULL
);
CREATE UNIQUE INDEX messages_key ON messages(account, chat_kind, chat_id, message_id);
CREATE INDEX messages_account_time ON messages(account, time);
CREATE INDEX messages_chat_time ON messages(account, chat_kind, chat_id, time);
CREATE INDEX messages_sender ON messages(account, sender_id, time);
CREATE INDEX messages_time ON messages(time);
CREATE TABLE message_media (
    message INTEGER NOT NULL,
    media_id TEXT NOT NULL,
    PRIMARY KEY (media_id, message)
) WITHOUT ROWID;
CREATE INDEX message_media_message ON message_media(message);
CREATE VIRTUAL TABLE messages_fts USING fts5(
    tokens, content = '', contentless_delete = 1, tokenize = 'ascii'
);
"];

/// Rows deleted per transaction by prunes and purges.
const DELETE_CHUNK: usize = 2000;
/// Read connections.
const READERS: usize = 2;

struct Inner {
    path: PathBuf,
    write: Mutex<Connection>,
    reads: Vec<Mutex<Connection>>,
    next_read: AtomicUsize,
}

/// The archive in an SQLite file.
#[derive(Clone)]
pub struct SqliteArchive {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SqliteArchive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteArchive")
            .field("path", &self.inner.path)
            .finish()
    }
}

impl SqliteArchive {
    /// Opens (or creates) `<data_dir>/archive.sqlite3` and applies the
    /// migrations it lacks. The error names the file.
    pub fn open(data_dir: &Path) -> Result<Self> {
        let path = data_dir.join(ARCHIVE_FILE);
        let err = |e: rusqlite::Error| sqlite_err(Store::Archive, &path, e);
        let mut write = db::open(&path, Store::Archive)?;
        // Freed pages go back to the file system (set before any table
        // exists; a no-op afterwards).
        write
            .pragma_update(None, "auto_vacuum", "INCREMENTAL")
            .map_err(err)?;
        migrate(&mut write).map_err(err)?;
        let reads = (0..READERS)
            .map(|_| connect(&path, Store::Archive).map(Mutex::new))
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(err)?;
        Ok(Self {
            inner: Arc::new(Inner {
                write: Mutex::new(write),
                reads,
                next_read: AtomicUsize::new(0),
                path,
            }),
        })
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    async fn writing<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = inner.write.lock();
            f(&mut conn).map_err(|e| inner.err(e))
        })
        .await
        .map_err(|e| Error::internal(format!("archive task failed: {e}")))?
    }

    async fn reading<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let conn = inner.reader();
            f(&conn).map_err(|e| inner.err(e))
        })
        .await
        .map_err(|e| Error::internal(format!("archive task failed: {e}")))?
    }

    /// The query plan SQLite chooses for `query` (one line per step), for
    /// tests that prove a text query uses the index.
    pub async fn plan(&self, query: Query) -> Result<Vec<String>> {
        self.reading(move |conn| {
            let (sql, values) = search_sql(&query);
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
            let rows =
                stmt.query_map(params_from_iter(values.iter()), |r| r.get::<_, String>(3))?;
            rows.collect()
        })
        .await
    }

    /// The same query answered by reading every row (no index), to measure
    /// what the index saves.
    pub async fn scan(&self, query: Query) -> Result<Vec<Archived>> {
        self.reading(move |conn| {
            let (sql, values) = scan_sql(&query);
            let mut stmt = conn.prepare(&sql)?;
            let rows = stmt
                .query_map(params_from_iter(values.iter()), row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(archived(rows))
        })
        .await
    }
}

impl Inner {
    fn err(&self, e: rusqlite::Error) -> Error {
        sqlite_err(Store::Archive, &self.path, e)
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
        for conn in &self.reads {
            if let Some(guard) = conn.try_lock() {
                return guard;
            }
        }
        let i = self.next_read.fetch_add(1, Ordering::Relaxed) % self.reads.len();
        self.reads[i].lock()
    }
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    db::migrate(conn, "archive_meta", MIGRATIONS)
}

fn put(
    tx: &Transaction<'_>,
    account: &str,
    message: &Message,
    source: Source,
    media_ids: &[String],
) -> rusqlite::Result<bool> {
    let (kind, chat_id) = chat_key(message.chat);
    let text = message_text(message);
    let body = encode_message(message);
    let bytes = counted_bytes(body.len(), &text);
    let now = jiff::Timestamp::now().as_millisecond();
    let values = params![
        account,
        kind,
        chat_id,
        message.message_id,
        message.time,
        message.sender.user_id,
        text,
        body,
        bytes,
        source.name(),
        now
    ];
    let inserted = tx
        .prepare_cached(
            "INSERT INTO messages (account, chat_kind, chat_id, message_id, time, sender_id, \
             text, body, recalled, bytes, source, stored_ms) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, ?9, ?10, ?11) \
             ON CONFLICT(account, chat_kind, chat_id, message_id) DO NOTHING",
        )?
        .execute(values)?;
    let id = if inserted == 1 {
        tx.last_insert_rowid()
    } else {
        // A recall seen before the message left a row without a body.
        let filled: Option<i64> = tx
            .prepare_cached(
                "UPDATE messages SET time = ?5, sender_id = ?6, text = ?7, body = ?8, \
                 bytes = ?9, source = ?10, stored_ms = ?11 \
                 WHERE account = ?1 AND chat_kind = ?2 AND chat_id = ?3 AND message_id = ?4 \
                 AND body IS NULL RETURNING id",
            )?
            .query_row(values, |r| r.get(0))
            .optional()?;
        match filled {
            Some(id) => id,
            None => return Ok(false),
        }
    };
    tx.prepare_cached("INSERT INTO messages_fts (rowid, tokens) VALUES (?1, ?2)")?
        .execute(params![id, tokens(&fold(&text))])?;
    if !media_ids.is_empty() {
        let mut link = tx.prepare_cached(
            "INSERT OR IGNORE INTO message_media (message, media_id) VALUES (?1, ?2)",
        )?;
        for media in media_ids {
            link.execute(params![id, media])?;
        }
    }
    Ok(true)
}

fn recall(
    tx: &Transaction<'_>,
    account: &str,
    chat: ChatRef,
    message_id: i64,
    time: i64,
) -> rusqlite::Result<()> {
    let (kind, chat_id) = chat_key(chat);
    let marked = tx
        .prepare_cached(
            "UPDATE messages SET recalled = 1 \
             WHERE account = ?1 AND chat_kind = ?2 AND chat_id = ?3 AND message_id = ?4",
        )?
        .execute(params![account, kind, chat_id, message_id])?;
    if marked == 0 {
        tx.prepare_cached(
            "INSERT INTO messages (account, chat_kind, chat_id, message_id, time, sender_id, \
             text, body, recalled, bytes, source, stored_ms) \
             VALUES (?1, ?2, ?3, ?4, ?5, 0, '', NULL, 1, ?6, 'event', ?7) \
             ON CONFLICT(account, chat_kind, chat_id, message_id) DO UPDATE SET recalled = 1",
        )?
        .execute(params![
            account,
            kind,
            chat_id,
            message_id,
            time,
            counted_bytes(0, ""),
            jiff::Timestamp::now().as_millisecond()
        ])?;
    }
    Ok(())
}

/// What a search selects, in the order [`row`] reads it.
const COLUMNS: &str = "m.body, m.recalled, m.time, m.id";
/// A search that can match nothing.
const NOTHING: &str = "SELECT NULL, 0, 0, 0 WHERE 0";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRow> {
    Ok(StoredRow {
        body: r.get(0)?,
        recalled: r.get(1)?,
        time: r.get(2)?,
        id: r.get(3)?,
    })
}

impl Binds for Vec<Value> {
    fn text(&mut self, v: String) -> String {
        self.push(Value::Text(v));
        format!("?{}", self.len())
    }

    fn int(&mut self, v: i64) -> String {
        self.push(Value::Integer(v));
        format!("?{}", self.len())
    }
}

/// The message columns as this store's searches name them (table alias `m`).
const COLS: Columns = Columns {
    alias: "m.",
    not_recalled: "m.recalled = 0",
};

/// The SQL of a search and its values. A text query drives the join from
/// the FTS index (`CROSS JOIN` keeps that order), so it never walks the
/// message rows; it picks the page's row ids first and reads the bodies of
/// those rows only.
fn search_sql(query: &Query) -> (String, Vec<Value>) {
    let mut values = Vec::new();
    let folded = fold(&query.text);
    let Some(fts) = fts_query(&folded) else {
        let mut sql = format!("SELECT {COLUMNS} FROM messages m");
        if !filters(query, &COLS, &mut sql, &mut values) {
            return (NOTHING.to_string(), Vec::new());
        }
        order(query, &COLS, &mut sql, &mut values);
        return (sql, values);
    };
    let mut inner =
        "SELECT m.id FROM messages_fts CROSS JOIN messages m ON m.id = messages_fts.rowid"
            .to_string();
    if !filters(query, &COLS, &mut inner, &mut values) {
        return (NOTHING.to_string(), Vec::new());
    }
    values.push(Value::Text(fts));
    inner.push_str(&format!(" AND messages_fts MATCH ?{}", values.len()));
    order(query, &COLS, &mut inner, &mut values);
    let dir = if query.ascending { "ASC" } else { "DESC" };
    let sql = format!(
        "SELECT {COLUMNS} FROM messages m WHERE m.id IN ({inner}) ORDER BY m.time {dir}, m.id {dir}"
    );
    (sql, values)
}

/// The same search by reading every row of the table.
fn scan_sql(query: &Query) -> (String, Vec<Value>) {
    let mut values = Vec::new();
    let mut sql = format!("SELECT {COLUMNS} FROM messages m NOT INDEXED");
    if !filters(query, &COLS, &mut sql, &mut values) {
        return (NOTHING.to_string(), Vec::new());
    }
    let folded = fold(&query.text);
    if !folded.is_empty() {
        values.push(Value::Text(folded));
        sql.push_str(&format!(" AND instr(lower(m.text), ?{}) > 0", values.len()));
    }
    order(query, &COLS, &mut sql, &mut values);
    (sql, values)
}

/// Deletes the rows `ids` with their index entries and media links; the
/// media no remaining row references are added to `orphans`.
fn delete_rows(
    conn: &mut Connection,
    ids: &[i64],
    orphans: &mut Vec<String>,
) -> rusqlite::Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let tx = conn.transaction()?;
    let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    let media: Vec<String> = tx
        .prepare(&format!(
            "SELECT DISTINCT media_id FROM message_media WHERE message IN ({list})"
        ))?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    tx.execute(
        &format!("DELETE FROM message_media WHERE message IN ({list})"),
        [],
    )?;
    let indexed: Vec<i64> = tx
        .prepare(&format!(
            "SELECT id FROM messages WHERE id IN ({list}) AND body IS NOT NULL"
        ))?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if !indexed.is_empty() {
        let fts = indexed
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",");
        tx.execute(
            &format!("DELETE FROM messages_fts WHERE rowid IN ({fts})"),
            [],
        )?;
    }
    tx.execute(&format!("DELETE FROM messages WHERE id IN ({list})"), [])?;
    {
        let mut still =
            tx.prepare_cached("SELECT 1 FROM message_media WHERE media_id = ?1 LIMIT 1")?;
        for m in media {
            if still
                .query_row(params![m], |_| Ok(()))
                .optional()?
                .is_none()
            {
                orphans.push(m);
            }
        }
    }
    tx.commit()
}

/// Deletes, chunk by chunk, the rows `select` (an SQL query of ids with a
/// `LIMIT` placeholder as its last value) returns, until none is left.
fn delete_where(
    conn: &mut Connection,
    select: &str,
    values: &[Value],
) -> rusqlite::Result<Deleted> {
    let mut deleted = Deleted::default();
    loop {
        let ids: Vec<i64> = {
            let mut stmt = conn.prepare(select)?;
            let mut all: Vec<Value> = values.to_vec();
            all.push(Value::Integer(DELETE_CHUNK as i64));
            stmt.query_map(params_from_iter(all.iter()), |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        if ids.is_empty() {
            break;
        }
        delete_rows(conn, &ids, &mut deleted.orphaned_media)?;
        deleted.messages += ids.len() as u64;
        if ids.len() < DELETE_CHUNK {
            break;
        }
    }
    Ok(deleted)
}

#[async_trait::async_trait]
impl ArchiveStore for SqliteArchive {
    async fn apply(&self, ops: Vec<ArchiveOp>) -> Result<Applied> {
        self.writing(move |conn| {
            let tx = conn.transaction()?;
            let mut applied = Applied::default();
            for op in &ops {
                match op {
                    ArchiveOp::Put {
                        account_id,
                        message,
                        source,
                        media_ids,
                    } => {
                        let stored = put(&tx, account_id, message, *source, media_ids)?;
                        count_put(&mut applied, account_id, *source, stored);
                    }
                    ArchiveOp::Recall {
                        account_id,
                        chat,
                        message_id,
                        time,
                    } => {
                        recall(&tx, account_id, *chat, *message_id, *time)?;
                        applied.recalled += 1;
                    }
                }
            }
            tx.commit()?;
            Ok(applied)
        })
        .await
    }

    async fn search(&self, query: Query) -> Result<Vec<Archived>> {
        self.reading(move |conn| {
            let (sql, values) = search_sql(&query);
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt
                .query_map(params_from_iter(values.iter()), row)?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(archived(rows))
        })
        .await
    }

    async fn get(
        &self,
        account_id: &str,
        chat: ChatRef,
        message_id: i64,
    ) -> Result<Option<Archived>> {
        let account = account_id.to_string();
        self.reading(move |conn| {
            let (kind, chat_id) = chat_key(chat);
            let found: Option<StoredRow> = conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM messages m \
                     WHERE m.account = ?1 AND m.chat_kind = ?2 AND m.chat_id = ?3 \
                     AND m.message_id = ?4 AND m.body IS NOT NULL"
                ))?
                .query_row(params![account, kind, chat_id, message_id], row)
                .optional()?;
            Ok(found.and_then(|r| archived(vec![r]).pop()))
        })
        .await
    }

    async fn newest(&self, account_id: &str, chat: ChatRef) -> Result<Option<Message>> {
        let account = account_id.to_string();
        self.reading(move |conn| {
            let (kind, chat_id) = chat_key(chat);
            let found: Option<StoredRow> = conn
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM messages m \
                     WHERE m.account = ?1 AND m.chat_kind = ?2 AND m.chat_id = ?3 \
                     AND m.body IS NOT NULL ORDER BY m.time DESC, m.id DESC LIMIT 1"
                ))?
                .query_row(params![account, kind, chat_id], row)
                .optional()?;
            Ok(found.and_then(|r| archived(vec![r]).pop().map(|a| a.message)))
        })
        .await
    }

    async fn active_chats(&self, account_id: &str, since: i64) -> Result<Vec<ChatRef>> {
        let account = account_id.to_string();
        self.reading(move |conn| {
            let rows: Vec<(String, i64)> = conn
                .prepare_cached(
                    "SELECT chat_kind, chat_id FROM messages WHERE account = ?1 \
                     GROUP BY chat_kind, chat_id HAVING max(time) >= ?2",
                )?
                .query_map(params![account, since], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
            Ok(rows
                .into_iter()
                .filter_map(|(k, id)| chat_of_key(&k, id))
                .collect())
        })
        .await
    }

    async fn prune(&self, older_than: i64, max_bytes: u64) -> Result<Pruned> {
        self.writing(move |conn| {
            let mut pruned = Pruned {
                expired: delete_where(
                    conn,
                    "SELECT id FROM messages WHERE time < ?1 LIMIT ?2",
                    &[Value::Integer(older_than)],
                )?,
                ..Pruned::default()
            };
            loop {
                let total: i64 = conn.query_row("SELECT total(bytes) FROM messages", [], |r| {
                    r.get::<_, f64>(0).map(|v| v as i64)
                })?;
                let excess = total - max_bytes.min(i64::MAX as u64) as i64;
                if excess <= 0 {
                    break;
                }
                // The oldest rows whose sizes add up to the excess.
                let oldest: Vec<(i64, i64)> = conn
                    .prepare_cached("SELECT id, bytes FROM messages ORDER BY time, id LIMIT ?1")?
                    .query_map(params![DELETE_CHUNK as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<_>>()?;
                if oldest.is_empty() {
                    break;
                }
                let mut freed = 0;
                let ids: Vec<i64> = oldest
                    .into_iter()
                    .take_while(|(_, bytes)| {
                        let take = freed < excess;
                        freed += bytes;
                        take
                    })
                    .map(|(id, _)| id)
                    .collect();
                delete_rows(conn, &ids, &mut pruned.oversize.orphaned_media)?;
                pruned.oversize.messages += ids.len() as u64;
            }
            if pruned.expired.messages + pruned.oversize.messages > 0 {
                conn.execute_batch("PRAGMA incremental_vacuum")?;
            }
            Ok(pruned)
        })
        .await
    }

    async fn purge(&self, scope: PurgeScope) -> Result<Deleted> {
        self.writing(move |conn| {
            let (mut select, mut values) = match &scope {
                PurgeScope::Chat { chat, .. } => {
                    let (kind, id) = chat_key(*chat);
                    (
                        "SELECT id FROM messages WHERE chat_kind = ?1 AND chat_id = ?2".to_string(),
                        vec![Value::Text(kind.to_string()), Value::Integer(id)],
                    )
                }
                PurgeScope::Sender { user_id, .. } => (
                    "SELECT id FROM messages WHERE sender_id = ?1".to_string(),
                    vec![Value::Integer(*user_id)],
                ),
            };
            let account = match &scope {
                PurgeScope::Chat { account_id, .. } | PurgeScope::Sender { account_id, .. } => {
                    account_id.clone()
                }
            };
            if let Some(account) = account {
                values.push(Value::Text(account));
                select.push_str(&format!(" AND account = ?{}", values.len()));
            }
            select.push_str(&format!(" LIMIT ?{}", values.len() + 1));
            let deleted = delete_where(conn, &select, &values)?;
            if deleted.messages > 0 {
                conn.execute_batch("PRAGMA incremental_vacuum")?;
            }
            Ok(deleted)
        })
        .await
    }

    async fn usage(&self) -> Result<Usage> {
        self.reading(|conn| {
            conn.query_row(
                "SELECT count(*), total(bytes) FROM messages WHERE body IS NOT NULL",
                [],
                |r| {
                    Ok(Usage {
                        messages: r.get::<_, i64>(0)? as u64,
                        bytes: r.get::<_, f64>(1)? as u64,
                    })
                },
            )
        })
        .await
    }

    fn describe(&self) -> String {
        self.inner.path.display().to_string()
    }
}
