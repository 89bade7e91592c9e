//! Routing of the Milky face and the API envelope (see the module doc of `milky` for the
//! statuses and retcodes).

use std::sync::Arc;

use bytes::Bytes;
use http::header::{AUTHORIZATION, CONTENT_TYPE};
use http::{Method, StatusCode};
use http_body_util::{BodyExt as _, Limited};
use hyper::body::Incoming;
use hyper::{Request, Response};
use serde_json::{Map, Value, json};

use super::params::{MAX_UIN, MIN_UIN};
use super::{MilkyError, api, stream};
use crate::auth;
use crate::media::DigestCache;
use crate::server::{Body, MAX_PAYLOAD, respond};
use crate::shared::Shared;

fn respond_json(status: StatusCode, v: &Value) -> Response<Body> {
    respond(status, Bytes::from(v.to_string()), true)
}

/// The envelope of a call's outcome.
fn envelope(result: Result<Value, MilkyError>) -> Value {
    match result {
        Ok(data) => json!({"status": "ok", "retcode": 0, "data": data}),
        Err(e) => json!({"status": "failed", "retcode": e.retcode, "message": e.message}),
    }
}

/// True when the request carries the configured token (always, when none is configured).
fn authorized(shared: &Shared, req: &Request<Incoming>, query: &[(String, String)]) -> bool {
    let Some(token) = shared.cfg.token() else {
        return true;
    };
    let header = req
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim);
    let queried = query
        .iter()
        .find(|(k, _)| k == "access_token")
        .map(|(_, v)| v.as_str());
    header == Some(token) || queried == Some(token)
}

fn is_upgrade(req: &Request<Incoming>) -> bool {
    req.headers()
        .get(http::header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

fn is_json(req: &Request<Incoming>) -> bool {
    req.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// The body as a JSON object (empty: `{}`); `Err` carries the `-400` to answer.
async fn read_body(req: Request<Incoming>) -> Result<Result<Map<String, Value>, Value>, ()> {
    let bytes = match Limited::new(req.into_body(), MAX_PAYLOAD).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            tracing::debug!(error = %e, "milky body rejected");
            return Err(());
        }
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Ok(Map::new()));
    }
    Ok(match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(other) => Err(other),
        Err(_) => Err(Value::String(
            String::from_utf8_lossy(&bytes).chars().take(256).collect(),
        )),
    })
}

/// Serves one request of the Milky face (`/download` is served before this).
pub(crate) async fn handle(shared: &Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let query = auth::parse_query(req.uri().query());
    let path = req.uri().path().to_owned();
    let api = path
        .strip_prefix("/api/")
        .map(|a| a.trim_end_matches('/').to_owned());
    if !authorized(shared, &req, &query) {
        if let Some(api) = &api {
            shared.milky_record.call(api, &Value::Null, None);
        }
        return respond_json(
            StatusCode::UNAUTHORIZED,
            &json!({"message": "access token missing or invalid"}),
        );
    }
    match (api, path.as_str()) {
        (Some(api), _) => call(shared, &api, req).await,
        (None, "/event" | "/event/") if req.method() == Method::GET => {
            if is_upgrade(&req) {
                stream::websocket(shared, req)
            } else {
                stream::sse(shared)
            }
        }
        (None, "/sandbox_inject_message" | "/sandbox_inject_message/") => {
            inject(shared, "sandbox_inject_message", req).await
        }
        (None, p) if crate::actions::is_simulation(p.trim_matches('/')) => {
            inject(shared, p.trim_matches('/'), req).await
        }
        _ => respond(StatusCode::NOT_FOUND, Bytes::from("not found"), false),
    }
}

async fn call(shared: &Arc<Shared>, api: &str, req: Request<Incoming>) -> Response<Body> {
    let refuse = |status: StatusCode, text: &'static str| {
        shared.milky_record.call(api, &Value::Null, None);
        respond(status, Bytes::from_static(text.as_bytes()), false)
    };
    if req.method() != Method::POST {
        return refuse(StatusCode::METHOD_NOT_ALLOWED, "use POST");
    }
    if !is_json(&req) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type must be application/json",
        );
    }
    let body = match read_body(req).await {
        Ok(b) => b,
        Err(()) => return refuse(StatusCode::PAYLOAD_TOO_LARGE, "body too large"),
    };
    let (request, result) = match body {
        Ok(map) => match api::call(shared, api, &map).await {
            Some(result) => (Value::Object(map), result),
            None => {
                shared.milky_record.call(api, &Value::Object(map), None);
                return respond(StatusCode::NOT_FOUND, Bytes::from("unknown API"), false);
            }
        },
        Err(raw) => (
            raw,
            Err(MilkyError::bad("request body: expected a JSON object")),
        ),
    };
    let answer = envelope(result);
    shared.milky_record.call(api, &request, Some(&answer));
    respond_json(StatusCode::OK, &answer)
}

/// `POST /sandbox_inject_message`: the OneBot face's injection action (same parameters), whose
/// message is pushed as a Milky `message_receive`; data `{message_id, message_seq}`. The other
/// control endpoints (`POST /sandbox_react`, …, see `actions::simulate`) take the OneBot face's
/// bodies too and push Milky events.
async fn inject(shared: &Arc<Shared>, action: &str, req: Request<Incoming>) -> Response<Body> {
    let params = match read_body(req).await {
        Ok(Ok(p)) => p,
        Ok(Err(_)) => {
            return respond_json(
                StatusCode::OK,
                &envelope(Err(MilkyError::bad("request body: expected a JSON object"))),
            );
        }
        Err(()) => return respond(StatusCode::PAYLOAD_TOO_LARGE, Bytes::new(), false),
    };
    // Milky events name QQ numbers in zUin's range only.
    for key in ["user_id", "group_id"] {
        let id = crate::params::Params(&params).int(key);
        if let Ok(Some(id)) = id
            && !(MIN_UIN..=MAX_UIN).contains(&id)
        {
            let e = MilkyError::bad(format!(
                "{key}: expected a QQ number in [{MIN_UIN}, {MAX_UIN}]"
            ));
            return respond_json(StatusCode::OK, &envelope(Err(e)));
        }
    }
    let cache = DigestCache::default();
    let result = crate::actions::dispatch(shared, action, &params, &cache)
        .map_err(|e| MilkyError::bad(e.text));
    respond_json(StatusCode::OK, &envelope(result))
}
