//! `GroupService`: members, groups, pokes, group files, moderation.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::group_service_server::GroupService;
use tonic::{Request, Response, Status};

use crate::{convert, status::to_status};
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::read::members::MembersRequest;
use onebot_gateway_domain::write::moderation::Moderation;

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

    async fn list_group_files(
        &self,
        request: Request<pb::ListGroupFilesRequest>,
    ) -> Result<Response<pb::ListGroupFilesResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::ListGroupFilesRequest {
            account_id,
            group_id,
            folder_id,
            page_size,
            page_token,
        } = request.into_inner();
        let folder = (!folder_id.is_empty()).then_some(folder_id.as_str());
        let listing = to_status(
            self.gw
                .list_group_files(&account_id, group_id, folder, page_size, &page_token, ctx)
                .await,
        )?;
        Ok(Response::new(convert::group_files(listing)))
    }

    async fn mute_member(
        &self,
        request: Request<pb::MuteMemberRequest>,
    ) -> Result<Response<pb::MuteMemberResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::MuteMemberRequest {
            account_id,
            group_id,
            user_id,
            duration_secs,
            on_behalf_of,
        } = request.into_inner();
        let on_behalf_of = super::requester::on_behalf_of(on_behalf_of)?;
        let op = Moderation::Mute {
            user_id,
            duration_secs,
        };
        let group_id = to_status(
            self.gw
                .moderate(&account_id, group_id, op, on_behalf_of, ctx)
                .await,
        )?;
        Ok(Response::new(pb::MuteMemberResponse { group_id, user_id }))
    }

    async fn mute_all(
        &self,
        request: Request<pb::MuteAllRequest>,
    ) -> Result<Response<pb::MuteAllResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::MuteAllRequest {
            account_id,
            group_id,
            enable,
            on_behalf_of,
        } = request.into_inner();
        let on_behalf_of = super::requester::on_behalf_of(on_behalf_of)?;
        let op = Moderation::MuteAll { enable };
        let group_id = to_status(
            self.gw
                .moderate(&account_id, group_id, op, on_behalf_of, ctx)
                .await,
        )?;
        Ok(Response::new(pb::MuteAllResponse { group_id }))
    }

    async fn kick_member(
        &self,
        request: Request<pb::KickMemberRequest>,
    ) -> Result<Response<pb::KickMemberResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::KickMemberRequest {
            account_id,
            group_id,
            user_id,
            reject_rejoin,
            on_behalf_of,
        } = request.into_inner();
        let on_behalf_of = super::requester::on_behalf_of(on_behalf_of)?;
        let op = Moderation::Kick {
            user_id,
            reject_rejoin,
        };
        let group_id = to_status(
            self.gw
                .moderate(&account_id, group_id, op, on_behalf_of, ctx)
                .await,
        )?;
        Ok(Response::new(pb::KickMemberResponse { group_id, user_id }))
    }

    async fn set_member_card(
        &self,
        request: Request<pb::SetMemberCardRequest>,
    ) -> Result<Response<pb::SetMemberCardResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::SetMemberCardRequest {
            account_id,
            group_id,
            user_id,
            card,
            on_behalf_of,
        } = request.into_inner();
        let on_behalf_of = super::requester::on_behalf_of(on_behalf_of)?;
        let op = Moderation::SetCard { user_id, card };
        let group_id = to_status(
            self.gw
                .moderate(&account_id, group_id, op, on_behalf_of, ctx)
                .await,
        )?;
        Ok(Response::new(pb::SetMemberCardResponse {
            group_id,
            user_id,
        }))
    }
}
