//! `EventService`: inbound events with resume, and heartbeats that keep an
//! idle stream alive through proxies with a read timeout.

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use onebot_gateway_client::pb;
use pb::event_service_server::EventService;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::domain::clock::now_ms;
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
        let heartbeat = match self.gw.config.events.heartbeat_secs {
            0 => None,
            secs => Some(Duration::from_secs(secs)),
        };
        let state = State {
            sub: subscription,
            peer: account.peer.clone(),
            ids: self.gw.received().ids().clone(),
            heartbeat,
            idle: Box::pin(tokio::time::sleep(heartbeat.unwrap_or_default())),
            started: false,
            done: false,
        };
        let stream = futures_util::stream::unfold(state, next_item);
        Ok(Response::new(Box::pin(stream)))
    }
}

/// A running stream: its subscription, the account's peer (for `self_id`),
/// the received media's ids and the heartbeat timer, reset by every message
/// sent.
struct State {
    sub: Subscription,
    peer: SharedPeer,
    ids: MediaIds,
    heartbeat: Option<Duration>,
    idle: Pin<Box<tokio::time::Sleep>>,
    started: bool,
    done: bool,
}

impl State {
    /// A heartbeat at the subscription's position; restarts the idle timer.
    fn beat(&mut self) -> pb::StreamEventsResponse {
        self.rearm();
        pb::StreamEventsResponse {
            event: None,
            heartbeat: Some(pb::Heartbeat {
                last_sequence: self.sub.last_sequence(),
                time: Some(convert::timestamp_ms(now_ms())),
            }),
        }
    }

    fn rearm(&mut self) {
        if let Some(period) = self.heartbeat {
            self.idle
                .as_mut()
                .reset(tokio::time::Instant::now() + period);
        }
    }
}

/// What woke the stream up.
enum Step {
    Event(Option<crate::error::Result<crate::domain::events::StoredEvent>>),
    Beat,
}

/// One step of the stream: first a heartbeat (the position the stream
/// starts from), then the next event, a heartbeat after `heartbeat_secs` of
/// silence, the lag error (then the end), or the end at shutdown.
async fn next_item(mut st: State) -> Option<(Result<pb::StreamEventsResponse, Status>, State)> {
    if st.done {
        return None;
    }
    if !st.started {
        st.started = true;
        let beat = st.beat();
        return Some((Ok(beat), st));
    }
    // `Subscription::next` is cancel-safe: an event it took is returned, or
    // its sequence was already passed (filtered out) when it is dropped.
    let step = match st.heartbeat {
        Some(_) => tokio::select! {
            r = st.sub.next() => Step::Event(r),
            () = st.idle.as_mut() => Step::Beat,
        },
        None => Step::Event(st.sub.next().await),
    };
    match step {
        Step::Beat => {
            let beat = st.beat();
            Some((Ok(beat), st))
        }
        Step::Event(None) => None,
        Step::Event(Some(Ok(stored))) => {
            st.rearm();
            let mut event = convert::event(&stored, st.peer.status().self_id);
            if let Some(pb::event::Kind::Message(m)) = &mut event.kind
                && let Some(msg) = m.message.as_mut()
            {
                convert::with_media_ids(&st.ids, &stored.account_id, msg);
            }
            let item = pb::StreamEventsResponse {
                event: Some(event),
                heartbeat: None,
            };
            Some((Ok(item), st))
        }
        Step::Event(Some(Err(e))) => {
            st.done = true;
            Some((Err(Status::from(e)), st))
        }
    }
}
