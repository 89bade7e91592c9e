//! `GroupService`: members, groups, pokes.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::group_service_server::GroupService;
use tonic::{Request, Response, Status};

use crate::domain::Gateway;

/// The GroupService implementation.
pub struct GroupApi {
    #[allow(dead_code)]
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
        _request: Request<pb::ListGroupMembersRequest>,
    ) -> Result<Response<pb::ListGroupMembersResponse>, Status> {
        Err(Status::unimplemented("ListGroupMembers is not built yet"))
    }

    async fn list_groups(
        &self,
        _request: Request<pb::ListGroupsRequest>,
    ) -> Result<Response<pb::ListGroupsResponse>, Status> {
        Err(Status::unimplemented("ListGroups is not built yet"))
    }

    async fn poke_member(
        &self,
        _request: Request<pb::PokeMemberRequest>,
    ) -> Result<Response<pb::PokeMemberResponse>, Status> {
        Err(Status::unimplemented("PokeMember is not built yet"))
    }
}
