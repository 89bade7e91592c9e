//! The reverse WebSocket listener: implementations dial in and are matched
//! to accounts (`reverse = true`) by `X-Self-ID`.
//!
//! The upgrade request is checked before the upgrade is accepted: the path
//! must be `[reverse_ws].path` (a trailing `/` is ignored), `X-Self-ID` must
//! name a reverse account, `X-Client-Role` must be `Universal`, `API` or
//! `Event` (any case; absent means Universal), and when the account has an
//! `access_token` the request must carry it as `Authorization: Bearer <t>`
//! or `Authorization: Token <t>` (go-cqhttp), scheme in any case, or as
//! `?access_token=`. A missing token is answered 401, a wrong one 403.
//! While the account's gate is closed (another gateway leads it), a
//! handshake that passed the token check is answered 503.
//! While a connection of the account is attached (the action link:
//! Universal or API; or the events-only one), a second of the same kind is
//! answered 409 and logged: it never takes the account over. A replacement
//! is accepted once the first has ended (closed, or found dead by the
//! pings).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_util::sync::CancellationToken;

use super::ws::ws_config;

/// The role a reverse connection announced in `X-Client-Role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientRole {
    /// Actions and events.
    Universal,
    /// Actions only.
    Api,
    /// Events only (never carries actions).
    Event,
}

impl ClientRole {
    /// Parses the header value, case-insensitively; absent means Universal.
    pub fn parse(value: Option<&str>) -> Option<Self> {
        match value.map(|v| v.trim().to_ascii_lowercase()) {
            None => Some(ClientRole::Universal),
            Some(v) => match v.as_str() {
                "" | "universal" => Some(ClientRole::Universal),
                "api" => Some(ClientRole::Api),
                "event" => Some(ClientRole::Event),
                _ => None,
            },
        }
    }
}

/// An account the listener hands its accepted connections to.
#[async_trait::async_trait]
pub trait ReverseAccount: Send + Sync + 'static {
    /// The account id (for logs).
    fn id(&self) -> &str;
    /// The token a connection must present, if any.
    fn access_token(&self) -> Option<&str>;
    /// Whether the account's gate is open (this gateway may take its
    /// connections); while it is not, handshakes are refused with 503.
    fn gate_open(&self) -> bool {
        true
    }
    /// True while a connection of `role`'s kind (actions: Universal or
    /// API; events) is attached.
    fn attached(&self, role: ClientRole) -> bool;
    /// Runs an accepted connection until it drops.
    async fn attach(&self, ws: WebSocketStream<TcpStream>, role: ClientRole);
}

/// The accounts reachable through the listener, by bot QQ number.
pub type ReverseAccounts = HashMap<i64, Arc<dyn ReverseAccount>>;

/// Serves reverse connections on `listener` until `cancel` fires.
/// `handshake_timeout` bounds each upgrade.
pub fn spawn(
    listener: TcpListener,
    path: String,
    accounts: ReverseAccounts,
    handshake_timeout: Duration,
    cancel: CancellationToken,
) -> JoinHandle<()> {
    let shared = Arc::new(Shared {
        path: normalize_path(&path).to_string(),
        accounts,
    });
    tokio::spawn(async move {
        loop {
            tokio::select! {
                _ = cancel.cancelled() => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let shared = shared.clone();
                        let cancel = cancel.clone();
                        tokio::spawn(async move {
                            tokio::select! {
                                _ = handle(stream, peer, shared, handshake_timeout) => {}
                                _ = cancel.cancelled() => {}
                            }
                        });
                    }
                    Err(e) => {
                        // Per-connection accept errors (e.g. EMFILE) must not
                        // stop the listener; back off a little.
                        tracing::warn!(error = %e, "reverse WebSocket accept failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
            }
        }
    })
}

struct Shared {
    path: String,
    accounts: ReverseAccounts,
}

fn normalize_path(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() { "/" } else { trimmed }
}

// tungstenite's callback must return its own (large) `ErrorResponse`.
#[allow(clippy::result_large_err)]
async fn handle(stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>, timeout: Duration) {
    let _ = stream.set_nodelay(true);
    let mut matched: Option<(Arc<dyn ReverseAccount>, ClientRole, i64)> = None;
    let callback = |req: &Request, resp: Response| match check(req, &shared) {
        Ok(found) => {
            matched = Some(found);
            Ok(resp)
        }
        Err((status, text)) => {
            tracing::warn!(%peer, %status, reason = %text, "reverse WebSocket refused");
            Err(refusal(status, text))
        }
    };
    let accepted = tokio::time::timeout(
        timeout,
        tokio_tungstenite::accept_hdr_async_with_config(stream, callback, Some(ws_config())),
    )
    .await;
    let ws = match accepted {
        Ok(Ok(ws)) => ws,
        Ok(Err(e)) => {
            tracing::debug!(%peer, error = %e, "reverse WebSocket handshake failed");
            return;
        }
        Err(_) => {
            tracing::debug!(%peer, "reverse WebSocket handshake timed out");
            return;
        }
    };
    let Some((client, role, self_id)) = matched else {
        return;
    };
    tracing::info!(%peer, self_id, ?role, account_id = client.id(), "reverse WebSocket connected");
    client.attach(ws, role).await;
}

fn refusal(status: StatusCode, text: String) -> ErrorResponse {
    let mut resp = ErrorResponse::new(Some(text));
    *resp.status_mut() = status;
    resp
}

type Refusal = (StatusCode, String);

fn check(
    req: &Request,
    shared: &Shared,
) -> Result<(Arc<dyn ReverseAccount>, ClientRole, i64), Refusal> {
    if normalize_path(req.uri().path()) != shared.path {
        return Err((StatusCode::NOT_FOUND, "unknown path".into()));
    }
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let self_id: i64 = header("x-self-id").and_then(|v| v.parse().ok()).ok_or((
        StatusCode::BAD_REQUEST,
        "missing or invalid X-Self-ID".to_string(),
    ))?;
    let client = shared.accounts.get(&self_id).cloned().ok_or((
        StatusCode::FORBIDDEN,
        format!("no reverse account for X-Self-ID {self_id}"),
    ))?;
    let role = ClientRole::parse(header("x-client-role")).ok_or((
        StatusCode::BAD_REQUEST,
        "X-Client-Role must be Universal, API or Event".to_string(),
    ))?;
    if let Some(expected) = client.access_token() {
        let presented = header("authorization")
            .map(bearer_or_token)
            .or_else(|| query_token(req.uri().query()));
        match presented {
            None => return Err((StatusCode::UNAUTHORIZED, "access token required".into())),
            Some(t) if !constant_time_eq(t.as_bytes(), expected.as_bytes()) => {
                return Err((StatusCode::FORBIDDEN, "wrong access token".into()));
            }
            Some(_) => {}
        }
    }
    // Only after the token: an unauthenticated dialler learns nothing.
    if !client.gate_open() {
        return Err((
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "standby: another gateway leads the account of X-Self-ID {self_id}; dial the leader"
            ),
        ));
    }
    if client.attached(role) {
        return Err((
            StatusCode::CONFLICT,
            format!(
                "a {role:?} connection with X-Self-ID {self_id} is attached; a second one is refused until it ends"
            ),
        ));
    }
    Ok((client, role, self_id))
}

/// The token of `Bearer <t>` / `Token <t>` (scheme in any case); other
/// schemes give an empty token, which never matches.
fn bearer_or_token(value: &str) -> String {
    let (scheme, rest) = value.split_once(char::is_whitespace).unwrap_or((value, ""));
    if scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("token") {
        rest.trim().to_string()
    } else {
        String::new()
    }
}

fn query_token(query: Option<&str>) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == "access_token")
        .map(|(_, v)| v.into_owned())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_and_paths() {
        assert_eq!(bearer_or_token("Bearer abc"), "abc");
        assert_eq!(bearer_or_token("bearer  abc "), "abc");
        assert_eq!(bearer_or_token("TOKEN abc"), "abc");
        assert_eq!(bearer_or_token("Basic abc"), "");
        assert_eq!(bearer_or_token("Bearer"), "");
        assert_eq!(
            query_token(Some("a=1&access_token=x%20y")).as_deref(),
            Some("x y")
        );
        assert_eq!(normalize_path("/onebot/v11/ws/"), "/onebot/v11/ws");
        assert_eq!(normalize_path("/"), "/");
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
