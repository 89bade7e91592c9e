//! `EventService`: inbound events with resume.

use std::pin::Pin;
use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::event_service_server::EventService;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::domain::events::Subscription;
use crate::domain::gateway::Gateway;
use crate::domain::media::ids::MediaIds;
use crate::domain::ports::SharedPeer;
use crate::grpc::{convert, status::to_status};

/// The EventService implementation.
pub struct EventApi {
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
        request: Request<pb::StreamEventsRequest>,
    ) -> Result<Response<Self::StreamEventsStream>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::StreamEventsRequest {
            account_id,
            chats,
            kinds,
            after_sequence,
        } = request.into_inner();
        let account = to_status(self.gw.account(&account_id, &ctx))?;
        let mut filter = to_status(convert::event_filter(&chats, &kinds))?;
        // A token limited to some chats streams only their events (and the
        // chat-less lifecycle and connection events).
        let caller = &ctx.caller;
        for chat in &filter.chats {
            to_status(caller.check_chat(*chat))?;
        }
        if filter.chats.is_empty()
            && let Some(chats) = caller.allowed_chats()
        {
            filter.chats = chats.into_iter().collect();
        }
        let subscription = to_status(self.gw.events.subscribe(
            &account.id,
            after_sequence,
            filter,
        ))?;
        let ids = self.gw.received().ids().clone();
        let stream = futures_util::stream::unfold(
            Some((subscription, account.peer.clone(), ids)),
            next_event,
        );
        Ok(Response::new(Box::pin(stream)))
    }
}

type State = Option<(Subscription, SharedPeer, MediaIds)>;

/// One step of the stream: the next event, the lag error (then the end), or
/// the end at shutdown.
async fn next_event(state: State) -> Option<(Result<pb::StreamEventsResponse, Status>, State)> {
    let (mut sub, api, ids) = state?;
    match sub.next().await? {
        Ok(stored) => {
            let mut event = convert::event(&stored, api.status().self_id);
            if let Some(pb::event::Kind::Message(m)) = &mut event.kind
                && let Some(msg) = m.message.as_mut()
            {
                convert::with_media_ids(&ids, &stored.account_id, msg);
            }
            let item = pb::StreamEventsResponse { event: Some(event) };
            Some((Ok(item), Some((sub, api, ids))))
        }
        Err(e) => Some((Err(Status::from(e)), None)),
    }
}
