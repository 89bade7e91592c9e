//! `GroupService`: members, groups, pokes.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::group_service_server::GroupService;
use tonic::{Request, Response, Status};

use crate::{convert, status::to_status};
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::read::members::MembersRequest;

/// The GroupService implementation.
pub struct GroupApi {
    gw: Arc<Gateway>,
}

impl GroupApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

#[tonic::async_trait]
impl GroupService for GroupApi {
    async fn list_group_members(
        &self,
        request: Request<pb::ListGroupMembersRequest>,
    ) -> Result<Response<pb::ListGroupMembersResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::ListGroupMembersRequest {
            account_id,
            group_id,
            no_cache,
            limit,
        } = request.into_inner();
        let req = MembersRequest {
            account_id,
            group_id,
            no_cache,
            limit,
        };
        let members = to_status(self.gw.list_group_members(req, ctx).await)?;
        Ok(Response::new(convert::members(members)))
    }

    async fn list_groups(
        &self,
        request: Request<pb::ListGroupsRequest>,
    ) -> Result<Response<pb::ListGroupsResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::ListGroupsRequest { account_id } = request.into_inner();
        let groups = to_status(self.gw.list_groups(&account_id, ctx).await)?;
        Ok(Response::new(convert::groups(&groups)))
    }

    async fn poke_member(
        &self,
        request: Request<pb::PokeMemberRequest>,
    ) -> Result<Response<pb::PokeMemberResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::PokeMemberRequest {
            account_id,
            group_id,
            user_id,
            on_behalf_of,
        } = request.into_inner();
        let on_behalf_of = super::requester::on_behalf_of(on_behalf_of)?;
        let group_id = to_status(
            self.gw
                .poke_member(&account_id, group_id, user_id, on_behalf_of, ctx)
                .await,
        )?;
        Ok(Response::new(pb::PokeMemberResponse { group_id, user_id }))
    }
}
