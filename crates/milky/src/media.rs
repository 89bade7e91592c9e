//! One-time `http://` URLs for the media of a request: the account's media
//! listener serves each staged payload at `<base>/media/<token>` (a
//! 128-bit random token) for the implementation to fetch, instead of
//! writing the bytes into the request as `base64://`.
//!
//! Rules:
//! - A URL is one-time: the first `GET` takes it (a later `GET` answers
//!   404); `HEAD` answers the same headers and takes nothing.
//! - A URL lives only as long as the call that named it: its [`MediaUris`]
//!   removes every URL it handed out when it drops, whatever the call's end.
//! - The answer carries the payload's MIME type and `Content-Length`; the
//!   bytes are read in blocks off the async threads, never whole.
//! - Any other path answers 404, any other method 405.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use onebot_gateway_domain::model::MediaPayload;
use onebot_gateway_domain::model::media::PayloadSource;

/// Bytes read per block of an answer.
const BLOCK: u64 = 256 * 1024;

/// One payload waiting to be fetched.
struct Item {
    source: PayloadSource,
    size: u64,
    mime: String,
}

/// The payloads by token.
type Items = Arc<Mutex<HashMap<String, Item>>>;

/// One account's media listener and the URLs it serves; clones share both.
#[derive(Clone)]
pub struct MediaServer {
    /// The base of every URL, without a trailing `/`.
    base: Arc<str>,
    /// The address the listener is bound to.
    addr: SocketAddr,
    items: Items,
}

impl MediaServer {
    /// Binds `listen` and serves until `shutdown` fires. URLs start with
    /// `base_url` (a trailing `/` dropped) or, without it,
    /// `http://<bound address>` (an unspecified address such as `0.0.0.0`
    /// named as the loopback address of its family). Must be called inside
    /// a Tokio runtime.
    pub fn start(
        listen: SocketAddr,
        base_url: Option<&str>,
        shutdown: CancellationToken,
    ) -> std::io::Result<MediaServer> {
        let std_listener = std::net::TcpListener::bind(listen)?;
        std_listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(std_listener)?;
        let addr = listener.local_addr()?;
        let base: Arc<str> = match base_url {
            Some(url) => url.trim_end_matches('/').into(),
            None => {
                let mut named = addr;
                if named.ip().is_unspecified() {
                    named.set_ip(match addr {
                        SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                        SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
                    });
                }
                format!("http://{named}").into()
            }
        };
        let items = Items::default();
        let app = Router::new()
            .route("/media/{token}", get(take).head(peek))
            .with_state(items.clone());
        tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await;
            if let Err(e) = served {
                tracing::warn!(%addr, error = %e, "milky media listener stopped");
            }
        });
        Ok(MediaServer { base, addr, items })
    }

    /// The base of the URLs handed out (`<base>/media/<token>`).
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The address the listener is bound to.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// A fresh set of one-time URLs for one request.
    pub fn uris(&self) -> MediaUris {
        MediaUris::Http(Lease {
            server: self.clone(),
            tokens: Vec::new(),
        })
    }

    /// How many URLs are waiting to be fetched.
    pub fn pending(&self) -> usize {
        self.items.lock().len()
    }
}

/// How the media of one request reach the implementation.
pub enum MediaUris {
    /// As `base64://` URIs in the request itself.
    Base64,
    /// As one-time URLs on the media listener, removed when this drops.
    Http(Lease),
}

/// The one-time URLs handed out for one request.
pub struct Lease {
    server: MediaServer,
    tokens: Vec<String>,
}

impl Lease {
    /// A new one-time URL serving `media`.
    pub fn url(&mut self, media: &MediaPayload) -> String {
        let token = format!("{:032x}", rand::random::<u128>());
        let mime = if media.mime.is_empty() {
            "application/octet-stream".to_string()
        } else {
            media.mime.clone()
        };
        self.server.items.lock().insert(
            token.clone(),
            Item {
                source: media.source(),
                size: media.size,
                mime,
            },
        );
        let url = format!("{}/media/{token}", self.server.base);
        self.tokens.push(token);
        url
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let mut items = self.server.items.lock();
        for token in &self.tokens {
            items.remove(token);
        }
    }
}

/// The headers of an answer serving `item`.
fn headers(item: &Item) -> [(header::HeaderName, HeaderValue); 2] {
    let mime = HeaderValue::from_str(&item.mime)
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    [
        (header::CONTENT_TYPE, mime),
        (header::CONTENT_LENGTH, HeaderValue::from(item.size)),
    ]
}

/// `GET /media/{token}`: takes the URL and streams its bytes.
async fn take(State(items): State<Items>, Path(token): Path<String>) -> Response {
    let Some(item) = items.lock().remove(&token) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let headers = headers(&item);
    let blocks = item.source.blocks(item.size, BLOCK, Bytes::from);
    (headers, Body::from_stream(blocks)).into_response()
}

/// `HEAD /media/{token}`: the headers a `GET` would answer, the URL kept.
async fn peek(State(items): State<Items>, Path(token): Path<String>) -> Response {
    match items.lock().get(&token) {
        Some(item) => headers(item).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
