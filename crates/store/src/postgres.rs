//! The archive in PostgreSQL (`archive.url = "postgres://..."`), for
//! deployments that outgrow one machine or keep their data in a managed
//! database. Same rows and the same queries as the embedded store.
//!
//! Text queries use the same bigram scheme
//! ([`onebot_gateway_domain::archive::text`]): each row keeps the set of its
//! characters and bigrams in a `text[]` column under a GIN index; a query
//! asks for the rows holding all of its grams (an index lookup) and checks
//! the substring on those rows only. Migrations run at start inside one
//! transaction under an advisory lock, so several gateways sharing a
//! database migrate it once. Connections that break are opened again on
//! the next call. TLS follows the URL's `sslmode` (`prefer` by default),
//! verified against the system's roots and `archive.ca_file`.

use std::sync::Arc;

use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard, RwLock};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Row, Statement, Transaction};

use super::codec::encode_message;
use super::pg;
use super::pg_tls::RustlsConnect;
use super::query::{Binds, Columns, filters, order};
use super::row::{self, StoredRow, count_put, counted_bytes, message_text};
use onebot_gateway_config::redact_url;
use onebot_gateway_domain::archive::store::{
    Applied, ArchiveOp, ArchiveStore, Archived, Deleted, Pruned, PurgeScope, Query, Source, Usage,
    chat_key, chat_of_key,
};
use onebot_gateway_domain::archive::text::{fold, gram_set, query_grams};
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::model::{ChatRef, Message};

/// The schema version this build writes.
const SCHEMA_VERSION: i32 = 1;
/// The advisory lock migrations hold (an arbitrary constant of this
/// program).
const MIGRATION_LOCK: i64 = 0x6f6e_6562_6f74_0001;

const MIGRATIONS: &[&str] = &["
CREATE TABLE onebot_archive_messages (
    id BIGSERIAL PRIMARY KEY,
    account TEXT NOT NULL,
    chat_kind TEXT COLLATE \"C\" NOT NULL,
    chat_id BIGINT NOT NULL,
    message_id BIGINT NOT NULL,
    time BIGINT NOT NULL,
    sender_id BIGINT NOT NULL,
    text TEXT NOT NULL,
    folded TEXT NOT NULL,
    grams TEXT[] NOT NULL,
    body BYTEA,
    recalled BOOLEAN NOT NULL DEFAULT FALSE,
    bytes BIGINT NOT NULL,
    source TEXT NOT NULL,
    stored_ms BIGINT NOT NULL,
    UNIQUE (account, chat_kind, chat_id, message_id)
);
CREATE INDEX onebot_archive_messages_account_time
    ON onebot_archive_messages (account, time, id);
CREATE INDEX onebot_archive_messages_chat_time
    ON onebot_archive_messages (account, chat_kind, chat_id, time, id);
CREATE INDEX onebot_archive_messages_sender ON onebot_archive_messages (account, sender_id, time);
CREATE INDEX onebot_archive_messages_time ON onebot_archive_messages (time);
CREATE INDEX onebot_archive_messages_grams ON onebot_archive_messages USING GIN (grams);
CREATE TABLE onebot_archive_message_media (
    message BIGINT NOT NULL,
    media_id TEXT NOT NULL,
    PRIMARY KEY (media_id, message)
);
CREATE INDEX onebot_archive_message_media_message ON onebot_archive_message_media (message);
"];

const INSERT: &str = "INSERT INTO onebot_archive_messages (account, chat_kind, chat_id, message_id, \
    time, sender_id, text, folded, grams, body, recalled, bytes, source, stored_ms) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, FALSE, $11, $12, $13) \
    ON CONFLICT (account, chat_kind, chat_id, message_id) DO NOTHING RETURNING id";
const FILL: &str = "UPDATE onebot_archive_messages SET time = $5, sender_id = $6, text = $7, \
    folded = $8, grams = $9, body = $10, bytes = $11, source = $12, stored_ms = $13 \
    WHERE account = $1 AND chat_kind = $2 AND chat_id = $3 AND message_id = $4 AND body IS NULL \
    RETURNING id";
const MARK: &str = "UPDATE onebot_archive_messages SET recalled = TRUE \
    WHERE account = $1 AND chat_kind = $2 AND chat_id = $3 AND message_id = $4";
const TOMBSTONE: &str = "INSERT INTO onebot_archive_messages (account, chat_kind, chat_id, \
    message_id, time, sender_id, text, folded, grams, body, recalled, bytes, source, stored_ms) \
    VALUES ($1, $2, $3, $4, $5, 0, '', '', '{}', NULL, TRUE, $6, 'event', $7) \
    ON CONFLICT (account, chat_kind, chat_id, message_id) DO UPDATE SET recalled = TRUE";
const LINK: &str = "INSERT INTO onebot_archive_message_media (message, media_id) VALUES ($1, $2) \
    ON CONFLICT DO NOTHING";

/// Rows deleted per transaction by prunes and purges.
const DELETE_CHUNK: i64 = 2000;

#[derive(Clone)]
struct Statements {
    insert: Statement,
    fill: Statement,
    mark: Statement,
    tombstone: Statement,
    link: Statement,
}

struct Conn {
    client: Client,
    st: Statements,
}

/// The archive in PostgreSQL.
pub struct PgArchive {
    url: String,
    shown: String,
    tls: RustlsConnect,
    write: Mutex<Option<Conn>>,
    read: RwLock<Option<Arc<Client>>>,
}

impl std::fmt::Debug for PgArchive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgArchive")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

/// What errors and logs call this store.
const WHAT: &str = "archive";

fn pg_err(shown: &str) -> impl Fn(tokio_postgres::Error) -> Error + '_ {
    pg::pg_err(WHAT, shown)
}

async fn connect(url: &str, shown: &str, tls: &RustlsConnect) -> Result<Client> {
    pg::connect(WHAT, url, shown, tls).await
}

impl PgArchive {
    /// Connects to `url` (TLS verified by `tls`), applies the migrations
    /// the database lacks, and checks that reads work. The error names the
    /// (redacted) URL.
    pub async fn open(url: &str, tls: Arc<rustls::ClientConfig>) -> Result<Self> {
        let shown = redact_url(url);
        let tls = RustlsConnect::new(tls);
        let mut client = connect(url, &shown, &tls).await?;
        let version = pg::migrate(
            &mut client,
            MIGRATION_LOCK,
            "onebot_archive_schema",
            MIGRATIONS,
        )
        .await
        .map_err(pg_err(&shown))?;
        if version > SCHEMA_VERSION {
            return Err(Error::internal(format!(
                "archive {shown}: its schema version {version} is newer than this gateway's {SCHEMA_VERSION}; run a newer gateway"
            ))
            .with("url", &shown));
        }
        let write = prepare(client).await.map_err(pg_err(&shown))?;
        let read = connect(url, &shown, &tls).await?;
        Ok(Self {
            url: url.to_string(),
            shown,
            tls,
            write: Mutex::new(Some(write)),
            read: RwLock::new(Some(Arc::new(read))),
        })
    }

    fn err(&self) -> impl Fn(tokio_postgres::Error) -> Error + '_ {
        pg_err(&self.shown)
    }

    /// The read connection, opened again when it broke.
    async fn reader(&self) -> Result<Arc<Client>> {
        if let Some(c) = self.read.read().await.as_ref()
            && !c.is_closed()
        {
            return Ok(c.clone());
        }
        let mut slot = self.read.write().await;
        if let Some(c) = slot.as_ref()
            && !c.is_closed()
        {
            return Ok(c.clone());
        }
        let client = Arc::new(connect(&self.url, &self.shown, &self.tls).await?);
        *slot = Some(client.clone());
        Ok(client)
    }

    /// The archived messages `sql` (a query of [`COLUMNS`]) selects, read on
    /// a read connection.
    async fn select(&self, sql: &str, values: &[&(dyn ToSql + Sync)]) -> Result<Vec<Archived>> {
        let client = self.reader().await?;
        let rows = client.query(sql, values).await.map_err(self.err())?;
        Ok(archived(&rows))
    }

    /// The write connection (locked), opened again when it broke.
    async fn writer(&self) -> Result<MappedMutexGuard<'_, Conn>> {
        let mut guard = self.write.lock().await;
        if guard.as_ref().is_none_or(|c| c.client.is_closed()) {
            let client = connect(&self.url, &self.shown, &self.tls).await?;
            *guard = Some(prepare(client).await.map_err(self.err())?);
        }
        MutexGuard::try_map(guard, Option::as_mut)
            .map_err(|_| Error::internal("archive connection missing"))
    }

    /// The query plan PostgreSQL chooses for `query`, with sequential scans
    /// disabled (so small test tables show which index serves the query).
    pub async fn plan(&self, query: Query) -> Result<Vec<String>> {
        let (sql, values) = search_sql(&query);
        let err = self.err();
        let mut conn = self.writer().await?;
        let tx = conn.client.transaction().await.map_err(&err)?;
        tx.batch_execute("SET LOCAL enable_seqscan = off")
            .await
            .map_err(&err)?;
        let rows = tx
            .query(&format!("EXPLAIN {sql}"), &refs(&values))
            .await
            .map_err(&err)?;
        tx.rollback().await.map_err(&err)?;
        Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
    }

    /// The same query answered by reading every row, to measure what the
    /// index saves.
    pub async fn scan(&self, query: Query) -> Result<Vec<Archived>> {
        let (sql, values) = scan_sql(&query);
        self.select(&sql, &refs(&values)).await
    }
}

async fn prepare(client: Client) -> std::result::Result<Conn, tokio_postgres::Error> {
    let st = Statements {
        insert: client.prepare(INSERT).await?,
        fill: client.prepare(FILL).await?,
        mark: client.prepare(MARK).await?,
        tombstone: client.prepare(TOMBSTONE).await?,
        link: client.prepare(LINK).await?,
    };
    Ok(Conn { client, st })
}

pub(crate) type Param = Box<dyn ToSql + Sync + Send>;

pub(crate) fn refs(values: &[Param]) -> Vec<&(dyn ToSql + Sync)> {
    values
        .iter()
        .map(|v| v.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

impl Binds for Vec<Param> {
    fn text(&mut self, v: String) -> String {
        self.push(Box::new(v));
        format!("${}", self.len())
    }

    fn int(&mut self, v: i64) -> String {
        self.push(Box::new(v));
        format!("${}", self.len())
    }
}

/// The message columns as this store's searches name them.
const COLS: Columns = Columns {
    alias: "",
    not_recalled: "NOT recalled",
};

/// What a search selects, in the order [`archived`] reads it.
const COLUMNS: &str = "SELECT body, recalled, time, id FROM onebot_archive_messages";

/// The SQL of a search and its values. A text query starts from the rows
/// the gram index finds (a materialized step, so the planner never trades
/// it for a walk of the time index), then checks the substring on them.
fn search_sql(query: &Query) -> (String, Vec<Param>) {
    let mut values: Vec<Param> = Vec::new();
    let mut sql = COLUMNS.to_string();
    if !filters(query, &COLS, &mut sql, &mut values) {
        return (format!("{COLUMNS} WHERE FALSE"), Vec::new());
    }
    let folded = fold(&query.text);
    let mut prefix = String::new();
    if !folded.is_empty() {
        values.push(Box::new(query_grams(&folded)));
        let g = values.len();
        values.push(Box::new(folded));
        prefix = format!(
            "WITH hits AS MATERIALIZED (SELECT id FROM onebot_archive_messages \
             WHERE grams @> ${g}) "
        );
        sql.push_str(&format!(
            " AND id IN (SELECT id FROM hits) AND strpos(folded, ${}) > 0",
            g + 1
        ));
    }
    order(query, &COLS, &mut sql, &mut values);
    (format!("{prefix}{sql}"), values)
}

fn scan_sql(query: &Query) -> (String, Vec<Param>) {
    let mut values: Vec<Param> = Vec::new();
    let mut sql = COLUMNS.to_string();
    if !filters(query, &COLS, &mut sql, &mut values) {
        return (format!("{COLUMNS} WHERE FALSE"), Vec::new());
    }
    let folded = fold(&query.text);
    if !folded.is_empty() {
        values.push(Box::new(folded));
        sql.push_str(&format!(" AND strpos(folded, ${}) > 0", values.len()));
    }
    order(query, &COLS, &mut sql, &mut values);
    (sql, values)
}

fn archived(rows: &[Row]) -> Vec<Archived> {
    row::archived(rows.iter().map(|r| StoredRow {
        body: r.get(0),
        recalled: r.get(1),
        time: r.get(2),
        id: r.get(3),
    }))
}

async fn put(
    st: &Statements,
    tx: &Transaction<'_>,
    account: &str,
    message: &Message,
    source: Source,
    media_ids: &[String],
) -> std::result::Result<bool, tokio_postgres::Error> {
    let (kind, chat_id) = chat_key(message.chat);
    let text = message_text(message);
    let folded = fold(&text);
    let grams = gram_set(&folded);
    let body = encode_message(message);
    let bytes = counted_bytes(body.len(), &text);
    let now = jiff::Timestamp::now().as_millisecond();
    let params: [&(dyn ToSql + Sync); 13] = [
        &account,
        &kind,
        &chat_id,
        &message.message_id,
        &message.time,
        &message.sender.user_id,
        &text,
        &folded,
        &grams,
        &body,
        &bytes,
        &source.name(),
        &now,
    ];
    let id: Option<i64> = match tx.query_opt(&st.insert, &params).await? {
        Some(row) => Some(row.get(0)),
        None => tx.query_opt(&st.fill, &params).await?.map(|r| r.get(0)),
    };
    let Some(id) = id else { return Ok(false) };
    for media in media_ids {
        tx.execute(&st.link, &[&id, media]).await?;
    }
    Ok(true)
}

/// Deletes rows `ids` with their media links; media nothing references any
/// more are added to `orphans`.
async fn delete_ids(
    tx: &Transaction<'_>,
    ids: &[i64],
    orphans: &mut Vec<String>,
) -> std::result::Result<(), tokio_postgres::Error> {
    let media: Vec<String> = tx
        .query(
            "SELECT DISTINCT media_id FROM onebot_archive_message_media WHERE message = ANY($1)",
            &[&ids],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    tx.execute(
        "DELETE FROM onebot_archive_message_media WHERE message = ANY($1)",
        &[&ids],
    )
    .await?;
    tx.execute(
        "DELETE FROM onebot_archive_messages WHERE id = ANY($1)",
        &[&ids],
    )
    .await?;
    for m in media {
        let still = tx
            .query_opt(
                "SELECT 1 FROM onebot_archive_message_media WHERE media_id = $1 LIMIT 1",
                &[&m],
            )
            .await?;
        if still.is_none() {
            orphans.push(m);
        }
    }
    Ok(())
}

impl PgArchive {
    /// Deletes, chunk by chunk, the rows `select` returns (its last
    /// parameter is the chunk size).
    async fn delete_where(&self, select: &str, values: Vec<Param>) -> Result<Deleted> {
        let err = self.err();
        let mut deleted = Deleted::default();
        let mut values = values;
        values.push(Box::new(DELETE_CHUNK));
        loop {
            let mut conn = self.writer().await?;
            let tx = conn.client.transaction().await.map_err(&err)?;
            let ids: Vec<i64> = tx
                .query(select, &refs(&values))
                .await
                .map_err(&err)?
                .iter()
                .map(|r| r.get(0))
                .collect();
            if ids.is_empty() {
                tx.rollback().await.map_err(&err)?;
                break;
            }
            delete_ids(&tx, &ids, &mut deleted.orphaned_media)
                .await
                .map_err(&err)?;
            tx.commit().await.map_err(&err)?;
            deleted.messages += ids.len() as u64;
            if (ids.len() as i64) < DELETE_CHUNK {
                break;
            }
        }
        Ok(deleted)
    }
}

#[async_trait::async_trait]
impl ArchiveStore for PgArchive {
    async fn apply(&self, ops: Vec<ArchiveOp>) -> Result<Applied> {
        let err = self.err();
        let mut conn = self.writer().await?;
        let statements = conn.st.clone();
        let tx = conn.client.transaction().await.map_err(&err)?;
        let mut applied = Applied::default();
        for op in &ops {
            match op {
                ArchiveOp::Put {
                    account_id,
                    message,
                    source,
                    media_ids,
                } => {
                    let stored = put(&statements, &tx, account_id, message, *source, media_ids)
                        .await
                        .map_err(&err)?;
                    count_put(&mut applied, account_id, *source, stored);
                }
                ArchiveOp::Recall {
                    account_id,
                    chat,
                    message_id,
                    time,
                } => {
                    let (kind, chat_id) = chat_key(*chat);
                    let marked = tx
                        .execute(&statements.mark, &[account_id, &kind, &chat_id, message_id])
                        .await
                        .map_err(&err)?;
                    if marked == 0 {
                        let now = jiff::Timestamp::now().as_millisecond();
                        tx.execute(
                            &statements.tombstone,
                            &[
                                account_id,
                                &kind,
                                &chat_id,
                                message_id,
                                time,
                                &counted_bytes(0, ""),
                                &now,
                            ],
                        )
                        .await
                        .map_err(&err)?;
                    }
                    applied.recalled += 1;
                }
            }
        }
        tx.commit().await.map_err(&err)?;
        Ok(applied)
    }

    async fn search(&self, query: Query) -> Result<Vec<Archived>> {
        let (sql, values) = search_sql(&query);
        self.select(&sql, &refs(&values)).await
    }

    async fn get(
        &self,
        account_id: &str,
        chat: ChatRef,
        message_id: i64,
    ) -> Result<Option<Archived>> {
        let (kind, chat_id) = chat_key(chat);
        let sql = format!(
            "{COLUMNS} WHERE account = $1 AND chat_kind = $2 AND chat_id = $3 \
             AND message_id = $4 AND body IS NOT NULL"
        );
        let values: [&(dyn ToSql + Sync); 4] = [&account_id, &kind, &chat_id, &message_id];
        Ok(self.select(&sql, &values).await?.pop())
    }

    async fn newest(&self, account_id: &str, chat: ChatRef) -> Result<Option<Message>> {
        let (kind, chat_id) = chat_key(chat);
        let sql = format!(
            "{COLUMNS} WHERE account = $1 AND chat_kind = $2 AND chat_id = $3 \
             AND body IS NOT NULL ORDER BY time DESC, id DESC LIMIT 1"
        );
        let values: [&(dyn ToSql + Sync); 3] = [&account_id, &kind, &chat_id];
        Ok(self.select(&sql, &values).await?.pop().map(|a| a.message))
    }

    async fn active_chats(&self, account_id: &str, since: i64) -> Result<Vec<ChatRef>> {
        let client = self.reader().await?;
        let rows = client
            .query(
                "SELECT chat_kind, chat_id FROM onebot_archive_messages WHERE account = $1 \
                 GROUP BY chat_kind, chat_id HAVING max(time) >= $2",
                &[&account_id, &since],
            )
            .await
            .map_err(self.err())?;
        Ok(rows
            .iter()
            .filter_map(|r| chat_of_key(r.get::<_, &str>(0), r.get(1)))
            .collect())
    }

    async fn prune(&self, older_than: i64, max_bytes: u64) -> Result<Pruned> {
        let expired = self
            .delete_where(
                "SELECT id FROM onebot_archive_messages WHERE time < $1 LIMIT $2",
                vec![Box::new(older_than)],
            )
            .await?;
        let mut pruned = Pruned {
            expired,
            ..Pruned::default()
        };
        let err = self.err();
        let limit = max_bytes.min(i64::MAX as u64) as i64;
        loop {
            let mut conn = self.writer().await?;
            let tx = conn.client.transaction().await.map_err(&err)?;
            let total: i64 = tx
                .query_one(
                    "SELECT coalesce(sum(bytes), 0)::BIGINT FROM onebot_archive_messages",
                    &[],
                )
                .await
                .map_err(&err)?
                .get(0);
            let excess = total - limit;
            if excess <= 0 {
                tx.rollback().await.map_err(&err)?;
                break;
            }
            let oldest: Vec<(i64, i64)> = tx
                .query(
                    "SELECT id, bytes FROM onebot_archive_messages ORDER BY time, id LIMIT $1",
                    &[&DELETE_CHUNK],
                )
                .await
                .map_err(&err)?
                .iter()
                .map(|r| (r.get(0), r.get(1)))
                .collect();
            if oldest.is_empty() {
                tx.rollback().await.map_err(&err)?;
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
            delete_ids(&tx, &ids, &mut pruned.oversize.orphaned_media)
                .await
                .map_err(&err)?;
            tx.commit().await.map_err(&err)?;
            pruned.oversize.messages += ids.len() as u64;
        }
        Ok(pruned)
    }

    async fn purge(&self, scope: PurgeScope) -> Result<Deleted> {
        let (mut select, mut values): (String, Vec<Param>) = match &scope {
            PurgeScope::Chat { chat, .. } => {
                let (kind, id) = chat_key(*chat);
                (
                    "SELECT id FROM onebot_archive_messages WHERE chat_kind = $1 AND chat_id = $2"
                        .to_string(),
                    vec![Box::new(kind.to_string()), Box::new(id)],
                )
            }
            PurgeScope::Sender { user_id, .. } => (
                "SELECT id FROM onebot_archive_messages WHERE sender_id = $1".to_string(),
                vec![Box::new(*user_id)],
            ),
        };
        let account = match &scope {
            PurgeScope::Chat { account_id, .. } | PurgeScope::Sender { account_id, .. } => {
                account_id.clone()
            }
        };
        if let Some(account) = account {
            values.push(Box::new(account));
            select.push_str(&format!(" AND account = ${}", values.len()));
        }
        select.push_str(&format!(" LIMIT ${}", values.len() + 1));
        self.delete_where(&select, values).await
    }

    async fn usage(&self) -> Result<Usage> {
        let client = self.reader().await?;
        let row = client
            .query_one(
                "SELECT count(*)::BIGINT, coalesce(sum(bytes), 0)::BIGINT \
                 FROM onebot_archive_messages WHERE body IS NOT NULL",
                &[],
            )
            .await
            .map_err(self.err())?;
        Ok(Usage {
            messages: row.get::<_, i64>(0) as u64,
            bytes: row.get::<_, i64>(1) as u64,
        })
    }

    fn describe(&self) -> String {
        self.shown.clone()
    }
}
