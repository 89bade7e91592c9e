//! Approvals and the audit trail: [`Client::approvals`],
//! [`Client::wait_approval`], [`Client::approve`], [`Client::reject`] and
//! [`Client::audit`].

use std::time::Duration;

use crate::client::{Authed, Client};
use crate::error::Error;
use crate::pb;
use crate::pb::approval_service_client::ApprovalServiceClient;
use crate::pb::audit_service_client::AuditServiceClient;

impl Client {
    /// The generated ApprovalService client.
    pub fn approval_service(&self) -> ApprovalServiceClient<Authed> {
        ApprovalServiceClient::new(self.authed())
    }

    /// The generated AuditService client.
    pub fn audit_service(&self) -> AuditServiceClient<Authed> {
        AuditServiceClient::new(self.authed())
    }

    /// The approvals of this client's account in `state` (`Unspecified`:
    /// every state), newest first.
    pub async fn approvals(&self, state: pb::ApprovalState) -> Result<Vec<pb::Approval>, Error> {
        let request = pb::ListApprovalsRequest {
            account_id: self.account_id().to_owned(),
            state: state as i32,
            limit: 0,
        };
        Ok(self
            .approval_service()
            .list_approvals(request)
            .await?
            .into_inner()
            .approvals)
    }

    /// One approval, at once.
    pub async fn approval(&self, approval_id: &str) -> Result<pb::Approval, Error> {
        self.wait_approval(approval_id, Duration::ZERO).await
    }

    /// One approval once it is no longer pending or executing, or after
    /// `wait` (at most 10 minutes, and the server's request timeout).
    pub async fn wait_approval(
        &self,
        approval_id: &str,
        wait: Duration,
    ) -> Result<pb::Approval, Error> {
        let request = pb::GetApprovalRequest {
            approval_id: approval_id.to_owned(),
            wait: (!wait.is_zero())
                .then(|| prost_types::Duration::try_from(wait).unwrap_or_default()),
        };
        self.approval_service()
            .get_approval(request)
            .await?
            .into_inner()
            .approval
            .ok_or_else(|| Error::InvalidInput("the gateway answered without an approval".into()))
    }

    /// Approves (and so executes) a pending approval; needs a token with
    /// `approve = true`.
    pub async fn approve(&self, approval_id: &str) -> Result<pb::Approval, Error> {
        self.decide(approval_id, true).await
    }

    /// Rejects a pending approval; needs a token with `approve = true`.
    pub async fn reject(&self, approval_id: &str) -> Result<pb::Approval, Error> {
        self.decide(approval_id, false).await
    }

    async fn decide(&self, approval_id: &str, approve: bool) -> Result<pb::Approval, Error> {
        let request = pb::DecideApprovalRequest {
            approval_id: approval_id.to_owned(),
            approve,
        };
        self.approval_service()
            .decide_approval(request)
            .await?
            .into_inner()
            .approval
            .ok_or_else(|| Error::InvalidInput("the gateway answered without an approval".into()))
    }

    /// The audit records `request` selects, one page at a time, newest
    /// first (an empty `account_id` means this client's account).
    pub fn audit(&self, mut request: pb::ListAuditRecordsRequest) -> AuditPages {
        if request.account_id.is_empty() {
            request.account_id = self.account_id().to_owned();
        }
        AuditPages {
            client: self.clone(),
            request,
            done: false,
        }
    }
}

/// The pages of an audit listing ([`Client::audit`]).
#[derive(Debug)]
pub struct AuditPages {
    client: Client,
    request: pb::ListAuditRecordsRequest,
    done: bool,
}

impl AuditPages {
    /// The next (older) page; `None` after the last one.
    pub async fn next_page(&mut self) -> Result<Option<pb::ListAuditRecordsResponse>, Error> {
        if self.done {
            return Ok(None);
        }
        let page = self
            .client
            .audit_service()
            .list_audit_records(self.request.clone())
            .await?
            .into_inner();
        if page.next_page_token.is_empty() {
            self.done = true;
        } else {
            self.request.page_token = page.next_page_token.clone();
        }
        Ok(Some(page))
    }
}

impl pb::Approval {
    /// True while the approval may still run: pending or executing.
    pub fn is_open(&self) -> bool {
        matches!(
            self.state(),
            pb::ApprovalState::Pending | pb::ApprovalState::Approved
        )
    }
}
