//! The governance records (the domain's
//! [`GovernanceStore`](onebot_gateway_domain::policy::store::GovernanceStore)):
//! approvals and the audit trail, where the archive keeps its messages:
//! PostgreSQL at `archive.url` ([`postgres`]), else `governance.sqlite3`
//! in the data directory ([`sqlite`]).
//!
//! Both engines hold the same two tables, `gateway_approvals` and
//! `gateway_audit_records`, and run the SQL written here once:
//! - A transition is one `UPDATE … WHERE id = ? AND state = ?`: of two
//!   racing transitions from the same state exactly one changes the row.
//!   The fields of the update that are `None` keep their stored values.
//! - Audit ids are assigned by the engine, increasing and never reused
//!   (a pruned id does not come back), so `before_id` pages through the
//!   trail newest first.
//! - An audit record matches an `action` filter when one of its `,`-joined
//!   action names is that name exactly.
//! - A `limit` of 0 lists [`DEFAULT_LIMIT`] rows.
//! - Absent optional values are stored as `NULL`.

pub mod postgres;
pub mod sqlite;

#[cfg(test)]
mod tests;

use super::query::Binds;
use onebot_gateway_domain::policy::store::{
    ApprovalRecord, ApprovalState, AuditDecision, AuditQuery, AuditRecord,
};

/// How many rows a list returns when its limit is 0.
pub const DEFAULT_LIMIT: u32 = 50;

/// The approval columns, in the order [`approval`] reads them and
/// [`INSERT_APPROVAL`] binds them.
const APPROVAL_COLUMNS: &str = "id, account_id, created_ms, expires_ms, state, action, chat, \
    requester_id, role, token, rule, summary, payload, decided_by, decided_ms, result, \
    owner_message_ids";

/// [`APPROVAL_COLUMNS`] for lists: the payload (a held send's inline media
/// may be tens of MiB) is left out, read back empty.
const LISTED_APPROVAL_COLUMNS: &str = "id, account_id, created_ms, expires_ms, state, action, \
    chat, requester_id, role, token, rule, summary, '' AS payload, decided_by, decided_ms, \
    result, owner_message_ids";

/// The audit columns, in the order [`audit`] reads them (the id first,
/// then the values [`APPEND_AUDIT`] binds).
const AUDIT_COLUMNS: &str = "id, time_ms, account_id, token, requester_id, role, action, chat, \
    decision, rule, approval_id, summary, decided_by, error";

/// Stores an approval unless its id is taken; binds the
/// [`APPROVAL_COLUMNS`].
const INSERT_APPROVAL: &str = "INSERT INTO gateway_approvals (id, account_id, created_ms, \
    expires_ms, state, action, chat, requester_id, role, token, rule, summary, payload, \
    decided_by, decided_ms, result, owner_message_ids) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17) \
    ON CONFLICT (id) DO NOTHING";

/// Appends an audit record and returns its id; binds the
/// [`AUDIT_COLUMNS`] after the id.
const APPEND_AUDIT: &str = "INSERT INTO gateway_audit_records (time_ms, account_id, token, \
    requester_id, role, action, chat, decision, rule, approval_id, summary, decided_by, error) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) RETURNING id";

/// The compare-and-set of a transition: the new state `?1`, the decider
/// `?2`, the decision time `?3` and the result `?4` (each kept when
/// `NULL`), for the approval `?5` in state `?6`.
const TRANSITION: &str = "UPDATE gateway_approvals SET state = ?1, \
    decided_by = COALESCE(?2, decided_by), decided_ms = COALESCE(?3, decided_ms), \
    result = COALESCE(?4, result) WHERE id = ?5 AND state = ?6";

/// Records the owners' messages `?2` of the approval `?1`.
const SET_OWNER_MESSAGES: &str =
    "UPDATE gateway_approvals SET owner_message_ids = ?2 WHERE id = ?1";

/// Deletes the audit records before `?1`.
const PRUNE_AUDIT: &str = "DELETE FROM gateway_audit_records WHERE time_ms < ?1";

/// Deletes the approvals created before `?1` that are decided for good.
const PRUNE_APPROVALS: &str = "DELETE FROM gateway_approvals WHERE created_ms < ?1 \
    AND state NOT IN ('pending', 'approved')";

/// The approval `?1`.
fn get_approval_sql() -> String {
    format!("SELECT {APPROVAL_COLUMNS} FROM gateway_approvals WHERE id = ?1")
}

/// `limit`, 0 meaning [`DEFAULT_LIMIT`].
fn limit(limit: u32) -> i64 {
    i64::from(if limit == 0 { DEFAULT_LIMIT } else { limit })
}

/// The SQL listing the audit records `query` selects, newest first;
/// `contains` is the engine's function answering where a text occurs in
/// another (`instr`, `strpos`). `None` when no record can match (an action
/// name holding a `,`).
fn audit_sql(query: &AuditQuery, contains: &str, b: &mut impl Binds) -> Option<String> {
    let mut sql = format!("SELECT {AUDIT_COLUMNS} FROM gateway_audit_records WHERE TRUE");
    if let Some(account) = &query.account_id {
        sql.push_str(&format!(" AND account_id = {}", b.text(account.clone())));
    }
    if let Some(since) = query.since_ms {
        sql.push_str(&format!(" AND time_ms >= {}", b.int(since)));
    }
    if let Some(until) = query.until_ms {
        sql.push_str(&format!(" AND time_ms < {}", b.int(until)));
    }
    if let Some(action) = &query.action {
        if action.contains(',') {
            return None;
        }
        let p = b.text(format!(",{action},"));
        sql.push_str(&format!(" AND {contains}(',' || action || ',', {p}) > 0"));
    }
    if let Some(chat) = &query.chat {
        sql.push_str(&format!(" AND chat = {}", b.text(chat.clone())));
    }
    if let Some(decision) = query.decision {
        sql.push_str(&format!(
            " AND decision = {}",
            b.text(decision.name().to_string())
        ));
    }
    if let Some(before) = query.before_id {
        sql.push_str(&format!(" AND id < {}", b.int(before)));
    }
    sql.push_str(&format!(
        " ORDER BY id DESC LIMIT {}",
        b.int(limit(query.limit))
    ));
    Some(sql)
}

/// The SQL listing approvals in `state` of `account`, newest first.
fn approvals_sql(
    state: Option<ApprovalState>,
    account: Option<&str>,
    count: u32,
    b: &mut impl Binds,
) -> String {
    let mut sql = format!("SELECT {LISTED_APPROVAL_COLUMNS} FROM gateway_approvals WHERE TRUE");
    if let Some(state) = state {
        sql.push_str(&format!(
            " AND state = {}",
            b.text(state.name().to_string())
        ));
    }
    if let Some(account) = account {
        sql.push_str(&format!(
            " AND account_id = {}",
            b.text(account.to_string())
        ));
    }
    sql.push_str(&format!(
        " ORDER BY created_ms DESC, id DESC LIMIT {}",
        b.int(limit(count))
    ));
    sql
}

/// A stored row as both engines read it, by column index.
trait StoredRow {
    type Error;
    fn int(&self, i: usize) -> Result<i64, Self::Error>;
    fn opt_int(&self, i: usize) -> Result<Option<i64>, Self::Error>;
    fn text(&self, i: usize) -> Result<String, Self::Error>;
    fn opt_text(&self, i: usize) -> Result<Option<String>, Self::Error>;
    /// The owners' message ids, in their order.
    fn ids(&self, i: usize) -> Result<Vec<i64>, Self::Error>;
    /// The error of a column holding a value this build does not know.
    fn invalid(&self, i: usize, what: String) -> Self::Error;
}

/// An approval row of [`APPROVAL_COLUMNS`].
fn approval<R: StoredRow>(r: &R) -> Result<ApprovalRecord, R::Error> {
    let state = r.text(4)?;
    Ok(ApprovalRecord {
        id: r.text(0)?,
        account_id: r.text(1)?,
        created_ms: r.int(2)?,
        expires_ms: r.int(3)?,
        state: ApprovalState::parse(&state)
            .ok_or_else(|| r.invalid(4, format!("unknown approval state {state:?}")))?,
        action: r.text(5)?,
        chat: r.text(6)?,
        requester_id: r.opt_int(7)?,
        role: r.text(8)?,
        token: r.opt_text(9)?,
        rule: r.int(10)?,
        summary: r.text(11)?,
        payload: r.text(12)?,
        decided_by: r.opt_text(13)?,
        decided_ms: r.opt_int(14)?,
        result: r.opt_text(15)?,
        owner_message_ids: r.ids(16)?,
    })
}

/// An audit row of [`AUDIT_COLUMNS`].
fn audit<R: StoredRow>(r: &R) -> Result<AuditRecord, R::Error> {
    let decision = match r.opt_text(8)? {
        None => None,
        Some(name) => Some(
            AuditDecision::parse(&name)
                .ok_or_else(|| r.invalid(8, format!("unknown audit decision {name:?}")))?,
        ),
    };
    Ok(AuditRecord {
        id: r.int(0)?,
        time_ms: r.int(1)?,
        account_id: r.text(2)?,
        token: r.opt_text(3)?,
        requester_id: r.opt_int(4)?,
        role: r.text(5)?,
        action: r.text(6)?,
        chat: r.text(7)?,
        decision,
        rule: r.opt_int(9)?,
        approval_id: r.opt_text(10)?,
        summary: r.text(11)?,
        decided_by: r.opt_text(12)?,
        error: r.opt_text(13)?,
    })
}
