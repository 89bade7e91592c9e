//! The event connection: `GET <milky_url>/event` as a WebSocket (one event
//! per text frame) or as Server-Sent Events (`event: milky_event`), per
//! `milky_events`, with the token as a Bearer header; supervised: a drop
//! reconnects after a jittered exponential backoff
//! (`backoff_min_ms..backoff_max_ms`), a refused token (HTTP 401, or 403 at
//! the upgrade) retries once per `auth_retry_ms`. After each connect the
//! peer is identified again (`get_login_info`, `get_impl_info`) before the
//! account counts as connected. While the event connection is up but the
//! API did not answer its last call, `get_login_info` is asked again after
//! each backoff delay until it does.
//!
//! The account's gate comes first: the loop connects only while it is
//! open, drops the connection (or abandons the attempt) as soon as it
//! closes, and connects again as soon as it opens, owing no back-off delay.
//!
//! Events above `max_event_bytes` are dropped with a warning: SSE data is
//! never kept beyond that limit ([`sse`]); a WebSocket message is bounded by
//! the peer message limit and dropped after the read. A WebSocket without
//! any frame for 2.5 ping intervals (`ping_interval_ms`; pings keep a
//! healthy one busy) is taken as dead.

pub mod decode;
pub mod sse;

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt as _, StreamExt as _};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderValue, header};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message as WsMessage};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use self::sse::{SseItem, SseParser};
use crate::client::inner::{Inner, Step};
use onebot_gateway_config::MilkyEvents;
use onebot_gateway_domain::backoff::Backoff;
use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::model::InboundEvent;
use onebot_gateway_telemetry::metrics as m;

/// How one attempt ended.
enum Attempt {
    AuthFailed(String),
    Failed { detail: String, connected: bool },
}

/// What the event source gave next.
enum Next {
    Event(String),
    TooLarge(usize),
    End(String),
}

/// A connected event source.
enum Source {
    Ws(Box<WebSocketStream<MaybeTlsStream<TcpStream>>>),
    Sse(Box<SseSource>),
}

/// An SSE response being read.
struct SseSource {
    response: reqwest::Response,
    parser: SseParser,
    ready: std::collections::VecDeque<SseItem>,
}

impl Inner {
    /// The event connection's reconnect loop, until shutdown, connected
    /// only while the gate is open.
    pub(crate) async fn run_events(self: Arc<Self>) {
        let mut backoff = Backoff::new(
            Duration::from_millis(self.cfg.backoff_min_ms),
            Duration::from_millis(self.cfg.backoff_max_ms),
            self.cfg.backoff_jitter,
        );
        let auth_retry = Duration::from_millis(self.cfg.auth_retry_ms);
        let mut gate = self.gate.clone();
        while !self.cancel.is_cancelled() {
            if !gate.is_open() {
                self.stand_by();
                tokio::select! {
                    () = gate.opened() => {}
                    _ = self.cancel.cancelled() => break,
                }
                backoff.reset();
            }
            self.drive(Step::Retry, "");
            // Dropping the attempt drops its connection.
            let outcome = tokio::select! {
                o = self.events_once() => o,
                () = gate.closed() => continue,
                _ = self.cancel.cancelled() => break,
            };
            self.set_events_up(false);
            if !gate.is_open() {
                continue;
            }
            let (delay, step, detail) = match outcome {
                Attempt::AuthFailed(detail) => (auth_retry, Step::AuthRejected, detail),
                Attempt::Failed { detail, connected } => {
                    if connected {
                        backoff.reset();
                    }
                    (backoff.next_delay(), Step::Failed, detail)
                }
            };
            self.set_retry_in(delay);
            self.drive(step, &detail);
            tokio::select! {
                slept = self.sleep(delay) => if !slept { break },
                () = gate.closed() => continue,
            }
            m::reconnect(&self.id);
        }
        self.set_events_up(false);
    }

    async fn events_once(self: &Arc<Self>) -> Attempt {
        let connect_timeout = Duration::from_millis(self.cfg.connect_timeout_ms);
        let shown = onebot_gateway_config::redact_url(self.event_url.as_str());
        let connected = match tokio::time::timeout(connect_timeout, self.connect()).await {
            Err(_) => Err(Attempt::Failed {
                detail: format!(
                    "connect to {shown} timed out after {} ms",
                    connect_timeout.as_millis()
                ),
                connected: false,
            }),
            Ok(r) => r,
        };
        let mut source = match connected {
            Ok(source) => source,
            Err(attempt) => return attempt,
        };
        if let Err(e) = self.identify().await {
            return if e.kind == Kind::OnebotAuthFailed {
                Attempt::AuthFailed(e.message)
            } else {
                Attempt::Failed {
                    detail: format!("identifying the peer failed: {}", e.message),
                    connected: false,
                }
            };
        }
        self.set_events_up(true);
        self.drive(Step::Identified, "");
        let detail = loop {
            match source.next(self).await {
                Next::Event(text) => self.event(&text),
                Next::TooLarge(bytes) => self.dropped(bytes),
                Next::End(detail) => break detail,
            }
        };
        Attempt::Failed {
            detail,
            connected: true,
        }
    }

    /// Opens the event source `milky_events` names.
    async fn connect(&self) -> Result<Source, Attempt> {
        let shown = onebot_gateway_config::redact_url(self.event_url.as_str());
        let failed = |detail: String| Attempt::Failed {
            detail,
            connected: false,
        };
        match self.cfg.milky_events {
            MilkyEvents::WebSocket => {
                let mut url = self.event_url.clone();
                let scheme = if url.scheme() == "https" { "wss" } else { "ws" };
                url.set_scheme(scheme)
                    .map_err(|()| failed(format!("bad event URL {shown}")))?;
                let mut request = url
                    .as_str()
                    .into_client_request()
                    .map_err(|e| failed(format!("bad event URL {shown}: {e}")))?;
                if let Some(t) = self.token.as_deref().filter(|t| !t.is_empty()) {
                    let value = HeaderValue::from_str(&format!("Bearer {t}"))
                        .map_err(|_| failed("access token is not a valid header value".into()))?;
                    request.headers_mut().insert(header::AUTHORIZATION, value);
                }
                let config = WebSocketConfig::default()
                    .max_message_size(Some(onebot_gateway_config::MAX_PEER_MESSAGE_BYTES))
                    .max_frame_size(Some(onebot_gateway_config::MAX_PEER_MESSAGE_BYTES));
                let connector = (scheme == "wss")
                    .then(|| tokio_tungstenite::Connector::Rustls(self.tls.client_config()));
                match tokio_tungstenite::connect_async_tls_with_config(
                    request,
                    Some(config),
                    false,
                    connector,
                )
                .await
                {
                    Ok((ws, _)) => Ok(Source::Ws(Box::new(ws))),
                    Err(tungstenite::Error::Http(response)) => {
                        let status = response.status().as_u16();
                        let detail = format!("{shown}: upgrade refused with HTTP {status}");
                        Err(if status == 401 || status == 403 {
                            Attempt::AuthFailed(detail)
                        } else {
                            failed(detail)
                        })
                    }
                    Err(e) => Err(failed(format!("connect to {shown} failed: {e}"))),
                }
            }
            MilkyEvents::Sse => {
                let mut request = self
                    .api
                    .client()
                    .get(self.event_url.clone())
                    .header(http::header::ACCEPT, "text/event-stream");
                if let Some(t) = self.token.as_deref().filter(|t| !t.is_empty()) {
                    request = request.bearer_auth(t);
                }
                let response = request.send().await.map_err(|e| {
                    failed(format!("connect to {shown} failed: {}", e.without_url()))
                })?;
                match response.status().as_u16() {
                    200 => Ok(Source::Sse(Box::new(SseSource {
                        response,
                        parser: SseParser::new(self.max_event_bytes),
                        ready: Default::default(),
                    }))),
                    401 | 403 => Err(Attempt::AuthFailed(format!(
                        "{shown}: refused with HTTP {}",
                        response.status().as_u16()
                    ))),
                    status => Err(failed(format!("{shown}: answered HTTP {status}"))),
                }
            }
        }
    }

    /// While the event connection is up but the last API call did not
    /// reach the peer (the account is offline), asks `get_login_info` again
    /// after each backoff delay until it answers, so the account comes back
    /// online without waiting for a caller. Runs until shutdown.
    pub(crate) async fn run_api_probe(self: Arc<Self>) {
        let mut rx = self.status.subscribe();
        let mut backoff = Backoff::new(
            Duration::from_millis(self.cfg.backoff_min_ms),
            Duration::from_millis(self.cfg.backoff_max_ms),
            self.cfg.backoff_jitter,
        );
        loop {
            let reach = *self.reach.lock();
            if reach.events && !reach.api {
                if !self.sleep(backoff.next_delay()).await {
                    return;
                }
                let deadline = onebot_gateway_domain::call::Deadline::after(Duration::from_millis(
                    self.cfg.request_timeout_ms,
                ));
                let probe = self
                    .call_json("get_login_info", &serde_json::json!({}), deadline)
                    .await;
                if let Err(e) = probe {
                    tracing::debug!(account_id = %self.id, error = %e, "the Milky API is still unreachable");
                }
                continue;
            }
            backoff.reset();
            tokio::select! {
                changed = rx.changed() => if changed.is_err() { return },
                _ = self.cancel.cancelled() => return,
            }
        }
    }

    /// Publishes one event's text.
    fn event(&self, text: &str) {
        let self_id = self.status.borrow().self_id;
        let Some(mut event) = decode::decode(&self.id, self_id, text) else {
            tracing::warn!(account_id = %self.id, bytes = text.len(), "an event from the Milky implementation is not JSON; dropped");
            m::peer_frame_dropped(&self.id, "undecodable");
            return;
        };
        if let InboundEvent::Message { message, .. } = &mut event {
            self.name_own(std::slice::from_mut(message));
        }
        // The last frame's time, to the second: watchers are not woken per
        // event.
        let now = jiff::Timestamp::now().as_millisecond();
        if self
            .status
            .borrow()
            .last_heartbeat_ms
            .is_none_or(|last| now - last >= 1000)
        {
            self.update("", |s| s.last_heartbeat_ms = Some(now));
        }
        self.sink.publish(&self.id, event);
    }

    fn dropped(&self, bytes: usize) {
        tracing::warn!(
            account_id = %self.id,
            bytes,
            limit = self.max_event_bytes,
            "event from the Milky implementation above limits.max_event_frame_bytes dropped undecoded"
        );
        m::peer_frame_dropped(&self.id, "too_large");
    }
}

impl Source {
    /// The next event, or why the source ended.
    async fn next(&mut self, inner: &Inner) -> Next {
        match self {
            Source::Ws(ws) => next_ws(ws, inner).await,
            Source::Sse(sse) => loop {
                let SseSource {
                    response,
                    parser,
                    ready,
                } = &mut **sse;
                match ready.pop_front() {
                    Some(SseItem::TooLarge(n)) => return Next::TooLarge(n),
                    Some(SseItem::Event { event, data }) => {
                        if event.is_empty() || event == "milky_event" {
                            return Next::Event(data);
                        }
                        continue;
                    }
                    None => {}
                }
                match response.chunk().await {
                    Ok(Some(chunk)) => {
                        let mut out = Vec::new();
                        parser.push(&chunk, &mut out);
                        ready.extend(out);
                    }
                    Ok(None) => return Next::End("the event stream ended".into()),
                    Err(e) => {
                        return Next::End(format!("the event stream broke: {}", e.without_url()));
                    }
                }
            },
        }
    }
}

/// The next event of a WebSocket: pings every `ping_interval_ms`, dead
/// after 2.5 intervals without a frame.
async fn next_ws(ws: &mut WebSocketStream<MaybeTlsStream<TcpStream>>, inner: &Inner) -> Next {
    let interval = Duration::from_millis(inner.cfg.ping_interval_ms.max(1));
    let dead_after = interval.mul_f64(2.5);
    let mut last_frame = Instant::now();
    let mut ping = tokio::time::interval_at(Instant::now() + interval, interval);
    loop {
        tokio::select! {
            frame = ws.next() => {
                last_frame = Instant::now();
                match frame {
                    Some(Ok(WsMessage::Text(text))) => {
                        if text.len() > inner.max_event_bytes {
                            return Next::TooLarge(text.len());
                        }
                        return Next::Event(text.as_str().to_string());
                    }
                    Some(Ok(WsMessage::Binary(bytes))) => {
                        if bytes.len() > inner.max_event_bytes {
                            return Next::TooLarge(bytes.len());
                        }
                        match std::str::from_utf8(&bytes) {
                            Ok(text) => return Next::Event(text.to_string()),
                            Err(_) => continue,
                        }
                    }
                    Some(Ok(WsMessage::Close(frame))) => {
                        let why = frame.map(|f| format!(" ({} {})", f.code, f.reason)).unwrap_or_default();
                        return Next::End(format!("the event WebSocket was closed{why}"));
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => return Next::End(format!("the event WebSocket broke: {e}")),
                    None => return Next::End("the event WebSocket ended".into()),
                }
            }
            _ = ping.tick() => {
                if last_frame.elapsed() >= dead_after {
                    return Next::End(format!(
                        "no frame on the event WebSocket for {} ms",
                        dead_after.as_millis()
                    ));
                }
                if let Err(e) = ws.send(WsMessage::Ping(Default::default())).await {
                    return Next::End(format!("the event WebSocket broke: {e}"));
                }
            }
        }
    }
}
