//! Fetching `MediaSource.url` with an SSRF guard: the domain's
//! [`UrlSource`] port, implemented by [`Fetcher`] (the gateway's only HTTP
//! client outside the OneBot adapter).
//!
//! Only `http` and `https`. Every hop (at most [`MAX_REDIRECTS`]
//! redirects) is checked: an IP-literal host before it is requested, a
//! name when the connection resolves it, and the connection then goes only
//! to the vetted addresses (no second lookup, so no DNS rebinding between
//! check and connect). Refused unless `media.allow_private_urls`: loopback,
//! private (RFC 1918, unique local), link-local, carrier-grade NAT,
//! unspecified, multicast, broadcast, documentation and other reserved
//! ranges. Cloud metadata endpoints are refused even then;
//! `media.url_allow_networks` exempts chosen networks from every rule.
//! Every hop of a peer's media URL must also name a host of
//! `media.peer_url_hosts` or a trusted origin (the embedded sandbox, which
//! may be on loopback). The body streams into the staging area under the
//! kind's size limit; the whole fetch (all hops and the body) has
//! `media.url_timeout_ms`. Agents' URLs and peers' media URLs each have one
//! HTTP client for the fetcher's life, so connections are pooled.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;
use url::Url;

use onebot_gateway_config::MediaConfig;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::media::kind::{sanitize_file_name, too_large};
#[cfg(test)]
use onebot_gateway_domain::media::resolve::parse_url;
use onebot_gateway_domain::media::resolve::{FetchedMedia, UrlSource};
use onebot_gateway_domain::media::staging::{MediaOwner, MediaStore};
use onebot_gateway_domain::media::upload::UploadHeader;
use onebot_gateway_domain::model::MediaKind;
use onebot_gateway_domain::ports::MediaSink;

mod client;
mod guard;

pub use guard::{Lookup, MAX_REDIRECTS, SystemLookup, UrlGuard};

use client::{Purpose, Rules, failure, fetch_failed};

/// Downloads URLs into the staging area (and peers' media URLs into the
/// received-media store).
#[derive(Clone)]
pub struct Fetcher {
    rules: Arc<Rules>,
    /// The client of agents' URLs.
    agent: reqwest::Client,
    /// The client of peers' media URLs.
    peer: reqwest::Client,
    timeout: Duration,
    media: MediaStore,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher")
            .field("guard", &self.rules.guard)
            .field("timeout", &self.timeout)
            .finish()
    }
}

#[async_trait::async_trait]
impl UrlSource for Fetcher {
    async fn fetch(&self, url: &Url, kind: MediaKind, owner: &MediaOwner) -> Result<FetchedMedia> {
        Fetcher::fetch(self, url, kind, owner).await
    }

    async fn fetch_peer(&self, url: &Url, sink: &mut dyn MediaSink) -> Result<String> {
        Fetcher::fetch_peer(self, url, sink).await
    }
}

/// Bytes of a peer URL's answer read to tell a CDN error from media.
const PEER_ERROR_BYTES: usize = 1024;

/// The text of a CDN's JSON error answer (`{"retcode": -5503007,
/// "retmsg": "download url has expired"}`), if `body` is one.
fn cdn_error(body: &[u8]) -> Option<String> {
    if body.len() > PEER_ERROR_BYTES {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let o = v.as_object()?;
    let code = o.get("retcode").or_else(|| o.get("code"))?;
    let text = ["retmsg", "msg", "message", "wording"]
        .iter()
        .find_map(|k| o.get(*k).and_then(serde_json::Value::as_str))
        .unwrap_or("");
    Some(format!("{text} (retcode {code})").trim().to_string())
}

/// The error of a redirection answer that was not followed: it has no
/// usable `Location`, or its status is not one that redirects.
fn unfollowed(url: &Url, resp: &reqwest::Response) -> Error {
    let status = resp.status();
    let Some(location) = resp
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
    else {
        return fetch_failed(url, format!("{status} without a Location"));
    };
    match url.join(location) {
        Err(e) => fetch_failed(url, format!("bad redirect {location:?}: {e}")),
        Ok(_) => fetch_failed(url, format!("HTTP {status} (redirect to {location:?})"))
            .with("status", status.as_u16()),
    }
}

/// The file name a URL's last path segment gives.
fn file_name_of(url: &Url) -> String {
    url.path_segments()
        .and_then(|mut s| s.next_back())
        .map(percent_decode)
        .map(|s| sanitize_file_name(&s))
        .unwrap_or_default()
}

impl Fetcher {
    /// A fetcher writing into `media`.
    pub fn new(config: &MediaConfig, media: MediaStore, lookup: Arc<dyn Lookup>) -> Self {
        let rules = Rules {
            guard: UrlGuard::new(config),
            lookup,
            peer_hosts: config
                .peer_url_hosts
                .iter()
                .map(|h| h.trim_start_matches('.').to_ascii_lowercase())
                .collect(),
            trusted: Vec::new(),
        };
        Self::with_rules(rules, Duration::from_millis(config.url_timeout_ms), media)
    }

    fn with_rules(rules: Rules, timeout: Duration, media: MediaStore) -> Self {
        let rules = Arc::new(rules);
        Self {
            agent: client::build(&rules, Purpose::Agent),
            peer: client::build(&rules, Purpose::Peer),
            rules,
            timeout,
            media,
        }
    }

    /// Also lets peer media URLs of `host:port` reach a loopback address
    /// (the embedded sandbox's own media host), whatever
    /// `allow_private_urls` says.
    pub fn trust_peer_origin(self, host: &str, port: u16) -> Self {
        let mut rules = Rules::clone(&self.rules);
        rules.trusted.push((host.to_ascii_lowercase(), port));
        Self::with_rules(rules, self.timeout, self.media)
    }

    /// Fetches a peer's media URL into `sink` (see [`UrlSource::fetch_peer`]).
    pub async fn fetch_peer(&self, url: &Url, sink: &mut dyn MediaSink) -> Result<String> {
        let deadline = Instant::now() + self.timeout;
        tokio::time::timeout_at(deadline, self.fetch_peer_inner(url, sink))
            .await
            .unwrap_or_else(|_| {
                Err(fetch_failed(
                    url,
                    format!("timed out after {} ms", self.timeout.as_millis()),
                ))
            })
    }

    /// The answer to a GET of `url` with the client of `purpose`, every hop
    /// vetted; a redirect reqwest did not follow is an error.
    async fn get(&self, url: &Url, purpose: Purpose) -> Result<reqwest::Response> {
        self.rules.check_hop(url, purpose)?;
        let client = match purpose {
            Purpose::Agent => &self.agent,
            Purpose::Peer => &self.peer,
        };
        let resp = client
            .get(url.clone())
            .send()
            .await
            .map_err(|e| failure(url, e))?;
        if resp.status().is_redirection() {
            return Err(unfollowed(resp.url(), &resp));
        }
        Ok(resp)
    }

    async fn fetch_peer_inner(&self, url: &Url, sink: &mut dyn MediaSink) -> Result<String> {
        let mut resp = self.get(url, Purpose::Peer).await?;
        let url = resp.url().clone();
        let status = resp.status();
        if !status.is_success() {
            let mut body = Vec::new();
            while let Ok(Some(chunk)) = resp.chunk().await {
                body.extend_from_slice(&chunk);
                if body.len() >= PEER_ERROR_BYTES {
                    break;
                }
            }
            let text = cdn_error(&body).unwrap_or_else(|| {
                String::from_utf8_lossy(&body[..body.len().min(PEER_ERROR_BYTES)])
                    .trim()
                    .to_string()
            });
            return Err(fetch_failed(&url, format!("HTTP {status}: {text}"))
                .with("status", status.as_u16())
                .with("peer_message", text));
        }
        if let Some(len) = resp.content_length()
            && len > sink.limit()
        {
            return Err(Error::new(
                Kind::MediaTooLarge,
                format!("the media is larger than {} bytes", sink.limit()),
            )
            .with("limit_bytes", sink.limit())
            .with("url", url.as_str()));
        }
        let file_name = file_name_of(&url);
        // A CDN's error can come as a small JSON body with status 200:
        // the first bytes are held back until they cannot be one.
        let mut head: Vec<u8> = Vec::new();
        let mut held = true;
        while let Some(chunk) = resp.chunk().await.map_err(|e| failure(&url, e))? {
            if held {
                head.extend_from_slice(&chunk);
                if head.len() <= PEER_ERROR_BYTES {
                    continue;
                }
                held = false;
                sink.write(&head).await?;
                head.clear();
            } else {
                sink.write(&chunk).await?;
            }
        }
        if held {
            if let Some(text) = cdn_error(&head) {
                return Err(fetch_failed(&url, format!("the CDN answered: {text}"))
                    .with("peer_message", text));
            }
            sink.write(&head).await?;
        }
        Ok(file_name)
    }

    /// Fetches `url` as media of `kind` for `owner`.
    pub async fn fetch(
        &self,
        url: &Url,
        kind: MediaKind,
        owner: &MediaOwner,
    ) -> Result<FetchedMedia> {
        let deadline = Instant::now() + self.timeout;
        tokio::time::timeout_at(deadline, self.fetch_inner(url, kind, owner))
            .await
            .unwrap_or_else(|_| {
                Err(fetch_failed(
                    url,
                    format!("timed out after {} ms", self.timeout.as_millis()),
                ))
            })
    }

    async fn fetch_inner(
        &self,
        url: &Url,
        kind: MediaKind,
        owner: &MediaOwner,
    ) -> Result<FetchedMedia> {
        let limit = self.media.limit(kind);
        let mut resp = self.get(url, Purpose::Agent).await?;
        let url = resp.url().clone();
        let status = resp.status();
        if !status.is_success() {
            return Err(
                fetch_failed(&url, format!("HTTP {status}")).with("status", status.as_u16())
            );
        }
        if let Some(len) = resp.content_length()
            && len > limit
        {
            return Err(too_large(kind, limit).with("url", url.as_str()));
        }
        let file_name = file_name_of(&url);
        let mut upload = self.media.begin(
            owner.clone(),
            UploadHeader {
                kind,
                file_name: file_name.clone(),
                size: None,
                sha256: None,
            },
        )?;
        while let Some(chunk) = resp.chunk().await.map_err(|e| failure(&url, e))? {
            upload
                .write(chunk.to_vec())
                .await
                .map_err(|e| e.with("url", url.as_str()))?;
        }
        let media = upload
            .finish_transient()
            .await
            .map_err(|e| e.with("url", url.as_str()))?;
        Ok(FetchedMedia { media, file_name })
    }
}

/// Decodes `%XX` escapes of a URL path segment (invalid UTF-8 is replaced).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%'
            && let Some(hex) = s.get(i + 1..i + 3)
            && let Ok(v) = u8::from_str_radix(hex, 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests;
