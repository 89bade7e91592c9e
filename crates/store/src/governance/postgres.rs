//! The governance records in PostgreSQL (`archive.url`), over the
//! connection the archive uses (the crate's `pg` module): TLS by the URL's
//! `sslmode`, verified against the system's roots and `archive.ca_file`.
//! The tables are created at start when missing, in one transaction under
//! an advisory lock. One connection serves every call (its statements are
//! pipelined); it is opened again on the next call when it broke. Audit ids
//! are a `BIGSERIAL`; the owners' message ids a `BIGINT[]`.

use std::sync::Arc;

use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Row};

use super::{
    APPEND_AUDIT, INSERT_APPROVAL, PRUNE_APPROVALS, PRUNE_AUDIT, SET_OWNER_MESSAGES, StoredRow,
    TRANSITION, approval, approvals_sql, audit, audit_sql, get_approval_sql,
};
use crate::pg::{self, pg_err};
use crate::postgres::{Param, refs};
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::policy::store::{
    ApprovalRecord, ApprovalState, ApprovalUpdate, AuditQuery, AuditRecord, GovernanceStore,
};

/// What errors and logs call this store.
const WHAT: &str = "governance store";
/// The advisory lock migrations hold (an arbitrary constant of this
/// program, not the archive's).
const MIGRATION_LOCK: i64 = 0x6f6e_6562_6f74_0002;

/// Each migration takes the schema from the version before it to its own.
const MIGRATIONS: &[&str] = &["
CREATE TABLE IF NOT EXISTS gateway_approvals (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    state TEXT NOT NULL,
    action TEXT NOT NULL,
    chat TEXT NOT NULL,
    requester_id BIGINT,
    role TEXT NOT NULL,
    token TEXT,
    rule BIGINT NOT NULL,
    summary TEXT NOT NULL,
    payload TEXT NOT NULL,
    decided_by TEXT,
    decided_ms BIGINT,
    result TEXT,
    owner_message_ids BIGINT[] NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS gateway_approvals_created ON gateway_approvals (created_ms, id);
CREATE INDEX IF NOT EXISTS gateway_approvals_state ON gateway_approvals (state, created_ms, id);
CREATE TABLE IF NOT EXISTS gateway_audit_records (
    id BIGSERIAL PRIMARY KEY,
    time_ms BIGINT NOT NULL,
    account_id TEXT NOT NULL,
    token TEXT,
    requester_id BIGINT,
    role TEXT NOT NULL,
    action TEXT NOT NULL,
    chat TEXT NOT NULL,
    decision TEXT,
    rule BIGINT,
    approval_id TEXT,
    summary TEXT NOT NULL,
    decided_by TEXT,
    error TEXT
);
CREATE INDEX IF NOT EXISTS gateway_audit_records_time ON gateway_audit_records (time_ms);
CREATE INDEX IF NOT EXISTS gateway_audit_records_account
    ON gateway_audit_records (account_id, id);
"];

/// The SQL written with SQLite's `?n` placeholders, as PostgreSQL's `$n`.
fn pg_sql(sql: &str) -> String {
    sql.replace('?', "$")
}

/// The governance records in PostgreSQL.
pub struct PgGovernance {
    shown: String,
    described: String,
    conn: pg::Conn,
}

impl std::fmt::Debug for PgGovernance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgGovernance")
            .field("url", &self.shown)
            .finish_non_exhaustive()
    }
}

impl PgGovernance {
    /// Connects to `url` (TLS verified by `tls`) and creates the tables
    /// the database lacks. The error names the (redacted) URL.
    pub async fn open(url: &str, tls: Arc<rustls::ClientConfig>) -> Result<Self> {
        let conn = pg::Conn::open(
            WHAT,
            url,
            tls,
            MIGRATION_LOCK,
            "gateway_governance_schema",
            MIGRATIONS,
        )
        .await?;
        Ok(Self {
            described: pg::describe_url(url, conn.shown()),
            shown: conn.shown().to_owned(),
            conn,
        })
    }

    fn err(&self) -> impl Fn(tokio_postgres::Error) -> Error + '_ {
        pg_err(WHAT, &self.shown)
    }

    /// The connection, opened again when it broke.
    async fn client(&self) -> Result<Arc<Client>> {
        self.conn.client().await
    }

    /// Runs the statement `sql` (written with `?n`); returns the rows it
    /// changed.
    async fn execute(&self, sql: &str, values: &[&(dyn ToSql + Sync)]) -> Result<u64> {
        let client = self.client().await?;
        client
            .execute(&pg_sql(sql), values)
            .await
            .map_err(self.err())
    }

    /// The rows of the query `sql` (written with `?n` or `$n`).
    async fn query(&self, sql: &str, values: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>> {
        let client = self.client().await?;
        client.query(&pg_sql(sql), values).await.map_err(self.err())
    }

    /// `rows` read by `read`.
    fn rows<'s, T>(
        &'s self,
        rows: &'s [Row],
        read: impl Fn(&PgRow<'s>) -> Result<T>,
    ) -> Result<Vec<T>> {
        rows.iter()
            .map(|row| {
                read(&PgRow {
                    row,
                    shown: &self.shown,
                })
            })
            .collect()
    }
}

/// A row and the store it came from (for its errors).
struct PgRow<'a> {
    row: &'a Row,
    shown: &'a str,
}

impl PgRow<'_> {
    fn get<'r, T: tokio_postgres::types::FromSql<'r>>(&'r self, i: usize) -> Result<T> {
        self.row.try_get(i).map_err(pg_err(WHAT, self.shown))
    }
}

impl StoredRow for PgRow<'_> {
    type Error = Error;

    fn int(&self, i: usize) -> Result<i64> {
        self.get(i)
    }

    fn opt_int(&self, i: usize) -> Result<Option<i64>> {
        self.get(i)
    }

    fn text(&self, i: usize) -> Result<String> {
        self.get(i)
    }

    fn opt_text(&self, i: usize) -> Result<Option<String>> {
        self.get(i)
    }

    fn ids(&self, i: usize) -> Result<Vec<i64>> {
        self.get(i)
    }

    fn invalid(&self, i: usize, what: String) -> Error {
        Error::internal(format!("{WHAT} {}: column {i}: {what}", self.shown))
            .with("url", self.shown)
    }
}

#[async_trait::async_trait]
impl GovernanceStore for PgGovernance {
    async fn append_audit(&self, r: AuditRecord) -> Result<i64> {
        let decision = r.decision.map(|d| d.name());
        let rows = self
            .query(
                APPEND_AUDIT,
                &[
                    &r.time_ms,
                    &r.account_id,
                    &r.token,
                    &r.requester_id,
                    &r.role,
                    &r.action,
                    &r.chat,
                    &decision,
                    &r.rule,
                    &r.approval_id,
                    &r.summary,
                    &r.decided_by,
                    &r.error,
                ],
            )
            .await?;
        let row = rows
            .first()
            .ok_or_else(|| Error::internal(format!("{WHAT} {}: no id returned", self.shown)))?;
        PgRow {
            row,
            shown: &self.shown,
        }
        .int(0)
    }

    async fn list_audit(&self, query: AuditQuery) -> Result<Vec<AuditRecord>> {
        let mut values: Vec<Param> = Vec::new();
        let Some(sql) = audit_sql(&query, "strpos", &mut values) else {
            return Ok(Vec::new());
        };
        let rows = self.query(&sql, &refs(&values)).await?;
        self.rows(&rows, audit)
    }

    async fn prune_audit(&self, older_than_ms: i64) -> Result<u64> {
        self.execute(PRUNE_AUDIT, &[&older_than_ms]).await
    }

    async fn insert_approval(&self, r: &ApprovalRecord) -> Result<bool> {
        let state = r.state.name();
        let changed = self
            .execute(
                INSERT_APPROVAL,
                &[
                    &r.id,
                    &r.account_id,
                    &r.created_ms,
                    &r.expires_ms,
                    &state,
                    &r.action,
                    &r.chat,
                    &r.requester_id,
                    &r.role,
                    &r.token,
                    &r.rule,
                    &r.summary,
                    &r.payload,
                    &r.decided_by,
                    &r.decided_ms,
                    &r.result,
                    &r.owner_message_ids,
                ],
            )
            .await?;
        Ok(changed == 1)
    }

    async fn get_approval(&self, id: &str) -> Result<Option<ApprovalRecord>> {
        let rows = self.query(&get_approval_sql(), &[&id]).await?;
        Ok(self.rows(&rows, approval)?.pop())
    }

    async fn list_approvals(
        &self,
        state: Option<ApprovalState>,
        account_id: Option<&str>,
        limit: u32,
    ) -> Result<Vec<ApprovalRecord>> {
        let mut values: Vec<Param> = Vec::new();
        let sql = approvals_sql(state, account_id, limit, &mut values);
        let rows = self.query(&sql, &refs(&values)).await?;
        self.rows(&rows, approval)
    }

    async fn transition(
        &self,
        id: &str,
        from: ApprovalState,
        update: ApprovalUpdate,
    ) -> Result<bool> {
        let (to, from) = (update.state.name(), from.name());
        let changed = self
            .execute(
                TRANSITION,
                &[
                    &to,
                    &update.decided_by,
                    &update.decided_ms,
                    &update.result,
                    &id,
                    &from,
                ],
            )
            .await?;
        Ok(changed == 1)
    }

    async fn set_owner_messages(&self, id: &str, message_ids: &[i64]) -> Result<()> {
        self.execute(SET_OWNER_MESSAGES, &[&id, &message_ids])
            .await
            .map(drop)
    }

    async fn prune_approvals(&self, older_than_ms: i64) -> Result<u64> {
        self.execute(PRUNE_APPROVALS, &[&older_than_ms]).await
    }

    fn describe(&self) -> String {
        self.described.clone()
    }
}
