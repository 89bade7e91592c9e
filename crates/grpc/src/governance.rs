//! `ApprovalService` and `AuditService`: held actions and the audit trail.

use std::sync::Arc;
use std::time::Duration;

use onebot_gateway_client::pb;
use pb::approval_service_server::ApprovalService;
use pb::audit_service_server::AuditService;
use tonic::{Request, Response, Status};

use crate::convert::timestamp_ms;
use crate::status::to_status;
use onebot_gateway_domain::error::Error;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::policy::approvals::{Executed, actions_of};
use onebot_gateway_domain::policy::store::{
    ApprovalRecord, ApprovalState, AuditDecision, AuditQuery, AuditRecord,
};

/// The ApprovalService implementation.
pub struct ApprovalApi {
    gw: Arc<Gateway>,
}

impl ApprovalApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

/// The AuditService implementation.
pub struct AuditApi {
    gw: Arc<Gateway>,
}

impl AuditApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

fn state(s: ApprovalState) -> pb::ApprovalState {
    match s {
        ApprovalState::Pending => pb::ApprovalState::Pending,
        ApprovalState::Approved => pb::ApprovalState::Approved,
        ApprovalState::Rejected => pb::ApprovalState::Rejected,
        ApprovalState::Expired => pb::ApprovalState::Expired,
        ApprovalState::Executed => pb::ApprovalState::Executed,
        ApprovalState::Failed => pb::ApprovalState::Failed,
    }
}

fn state_filter(s: pb::ApprovalState) -> Option<ApprovalState> {
    match s {
        pb::ApprovalState::Unspecified => None,
        pb::ApprovalState::Pending => Some(ApprovalState::Pending),
        pb::ApprovalState::Approved => Some(ApprovalState::Approved),
        pb::ApprovalState::Rejected => Some(ApprovalState::Rejected),
        pb::ApprovalState::Expired => Some(ApprovalState::Expired),
        pb::ApprovalState::Executed => Some(ApprovalState::Executed),
        pb::ApprovalState::Failed => Some(ApprovalState::Failed),
    }
}

/// The proto form of an approval.
pub fn approval(r: &ApprovalRecord) -> pb::Approval {
    let executed = Executed::parse(r.result.as_deref());
    pb::Approval {
        approval_id: r.id.clone(),
        account_id: r.account_id.clone(),
        state: state(r.state) as i32,
        actions: actions_of(r),
        target: r.chat.clone(),
        requester_user_id: r.requester_id.unwrap_or_default(),
        requester_role: r.role.clone(),
        token_name: r.token.clone().unwrap_or_default(),
        rule: i32::try_from(r.rule).unwrap_or(-1),
        summary: r.summary.clone(),
        decided_by: r.decided_by.clone().unwrap_or_default(),
        create_time: Some(timestamp_ms(r.created_ms)),
        expire_time: Some(timestamp_ms(r.expires_ms)),
        decide_time: r.decided_ms.map(timestamp_ms),
        message_ids: executed.message_ids,
        error_reason: executed.error_reason,
        error_message: executed.error_message,
    }
}

fn decision(d: AuditDecision) -> pb::AuditDecision {
    match d {
        AuditDecision::Allowed => pb::AuditDecision::Allowed,
        AuditDecision::Denied => pb::AuditDecision::Denied,
        AuditDecision::Pending => pb::AuditDecision::Pending,
        AuditDecision::Approved => pb::AuditDecision::Approved,
        AuditDecision::Rejected => pb::AuditDecision::Rejected,
        AuditDecision::Expired => pb::AuditDecision::Expired,
        AuditDecision::Executed => pb::AuditDecision::Executed,
        AuditDecision::Failed => pb::AuditDecision::Failed,
    }
}

fn decision_filter(d: pb::AuditDecision) -> Option<AuditDecision> {
    AuditDecision::ALL.into_iter().find(|a| decision(*a) == d)
}

/// The proto form of an audit record.
pub fn audit_record(r: &AuditRecord) -> pb::AuditRecord {
    pb::AuditRecord {
        id: r.id,
        time: Some(timestamp_ms(r.time_ms)),
        account_id: r.account_id.clone(),
        token_name: r.token.clone().unwrap_or_default(),
        requester_user_id: r.requester_id.unwrap_or_default(),
        requester_role: r.role.clone(),
        actions: r
            .action
            .split(',')
            .filter(|a| !a.is_empty())
            .map(str::to_owned)
            .collect(),
        target: r.chat.clone(),
        decision: r.decision.map_or(pb::AuditDecision::Unspecified, decision) as i32,
        rule: r.rule.and_then(|r| i32::try_from(r).ok()).unwrap_or(-1),
        approval_id: r.approval_id.clone().unwrap_or_default(),
        summary: r.summary.clone(),
        decided_by: r.decided_by.clone().unwrap_or_default(),
        error_reason: r.error.clone().unwrap_or_default(),
    }
}

fn ms_of(t: &prost_types::Timestamp) -> i64 {
    t.seconds
        .saturating_mul(1000)
        .saturating_add(i64::from(t.nanos) / 1_000_000)
}

/// The id a page token names: the last id of the previous page, in
/// decimal, prefixed `a`.
fn page_before(token: &str) -> Result<Option<i64>, Status> {
    if token.is_empty() {
        return Ok(None);
    }
    match token.strip_prefix('a').and_then(|t| t.parse::<i64>().ok()) {
        Some(id) if id > 0 => Ok(Some(id)),
        _ => to_status(Err(Error::invalid(
            "page_token",
            "page_token is not one this RPC returned: pass next_page_token unchanged",
        ))),
    }
}

fn non_empty(s: String) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.trim().to_owned())
}

#[tonic::async_trait]
impl ApprovalService for ApprovalApi {
    async fn list_approvals(
        &self,
        request: Request<pb::ListApprovalsRequest>,
    ) -> Result<Response<pb::ListApprovalsResponse>, Status> {
        let ctx = crate::deadline::ctx(&request);
        let r = request.into_inner();
        let state = state_filter(r.state());
        let account = non_empty(r.account_id);
        let limit = u32::try_from(r.limit.max(0)).unwrap_or(0);
        let list = to_status(
            self.gw
                .list_approvals(state, account.as_deref(), limit, &ctx)
                .await,
        )?;
        Ok(Response::new(pb::ListApprovalsResponse {
            approvals: list.iter().map(approval).collect(),
        }))
    }

    async fn get_approval(
        &self,
        request: Request<pb::GetApprovalRequest>,
    ) -> Result<Response<pb::GetApprovalResponse>, Status> {
        let ctx = crate::deadline::ctx(&request);
        let r = request.into_inner();
        // The wait ends a second before the server's own request timeout.
        let limit = Duration::from_millis(self.gw.config.limits.request_timeout_ms)
            .saturating_sub(Duration::from_secs(1));
        let wait = r
            .wait
            .and_then(|w| Duration::try_from(w).ok())
            .unwrap_or_default()
            .min(limit);
        let record = to_status(self.gw.wait_approval(&r.approval_id, wait, &ctx).await)?;
        Ok(Response::new(pb::GetApprovalResponse {
            approval: Some(approval(&record)),
        }))
    }

    async fn decide_approval(
        &self,
        request: Request<pb::DecideApprovalRequest>,
    ) -> Result<Response<pb::DecideApprovalResponse>, Status> {
        let ctx = crate::deadline::ctx(&request);
        let r = request.into_inner();
        let record = to_status(self.gw.get_approval(&r.approval_id, &ctx).await)?;
        to_status(self.gw.check_approver(&ctx.caller, &record.account_id))?;
        let by = match ctx.caller.token_name() {
            Some(name) => format!("token:{name}"),
            None => "api".to_owned(),
        };
        let record = to_status(self.gw.decide_approval(&record.id, r.approve, &by).await)?;
        Ok(Response::new(pb::DecideApprovalResponse {
            approval: Some(approval(&record)),
        }))
    }
}

#[tonic::async_trait]
impl AuditService for AuditApi {
    async fn list_audit_records(
        &self,
        request: Request<pb::ListAuditRecordsRequest>,
    ) -> Result<Response<pb::ListAuditRecordsResponse>, Status> {
        let ctx = crate::deadline::ctx(&request);
        let r = request.into_inner();
        let decision = decision_filter(r.decision());
        let limit = u32::try_from(r.limit.max(0)).unwrap_or(0);
        let query = AuditQuery {
            account_id: non_empty(r.account_id),
            since_ms: r.since.as_ref().map(ms_of),
            until_ms: r.until.as_ref().map(ms_of),
            action: non_empty(r.action),
            chat: non_empty(r.target),
            decision,
            before_id: page_before(&r.page_token)?,
            limit,
        };
        let (records, next) = to_status(self.gw.list_audit(query, &ctx).await)?;
        let next_page_token = next.map(|id| format!("a{id}")).unwrap_or_default();
        Ok(Response::new(pb::ListAuditRecordsResponse {
            records: records.iter().map(audit_record).collect(),
            next_page_token,
        }))
    }
}
