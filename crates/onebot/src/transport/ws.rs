//! WebSocket links (forward and reverse): the handshake, the session task
//! that owns the socket, and [`Link::call`].
//!
//! A session reads frames, hands events to an [`Inbound`], matches replies
//! to pending calls by echo, and watches liveness: with
//! heartbeats announced, no frame for 2.5 × the announced interval kills the
//! link; before any heartbeat (or on peers that send none) it sends a ping
//! every `ping_interval` and gives up after 2.5 × that without any frame.
//! Malformed frames are logged and dropped; the link stays up. When the
//! session ends, every pending call fails at once.
//!
//! # Event frames and replies are capped apart
//! tungstenite's message limit is one per connection, and replies to the
//! gateway's own actions (a media reply, a long history page) need the
//! large one, [`MAX_MESSAGE_BYTES`]. Events get a much smaller cap,
//! [`Inbound::max_event_bytes`] (`limits.max_event_frame_bytes`), told apart
//! before anything is decoded: a text message above it is a reply only when
//! its `echo` names a call waiting on this link (read off its end as for
//! every reply, else found among its top-level members by a scan that
//! builds nothing but the echo: [`frame::top_level_echo`]). Any other
//! frame above the cap (an event, a reply nobody waits for) is dropped
//! undecoded: logged with its size (never its content), counted through
//! [`Inbound::dropped`], never journaled nor archived; the link stays up.
//!
//! Callers write their own frames to the socket's write half, one at a time
//! (a fair lock), so a call costs no hop through another task on its way
//! out; see [`Link::call_json`].

mod writer;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::SplitStream;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderValue, header};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_util::sync::CancellationToken;

use self::writer::Writer;
use super::BoxIo;
use super::body::{Outgoing, ParamsJson};
use super::pending::{Answer, Pending, PendingStream, RegisterError, echo_key};
use crate::events::{self, Decoded};
use crate::frame::{self, Frame, FrameText, Reply};
use crate::retcode;
use onebot_gateway_domain::model::TransportKind;

/// Largest WebSocket message and frame, both ways (NapCat allows 50 MB);
/// event frames have a smaller cap of their own (see the module docs).
pub const MAX_MESSAGE_BYTES: usize = onebot_gateway_config::MAX_PEER_MESSAGE_BYTES;

/// Liveness: a link is dead after this many heartbeat (or ping) intervals
/// without a frame.
pub const LIVENESS_FACTOR: f64 = 2.5;

/// The WebSocket limits used for every link.
pub fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_MESSAGE_BYTES))
        .max_frame_size(Some(MAX_MESSAGE_BYTES))
}

/// Why a forward connection attempt failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectError {
    /// HTTP 401/403 at the upgrade: the token was refused.
    Auth(String),
    /// Anything else (refused, reset, bad handshake, timeout).
    Failed(String),
}

/// Performs the client handshake over `io` for `url`, sending the token as
/// `Authorization: Bearer` (and `?access_token=` when `token_in_query`).
pub async fn handshake(
    io: BoxIo,
    url: &str,
    token: Option<&str>,
    token_in_query: bool,
) -> Result<WebSocketStream<BoxIo>, ConnectError> {
    let token = token.filter(|t| !t.is_empty());
    let mut target =
        url::Url::parse(url).map_err(|e| ConnectError::Failed(format!("bad ws_url: {e}")))?;
    if let (Some(t), true) = (token, token_in_query) {
        target.query_pairs_mut().append_pair("access_token", t);
    }
    let mut request = target
        .as_str()
        .into_client_request()
        .map_err(|e| ConnectError::Failed(format!("bad ws_url: {e}")))?;
    if let Some(t) = token {
        let value = HeaderValue::from_str(&format!("Bearer {t}"))
            .map_err(|_| ConnectError::Failed("access token is not a valid header value".into()))?;
        request.headers_mut().insert(header::AUTHORIZATION, value);
    }
    match tokio_tungstenite::client_async_with_config(request, io, Some(ws_config())).await {
        Ok((ws, _response)) => Ok(ws),
        Err(tungstenite::Error::Http(response)) => {
            let status = response.status();
            let body = response
                .body()
                .as_deref()
                .map(|b| String::from_utf8_lossy(b).trim().to_string())
                .unwrap_or_default();
            let detail = if body.is_empty() {
                format!("upgrade refused with HTTP {status}")
            } else {
                format!("upgrade refused with HTTP {status}: {body}")
            };
            if status.as_u16() == 401 || status.as_u16() == 403 {
                Err(ConnectError::Auth(detail))
            } else {
                Err(ConnectError::Failed(detail))
            }
        }
        Err(e) => Err(ConnectError::Failed(format!("handshake failed: {e}"))),
    }
}

/// Receives what a session reads besides replies.
pub trait Inbound: Send + Sync + 'static {
    /// An event (decoded; heartbeats are not passed).
    fn event(&self, event: onebot_gateway_domain::model::InboundEvent);
    /// A heartbeat arrived.
    fn heartbeat(&self);
    /// The largest event frame taken, in bytes.
    fn max_event_bytes(&self) -> usize;
    /// An event frame of `bytes` bytes was dropped undecoded, above
    /// [`max_event_bytes`](Self::max_event_bytes).
    fn dropped(&self, bytes: usize);
}

/// Liveness settings of a session.
#[derive(Debug, Clone, Copy)]
pub struct Liveness {
    /// Ping period (and liveness base) until a heartbeat interval is known.
    pub ping_interval: Duration,
}

/// How a session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEnd {
    /// The socket closed or failed.
    Closed(String),
    /// The peer refused our token (unmatched retcode 1401/1403 frame, or
    /// close code 1008).
    AuthRejected(String),
    /// No frame within the liveness window.
    Dead(String),
    /// Closed on our side (shutdown, replaced, identify failed).
    Local,
}

/// Why a call over a link failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkError {
    /// Nothing was sent: the link is closed.
    NotSent,
    /// Nothing was sent: `max_pending_calls` calls are waiting.
    Full,
    /// The deadline passed; `sent` tells whether the frame was handed to the
    /// socket (the peer may have acted on it).
    Timeout {
        /// The frame left our queue.
        sent: bool,
    },
    /// The link dropped after the frame was queued.
    Lost,
}

/// A live WebSocket connection that can carry actions.
pub struct Link {
    kind: TransportKind,
    writer: Arc<Writer>,
    pending: Arc<Pending>,
    close: CancellationToken,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("kind", &self.kind)
            .field("pending", &self.pending.len())
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl Link {
    /// Forward or reverse.
    pub fn kind(&self) -> TransportKind {
        self.kind
    }

    /// True once the session has ended or is ending.
    pub fn is_closed(&self) -> bool {
        self.close.is_cancelled() || self.writer.failed.is_cancelled()
    }

    /// Closes the link (the session ends with [`SessionEnd::Local`]).
    pub fn close(&self) {
        self.close.cancel();
    }

    /// Calls waiting for replies on this link.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Sends `action` with `echo` and waits for the matching reply frame
    /// until `deadline`. Dropping the future removes the pending entry.
    pub async fn call(
        &self,
        echo: String,
        action: &str,
        params: &Value,
        deadline: Instant,
    ) -> Result<Frame, LinkError> {
        let body = ParamsJson::new(params.clone());
        let reply = self.call_json(echo, action, &body, deadline).await?;
        // Text that is no JSON object is no reply: as if none came.
        reply
            .into_frame()
            .map_err(|_| LinkError::Timeout { sent: true })
    }

    /// [`call`](Self::call) with parameters serialized beforehand (large
    /// media go out without extra copies; see [`super::body`]).
    ///
    /// The calling task writes its own frame (no hop through another task
    /// on the way out); a fragmented message is written by a task of its
    /// own, so that a caller giving up halfway cannot leave half a message
    /// on the socket.
    pub async fn call_json(
        &self,
        echo: String,
        action: &str,
        params: &ParamsJson,
        deadline: Instant,
    ) -> Result<Reply, LinkError> {
        let mut call = self.pending.register(echo).map_err(|e| match e {
            RegisterError::Full => LinkError::Full,
            RegisterError::Closed => LinkError::NotSent,
        })?;
        if self.is_closed() {
            return Err(LinkError::NotSent);
        }
        let buffered = Arc::new(AtomicBool::new(false));
        let written = match params.frame(action, call.echo()) {
            Outgoing::Message(msg) => {
                tokio::time::timeout_at(deadline, self.writer.write(msg, &buffered)).await
            }
            Outgoing::Fragments(frames) => {
                let task = tokio::spawn(self.writer.clone().write_fragments(
                    frames,
                    buffered.clone(),
                    self.close.clone(),
                ));
                tokio::time::timeout_at(deadline, task)
                    .await
                    .map(|joined| joined.unwrap_or(Err(())))
            }
        };
        let sent = buffered.load(Ordering::Acquire);
        match written {
            Err(_) => return Err(LinkError::Timeout { sent }),
            Ok(Err(())) if sent => return Err(LinkError::Lost),
            Ok(Err(())) => return Err(LinkError::NotSent),
            Ok(Ok(())) => {}
        }
        match tokio::time::timeout_at(deadline, call.answer()).await {
            Ok(Answer::Reply(reply)) => Ok(reply),
            Ok(Answer::Lost) => Err(LinkError::Lost),
            Err(_) => Err(LinkError::Timeout { sent: true }),
        }
    }
}

impl Link {
    /// Sends a stream action (many reply frames with one echo) and returns
    /// its frames as they come; the caller bounds the wait for each.
    /// Dropping the returned stream removes the pending entry.
    pub async fn call_stream(
        &self,
        echo: String,
        action: &str,
        params: &ParamsJson,
        deadline: Instant,
    ) -> Result<PendingStream, LinkError> {
        let call = self.pending.register_stream(echo).map_err(|e| match e {
            RegisterError::Full => LinkError::Full,
            RegisterError::Closed => LinkError::NotSent,
        })?;
        if self.is_closed() {
            return Err(LinkError::NotSent);
        }
        let buffered = Arc::new(AtomicBool::new(false));
        let written = match params.frame(action, call.echo()) {
            Outgoing::Message(msg) => {
                tokio::time::timeout_at(deadline, self.writer.write(msg, &buffered)).await
            }
            Outgoing::Fragments(frames) => {
                let task = tokio::spawn(self.writer.clone().write_fragments(
                    frames,
                    buffered.clone(),
                    self.close.clone(),
                ));
                tokio::time::timeout_at(deadline, task)
                    .await
                    .map(|joined| joined.unwrap_or(Err(())))
            }
        };
        let sent = buffered.load(Ordering::Acquire);
        match written {
            Err(_) => Err(LinkError::Timeout { sent }),
            Ok(Err(())) if sent => Err(LinkError::Lost),
            Ok(Err(())) => Err(LinkError::NotSent),
            Ok(Ok(())) => Ok(call),
        }
    }
}

/// Starts the session task over an open WebSocket. Returns the link (for
/// calls) and the task, which ends with the reason the link died. `cancel`
/// ends the session too (shutdown).
pub fn start<S>(
    ws: WebSocketStream<S>,
    kind: TransportKind,
    liveness: Liveness,
    max_pending: usize,
    inbound: Arc<dyn Inbound>,
    cancel: CancellationToken,
) -> (Arc<Link>, JoinHandle<SessionEnd>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (sink, stream) = ws.split();
    let writer = Arc::new(Writer::new(Box::pin(sink)));
    let pending = Pending::new(max_pending);
    let close = cancel.child_token();
    let link = Arc::new(Link {
        kind,
        writer: writer.clone(),
        pending: pending.clone(),
        close: close.clone(),
    });
    let session = Session {
        pending,
        inbound,
        liveness,
        close,
        writer,
    };
    let task = tokio::spawn(session.run(stream));
    (link, task)
}

struct Session {
    pending: Arc<Pending>,
    inbound: Arc<dyn Inbound>,
    liveness: Liveness,
    close: CancellationToken,
    writer: Arc<Writer>,
}

impl Session {
    async fn run<S>(self, mut stream: SplitStream<WebSocketStream<S>>) -> SessionEnd
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let mut last_frame = Instant::now();
        let mut heartbeat: Option<Duration> = None;
        let mut ping = tokio::time::interval_at(
            Instant::now() + self.liveness.ping_interval,
            self.liveness.ping_interval,
        );
        ping.set_missed_tick_behavior(MissedTickBehavior::Delay);

        let end = loop {
            let window = heartbeat
                .unwrap_or(self.liveness.ping_interval)
                .mul_f64(LIVENESS_FACTOR);
            tokio::select! {
                biased;
                _ = self.close.cancelled() => break SessionEnd::Local,
                _ = self.writer.failed.cancelled() => break SessionEnd::Closed(self.writer.error()),
                _ = tokio::time::sleep_until(last_frame + window) => {
                    break SessionEnd::Dead(format!(
                        "no frame from the peer for {} ms",
                        window.as_millis()
                    ));
                }
                _ = self.writer.unflushed.notified() => {
                    self.writer.spawn_flush(self.close.clone());
                }
                _ = ping.tick(), if heartbeat.is_none() => {
                    self.writer.spawn_ping(self.close.clone());
                }
                frame = stream.next() => {
                    let msg = match frame {
                        None => break SessionEnd::Closed("connection closed by the peer".into()),
                        Some(Err(e)) => break SessionEnd::Closed(format!("read failed: {e}")),
                        Some(Ok(msg)) => msg,
                    };
                    last_frame = Instant::now();
                    match msg {
                        Message::Text(text) => {
                            if let Some(end) = self.on_text(text, &mut heartbeat) {
                                break end;
                            }
                        }
                        Message::Binary(bytes) => {
                            tracing::warn!(len = bytes.len(), "binary frame from the peer dropped");
                        }
                        Message::Close(frame) => {
                            let (code, reason) = frame
                                .map(|f| (f.code, f.reason.to_string()))
                                .unwrap_or((CloseCode::Status, String::new()));
                            let detail = format!("closed by the peer ({code}) {reason}")
                                .trim_end()
                                .to_string();
                            if code == CloseCode::Policy {
                                break SessionEnd::AuthRejected(detail);
                            }
                            break SessionEnd::Closed(detail);
                        }
                        Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
                    }
                }
            }
        };
        // Fail every waiting call at once, then stop writing.
        self.pending.fail_all();
        self.close.cancel();
        self.writer.shut().await;
        end
    }

    /// Handles one text frame; `Some` ends the session.
    fn on_text(
        &self,
        text: tungstenite::Utf8Bytes,
        heartbeat: &mut Option<Duration>,
    ) -> Option<SessionEnd> {
        // A reply whose echo ends it goes to its call undecoded: the call
        // reads it once, into what it needs.
        let text = match frame::peek_echo(text.as_str()) {
            Some(key) => {
                let key = key.to_owned();
                match self.pending.complete_text(&key, FrameText::new(text)) {
                    Ok(()) => return None,
                    Err(text) => text,
                }
            }
            None => FrameText::new(text),
        };
        let text = text.as_str();
        if text.len() > self.inbound.max_event_bytes() {
            let waited = frame::top_level_echo(text)
                .and_then(|echo| echo_key(Some(&echo)))
                .is_some_and(|key| self.pending.is_waiting(&key));
            if !waited {
                self.inbound.dropped(text.len());
                return None;
            }
        }
        // `data` stays text here: the caller decodes it into what it needs.
        let frame = match Frame::parse(text) {
            Ok(frame) => frame,
            Err(_) => {
                tracing::warn!(
                    frame = %truncate(text, 200),
                    "malformed frame from the peer dropped"
                );
                return None;
            }
        };
        if events::is_event(frame.head()) {
            let frame = frame.into_value();
            match events::decode(&frame) {
                Decoded::Heartbeat { interval_ms } => {
                    if let Some(ms) = interval_ms {
                        *heartbeat = Some(Duration::from_millis(ms));
                    }
                    self.inbound.heartbeat();
                }
                Decoded::Event(event) => self.inbound.event(event),
            }
            return None;
        }
        let retcode = retcode::retcode_of(frame.head());
        if let Some(key) = echo_key(frame.head().get("echo")) {
            match self.pending.complete(&key, frame) {
                Ok(()) => return None,
                Err(frame) => {
                    let text = retcode::peer_text(frame.head());
                    tracing::debug!(echo = %key, %text, "reply for no waiting call dropped");
                }
            }
        }
        if matches!(retcode, Some(1401 | 1403)) {
            return Some(SessionEnd::AuthRejected(format!(
                "the peer refused the access token (retcode {})",
                retcode.unwrap_or_default()
            )));
        }
        None
    }
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}
