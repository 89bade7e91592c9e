//! `EventService`: inbound events with resume.

use std::pin::Pin;
use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::event_service_server::EventService;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::domain::Gateway;

/// The EventService implementation.
pub struct EventApi {
    #[allow(dead_code)]
    gw: Arc<Gateway>,
}

impl EventApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

/// The stream type of StreamEvents.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<pb::StreamEventsResponse, Status>> + Send>>;

#[tonic::async_trait]
impl EventService for EventApi {
    type StreamEventsStream = EventStream;

    async fn stream_events(
        &self,
        _request: Request<pb::StreamEventsRequest>,
    ) -> Result<Response<Self::StreamEventsStream>, Status> {
        Err(Status::unimplemented("StreamEvents is not built yet"))
    }
}
