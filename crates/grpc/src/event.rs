//! `EventService`: inbound events with resume, and heartbeats that keep an
//! idle stream alive through proxies with a read timeout.
//!
//! An event is encoded once, however many subscribers stream it: the first
//! subscriber to send an event encodes its `StreamEventsResponse` into the
//! service's [`WireCache`] (keyed by account and sequence number, bounded
//! by count and bytes); every other subscriber (and every resume from the
//! buffer) sends those bytes while they are cached. The service is
//! therefore served by [`EventServer`], a route whose codec writes
//! already-encoded messages, in place of the generated server (which
//! encodes each message once per stream that sends it). On the wire the two
//! are the same.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{BufMut, Bytes};
use onebot_gateway_client::pb;
use parking_lot::Mutex;
use prost::Message as _;
use tokio_stream::Stream;
use tonic::codec::{Codec, EncodeBuf, Encoder};
use tonic::codegen::BoxFuture;
use tonic::server::{Grpc, NamedService, ServerStreamingService};
use tonic::{Request, Response, Status};
use tonic_prost::ProstDecoder;

use crate::{convert, status::to_status};
use onebot_gateway_config::Locale;
use onebot_gateway_domain::clock::now_ms;
use onebot_gateway_domain::events::Subscription;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::journal::StoredEvent;
use onebot_gateway_domain::lease::{Leadership, Role, not_leader};
use onebot_gateway_domain::media::ids::MediaIds;
use onebot_gateway_domain::ports::SharedPeer;

/// The EventService implementation.
pub struct EventApi {
    gw: Arc<Gateway>,
    wire: Arc<WireCache>,
}

impl EventApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self {
            gw,
            wire: Arc::new(WireCache::new(WIRE_CACHE_EVENTS, WIRE_CACHE_BYTES)),
        }
    }
}

/// Most encoded events the [`WireCache`] keeps.
pub const WIRE_CACHE_EVENTS: usize = 1024;
/// Most bytes of encoded events the [`WireCache`] keeps.
pub const WIRE_CACHE_BYTES: usize = 8 << 20;

/// Encoded events shared by every stream, keyed by account and sequence
/// number. Holds at most `max_events` events and `max_bytes` bytes: the
/// oldest insertions leave first, and an encoding larger than `max_bytes`
/// is not kept.
#[derive(Debug)]
pub struct WireCache {
    max_events: usize,
    max_bytes: usize,
    inner: Mutex<Cached>,
}

#[derive(Debug, Default)]
struct Cached {
    map: HashMap<(Arc<str>, u64), Bytes>,
    order: VecDeque<(Arc<str>, u64)>,
    bytes: usize,
}

impl WireCache {
    /// An empty cache with these bounds.
    pub fn new(max_events: usize, max_bytes: usize) -> WireCache {
        WireCache {
            max_events: max_events.max(1),
            max_bytes,
            inner: Mutex::default(),
        }
    }

    /// The encoding of `stored`: the cached one, else `encode()`'s, which
    /// is kept for the next stream.
    fn get_or_encode(&self, stored: &StoredEvent, encode: impl FnOnce() -> Bytes) -> Bytes {
        let key = (stored.account_id.clone(), stored.sequence);
        if let Some(bytes) = self.inner.lock().map.get(&key) {
            return bytes.clone();
        }
        // Encoded outside the lock; two streams may both encode an event
        // that is not cached yet, and the first to finish is kept.
        let bytes = encode();
        if bytes.len() > self.max_bytes {
            return bytes;
        }
        let mut cached = self.inner.lock();
        if let Some(kept) = cached.map.get(&key) {
            return kept.clone();
        }
        cached.bytes += bytes.len();
        cached.map.insert(key.clone(), bytes.clone());
        cached.order.push_back(key);
        while cached.order.len() > self.max_events || cached.bytes > self.max_bytes {
            let Some(old) = cached.order.pop_front() else {
                break;
            };
            if let Some(gone) = cached.map.remove(&old) {
                cached.bytes -= gone.len();
            }
        }
        bytes
    }

    /// How many encoded events and bytes are kept.
    pub fn held(&self) -> (usize, usize) {
        let cached = self.inner.lock();
        (cached.map.len(), cached.bytes)
    }
}

/// The path of the service's one method.
pub const STREAM_EVENTS_PATH: &str = "/onebot.gateway.v1.EventService/StreamEvents";

/// One `StreamEventsResponse`, already encoded.
#[derive(Debug, Clone)]
pub struct Encoded(pub Bytes);

impl Encoded {
    /// The encoded response carrying `stored`: encoded by the first caller
    /// and shared through `cache` with the rest. `self_id` is the bot's QQ
    /// number; the message's received media get their ids from `ids`; its
    /// line is rendered in `lines`' zone and locale.
    pub fn event(
        cache: &WireCache,
        stored: &StoredEvent,
        self_id: i64,
        ids: &MediaIds,
        lines: &Lines,
    ) -> Encoded {
        let bytes = cache.get_or_encode(stored, || {
            let response = pb::StreamEventsResponse {
                event: Some(event_message(stored, self_id, ids, lines)),
                heartbeat: None,
            };
            Bytes::from(response.encode_to_vec())
        });
        Encoded(bytes)
    }
}

/// The `Event` message of `stored`, exactly as StreamEvents sends it (the
/// event sinks publish the same): `self_id` is the bot's QQ number, the
/// message's received media get their ids from `ids`, its line is rendered
/// in `lines`' zone and locale.
pub fn event_message(
    stored: &StoredEvent,
    self_id: i64,
    ids: &MediaIds,
    lines: &Lines,
) -> pb::Event {
    let mut event = convert::event(stored, self_id, &lines.tz, lines.locale);
    if let Some(pb::event::Kind::Message(m)) = &mut event.kind
        && let Some(msg) = m.message.as_mut()
    {
        convert::with_media_ids(ids, &stored.account_id, msg);
    }
    event
}

/// How message events render their line: the gateway's time zone and the
/// locale of quotes (the same for every stream, so the shared encoding is
/// every subscriber's).
#[derive(Debug, Clone)]
pub struct Lines {
    /// Time zone of the `HH:mm:ss` clock (the `timezone` setting).
    pub tz: jiff::tz::TimeZone,
    /// Locale of quotes (`tools.locale`).
    pub locale: Locale,
}

impl Lines {
    /// The rendering GetHistory uses in `gw`.
    pub fn of(gw: &Gateway) -> Lines {
        Lines {
            tz: gw.tz.clone(),
            locale: gw.config.tools.locale,
        }
    }
}

/// The stream type of StreamEvents.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<Encoded, Status>> + Send>>;

impl EventApi {
    /// StreamEvents: the subscription's heartbeats and events, encoded.
    pub async fn stream_events(
        &self,
        request: Request<pb::StreamEventsRequest>,
    ) -> Result<Response<EventStream>, Status> {
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
        let mut state = State::new(
            subscription,
            self.wire.clone(),
            account.peer.clone(),
            self.gw.received().ids().clone(),
            Lines::of(&self.gw),
            heartbeat,
        );
        // Under [ha] the stream ends with NOT_LEADER when this gateway stops
        // leading the account, so the client resubscribes with the leader.
        state.leading = self.gw.leadership().and_then(|l| {
            l.watch(&account.id).map(|role| Leading {
                leadership: l.clone(),
                account_id: account.id.clone(),
                role,
            })
        });
        let stream = futures_util::stream::unfold(state, next_item);
        Ok(Response::new(Box::pin(stream)))
    }
}

/// A running stream: its subscription, the shared encodings, the account's
/// peer (for `self_id`),
/// the received media's ids, how lines render and the heartbeat timer. An event only notes
/// when it was sent (`last_sent`); the timer, when it fires, sends a
/// heartbeat only after `heartbeat` of silence and otherwise waits for the
/// rest of it, so a busy stream does not touch the timer once per event.
struct State {
    sub: Subscription,
    wire: Arc<WireCache>,
    peer: SharedPeer,
    ids: MediaIds,
    lines: Lines,
    heartbeat: Option<Duration>,
    idle: Pin<Box<tokio::time::Sleep>>,
    last_sent: tokio::time::Instant,
    started: bool,
    done: bool,
    leading: Option<Leading>,
}

/// The role of the stream's account under `[ha]`.
struct Leading {
    leadership: Arc<Leadership>,
    account_id: String,
    role: tokio::sync::watch::Receiver<Role>,
}

/// Resolves when the account is no longer led here (never without `[ha]`).
async fn stepped_down(leading: &mut Option<Leading>) {
    match leading {
        Some(l) => {
            if l.role
                .wait_for(|r| !matches!(r, Role::Leading { .. }))
                .await
                .is_err()
            {
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending().await,
    }
}

impl State {
    fn new(
        sub: Subscription,
        wire: Arc<WireCache>,
        peer: SharedPeer,
        ids: MediaIds,
        lines: Lines,
        heartbeat: Option<Duration>,
    ) -> State {
        State {
            sub,
            wire,
            peer,
            ids,
            lines,
            heartbeat,
            idle: Box::pin(tokio::time::sleep(heartbeat.unwrap_or_default())),
            last_sent: tokio::time::Instant::now(),
            started: false,
            done: false,
            leading: None,
        }
    }

    /// A heartbeat at the subscription's position; restarts the idle timer.
    fn beat(&mut self) -> Encoded {
        self.rearm();
        let response = pb::StreamEventsResponse {
            event: None,
            heartbeat: Some(pb::Heartbeat {
                last_sequence: self.sub.last_sequence(),
                time: Some(convert::timestamp_ms(now_ms())),
            }),
        };
        Encoded(Bytes::from(response.encode_to_vec()))
    }

    /// Restarts the idle timer from now.
    fn rearm(&mut self) {
        self.last_sent = tokio::time::Instant::now();
        if let Some(period) = self.heartbeat {
            self.idle.as_mut().reset(self.last_sent + period);
        }
    }

    /// True when the timer fired after a whole period of silence; when
    /// something was sent since it was set, it is moved to a period after
    /// that and false is returned.
    fn silent_for_a_period(&mut self) -> bool {
        let Some(period) = self.heartbeat else {
            return false;
        };
        let due = self.last_sent + period;
        if tokio::time::Instant::now() >= due {
            return true;
        }
        self.idle.as_mut().reset(due);
        false
    }
}

/// What woke the stream up.
enum Step {
    Event(Option<onebot_gateway_domain::error::Result<StoredEvent>>),
    Beat,
    SteppedDown,
}

/// One step of the stream: first a heartbeat (the position the stream
/// starts from), then the next event, a heartbeat after `heartbeat_secs` of
/// silence, the lag error (then the end), or the end at shutdown.
async fn next_item(mut st: State) -> Option<(Result<Encoded, Status>, State)> {
    if st.done {
        return None;
    }
    if !st.started {
        st.started = true;
        let beat = st.beat();
        return Some((Ok(beat), st));
    }
    // An event already queued is taken without touching the timer.
    // `Subscription::next` is cancel-safe: an event it took is returned, or
    // its sequence was already passed (filtered out) when it is dropped.
    let step = if let Poll::Ready(r) = st.sub.try_next() {
        Step::Event(r)
    } else {
        loop {
            let step = match st.heartbeat {
                Some(_) => tokio::select! {
                    r = st.sub.next() => Step::Event(r),
                    () = st.idle.as_mut() => Step::Beat,
                    () = stepped_down(&mut st.leading) => Step::SteppedDown,
                },
                None => tokio::select! {
                    r = st.sub.next() => Step::Event(r),
                    () = stepped_down(&mut st.leading) => Step::SteppedDown,
                },
            };
            if !matches!(step, Step::Beat) || st.silent_for_a_period() {
                break step;
            }
        }
    };
    match step {
        Step::Beat => {
            let beat = st.beat();
            Some((Ok(beat), st))
        }
        Step::SteppedDown => {
            st.done = true;
            let l = st.leading.as_ref()?;
            let err = l
                .leadership
                .require_leader(&l.account_id)
                .err()
                .unwrap_or_else(|| not_leader(&l.account_id, None));
            Some((Err(crate::status::status_of(err)), st))
        }
        Step::Event(None) => None,
        Step::Event(Some(Ok(stored))) => {
            // Only noted: the timer moves when it fires (`silent_for_a_period`).
            st.last_sent = tokio::time::Instant::now();
            let item = Encoded::event(&st.wire, &stored, st.peer.self_id(), &st.ids, &st.lines);
            Some((Ok(item), st))
        }
        Step::Event(Some(Err(e))) => {
            st.done = true;
            Some((Err(crate::status::status_of(e)), st))
        }
    }
}

/// The codec of StreamEvents: decodes the request with prost, writes the
/// already-encoded responses as they are.
#[derive(Debug, Clone, Copy, Default)]
struct EventCodec;

impl Codec for EventCodec {
    type Encode = Encoded;
    type Decode = pb::StreamEventsRequest;
    type Encoder = EncodedWriter;
    type Decoder = ProstDecoder<pb::StreamEventsRequest>;

    fn encoder(&mut self) -> Self::Encoder {
        EncodedWriter
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstDecoder::default()
    }
}

/// Writes an [`Encoded`] message's bytes.
#[derive(Debug, Clone, Copy, Default)]
struct EncodedWriter;

impl Encoder for EncodedWriter {
    type Item = Encoded;
    type Error = Status;

    fn encode(&mut self, item: Encoded, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item.0);
        Ok(())
    }
}

/// StreamEvents as a tonic server-streaming method.
struct StreamEventsMethod(Arc<EventApi>);

impl ServerStreamingService<pb::StreamEventsRequest> for StreamEventsMethod {
    type Response = Encoded;
    type ResponseStream = EventStream;
    type Future = BoxFuture<Response<EventStream>, Status>;

    fn call(&mut self, request: Request<pb::StreamEventsRequest>) -> Self::Future {
        let api = self.0.clone();
        Box::pin(async move { api.stream_events(request).await })
    }
}

/// The EventService route, in place of the generated server.
#[derive(Clone)]
pub struct EventServer {
    api: Arc<EventApi>,
    max_decoding: usize,
    max_encoding: usize,
}

impl EventServer {
    /// Serves `api`, refusing requests over `max_decoding` bytes and
    /// responses over `max_encoding` bytes.
    pub fn new(api: EventApi, max_decoding: usize, max_encoding: usize) -> Self {
        Self {
            api: Arc::new(api),
            max_decoding,
            max_encoding,
        }
    }
}

impl NamedService for EventServer {
    const NAME: &'static str = pb::event_service_server::SERVICE_NAME;
}

impl tower::Service<http::Request<tonic::body::Body>> for EventServer {
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<tonic::body::Body>) -> Self::Future {
        if req.uri().path() != STREAM_EVENTS_PATH {
            // As the generated server answers a method it does not know.
            return Box::pin(async { Ok(Status::unimplemented("").into_http()) });
        }
        let method = StreamEventsMethod(self.api.clone());
        let (max_decoding, max_encoding) = (self.max_decoding, self.max_encoding);
        Box::pin(async move {
            let mut grpc = Grpc::new(EventCodec)
                .apply_max_message_size_config(Some(max_decoding), Some(max_encoding));
            Ok(grpc.server_streaming(method, req).await)
        })
    }
}

#[cfg(test)]
mod tests {
    use prost::Message as _;

    use super::*;

    /// [`EventServer`] routes StreamEvents only: a method added to the proto
    /// service must be routed there too (it would answer UNIMPLEMENTED).
    #[test]
    fn the_route_covers_every_method_of_the_service() {
        let set = prost_types::FileDescriptorSet::decode(pb::FILE_DESCRIPTOR_SET)
            .expect("embedded descriptor set");
        let (package, name) = pb::event_service_server::SERVICE_NAME
            .rsplit_once('.')
            .expect("qualified name");
        let service = set
            .file
            .iter()
            .filter(|f| f.package() == package)
            .flat_map(|f| &f.service)
            .find(|s| s.name() == name)
            .expect("EventService in the descriptor set");
        let paths: Vec<String> = service
            .method
            .iter()
            .map(|m| format!("/{}/{}", pb::event_service_server::SERVICE_NAME, m.name()))
            .collect();
        assert_eq!(paths, [STREAM_EVENTS_PATH]);
    }

    fn lines() -> Lines {
        Lines {
            tz: jiff::tz::TimeZone::get("Asia/Shanghai").expect("bundled zone"),
            locale: Locale::Zh,
        }
    }

    /// A message event carries its history line, rendered once with the
    /// event's encoding.
    #[test]
    fn a_message_event_carries_its_history_line() {
        let message = onebot_gateway_onebot::model::decode_message(
            &serde_json::json!({
                "message_id": 5, "time": 1_792_375_092,
                "sender": {"user_id": 10001, "nickname": "张三", "card": "群主张三"},
                "message": [
                    {"type": "reply", "data": {"id": "4"}},
                    {"type": "at", "data": {"qq": "10002", "name": "管理员李四"}},
                    {"type": "text", "data": {"text": " 收到"}}
                ]
            }),
            Some(onebot_gateway_domain::model::ChatRef::Group(20000003)),
        )
        .expect("decodable");
        let stored = StoredEvent::new(
            Arc::from("a"),
            7,
            1,
            Arc::new(onebot_gateway_domain::model::InboundEvent::message(
                message, false,
            )),
        );
        let cache = WireCache::new(4, 1 << 20);
        let encoded = Encoded::event(&cache, &stored, 99, &MediaIds::new([7; 32]), &lines());
        let event = pb::StreamEventsResponse::decode(encoded.0)
            .expect("decodes")
            .event
            .expect("an event");
        let Some(pb::event::Kind::Message(m)) = event.kind else {
            panic!("not a message: {event:?}");
        };
        assert_eq!(
            m.rendered,
            "[09:58:12] 群主张三(10001): [回复]@管理员李四 收到"
        );
        let en = Lines {
            locale: Locale::En,
            ..lines()
        };
        let event = convert::event(&stored, 99, &en.tz, en.locale);
        let Some(pb::event::Kind::Message(m)) = event.kind else {
            panic!("not a message");
        };
        assert_eq!(
            m.rendered,
            "[09:58:12] 群主张三(10001): [reply]@管理员李四 收到"
        );
    }

    /// What the stream sends next: `Some(sequence)` for an event, `None`
    /// for a heartbeat.
    async fn next(st: State) -> (Option<u64>, State) {
        let (item, st) = next_item(st).await.expect("the stream goes on");
        let m = pb::StreamEventsResponse::decode(item.expect("no error").0).expect("decodes");
        (m.event.map(|e| e.sequence), st)
    }

    #[tokio::test(start_paused = true)]
    async fn a_heartbeat_comes_only_after_a_whole_period_of_silence() {
        use onebot_gateway_domain::ports::EventSink as _;
        let hub = onebot_gateway_domain::events::EventHub::new(16, Default::default());
        let sub = hub
            .subscribe(
                "a",
                None,
                onebot_gateway_domain::events::EventFilter::default(),
            )
            .expect("subscribed");
        let peer = onebot_gateway_testkit::FakeApi::new(onebot_gateway_onebot::Flavor::NapCat);
        let poke = || onebot_gateway_domain::model::InboundEvent::Poke {
            group_id: 1,
            user_id: 2,
            target_id: 3,
            time: 4,
        };
        let period = Duration::from_secs(10);
        let start = tokio::time::Instant::now();
        let wire = Arc::new(WireCache::new(4, 1 << 20));
        let st = State::new(
            sub,
            wire,
            peer,
            MediaIds::new([7; 32]),
            lines(),
            Some(period),
        );
        // The stream opens with a heartbeat.
        let (first, st) = next(st).await;
        assert_eq!(first, None);
        hub.publish("a", poke());
        let (event, st) = next(st).await;
        assert_eq!(event, Some(1));
        // An event 6 s in: the timer set at the start fires at 10 s, but the
        // heartbeat waits for 10 s after that event.
        tokio::time::advance(Duration::from_secs(6)).await;
        hub.publish("a", poke());
        let (event, st) = next(st).await;
        assert_eq!(event, Some(2));
        let (beat, st) = next(st).await;
        assert_eq!(beat, None);
        assert_eq!(start.elapsed(), Duration::from_secs(16));
        // Then one every period while nothing happens.
        let (beat, _st) = next(st).await;
        assert_eq!(beat, None);
        assert_eq!(start.elapsed(), Duration::from_secs(26));
    }

    fn poke_event(sequence: u64) -> StoredEvent {
        StoredEvent::new(
            Arc::from("a"),
            sequence,
            1,
            Arc::new(onebot_gateway_domain::model::InboundEvent::Poke {
                group_id: 1,
                user_id: 2,
                target_id: 3,
                time: 4,
            }),
        )
    }

    #[test]
    fn an_event_is_encoded_once_for_every_subscriber() {
        let stored = poke_event(7);
        let ids = MediaIds::new([7; 32]);
        let cache = WireCache::new(4, 1 << 20);
        let first = Encoded::event(&cache, &stored, 99, &ids, &lines());
        let again = Encoded::event(&cache, &stored.clone(), 99, &ids, &lines());
        // The same buffer, not a second encoding.
        assert_eq!(first.0.as_ptr(), again.0.as_ptr());
        let want = pb::StreamEventsResponse {
            event: Some(convert::event(&stored, 99, &lines().tz, Locale::Zh)),
            heartbeat: None,
        };
        assert_eq!(
            pb::StreamEventsResponse::decode(first.0).expect("decodes"),
            want
        );
    }

    #[test]
    fn the_wire_cache_is_bounded_by_count_and_bytes() {
        let ids = MediaIds::new([7; 32]);
        let one = Encoded::event(
            &WireCache::new(1, 1 << 20),
            &poke_event(1),
            99,
            &ids,
            &lines(),
        )
        .0
        .len();
        // Room for three by count, two by bytes: the oldest leave first.
        let cache = WireCache::new(3, 2 * one);
        let first = Encoded::event(&cache, &poke_event(1), 99, &ids, &lines());
        for sequence in 2..=4 {
            Encoded::event(&cache, &poke_event(sequence), 99, &ids, &lines());
        }
        assert_eq!(cache.held(), (2, 2 * one));
        let again = Encoded::event(&cache, &poke_event(1), 99, &ids, &lines());
        assert_ne!(first.0.as_ptr(), again.0.as_ptr(), "encoded again");
        assert_eq!(first.0, again.0, "to the same bytes");
        // An encoding larger than the whole cache is sent, not kept.
        let tiny = WireCache::new(8, one - 1);
        Encoded::event(&tiny, &poke_event(1), 99, &ids, &lines());
        assert_eq!(tiny.held(), (0, 0));
    }
}
