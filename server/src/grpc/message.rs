//! `MessageService`: history and sending.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::message_service_server::MessageService;
use tonic::{Request, Response, Status};

use crate::domain::Gateway;

/// The MessageService implementation.
pub struct MessageApi {
    #[allow(dead_code)]
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
        _request: Request<pb::GetHistoryRequest>,
    ) -> Result<Response<pb::GetHistoryResponse>, Status> {
        Err(Status::unimplemented("GetHistory is not built yet"))
    }

    async fn send_message(
        &self,
        _request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        Err(Status::unimplemented("SendMessage is not built yet"))
    }
}
