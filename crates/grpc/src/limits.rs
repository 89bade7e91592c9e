//! The limits layer: request message sizes per RPC, load shedding, event
//! stream limits and server-side timeouts (all from `[limits]`).
//!
//! - Size: a request message longer than the RPC's limit
//!   (`max_upload_message_bytes` for UploadMedia, `max_request_bytes` for
//!   the rest) fails with RESOURCE_EXHAUSTED, REQUEST_TOO_LARGE as soon as
//!   its 5-byte gRPC header arrives.
//! - Concurrency: at most `max_concurrent_requests` calls run at once
//!   (health, reflection and event streams aside; MCP tool calls count
//!   too), and one client (its token, or its address without
//!   authentication) at most `max_share_per_client` of them; more are
//!   refused at once with RESOURCE_EXHAUSTED, OVERLOADED (metadata `limit`:
//!   `concurrency`, `concurrency_per_client`) and a RetryInfo, never
//!   queued. A call holds its slot until its response ends.
//! - First message: a call holding a slot whose request message (an
//!   upload's header) has not arrived after `first_message_timeout_ms` is
//!   dropped with DEADLINE_EXCEEDED, and its slot freed.
//! - Streams: at most `max_event_streams` StreamEvents streams, and
//!   `max_event_streams_per_client` per client (its token, or its address
//!   without authentication); more are refused the same way.
//! - Time: unary calls get `request_timeout_ms`, uploads and downloads
//!   `upload_timeout_ms` (a shorter client deadline applies first); then
//!   DEADLINE_EXCEEDED, reason DEADLINE_EXCEEDED.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http::{Request, Response};
use parking_lot::Mutex;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tonic::Status;
use tonic::body::Body;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};
use tower::{Layer, Service};

use crate::body::{ArrivalBody, LimitedBody, ObservedBody};
use crate::rpc::{self, Class, HttpService, ResponseFuture};
use onebot_gateway_config::LimitsConfig;
use onebot_gateway_domain::caller::Caller;
use onebot_gateway_domain::error::{Error, Kind};
use onebot_gateway_domain::shares::{self, Refusal, Shares, Slot};
use onebot_gateway_telemetry::metrics as m;

/// Shared state of the limits.
#[derive(Debug)]
struct State {
    config: LimitsConfig,
    concurrency: Arc<Shares>,
    event_streams: Arc<Semaphore>,
    per_client: Mutex<HashMap<String, usize>>,
}

/// Adds [`LimitsService`].
#[derive(Debug, Clone)]
pub struct LimitsLayer {
    state: Arc<State>,
}

impl LimitsLayer {
    /// Limits from `config`; `concurrency` is the budget of
    /// `max_concurrent_requests` (shared with the MCP tool calls).
    pub fn new(config: &LimitsConfig, concurrency: Arc<Shares>) -> Self {
        Self {
            state: Arc::new(State {
                concurrency,
                event_streams: Arc::new(Semaphore::new(config.max_event_streams)),
                per_client: Mutex::new(HashMap::new()),
                config: config.clone(),
            }),
        }
    }
}

/// The budget of `max_concurrent_requests` with its shares per client.
pub fn concurrency_budget(config: &LimitsConfig) -> Arc<Shares> {
    let total = config.max_concurrent_requests as u64;
    Shares::new(total, config.share_of(total))
}

impl<S> Layer<S> for LimitsLayer {
    type Service = LimitsService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        LimitsService {
            inner,
            state: self.state.clone(),
        }
    }
}

/// See the module docs.
#[derive(Debug, Clone)]
pub struct LimitsService<S> {
    inner: S,
    state: Arc<State>,
}

/// Releases a client's stream slot when dropped.
struct ClientSlot {
    state: Arc<State>,
    key: String,
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut map = self.state.per_client.lock();
        if let Some(n) = map.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&self.key);
            }
        }
    }
}

/// What a call holds until its response ends.
enum Held {
    Nothing,
    Request(#[allow(dead_code)] Slot),
    Stream(
        #[allow(dead_code)] OwnedSemaphorePermit,
        #[allow(dead_code)] ClientSlot,
    ),
}

fn overloaded(state: &State, limit: &'static str, message: &str) -> Status {
    m::shed(limit);
    tracing::warn!(limit, "request shed: {message}");
    crate::status::status_of(
        Error::new(Kind::Overloaded, message)
            .with("limit", limit)
            .retry_after(Duration::from_millis(state.config.overload_retry_after_ms)),
    )
}

fn too_large(found: usize, limit: usize) -> Status {
    m::shed("request_size");
    crate::status::status_of(
        Error::new(
            Kind::RequestTooLarge,
            format!("the request message has {found} bytes; the limit is {limit} bytes"),
        )
        .with("limit_bytes", limit)
        .with("found_bytes", found),
    )
}

/// The remote address of a plaintext or TLS connection.
fn remote_addr<B>(req: &Request<B>) -> Option<SocketAddr> {
    let ext = req.extensions();
    ext.get::<TcpConnectInfo>()
        .and_then(|i| i.remote_addr())
        .or_else(|| {
            ext.get::<TlsConnectInfo<TcpConnectInfo>>()
                .and_then(|i| i.get_ref().remote_addr())
        })
}

/// Who a client is, for the per-client limits: its token, else its
/// address.
fn client_key<B>(req: &Request<B>) -> Option<Arc<str>> {
    if let Some(name) = req
        .extensions()
        .get::<Caller>()
        .and_then(|c| c.token_name())
    {
        return Some(shares::token_client(name));
    }
    remote_addr(req).map(|addr| shares::address_client(addr.ip()))
}

impl State {
    /// Takes what the call needs, or the status refusing it.
    fn admit<B>(self: &Arc<Self>, class: Class, req: &Request<B>) -> Result<Held, Status> {
        match class {
            Class::Health | Class::Reflection => Ok(Held::Nothing),
            Class::Unary | Class::Upload | Class::Download => {
                match self.concurrency.slot(client_key(req)) {
                    Ok(slot) => Ok(Held::Request(slot)),
                    Err(Refusal::Full { .. }) => Err(overloaded(
                        self,
                        "concurrency",
                        "the gateway is at its concurrency limit",
                    )),
                    Err(Refusal::Share { .. }) => Err(overloaded(
                        self,
                        "concurrency_per_client",
                        "this client holds its share of the concurrency limit (limits.max_share_per_client)",
                    )),
                }
            }
            Class::EventStream => {
                let permit = self
                    .event_streams
                    .clone()
                    .try_acquire_owned()
                    .map_err(|_| {
                        overloaded(self, "event_streams", "too many event streams are open")
                    })?;
                let key = client_key(req).map_or_else(|| "anonymous".to_owned(), |k| k.to_string());
                {
                    let mut map = self.per_client.lock();
                    let n = map.entry(key.clone()).or_insert(0);
                    if *n >= self.config.max_event_streams_per_client {
                        return Err(overloaded(
                            self,
                            "event_streams_per_client",
                            "this client has too many event streams open",
                        ));
                    }
                    *n += 1;
                }
                let slot = ClientSlot {
                    state: self.clone(),
                    key,
                };
                Ok(Held::Stream(permit, slot))
            }
        }
    }
}

impl<S> Service<Request<Body>> for LimitsService<S>
where
    S: HttpService,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        let class = rpc::lookup(req.uri().path()).map_or(Class::Unary, |r| r.class);
        let held = match self.state.admit(class, &req) {
            Ok(held) => held,
            Err(status) => return Box::pin(std::future::ready(Ok(status.into_http()))),
        };
        let config = &self.state.config;
        let (limit, timeout) = match class {
            Class::Upload => (
                config.max_upload_message_bytes,
                Some(config.upload_timeout_ms),
            ),
            Class::Unary => (config.max_request_bytes, Some(config.request_timeout_ms)),
            Class::Download => (config.max_request_bytes, Some(config.upload_timeout_ms)),
            Class::EventStream | Class::Health | Class::Reflection => {
                (config.max_request_bytes, None)
            }
        };
        let req = req.map(|body| Body::new(LimitedBody::new(body, limit, too_large)));
        // Calls holding a slot wait at most `first_message_timeout_ms` for
        // their request message.
        let (req, arrival) = match held {
            Held::Request(_) => {
                let (tx, rx) = oneshot::channel();
                (
                    req.map(|body| Body::new(ArrivalBody::new(body, tx))),
                    Some(rx),
                )
            }
            Held::Nothing | Held::Stream(..) => (req, None),
        };
        let first_ms = config.first_message_timeout_ms;
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let fut = inner.call(req);
        Box::pin(async move {
            let fut = async {
                let Some(arrival) = arrival else {
                    return Some(fut.await);
                };
                let stalled = async {
                    // A body dropped unread counts as arrived.
                    let waited = tokio::time::timeout(Duration::from_millis(first_ms), arrival);
                    if waited.await.is_ok() {
                        std::future::pending::<()>().await;
                    }
                };
                tokio::select! {
                    response = fut => Some(response),
                    () = stalled => None,
                }
            };
            let fut = async {
                match fut.await {
                    Some(response) => response,
                    None => {
                        m::shed("first_message");
                        tracing::info!(
                            first_ms,
                            "call dropped: its request message did not arrive"
                        );
                        let err = Error::new(
                            Kind::DeadlineExceeded,
                            format!("the request message did not arrive within {first_ms} ms"),
                        )
                        .with("first_message_timeout_ms", first_ms);
                        Ok(crate::status::status_of(err).into_http())
                    }
                }
            };
            let response = match timeout {
                None => fut.await,
                Some(ms) => match tokio::time::timeout(Duration::from_millis(ms), fut).await {
                    Ok(r) => r,
                    Err(_) => {
                        m::shed("timeout");
                        let err = Error::new(
                            Kind::DeadlineExceeded,
                            format!("the request took longer than the server's limit of {ms} ms"),
                        )
                        .with("timeout_ms", ms);
                        return Ok(crate::status::status_of(err).into_http());
                    }
                },
            };
            let Ok(response) = response;
            Ok(match held {
                Held::Nothing => response,
                // The slot is freed when the response (or stream) ends.
                held => {
                    response.map(|body| Body::new(ObservedBody::new(body, move |_| drop(held))))
                }
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bytes::Bytes;
    use http_body_util::BodyExt;
    use tokio::sync::{Notify, mpsc};
    use tonic_types::StatusExt;
    use tower::ServiceExt;

    use super::*;
    use onebot_gateway_config::{Access, AuthConfig, TokenConfig};

    const UNARY: &str = "/onebot.gateway.v1.GroupService/ListGroups";
    const STREAM: &str = "/onebot.gateway.v1.EventService/StreamEvents";
    const HEALTH: &str = "/grpc.health.v1.Health/Check";

    /// An inner service whose responses wait for `gate`, with a body that
    /// stays open until its sender is dropped.
    #[derive(Clone)]
    struct Gated {
        gate: Arc<Notify>,
        bodies: mpsc::UnboundedSender<mpsc::Sender<Bytes>>,
    }

    impl Service<Request<Body>> for Gated {
        type Response = Response<Body>;
        type Error = Infallible;
        type Future = ResponseFuture;
        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }
        fn call(&mut self, req: Request<Body>) -> Self::Future {
            let this = self.clone();
            Box::pin(async move {
                if req.uri().path() != HEALTH {
                    this.gate.notified().await;
                }
                let (tx, rx) = mpsc::channel::<Bytes>(1);
                let _ = this.bodies.send(tx);
                let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
                let body =
                    http_body_util::StreamBody::new(tokio_stream::StreamExt::map(stream, |b| {
                        Ok::<_, Status>(http_body::Frame::data(b))
                    }));
                Ok(Response::new(Body::new(body)))
            })
        }
    }

    fn request(path: &str, caller: Option<Caller>) -> Request<Body> {
        let mut req = Request::builder().uri(path).body(Body::empty()).unwrap();
        if let Some(c) = caller {
            req.extensions_mut().insert(c);
        }
        req
    }

    fn status(res: &Response<Body>) -> Option<Status> {
        Status::from_header_map(res.headers())
    }

    fn limits(f: impl FnOnce(&mut LimitsConfig)) -> LimitsConfig {
        let mut c = LimitsConfig {
            max_share_per_client: 1.0,
            ..LimitsConfig::default()
        };
        f(&mut c);
        c
    }

    fn setup(
        config: LimitsConfig,
    ) -> (
        LimitsService<Gated>,
        Arc<Notify>,
        mpsc::UnboundedReceiver<mpsc::Sender<Bytes>>,
    ) {
        let gate = Arc::new(Notify::new());
        let (tx, rx) = mpsc::unbounded_channel();
        let svc = LimitsLayer::new(&config, concurrency_budget(&config)).layer(Gated {
            gate: gate.clone(),
            bodies: tx,
        });
        (svc, gate, rx)
    }

    fn assert_overloaded(res: &Response<Body>, limit: &str) {
        let s = status(res).expect("a refusal");
        assert_eq!(s.code(), tonic::Code::ResourceExhausted);
        let details = s.get_error_details();
        let info = details.error_info().unwrap();
        assert_eq!(info.reason, "OVERLOADED");
        assert_eq!(info.metadata["limit"], limit);
        assert_eq!(
            details.retry_info().unwrap().retry_delay,
            Some(Duration::from_millis(1_000))
        );
    }

    #[tokio::test]
    async fn sheds_over_the_concurrency_limit_and_frees_slots_when_responses_end() {
        let (svc, gate, mut bodies) = setup(limits(|l| l.max_concurrent_requests = 1));
        let first = tokio::spawn(svc.clone().oneshot(request(UNARY, None)));
        // The first call holds the only slot while its handler runs...
        tokio::task::yield_now().await;
        let shed = svc.clone().oneshot(request(UNARY, None)).await.unwrap();
        assert_overloaded(&shed, "concurrency");
        // ...health checks are never shed...
        let health = svc.clone().oneshot(request(HEALTH, None)).await.unwrap();
        assert!(status(&health).is_none());
        let _health_body = bodies.recv().await.unwrap();
        // ...and until its response body ends.
        gate.notify_one();
        let response = first.await.unwrap().unwrap();
        let body_tx = bodies.recv().await.unwrap();
        let shed = svc.clone().oneshot(request(UNARY, None)).await.unwrap();
        assert_overloaded(&shed, "concurrency");
        drop(body_tx);
        let collected = response.into_body().collect().await.unwrap();
        assert!(collected.to_bytes().is_empty());
        let next = tokio::spawn(svc.clone().oneshot(request(UNARY, None)));
        gate.notify_one();
        assert!(status(&next.await.unwrap().unwrap()).is_none());
    }

    fn two_tokens() -> (Caller, Caller) {
        let tokens = onebot_gateway_domain::auth::Authenticator::from_config(
            &AuthConfig {
                tokens: ["a", "b"]
                    .iter()
                    .map(|n| {
                        let value = format!("token-{n}-0123456789");
                        TokenConfig::inline(n, &value, &["*"], Access::ReadOnly)
                    })
                    .collect(),
                ..AuthConfig::default()
            },
            &|_| None,
        )
        .unwrap()
        .unwrap();
        let a = tokens
            .authenticate(Some(b"Bearer token-a-0123456789"))
            .unwrap();
        let b = tokens
            .authenticate(Some(b"Bearer token-b-0123456789"))
            .unwrap();
        (a, b)
    }

    #[tokio::test]
    async fn limits_event_streams_overall_and_per_client() {
        let (svc, gate, mut bodies) = setup(limits(|l| {
            l.max_event_streams = 3;
            l.max_event_streams_per_client = 2;
        }));
        let (a, b) = two_tokens();
        let mut open = Vec::new();
        let mut start = async |caller: &Caller| {
            let call = tokio::spawn(svc.clone().oneshot(request(STREAM, Some(caller.clone()))));
            gate.notify_one();
            let res = call.await.unwrap().unwrap();
            assert!(status(&res).is_none());
            (res, bodies.recv().await.unwrap())
        };
        open.push(start(&a).await);
        open.push(start(&a).await);
        let third_of_a = svc
            .clone()
            .oneshot(request(STREAM, Some(a.clone())))
            .await
            .unwrap();
        assert_overloaded(&third_of_a, "event_streams_per_client");
        open.push(start(&b).await);
        let fourth = svc
            .clone()
            .oneshot(request(STREAM, Some(b.clone())))
            .await
            .unwrap();
        assert_overloaded(&fourth, "event_streams");
        // Closing one of a's streams frees a slot for a.
        drop(open.remove(0));
        let call = tokio::spawn(svc.clone().oneshot(request(STREAM, Some(a.clone()))));
        gate.notify_one();
        assert!(status(&call.await.unwrap().unwrap()).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn unary_calls_time_out_with_deadline_exceeded() {
        let (svc, _gate, _bodies) = setup(limits(|l| l.request_timeout_ms = 5_000));
        let res = svc.clone().oneshot(request(UNARY, None)).await.unwrap();
        let s = status(&res).unwrap();
        assert_eq!(s.code(), tonic::Code::DeadlineExceeded);
        let info = s.get_error_details().error_info().unwrap().clone();
        assert_eq!(info.reason, "DEADLINE_EXCEEDED");
        assert_eq!(info.metadata["timeout_ms"], "5000");
    }

    #[tokio::test]
    async fn one_client_holds_at_most_its_share_of_the_concurrency_limit() {
        let (svc, gate, _bodies) = setup(limits(|l| {
            l.max_concurrent_requests = 4;
            l.max_share_per_client = 0.5;
        }));
        let (a, b) = two_tokens();
        // a's two calls wait in their handlers, holding their slots.
        let _held: Vec<_> = (0..2)
            .map(|_| tokio::spawn(svc.clone().oneshot(request(UNARY, Some(a.clone())))))
            .collect();
        tokio::task::yield_now().await;
        let third = svc
            .clone()
            .oneshot(request(UNARY, Some(a.clone())))
            .await
            .unwrap();
        assert_overloaded(&third, "concurrency_per_client");
        // b still gets the rest of the budget.
        let b_call = tokio::spawn(svc.clone().oneshot(request(UNARY, Some(b.clone()))));
        gate.notify_one();
        gate.notify_one();
        gate.notify_one();
        assert!(status(&b_call.await.unwrap().unwrap()).is_none());
    }

    /// An inner service that reads the whole request body, then answers.
    #[derive(Clone)]
    struct Reads;

    impl Service<Request<Body>> for Reads {
        type Response = Response<Body>;
        type Error = Infallible;
        type Future = ResponseFuture;
        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }
        fn call(&mut self, req: Request<Body>) -> Self::Future {
            Box::pin(async move {
                let _ = req.into_body().collect().await;
                Ok(Response::new(Body::empty()))
            })
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_whose_message_never_arrives_is_dropped_and_frees_its_slot() {
        let config = limits(|l| {
            l.max_concurrent_requests = 1;
            l.first_message_timeout_ms = 10_000;
        });
        let svc = LimitsLayer::new(&config, concurrency_budget(&config)).layer(Reads);
        let (tx, rx) = mpsc::channel::<Result<http_body::Frame<Bytes>, Status>>(1);
        let stalled = Request::builder()
            .uri(UNARY)
            .body(Body::new(http_body_util::StreamBody::new(
                tokio_stream::wrappers::ReceiverStream::new(rx),
            )))
            .unwrap();
        let res = svc.clone().oneshot(stalled).await.unwrap();
        let s = status(&res).expect("dropped");
        assert_eq!(s.code(), tonic::Code::DeadlineExceeded);
        let info = s.get_error_details().error_info().unwrap().clone();
        assert_eq!(info.metadata["first_message_timeout_ms"], "10000");
        drop(res);
        drop(tx);
        // The slot is free again: the next call is served.
        let next = svc.clone().oneshot(request(UNARY, None)).await.unwrap();
        assert!(status(&next).is_none());
    }
}
