//! `AccountService`: configured accounts and their connection state.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::account_service_server::AccountService;
use tonic::{Request, Response, Status};

use crate::convert;
use onebot_gateway_domain::gateway::Gateway;

/// The AccountService implementation.
pub struct AccountApi {
    gw: Arc<Gateway>,
}

impl AccountApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

#[tonic::async_trait]
impl AccountService for AccountApi {
    async fn list_accounts(
        &self,
        request: Request<pb::ListAccountsRequest>,
    ) -> Result<Response<pb::ListAccountsResponse>, Status> {
        let caller = crate::auth::caller(&request);
        let accounts = self
            .gw
            .accounts()
            .filter(|a| caller.allows_account(&a.id))
            .map(|a| convert::account(a, &a.peer.status(), self.gw.queue_depth(&a.id)))
            .collect();
        Ok(Response::new(pb::ListAccountsResponse { accounts }))
    }
}
