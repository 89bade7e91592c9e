//! `MessageService`: history and sending.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::message_service_server::MessageService;
use tonic::{Request, Response, Status};

use crate::domain::Gateway;
use crate::domain::history::HistoryRequest;
use crate::grpc::{convert, status::to_status};

/// The MessageService implementation.
pub struct MessageApi {
    gw: Arc<Gateway>,
}

impl MessageApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

#[tonic::async_trait]
impl MessageService for MessageApi {
    async fn get_history(
        &self,
        request: Request<pb::GetHistoryRequest>,
    ) -> Result<Response<pb::GetHistoryResponse>, Status> {
        let ctx = super::ctx(&request);
        let pb::GetHistoryRequest {
            account_id,
            chat,
            count,
            anchor_message_id,
        } = request.into_inner();
        let req = HistoryRequest {
            account_id,
            chat: convert::chat_ref(chat.as_ref()),
            count,
            anchor_message_id,
        };
        let page = to_status(self.gw.get_history(req, ctx).await)?;
        Ok(Response::new(convert::history(&page)))
    }

    async fn send_message(
        &self,
        _request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        Err(Status::unimplemented("SendMessage is not built yet"))
    }
}
