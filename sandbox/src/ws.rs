//! Forward WebSocket: path roles, the upgrade response, auth-failure forms and the session loop.
//!
//! Paths: `/` Universal (API + events), `/api` API only, `/event` events
//! (API frames are still answered). NapCat treats every other path as Universal; go-cqhttp
//! answers 404; SnowLuma only serves `/` (anything else: HTTP 400 `Bad path for WebSocket`).
//!
//! The session loop owns the socket. Requests are executed inline, in arrival order (so
//! history order matches send order); replies then go through the reply-side faults
//! (slow, out-of-order, malformed frames) before being written.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http::StatusCode;
use http::header::{CONNECTION, HeaderValue, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, UPGRADE};
use hyper::body::Incoming;
use hyper::{Request, Response};
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};
use tokio::time::{Instant, Interval, MissedTickBehavior};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::auth::AuthOutcome;
use crate::events;
use crate::exec::{self, Disposition};
use crate::flavor::Flavor;
use crate::response::{self, ActionError, Transport};
use crate::server::{Body, ConnCtx, MAX_PAYLOAD, respond};
use crate::shared::{ConnGuard, Shared};

/// What a WebSocket path serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathRole {
    /// `/`: API and events.
    Universal,
    /// `/api`: API only.
    Api,
    /// `/event`: events (API frames still answered).
    Event,
}

impl PathRole {
    fn events(self) -> bool {
        self != PathRole::Api
    }
}

/// Decided at upgrade time, carried into the session.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WsPlan {
    pub role: PathRole,
    pub auth: AuthOutcome,
}

/// WebSocket limits: messages and frames up to [`MAX_PAYLOAD`].
pub(crate) fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(MAX_PAYLOAD))
        .max_frame_size(Some(MAX_PAYLOAD))
}

fn classify(flavor: Flavor, path: &str) -> Option<PathRole> {
    let role = match path {
        "" | "/" => Some(PathRole::Universal),
        "/api" | "/api/" => Some(PathRole::Api),
        "/event" | "/event/" => Some(PathRole::Event),
        _ => None,
    };
    match flavor {
        Flavor::SnowLuma => role.filter(|r| *r == PathRole::Universal),
        Flavor::GoCqhttp => role,
        _ => role.or(Some(PathRole::Universal)),
    }
}

/// Answers an upgrade request: an HTTP error (bad path, go-cqhttp auth) or `101`, in which case
/// the session is queued on the connection context.
pub(crate) fn accept(
    ctx: &ConnCtx,
    mut req: Request<Incoming>,
    auth: AuthOutcome,
) -> Response<Body> {
    let flavor = ctx.shared.cfg.flavor;
    let Some(role) = classify(flavor, req.uri().path()) else {
        return match flavor {
            Flavor::SnowLuma => respond(
                StatusCode::BAD_REQUEST,
                Bytes::from("Bad path for WebSocket"),
                false,
            ),
            _ => respond(
                StatusCode::NOT_FOUND,
                Bytes::from("404 page not found"),
                false,
            ),
        };
    };
    if flavor == Flavor::GoCqhttp {
        // go-cqhttp rejects before upgrading.
        match auth {
            AuthOutcome::Missing => return respond(StatusCode::UNAUTHORIZED, Bytes::new(), false),
            AuthOutcome::Wrong => return respond(StatusCode::FORBIDDEN, Bytes::new(), false),
            AuthOutcome::Ok => {}
        }
    }
    let accept_key = req
        .headers()
        .get(SEC_WEBSOCKET_KEY)
        .map(|k| derive_accept_key(k.as_bytes()))
        .and_then(|k| HeaderValue::from_str(&k).ok());
    let Some(accept_key) = accept_key else {
        return respond(
            StatusCode::BAD_REQUEST,
            Bytes::from("missing Sec-WebSocket-Key"),
            false,
        );
    };
    let on_upgrade = hyper::upgrade::on(&mut req);
    *ctx.upgrade.lock() = Some((on_upgrade, WsPlan { role, auth }));
    let mut resp = respond(StatusCode::SWITCHING_PROTOCOLS, Bytes::new(), false);
    let h = resp.headers_mut();
    h.remove(http::header::CONTENT_TYPE);
    h.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    h.insert(UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(SEC_WEBSOCKET_ACCEPT, accept_key);
    resp
}

/// Garbage frames for the `MalformedFrames` fault, written in rotation.
fn garbage(i: usize) -> Message {
    match i % 4 {
        0 => Message::Text(Utf8Bytes::from_static("{not json")),
        1 => Message::Binary(Bytes::from_static(&[0xde, 0xad, 0xbe, 0xef, 0x00])),
        2 => Message::Text(Utf8Bytes::from_static("[]")),
        _ => Message::Text(Utf8Bytes::from_static("{\"echo\":")),
    }
}

/// Auth failure after the upgrade: 1403 frame + close (NapCat, LLOneBot, Lagrange) or
/// close 1008 (SnowLuma). Waits briefly for the client's close reply.
async fn reject<S>(mut ws: WebSocketStream<S>, flavor: Flavor)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let sent = match flavor {
        Flavor::SnowLuma => {
            ws.close(Some(CloseFrame {
                code: CloseCode::Policy,
                reason: Utf8Bytes::from_static("invalid access token"),
            }))
            .await
        }
        _ => {
            let frame = response::token_failed_frame().to_string();
            match ws.send(Message::Text(frame.into())).await {
                Ok(()) => ws.close(None).await,
                Err(e) => Err(e),
            }
        }
    };
    if sent.is_ok() {
        let drain = async { while let Some(Ok(_)) = ws.next().await {} };
        let _ = tokio::time::timeout(Duration::from_secs(5), drain).await;
    }
}

async fn next_event(rx: &mut Option<mpsc::UnboundedReceiver<Utf8Bytes>>) -> Option<Utf8Bytes> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// Handles one client frame; `Err` ends the connection (a drop fault or a dead sink).
async fn on_message<S>(
    shared: &Shared,
    sink: &mut S,
    replier: &mut Replier,
    slow: &mut VecDeque<(Instant, Utf8Bytes)>,
    msg: &Message,
) -> Result<(), ()>
where
    S: futures_util::Sink<Message> + Unpin,
{
    // Pings are answered by tungstenite; close replies too, then the stream ends.
    let disposition = match msg {
        Message::Text(t) => on_frame(shared, t.as_bytes()),
        Message::Binary(b) => on_frame(shared, b),
        _ => None,
    };
    match disposition {
        None | Some(Disposition::Silent) => Ok(()),
        Some(Disposition::Drop) => Err(()),
        Some(Disposition::Reply { reply, delay }) => {
            let text = Utf8Bytes::from(reply.text());
            match delay {
                Some(d) => {
                    slow.push_back((Instant::now() + d, text));
                    Ok(())
                }
                None => replier.deliver(shared, sink, text).await,
            }
        }
        Some(Disposition::Stream { frames, delay }) => {
            for reply in frames {
                let text = Utf8Bytes::from(reply.text());
                match delay {
                    Some(d) => slow.push_back((Instant::now() + d, text)),
                    None => replier.deliver(shared, sink, text).await?,
                }
            }
            Ok(())
        }
    }
}

async fn tick(iv: &mut Option<Interval>) {
    match iv {
        Some(iv) => {
            iv.tick().await;
        }
        None => std::future::pending().await,
    }
}

async fn sleep_until_head(q: &VecDeque<(Instant, Utf8Bytes)>) {
    match q.front() {
        Some((at, _)) => tokio::time::sleep_until(*at).await,
        None => std::future::pending().await,
    }
}

/// Writes replies, applying the reply-side faults.
struct Replier {
    held: Vec<Utf8Bytes>,
    garbage: usize,
}

impl Replier {
    async fn deliver<S>(&mut self, shared: &Shared, sink: &mut S, text: Utf8Bytes) -> Result<(), ()>
    where
        S: futures_util::Sink<Message> + Unpin,
    {
        let faults = shared.faults();
        if faults.silenced() {
            return Ok(());
        }
        match faults.out_of_order() {
            Some(batch) => {
                self.held.push(text);
                if self.held.len() >= batch {
                    let batch: Vec<_> = self.held.drain(..).rev().collect();
                    for t in batch {
                        self.write(shared, sink, t).await?;
                    }
                }
                Ok(())
            }
            None => {
                self.flush(shared, sink).await?;
                self.write(shared, sink, text).await
            }
        }
    }

    /// Releases held replies in arrival order (when reordering is switched off).
    async fn flush<S>(&mut self, shared: &Shared, sink: &mut S) -> Result<(), ()>
    where
        S: futures_util::Sink<Message> + Unpin,
    {
        for t in std::mem::take(&mut self.held) {
            self.write(shared, sink, t).await?;
        }
        Ok(())
    }

    async fn write<S>(&mut self, shared: &Shared, sink: &mut S, text: Utf8Bytes) -> Result<(), ()>
    where
        S: futures_util::Sink<Message> + Unpin,
    {
        if shared
            .faults()
            .has(crate::fault::FaultKind::MalformedFrames)
        {
            sink.send(garbage(self.garbage)).await.map_err(|_| ())?;
            self.garbage += 1;
        }
        sink.send(Message::Text(text)).await.map_err(|_| ())
    }
}

/// Parses one API frame and executes it.
fn on_frame(shared: &Shared, data: &[u8]) -> Option<Disposition> {
    let flavor = shared.cfg.flavor;
    let mut frame = match serde_json::from_slice::<Value>(data) {
        Ok(Value::Object(o)) => o,
        _ => {
            tracing::debug!(len = data.len(), "unparseable frame");
            return match flavor {
                // go-cqhttp and Lagrange just log and drop it.
                Flavor::GoCqhttp | Flavor::Lagrange => None,
                _ => {
                    let err = Err(ActionError::bad_params("json解析失败,请检查数据格式"));
                    Some(Disposition::Reply {
                        reply: response::render(flavor, Transport::Ws, &err, None),
                        delay: None,
                    })
                }
            };
        }
    };
    let action = frame
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let echo = frame.remove("echo");
    let params = match frame.remove("params") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(p)) => Ok(p),
        Some(other) => Err(other),
    };
    Some(exec::execute(shared, &action, params, echo, Transport::Ws))
}

/// Runs one WebSocket connection until it closes, is killed, or a fault drops it.
pub(crate) async fn session<S>(
    shared: Arc<Shared>,
    io: S,
    plan: WsPlan,
    mut kill: watch::Receiver<u64>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let flavor = shared.cfg.flavor;
    let ws = WebSocketStream::from_raw_socket(io, Role::Server, Some(ws_config())).await;
    if plan.auth != AuthOutcome::Ok {
        tracing::debug!(?plan, "websocket token rejected");
        tokio::select! {
            _ = reject(ws, flavor) => {},
            _ = kill.changed() => {},
        }
        return;
    }
    let (mut sink, mut stream) = ws.split();
    // Declared after the socket halves so it is dropped first: the count is already down by
    // the time the client sees EOF.
    let (_guard, mut events_rx) = ConnGuard::register(&shared, plan.role.events());
    tracing::debug!(role = ?plan.role, "websocket connected");
    let self_id = shared.cfg.self_id;
    let hb = shared
        .cfg
        .heartbeat_interval
        .filter(|d| !d.is_zero() && plan.role.events());
    if plan.role.events() {
        let interval_ms = hb.map(|d| d.as_millis() as u64);
        for ev in events::greetings(flavor, self_id, interval_ms) {
            if sink
                .send(Message::Text(ev.to_string().into()))
                .await
                .is_err()
            {
                return;
            }
        }
    }
    let mut heartbeat = hb.map(|d| {
        let mut iv = tokio::time::interval_at(Instant::now() + d, d);
        iv.set_missed_tick_behavior(MissedTickBehavior::Delay);
        iv
    });
    let mut faults_rx = shared.faults.subscribe();
    let mut replier = Replier {
        held: Vec::new(),
        garbage: 0,
    };
    let mut slow: VecDeque<(Instant, Utf8Bytes)> = VecDeque::new();
    // Frames read just as the link went silent (the select below uses the state from the top
    // of its iteration): kept, like the kernel buffers would, and handled once it recovers.
    let mut parked: VecDeque<Message> = VecDeque::new();
    loop {
        let silenced = shared.faults().silenced();
        if !silenced && let Some(msg) = parked.pop_front() {
            match on_message(&shared, &mut sink, &mut replier, &mut slow, &msg).await {
                Ok(()) => continue,
                Err(()) => break,
            }
        }
        let step: Result<(), ()> = tokio::select! {
            _ = kill.changed() => break,
            // A half-dead link does not even read (no pongs, requests pile up in buffers).
            frame = stream.next(), if !silenced => match frame {
                None | Some(Err(_)) => break,
                Some(Ok(msg)) if shared.faults().silenced() => {
                    parked.push_back(msg);
                    Ok(())
                }
                Some(Ok(msg)) => on_message(&shared, &mut sink, &mut replier, &mut slow, &msg).await,
            },
            ev = next_event(&mut events_rx) => match ev {
                Some(text) if !silenced => sink.send(Message::Text(text)).await.map_err(|_| ()),
                Some(_) => Ok(()),
                None => Ok(()),
            },
            _ = tick(&mut heartbeat) => {
                if silenced {
                    Ok(())
                } else {
                    let ms = hb.map_or(0, |d| d.as_millis() as u64);
                    let ev = events::heartbeat(self_id, ms).to_string();
                    sink.send(Message::Text(ev.into())).await.map_err(|_| ())
                }
            },
            _ = sleep_until_head(&slow) => match slow.pop_front() {
                Some((_, text)) => replier.deliver(&shared, &mut sink, text).await,
                None => Ok(()),
            },
            changed = faults_rx.changed() => match changed {
                Ok(()) if shared.faults().out_of_order().is_none() => replier.flush(&shared, &mut sink).await,
                _ => Ok(()),
            },
        };
        if step.is_err() {
            break;
        }
    }
    tracing::debug!("websocket closed");
}
