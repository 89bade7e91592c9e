//! The governance records in `governance.sqlite3` in the data directory,
//! opened like every SQLite file of the crate ([`crate::db`]): owner-only,
//! checked, WAL mode with every commit fsynced. One connection serves the
//! calls one at a time, each on the blocking pool; audit ids are
//! `AUTOINCREMENT` (never reused). The owners' message ids are stored as a
//! JSON array.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use rusqlite::types::{Type, Value};
use rusqlite::{Connection, OptionalExtension, params, params_from_iter};

use super::{
    APPEND_AUDIT, INSERT_APPROVAL, PRUNE_APPROVALS, PRUNE_AUDIT, SET_OWNER_MESSAGES, StoredRow,
    TRANSITION, approval, approvals_sql, audit, audit_sql, get_approval_sql,
};
use crate::db::{self, Store, sqlite_err};
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::policy::store::{
    ApprovalRecord, ApprovalState, ApprovalUpdate, AuditQuery, AuditRecord, GovernanceStore,
};

/// File name of the governance records inside the data directory.
pub const GOVERNANCE_FILE: &str = "governance.sqlite3";

/// Each migration takes the schema from the version before it to its own.
const MIGRATIONS: &[&str] = &["
CREATE TABLE gateway_approvals (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    state TEXT NOT NULL,
    action TEXT NOT NULL,
    chat TEXT NOT NULL,
    requester_id INTEGER,
    role TEXT NOT NULL,
    token TEXT,
    rule INTEGER NOT NULL,
    summary TEXT NOT NULL,
    payload TEXT NOT NULL,
    decided_by TEXT,
    decided_ms INTEGER,
    result TEXT,
    owner_message_ids TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX gateway_approvals_created ON gateway_approvals(created_ms, id);
CREATE INDEX gateway_approvals_state ON gateway_approvals(state, created_ms, id);
CREATE TABLE gateway_audit_records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time_ms INTEGER NOT NULL,
    account_id TEXT NOT NULL,
    token TEXT,
    requester_id INTEGER,
    role TEXT NOT NULL,
    action TEXT NOT NULL,
    chat TEXT NOT NULL,
    decision TEXT,
    rule INTEGER,
    approval_id TEXT,
    summary TEXT NOT NULL,
    decided_by TEXT,
    error TEXT
);
CREATE INDEX gateway_audit_records_time ON gateway_audit_records(time_ms);
CREATE INDEX gateway_audit_records_account ON gateway_audit_records(account_id, id);
"];

struct Inner {
    path: PathBuf,
    conn: Mutex<Connection>,
}

/// The governance records in an SQLite file.
#[derive(Clone)]
pub struct SqliteGovernance {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SqliteGovernance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteGovernance")
            .field("path", &self.inner.path)
            .finish()
    }
}

impl SqliteGovernance {
    /// Opens (or creates) `<data_dir>/governance.sqlite3` and applies the
    /// migrations it lacks. The error names the file.
    pub fn open(data_dir: &Path) -> Result<Self> {
        let path = data_dir.join(GOVERNANCE_FILE);
        let mut conn = db::open(&path, Store::Governance)?;
        db::migrate(&mut conn, "governance_meta", MIGRATIONS)
            .map_err(|e| sqlite_err(Store::Governance, &path, e))?;
        Ok(Self {
            inner: Arc::new(Inner {
                path,
                conn: Mutex::new(conn),
            }),
        })
    }

    /// Path of the database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Runs `f` on the connection, on the blocking pool.
    async fn call<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = inner.conn.lock();
            f(&mut conn).map_err(|e| sqlite_err(Store::Governance, &inner.path, e))
        })
        .await
        .map_err(|e| Error::internal(format!("governance store task failed: {e}")))?
    }
}

impl StoredRow for rusqlite::Row<'_> {
    type Error = rusqlite::Error;

    fn int(&self, i: usize) -> rusqlite::Result<i64> {
        self.get(i)
    }

    fn opt_int(&self, i: usize) -> rusqlite::Result<Option<i64>> {
        self.get(i)
    }

    fn text(&self, i: usize) -> rusqlite::Result<String> {
        self.get(i)
    }

    fn opt_text(&self, i: usize) -> rusqlite::Result<Option<String>> {
        self.get(i)
    }

    fn ids(&self, i: usize) -> rusqlite::Result<Vec<i64>> {
        let json: String = self.get(i)?;
        serde_json::from_str(&json).map_err(|e| self.invalid(i, e.to_string()))
    }

    fn invalid(&self, i: usize, what: String) -> rusqlite::Error {
        rusqlite::Error::FromSqlConversionFailure(i, Type::Text, what.into())
    }
}

/// The owners' message ids as stored: a JSON array.
fn ids_json(ids: &[i64]) -> String {
    serde_json::to_string(ids).unwrap_or_else(|_| "[]".to_string())
}

#[async_trait::async_trait]
impl GovernanceStore for SqliteGovernance {
    async fn append_audit(&self, r: AuditRecord) -> Result<i64> {
        self.call(move |conn| {
            conn.prepare_cached(APPEND_AUDIT)?.query_row(
                params![
                    r.time_ms,
                    r.account_id,
                    r.token,
                    r.requester_id,
                    r.role,
                    r.action,
                    r.chat,
                    r.decision.map(|d| d.name()),
                    r.rule,
                    r.approval_id,
                    r.summary,
                    r.decided_by,
                    r.error
                ],
                |row| row.get(0),
            )
        })
        .await
    }

    async fn list_audit(&self, query: AuditQuery) -> Result<Vec<AuditRecord>> {
        let mut values: Vec<Value> = Vec::new();
        let Some(sql) = audit_sql(&query, "instr", &mut values) else {
            return Ok(Vec::new());
        };
        self.call(move |conn| {
            conn.prepare(&sql)?
                .query_map(params_from_iter(values), |r| audit(r))?
                .collect()
        })
        .await
    }

    async fn prune_audit(&self, older_than_ms: i64) -> Result<u64> {
        self.call(move |conn| conn.execute(PRUNE_AUDIT, [older_than_ms]))
            .await
            .map(|n| n as u64)
    }

    async fn insert_approval(&self, record: &ApprovalRecord) -> Result<bool> {
        let r = record.clone();
        self.call(move |conn| {
            conn.prepare_cached(INSERT_APPROVAL)?.execute(params![
                r.id,
                r.account_id,
                r.created_ms,
                r.expires_ms,
                r.state.name(),
                r.action,
                r.chat,
                r.requester_id,
                r.role,
                r.token,
                r.rule,
                r.summary,
                r.payload,
                r.decided_by,
                r.decided_ms,
                r.result,
                ids_json(&r.owner_message_ids)
            ])
        })
        .await
        .map(|n| n == 1)
    }

    async fn get_approval(&self, id: &str) -> Result<Option<ApprovalRecord>> {
        let id = id.to_string();
        self.call(move |conn| {
            conn.prepare_cached(&get_approval_sql())?
                .query_row([id], |r| approval(r))
                .optional()
        })
        .await
    }

    async fn list_approvals(
        &self,
        state: Option<ApprovalState>,
        account_id: Option<&str>,
        limit: u32,
    ) -> Result<Vec<ApprovalRecord>> {
        let mut values: Vec<Value> = Vec::new();
        let sql = approvals_sql(state, account_id, limit, &mut values);
        self.call(move |conn| {
            conn.prepare(&sql)?
                .query_map(params_from_iter(values), |r| approval(r))?
                .collect()
        })
        .await
    }

    async fn transition(
        &self,
        id: &str,
        from: ApprovalState,
        update: ApprovalUpdate,
    ) -> Result<bool> {
        let id = id.to_string();
        self.call(move |conn| {
            conn.prepare_cached(TRANSITION)?.execute(params![
                update.state.name(),
                update.decided_by,
                update.decided_ms,
                update.result,
                id,
                from.name()
            ])
        })
        .await
        .map(|n| n == 1)
    }

    async fn set_owner_messages(&self, id: &str, message_ids: &[i64]) -> Result<()> {
        let (id, ids) = (id.to_string(), ids_json(message_ids));
        self.call(move |conn| {
            conn.prepare_cached(SET_OWNER_MESSAGES)?
                .execute(params![id, ids])
                .map(drop)
        })
        .await
    }

    async fn prune_approvals(&self, older_than_ms: i64) -> Result<u64> {
        self.call(move |conn| conn.execute(PRUNE_APPROVALS, [older_than_ms]))
            .await
            .map(|n| n as u64)
    }

    fn describe(&self) -> String {
        format!("sqlite {}", self.inner.path.display())
    }
}
