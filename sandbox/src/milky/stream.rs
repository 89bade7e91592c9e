//! `GET /event`: a WebSocket (one JSON event per text frame; client frames other than close are
//! ignored) or a Server-Sent Events stream (`event: milky_event`, `data: <json>`, a blank line,
//! and a `: heartbeat` comment every
//! [`heartbeat_interval`](crate::SandboxConfig::heartbeat_interval)). Each open stream counts
//! as a connection ([`SandboxControl::wait_connections`](crate::SandboxControl::wait_connections))
//! from the moment it is accepted, and ends when the client leaves or the connections are
//! dropped.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::{SinkExt as _, StreamExt as _};
use http::StatusCode;
use http::header::{
    CACHE_CONTROL, CONNECTION, CONTENT_TYPE, HeaderValue, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY,
    UPGRADE,
};
use http_body_util::{BodyExt as _, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::sync::mpsc;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::server::{Body, respond};
use crate::shared::{ConnGuard, Shared};
use crate::ws::ws_config;

/// Accepts a WebSocket upgrade on `/event`; the session runs on its own task.
pub(crate) fn websocket(shared: &Arc<Shared>, mut req: Request<Incoming>) -> Response<Body> {
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
    let (guard, rx) = ConnGuard::register(shared, true);
    let mut kill = shared.hub.kill_signal();
    tokio::spawn(async move {
        let _guard = guard;
        let Some(mut rx) = rx else { return };
        let io = tokio::select! {
            r = on_upgrade => match r {
                Ok(io) => io,
                Err(e) => {
                    tracing::debug!(error = %e, "milky websocket upgrade failed");
                    return;
                }
            },
            _ = kill.changed() => return,
        };
        let ws =
            WebSocketStream::from_raw_socket(TokioIo::new(io), Role::Server, Some(ws_config()))
                .await;
        let (mut sink, mut stream) = ws.split();
        loop {
            tokio::select! {
                ev = rx.recv() => match ev {
                    Some(text) => if sink.send(Message::Text(text)).await.is_err() { break },
                    None => break,
                },
                msg = stream.next() => match msg {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                    Some(Ok(_)) => {}
                },
                _ = kill.changed() => return,
            }
        }
    });
    let mut resp = respond(StatusCode::SWITCHING_PROTOCOLS, Bytes::new(), false);
    let h = resp.headers_mut();
    h.remove(CONTENT_TYPE);
    h.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    h.insert(UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(SEC_WEBSOCKET_ACCEPT, accept_key);
    resp
}

fn sse_event(text: &Utf8Bytes) -> Bytes {
    let mut out = String::with_capacity(text.len() + 32);
    out.push_str("event: milky_event\n");
    for line in text.as_str().split('\n') {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    Bytes::from(out)
}

type Chunk = Result<Frame<Bytes>, Infallible>;

/// Feeds one SSE stream until its client leaves or the connections are dropped.
async fn feed(
    shared: Arc<Shared>,
    guard: ConnGuard,
    mut rx: mpsc::UnboundedReceiver<Utf8Bytes>,
    tx: mpsc::Sender<Chunk>,
) {
    let _guard = guard;
    let mut kill = shared.hub.kill_signal();
    let mut heartbeat = shared
        .cfg
        .heartbeat_interval
        .filter(|d| !d.is_zero())
        .map(|d| {
            let mut iv = tokio::time::interval_at(Instant::now() + d, d);
            iv.set_missed_tick_behavior(MissedTickBehavior::Delay);
            iv
        });
    loop {
        let chunk = tokio::select! {
            ev = rx.recv() => match ev {
                Some(text) => sse_event(&text),
                None => break,
            },
            _ = async {
                match heartbeat.as_mut() {
                    Some(iv) => { iv.tick().await; }
                    None => std::future::pending::<()>().await,
                }
            } => Bytes::from_static(b": heartbeat\n\n"),
            _ = tx.closed() => break,
            _ = kill.changed() => break,
        };
        if tx.send(Ok(Frame::data(chunk))).await.is_err() {
            break;
        }
    }
}

/// Opens a Server-Sent Events stream of the events.
pub(crate) fn sse(shared: &Arc<Shared>) -> Response<Body> {
    let (guard, rx) = ConnGuard::register(shared, true);
    let Some(rx) = rx else {
        return respond(StatusCode::INTERNAL_SERVER_ERROR, Bytes::new(), false);
    };
    let (tx, body_rx) = mpsc::channel::<Chunk>(64);
    tokio::spawn(feed(shared.clone(), guard, rx, tx));
    let stream = futures_util::stream::unfold(body_rx, |mut rx| async move {
        rx.recv().await.map(|chunk| (chunk, rx))
    });
    let mut resp = Response::new(StreamBody::new(stream).boxed_unsync());
    let h = resp.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}
