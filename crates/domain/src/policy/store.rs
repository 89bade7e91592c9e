//! The port of the durable governance records: approvals and the audit
//! trail. Adapters keep them where the archive keeps its messages
//! (PostgreSQL at `archive.url`, else an embedded SQLite file).

use async_trait::async_trait;

use crate::error::Result;

/// The state of an approval. `Pending` moves once, to `Approved`,
/// `Rejected` or `Expired`; `Approved` moves once, to `Executed` or
/// `Failed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    /// Waiting for a bot owner.
    Pending,
    /// An owner said yes; the action is running.
    Approved,
    /// An owner said no; never executed.
    Rejected,
    /// Nobody decided in time; never executed.
    Expired,
    /// Approved and executed.
    Executed,
    /// Approved, but the execution failed (or its outcome is unknown).
    Failed,
}

impl ApprovalState {
    /// Every state.
    pub const ALL: [ApprovalState; 6] = [
        ApprovalState::Pending,
        ApprovalState::Approved,
        ApprovalState::Rejected,
        ApprovalState::Expired,
        ApprovalState::Executed,
        ApprovalState::Failed,
    ];

    /// The stored name (`pending`, `approved`, …).
    pub fn name(self) -> &'static str {
        match self {
            ApprovalState::Pending => "pending",
            ApprovalState::Approved => "approved",
            ApprovalState::Rejected => "rejected",
            ApprovalState::Expired => "expired",
            ApprovalState::Executed => "executed",
            ApprovalState::Failed => "failed",
        }
    }

    /// The state a stored name stands for.
    pub fn parse(name: &str) -> Option<ApprovalState> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// One held action and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ApprovalRecord {
    /// The id owners type (`同意 <id>`): unique, upper-case letters and
    /// digits.
    pub id: String,
    /// The account the action runs on.
    pub account_id: String,
    /// When it was asked for, Unix milliseconds.
    pub created_ms: i64,
    /// When a pending approval expires, Unix milliseconds.
    pub expires_ms: i64,
    /// Where it stands.
    pub state: ApprovalState,
    /// The action names, joined by `,` (`send,mention_all`).
    pub action: String,
    /// The chat (`group:<id>`, `private:<id>`).
    pub chat: String,
    /// The QQ user the agent acted for, if it named one.
    pub requester_id: Option<i64>,
    /// The requester's role in the chat.
    pub role: String,
    /// The name of the calling token (never its secret), if any.
    pub token: Option<String>,
    /// The index of the rule that held it.
    pub rule: i64,
    /// A short summary of what would be done.
    pub summary: String,
    /// The held action and the caller's scope, as the domain serialized
    /// them.
    pub payload: String,
    /// Who decided (`qq:<id>`, `token:<name>`, `mcp:<client>`, `timeout`,
    /// `gateway`).
    pub decided_by: Option<String>,
    /// When it was decided, Unix milliseconds.
    pub decided_ms: Option<i64>,
    /// The execution's result (message ids, or the error), as JSON.
    pub result: Option<String>,
    /// The private messages that asked the owners (an owner may quote one
    /// to answer).
    pub owner_message_ids: Vec<i64>,
}

/// A state change of an approval, applied only when it still is in the
/// expected state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalUpdate {
    /// The new state.
    pub state: ApprovalState,
    /// Who decided (kept when `None`).
    pub decided_by: Option<String>,
    /// When (kept when `None`).
    pub decided_ms: Option<i64>,
    /// The execution's result (kept when `None`).
    pub result: Option<String>,
}

/// What an audit record says of the action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuditDecision {
    /// Performed (or attempted: see the record's error) without approval.
    Allowed,
    /// Refused (by policy, whitelist or scope).
    Denied,
    /// Held for approval.
    Pending,
    /// An owner approved.
    Approved,
    /// An owner rejected.
    Rejected,
    /// Nobody decided in time.
    Expired,
    /// The approved action ran.
    Executed,
    /// The approved action failed.
    Failed,
}

impl AuditDecision {
    /// Every decision.
    pub const ALL: [AuditDecision; 8] = [
        AuditDecision::Allowed,
        AuditDecision::Denied,
        AuditDecision::Pending,
        AuditDecision::Approved,
        AuditDecision::Rejected,
        AuditDecision::Expired,
        AuditDecision::Executed,
        AuditDecision::Failed,
    ];

    /// The stored name (`allowed`, `denied`, …).
    pub fn name(self) -> &'static str {
        match self {
            AuditDecision::Allowed => "allowed",
            AuditDecision::Denied => "denied",
            AuditDecision::Pending => "pending",
            AuditDecision::Approved => "approved",
            AuditDecision::Rejected => "rejected",
            AuditDecision::Expired => "expired",
            AuditDecision::Executed => "executed",
            AuditDecision::Failed => "failed",
        }
    }

    /// The decision a stored name stands for.
    pub fn parse(name: &str) -> Option<AuditDecision> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// One audit record.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AuditRecord {
    /// Assigned by the store, increasing (0 before it is stored).
    pub id: i64,
    /// When, Unix milliseconds.
    pub time_ms: i64,
    /// The account.
    pub account_id: String,
    /// The calling token's name, if any.
    pub token: Option<String>,
    /// The QQ user the agent acted for, if any.
    pub requester_id: Option<i64>,
    /// The requester's role (`none` when the call named nobody).
    pub role: String,
    /// The action names, joined by `,`.
    pub action: String,
    /// The chat, when known (`group:<id>`, `private:<id>`).
    pub chat: String,
    /// What happened.
    pub decision: Option<AuditDecision>,
    /// The index of the rule that decided, if any.
    pub rule: Option<i64>,
    /// The approval, if any.
    pub approval_id: Option<String>,
    /// What was (or would have been) done, in short.
    pub summary: String,
    /// Who decided an approval.
    pub decided_by: Option<String>,
    /// The error reason of a refusal or failure (`POLICY_DENIED`, …).
    pub error: Option<String>,
}

/// Which audit records to list, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AuditQuery {
    /// Only this account.
    pub account_id: Option<String>,
    /// Only records at or after this time (Unix ms).
    pub since_ms: Option<i64>,
    /// Only records before this time (Unix ms).
    pub until_ms: Option<i64>,
    /// Only records whose actions include this one.
    pub action: Option<String>,
    /// Only this chat.
    pub chat: Option<String>,
    /// Only this decision.
    pub decision: Option<AuditDecision>,
    /// Only records with an id below this one (the page token).
    pub before_id: Option<i64>,
    /// Most records returned.
    pub limit: u32,
}

/// Approvals and audit records, durably.
#[async_trait]
pub trait GovernanceStore: Send + Sync + 'static {
    /// Appends a record; returns its id.
    async fn append_audit(&self, record: AuditRecord) -> Result<i64>;

    /// The records `query` selects, newest (highest id) first.
    async fn list_audit(&self, query: AuditQuery) -> Result<Vec<AuditRecord>>;

    /// Deletes the audit records older than `older_than_ms`; returns how
    /// many went.
    async fn prune_audit(&self, older_than_ms: i64) -> Result<u64>;

    /// Stores a new approval; `false` (nothing stored) when its id is
    /// taken.
    async fn insert_approval(&self, record: &ApprovalRecord) -> Result<bool>;

    /// The approval with this id.
    async fn get_approval(&self, id: &str) -> Result<Option<ApprovalRecord>>;

    /// Approvals in `state` (any when `None`) of `account_id` (any when
    /// `None`), newest first, at most `limit`; their `payload` is empty
    /// (only [`GovernanceStore::get_approval`] reads it).
    async fn list_approvals(
        &self,
        state: Option<ApprovalState>,
        account_id: Option<&str>,
        limit: u32,
    ) -> Result<Vec<ApprovalRecord>>;

    /// Applies `update` when the approval is in state `from`; `false` when
    /// it is not (someone else moved it first) or there is no such
    /// approval.
    async fn transition(
        &self,
        id: &str,
        from: ApprovalState,
        update: ApprovalUpdate,
    ) -> Result<bool>;

    /// Records the private messages that asked the owners.
    async fn set_owner_messages(&self, id: &str, message_ids: &[i64]) -> Result<()>;

    /// Deletes approvals created before `older_than_ms` that are no longer
    /// pending or approved; returns how many went.
    async fn prune_approvals(&self, older_than_ms: i64) -> Result<u64>;

    /// Where the records live, for the log (no credentials).
    fn describe(&self) -> String;
}
