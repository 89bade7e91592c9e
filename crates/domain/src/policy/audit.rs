//! The audit trail: one durable record for every write the gateway
//! performed or refused, and for every change of an approval.
//!
//! A write use case fills a [`Note`] as it learns the account, the chat
//! and the requester, and records its outcome once at the end:
//! `allowed` when it was done, `denied` when a policy rule, the whitelist
//! or the token's scope refused it, `failed` for any other failure (with
//! the error's reason), nothing for an action held for approval (the hold
//! records `pending`) or run as an approved one (the approval records
//! `executed` or `failed`). A record that cannot be stored is logged and
//! counted; it never fails the write it describes.

use super::Action;
use super::check::Requester;
use super::store::{AuditDecision, AuditQuery, AuditRecord};
use crate::call::CallCtx;
use crate::clock::now_ms;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::ChatRef;

/// Most characters of a summary.
pub const MAX_SUMMARY_CHARS: usize = 200;
/// Records listed when a query asks for 0.
pub const DEFAULT_AUDIT_LIMIT: u32 = 50;
/// Most records one query returns.
pub const MAX_AUDIT_LIMIT: u32 = 500;

/// What a write use case learned about its action, for its audit record.
#[derive(Debug, Clone)]
pub struct Note {
    /// The account (as requested until it is resolved).
    pub account_id: String,
    /// The chat, once known.
    pub chat: Option<ChatRef>,
    /// Who the call acts for.
    pub requester: Requester,
    /// The actions.
    pub actions: Vec<Action>,
    /// The rule that decided, if any.
    pub rule: Option<usize>,
    /// What is done, in short.
    pub summary: String,
}

impl Note {
    /// A note of `actions` on `account_id`, summarized as `summary`.
    pub fn new(account_id: &str, actions: Vec<Action>, summary: String) -> Note {
        Note {
            account_id: account_id.to_owned(),
            chat: None,
            requester: Requester::NONE,
            actions,
            rule: None,
            summary: cut(&summary),
        }
    }

    /// The action names joined by `,`.
    pub fn action_names(&self) -> String {
        join_actions(&self.actions)
    }

    /// The record this note makes with `decision`.
    pub fn record(&self, token: Option<&str>, decision: AuditDecision) -> AuditRecord {
        AuditRecord {
            id: 0,
            time_ms: now_ms(),
            account_id: self.account_id.clone(),
            token: token.map(str::to_owned),
            requester_id: self.requester.user_id,
            role: self.requester.role.name().to_owned(),
            action: self.action_names(),
            chat: self.chat.map(|c| c.target()).unwrap_or_default(),
            decision: Some(decision),
            rule: self.rule.map(|r| r as i64),
            approval_id: None,
            summary: self.summary.clone(),
            decided_by: None,
            error: None,
        }
    }
}

/// `actions`' names joined by `,`.
pub fn join_actions(actions: &[Action]) -> String {
    actions
        .iter()
        .map(|a| a.name())
        .collect::<Vec<_>>()
        .join(",")
}

/// `text` cut to [`MAX_SUMMARY_CHARS`] characters, `…` marking the cut.
pub fn cut(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(MAX_SUMMARY_CHARS).collect();
    if chars.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

/// Whether an error is a refusal (`denied`) rather than a failure.
fn refusal(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::PolicyDenied | Kind::GroupNotAllowed | Kind::UserNotAllowed | Kind::TokenScope
    )
}

/// `ErrorInfo.reason` of a kind, as the audit trail keeps it: the kind's
/// name in upper snake case, but for the kinds that share another kind's
/// reason on the wire.
pub fn reason_of(kind: Kind) -> String {
    match kind {
        Kind::OnebotActionUnknown => return "ONEBOT_ACTION_FAILED".to_owned(),
        Kind::MediaDownloadFailed => return "MEDIA_TRANSFER_FAILED".to_owned(),
        _ => {}
    }
    let name = format!("{kind:?}");
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

impl Gateway {
    /// Stores `record` in the audit trail; a failure is logged, never
    /// returned.
    pub async fn audit(&self, record: AuditRecord) {
        let Some(store) = self.governance() else {
            return;
        };
        let decision = record.decision.map_or("", |d| d.name());
        onebot_gateway_telemetry::metrics::audit_record(&record.account_id, decision);
        if let Err(e) = store.append_audit(record).await {
            onebot_gateway_telemetry::metrics::audit_record("", "store_failed");
            tracing::error!(error = %e, "storing an audit record failed");
        }
    }

    /// Records the outcome of a write that ran without approval (see the
    /// module docs); `result` summarizes what it did.
    pub async fn audit_outcome<T>(
        &self,
        note: &Note,
        ctx: &CallCtx,
        outcome: &Result<T>,
        result: impl FnOnce(&T) -> String,
    ) {
        let token = ctx.caller.token_name();
        let record = match outcome {
            Ok(value) => {
                let mut r = note.record(token, AuditDecision::Allowed);
                let done = result(value);
                if !done.is_empty() {
                    r.summary = format!("{} → {done}", r.summary);
                }
                r
            }
            Err(e) if e.kind == Kind::ApprovalPending => return,
            Err(e) => {
                let decision = if refusal(e.kind) {
                    AuditDecision::Denied
                } else {
                    AuditDecision::Failed
                };
                let mut r = note.record(token, decision);
                r.error = Some(reason_of(e.kind));
                r
            }
        };
        self.audit(record).await;
    }

    /// The audit records `query` selects, newest first, for `ctx`'s caller
    /// (only accounts its token may use), with the id the next page starts
    /// before (`None` on the last page).
    pub async fn list_audit(
        &self,
        mut query: AuditQuery,
        ctx: &CallCtx,
    ) -> Result<(Vec<AuditRecord>, Option<i64>)> {
        let store = self.governance_store()?;
        if let Some(account) = &query.account_id {
            ctx.caller.check_account(account)?;
        }
        if let Some(chat) = &query.chat {
            let Some((kind, id)) = onebot_gateway_config::parse_chat(chat) else {
                return Err(Error::invalid(
                    "target",
                    format!("target {chat:?} is not group:<id> or private:<id>"),
                ));
            };
            query.chat = Some(format!("{kind}:{id}"));
        }
        query.limit = match query.limit {
            0 => DEFAULT_AUDIT_LIMIT,
            n => n.min(MAX_AUDIT_LIMIT),
        };
        let limit = query.limit as usize;
        let mut records = store.list_audit(query).await?;
        let next = match records.last() {
            Some(last) if records.len() >= limit => Some(last.id),
            _ => None,
        };
        records.retain(|r| ctx.caller.allows_account(&r.account_id));
        Ok((records, next))
    }

    /// The governance store, or the error saying it is not open.
    pub(crate) fn governance_store(
        &self,
    ) -> Result<&std::sync::Arc<dyn super::store::GovernanceStore>> {
        self.governance().ok_or_else(|| {
            Error::internal("the governance store (approvals and audit trail) is not open")
        })
    }
}
