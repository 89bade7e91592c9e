//! `MediaService`: streamed uploads into the staging area.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::media_service_server::MediaService;
use tonic::{Request, Response, Status, Streaming};

use crate::domain::Gateway;

/// The MediaService implementation.
pub struct MediaApi {
    #[allow(dead_code)]
    gw: Arc<Gateway>,
}

impl MediaApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

#[tonic::async_trait]
impl MediaService for MediaApi {
    async fn upload_media(
        &self,
        _request: Request<Streaming<pb::UploadMediaRequest>>,
    ) -> Result<Response<pb::UploadMediaResponse>, Status> {
        Err(Status::unimplemented("UploadMedia is not built yet"))
    }
}
