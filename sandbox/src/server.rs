//! The listener and per-connection serving: HTTP/1.1 via hyper, with WebSocket upgrades
//! handed to [`ws`](crate::ws).
//!
//! HTTP API: `POST /<action>` (or `/<action>/`) with a JSON (or urlencoded) body, or
//! `GET /<action>?k=v`; query parameters are merged over the body (NapCat). go-cqhttp's
//! `POST /` with `{"action","params"}` is accepted too. Bodies up to [`MAX_PAYLOAD`].
//! `GET /download` is the media host on both faces; on the Milky face every other request
//! goes to [`milky::http`](crate::milky::http).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HeaderValue};
use http::{Method, StatusCode};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::upgrade::OnUpgrade;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use parking_lot::Mutex;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

use crate::auth::{self, AuthOutcome};
use crate::exec::{self, Disposition};
use crate::fault::FaultKind;
use crate::flavor::Flavor;
use crate::response::{Reply, Transport};
use crate::shared::Shared;
use crate::ws::{self, WsPlan};

/// Largest accepted WebSocket message / frame and HTTP body: 128 MiB.
pub const MAX_PAYLOAD: usize = 128 << 20;

/// Every response body: whole (`Full`) or streamed (Milky's Server-Sent Events).
pub(crate) type Body = UnsyncBoxBody<Bytes, Infallible>;

/// Per-connection state shared with the hyper service.
pub(crate) struct ConnCtx {
    pub shared: Arc<Shared>,
    /// Set when the request was a WebSocket upgrade; the session starts once hyper lets go.
    pub upgrade: Mutex<Option<(OnUpgrade, WsPlan)>>,
    /// `DropOnAction` over HTTP: close this connection without answering.
    pub drop_now: Notify,
}

/// Serves one connection (HTTP keep-alive or a WebSocket after upgrade) until it ends or
/// the hub's kill switch fires.
pub(crate) async fn serve_conn<IO>(shared: Arc<Shared>, io: IO)
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut kill = shared.hub.kill_signal();
    let ctx = Arc::new(ConnCtx {
        shared: shared.clone(),
        upgrade: Mutex::new(None),
        drop_now: Notify::new(),
    });
    let svc_ctx = ctx.clone();
    let svc = service_fn(move |req| {
        let ctx = svc_ctx.clone();
        async move { Ok::<_, Infallible>(handle(ctx, req).await) }
    });
    let conn = http1::Builder::new()
        .serve_connection(TokioIo::new(io), svc)
        .with_upgrades();
    tokio::select! {
        r = conn => if let Err(e) = r {
            tracing::debug!(error = %e, "http connection ended with an error");
        },
        _ = kill.changed() => return,
        _ = ctx.drop_now.notified() => return,
    }
    let pending = ctx.upgrade.lock().take();
    if let Some((on_upgrade, plan)) = pending {
        let upgraded = tokio::select! {
            r = on_upgrade => r,
            _ = kill.changed() => return,
        };
        match upgraded {
            Ok(io) => ws::session(shared, TokioIo::new(io), plan, kill).await,
            Err(e) => tracing::debug!(error = %e, "websocket upgrade failed"),
        }
    }
}

/// A running accept loop.
pub(crate) struct ListenerTask {
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

impl ListenerTask {
    /// Binds `addr` (with `SO_REUSEADDR`, so a restart can take the same port) and accepts.
    pub(crate) fn bind(
        shared: Arc<Shared>,
        addr: SocketAddr,
    ) -> std::io::Result<(ListenerTask, SocketAddr)> {
        let socket = if addr.is_ipv4() {
            TcpSocket::new_v4()?
        } else {
            TcpSocket::new_v6()?
        };
        socket.set_reuseaddr(true)?;
        socket.bind(addr)?;
        let listener = socket.listen(1024)?;
        let local = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(accept_loop(shared, listener, stopped));
        Ok((ListenerTask { stop, task }, local))
    }

    /// Stops accepting and waits until the socket is closed.
    pub(crate) async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }

    /// Stops accepting without waiting (for `Drop`).
    pub(crate) fn abort(self) {
        self.task.abort();
    }
}

async fn accept_loop(shared: Arc<Shared>, listener: TcpListener, mut stop: oneshot::Receiver<()>) {
    loop {
        tokio::select! {
            _ = &mut stop => break,
            r = listener.accept() => match r {
                Ok((stream, peer)) => {
                    tracing::trace!(%peer, "accepted");
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(serve_conn(shared.clone(), stream));
                }
                Err(e) => {
                    // Typically EMFILE: back off briefly instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            },
        }
    }
}

fn is_upgrade(req: &Request<Incoming>) -> bool {
    req.headers()
        .get(http::header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

async fn handle(ctx: Arc<ConnCtx>, req: Request<Incoming>) -> Response<Body> {
    let shared = &ctx.shared;
    let flavor = shared.cfg.flavor;
    let query = auth::parse_query(req.uri().query());
    if req.method() == Method::GET && req.uri().path() == "/download" && !is_upgrade(&req) {
        return media_host(shared, &query);
    }
    if shared.milky() {
        return crate::milky::http::handle(shared, req).await;
    }
    let reject = shared.faults().has(FaultKind::RejectAuth);
    let outcome = auth::check(flavor, shared.cfg.token(), req.headers(), &query, reject);
    if is_upgrade(&req) {
        return ws::accept(&ctx, req, outcome);
    }
    http_api(&ctx, req, query, outcome).await
}

/// The media host: `GET /download?fileid=<file>&rkey=<key>` answers the
/// file's bytes while the key is current, else the CDN's errors.
fn media_host(shared: &Shared, query: &[(String, String)]) -> Response<Body> {
    let get = |k: &str| {
        query
            .iter()
            .find(|(q, _)| q == k)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    let world = shared.world.lock();
    if world.files.down {
        return respond_json(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({"retcode": -5503001, "retmsg": "media service unavailable"}),
        );
    }
    if !world.files.valid(get("rkey")) {
        return respond_json(
            StatusCode::BAD_REQUEST,
            &json!({"retcode": -5503007, "retmsg": "download url has expired"}),
        );
    }
    let Some(file) = world.files.get(get("fileid")) else {
        return respond_json(
            StatusCode::NOT_FOUND,
            &json!({"retcode": -5503008, "retmsg": "file not found"}),
        );
    };
    let bytes = file.bytes();
    drop(world);
    let mut resp = Response::new(Full::new(bytes).boxed_unsync());
    // What a CDN says; the gateway sniffs the bytes itself.
    resp.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    resp
}

/// A response with a body and status.
pub(crate) fn respond(status: StatusCode, body: Bytes, json: bool) -> Response<Body> {
    let mut resp = Response::new(Full::new(body).boxed_unsync());
    *resp.status_mut() = status;
    let ct = if json {
        "application/json; charset=utf-8"
    } else {
        "text/plain; charset=utf-8"
    };
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(ct));
    resp
}

fn respond_json(status: StatusCode, v: &Value) -> Response<Body> {
    respond(status, Bytes::from(v.to_string()), true)
}

/// HTTP API token failure per flavor: the status and body each implementation answers with.
fn http_auth_failure(flavor: Flavor, outcome: AuthOutcome) -> Response<Body> {
    let missing = outcome == AuthOutcome::Missing;
    match flavor {
        Flavor::NapCat => respond_json(
            StatusCode::FORBIDDEN,
            &json!({"message": "token verify failed!"}),
        ),
        Flavor::SnowLuma => respond_json(
            StatusCode::UNAUTHORIZED,
            &json!({"status": "failed", "retcode": 1401, "data": null, "wording": "invalid access token"}),
        ),
        Flavor::GoCqhttp => respond(
            if missing {
                StatusCode::UNAUTHORIZED
            } else {
                StatusCode::FORBIDDEN
            },
            Bytes::new(),
            false,
        ),
        Flavor::LlOneBot | Flavor::Lagrange => {
            let (status, retcode) = if missing {
                (StatusCode::UNAUTHORIZED, 1401)
            } else {
                (StatusCode::FORBIDDEN, 1403)
            };
            respond_json(
                status,
                &json!({"status": "failed", "retcode": retcode, "data": null,
                        "message": "token验证失败", "wording": "token验证失败"}),
            )
        }
    }
}

fn parse_body(content_type: &str, body: &[u8]) -> Result<Map<String, Value>, ()> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    if content_type.starts_with("application/x-www-form-urlencoded") {
        let text = std::str::from_utf8(body).map_err(|_| ())?;
        return Ok(auth::parse_query(Some(text))
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(o)) => Ok(o),
        _ => Err(()),
    }
}

async fn http_api(
    ctx: &ConnCtx,
    req: Request<Incoming>,
    query: Vec<(String, String)>,
    outcome: AuthOutcome,
) -> Response<Body> {
    let shared = &ctx.shared;
    let flavor = shared.cfg.flavor;
    if outcome != AuthOutcome::Ok {
        return http_auth_failure(flavor, outcome);
    }
    let mut action = req.uri().path().trim_matches('/').to_owned();
    let method = req.method().clone();
    let content_type = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let body = if method == Method::GET || method == Method::HEAD {
        Bytes::new()
    } else {
        match Limited::new(req.into_body(), MAX_PAYLOAD).collect().await {
            Ok(b) => b.to_bytes(),
            Err(e) => {
                tracing::debug!(error = %e, "http body rejected");
                return respond(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    Bytes::from("body too large"),
                    false,
                );
            }
        }
    };
    let mut params = match parse_body(&content_type, &body) {
        Ok(p) => Ok(p),
        Err(()) => Err(Value::String(
            String::from_utf8_lossy(&body).chars().take(256).collect(),
        )),
    };
    if action.is_empty() {
        // go-cqhttp style `POST /` with {"action", "params"}.
        if let Ok(body) = &params
            && let Some(a) = body.get("action").and_then(Value::as_str)
        {
            action = a.to_owned();
            params = match body.get("params") {
                None | Some(Value::Null) => Ok(Map::new()),
                Some(Value::Object(p)) => Ok(p.clone()),
                Some(other) => Err(other.clone()),
            };
        }
        if action.is_empty() && method == Method::GET && flavor == Flavor::NapCat {
            return respond_json(
                StatusCode::OK,
                &json!({"status": "ok", "retcode": 0, "data": null, "message": "NapCat4 Is Running", "wording": "NapCat4 Is Running"}),
            );
        }
    }
    if let Ok(p) = &mut params {
        for (k, v) in query {
            if k != "access_token" {
                p.insert(k, Value::String(v));
            }
        }
    }
    let bad_body = params.is_err();
    match exec::execute(shared, &action, params, None, Transport::Http) {
        Disposition::Reply { reply, delay } => {
            if let Some(d) = delay {
                tokio::time::sleep(d).await;
            }
            // Spec: a malformed body is HTTP 400.
            let status = if bad_body {
                StatusCode::BAD_REQUEST
            } else {
                reply.status
            };
            respond(status, Bytes::from(reply.text()), true)
        }
        Disposition::Stream { frames, delay } => {
            if let Some(d) = delay {
                tokio::time::sleep(d).await;
            }
            // NapCat over HTTP: the frames in one body, separated by a
            // blank line.
            let status = frames.first().map_or(StatusCode::OK, |r| r.status);
            let body = frames
                .iter()
                .map(Reply::text)
                .collect::<Vec<_>>()
                .join("\r\n\r\n");
            respond(status, Bytes::from(body), true)
        }
        Disposition::Silent => std::future::pending().await,
        Disposition::Drop => {
            ctx.drop_now.notify_one();
            std::future::pending().await
        }
    }
}
