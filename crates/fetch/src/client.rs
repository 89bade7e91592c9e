//! The HTTP clients of [`super::Fetcher`]: one per purpose, kept across
//! fetches so connections are pooled. The guard sits inside reqwest: names
//! are looked up by a resolver that hands the connector only vetted
//! addresses, and a redirect policy checks every further hop. IP-literal
//! hosts never reach the resolver, so [`Rules::check_hop`] runs on the
//! first URL before the request and on every redirect target.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use url::{Host, Url};

use super::guard::{Lookup, MAX_REDIRECTS, UrlGuard};
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::media::resolve::check_scheme;

/// What a client fetches, which decides the rules of its hops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Purpose {
    /// `MediaSource.url` of an agent.
    Agent,
    /// A peer's media URL.
    Peer,
}

/// What every hop of a fetch is checked against.
#[derive(Clone)]
pub(super) struct Rules {
    pub(super) guard: UrlGuard,
    pub(super) lookup: Arc<dyn Lookup>,
    /// Hosts (names or suffixes) a peer's media URLs may name.
    pub(super) peer_hosts: Vec<String>,
    /// `host:port` origins of peer media URLs allowed on loopback without
    /// `allow_private_urls` (the embedded sandbox).
    pub(super) trusted: Vec<(String, u16)>,
}

impl Rules {
    /// Fails unless `url` may be requested for `purpose`: a peer URL names
    /// a peer host (or a trusted origin), the scheme is `http` or `https`,
    /// and an IP-literal host passes the guard. Names are vetted when the
    /// connection resolves them ([`Rules::resolve`]).
    pub(super) fn check_hop(&self, url: &Url, purpose: Purpose) -> Result<()> {
        if purpose == Purpose::Peer {
            self.check_peer_host(url)?;
        }
        check_scheme(url)?;
        let ip = match url.host() {
            Some(Host::Domain(_)) => return Ok(()),
            Some(Host::Ipv4(ip)) => IpAddr::V4(ip),
            Some(Host::Ipv6(ip)) => IpAddr::V6(ip),
            None => return Err(fetch_failed(url, "no host")),
        };
        if purpose == Purpose::Peer && ip.is_loopback() && self.is_trusted(url) {
            return Ok(());
        }
        match self.guard.refusal(ip) {
            Some(category) => Err(refused(ip, category).with("url", url.as_str())),
            None => Ok(()),
        }
    }

    /// Fails with `UrlForbidden` unless `url`'s host is one of the peer
    /// hosts (the name itself or a subdomain of it) or `url` is a trusted
    /// origin. A trusted origin's host name is refused at any other port:
    /// the resolver, which lets that name reach loopback, sees no port.
    fn check_peer_host(&self, url: &Url) -> Result<()> {
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let host = host.trim_matches(['[', ']']);
        if self.is_trusted(url) {
            return Ok(());
        }
        let port = url.port_or_known_default().unwrap_or(80);
        let named = matches!(url.host(), Some(Host::Domain(_)));
        if named && self.trusted.iter().any(|(h, _)| h == host) {
            return Err(Error::new(
                Kind::UrlForbidden,
                format!("the peer's media URL names host {host} at port {port}, which is not its trusted port"),
            )
            .with("url", url.as_str())
            .with("host", host));
        }
        if self
            .peer_hosts
            .iter()
            .any(|h| host == h || host.ends_with(&format!(".{h}")))
        {
            return Ok(());
        }
        Err(Error::new(
            Kind::UrlForbidden,
            format!("the peer's media URL names host {host}, which is not in media.peer_url_hosts"),
        )
        .with("url", url.as_str())
        .with("host", host))
    }

    fn is_trusted(&self, url: &Url) -> bool {
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let port = url.port_or_known_default().unwrap_or(80);
        self.trusted.iter().any(|(h, p)| *h == host && *p == port)
    }

    /// The addresses the connection to `name` may use: every one vetted by
    /// the guard (a name that also points inside is refused), except that a
    /// trusted origin's name of a peer URL reaches its loopback addresses.
    /// Errors carry no URL; [`failure`] adds it.
    async fn resolve(&self, name: &str, purpose: Purpose) -> Result<Vec<IpAddr>> {
        let ips = self
            .lookup
            .lookup(name)
            .await
            .map_err(|e| failed(format!("cannot resolve {name}: {e}")))?;
        if ips.is_empty() {
            return Err(failed(format!("{name} has no address")));
        }
        if purpose == Purpose::Peer
            && self
                .trusted
                .iter()
                .any(|(h, _)| h.eq_ignore_ascii_case(name))
        {
            let loopback: Vec<IpAddr> = ips.iter().copied().filter(IpAddr::is_loopback).collect();
            if !loopback.is_empty() {
                return Ok(loopback);
            }
        }
        for ip in &ips {
            if let Some(category) = self.guard.refusal(*ip) {
                return Err(refused(*ip, category));
            }
        }
        Ok(ips)
    }
}

/// The `UrlForbidden` error of a refused address (the caller adds the URL).
fn refused(ip: IpAddr, category: &str) -> Error {
    Error::new(
        Kind::UrlForbidden,
        format!("the URL resolves to a refused address ({category})"),
    )
    .with("address", ip)
    .with("category", category)
}

/// The `UrlFetchFailed` error of `detail`, the cause in the message and in
/// metadata `detail` (the caller adds the URL).
fn failed(detail: impl std::fmt::Display) -> Error {
    let detail = detail.to_string();
    Error::new(
        Kind::UrlFetchFailed,
        format!("fetching the URL failed: {detail}"),
    )
    .with("detail", detail)
}

/// The `UrlFetchFailed` error of `url`: the cause in the message and in
/// metadata `detail`, the URL in metadata only (it may carry credentials).
pub(super) fn fetch_failed(url: &Url, detail: impl std::fmt::Display) -> Error {
    failed(detail).with("url", url.as_str())
}

/// Looks names up through [`Rules::resolve`], so connections go only to
/// vetted addresses (no second lookup, so no DNS rebinding between check
/// and connect).
struct Resolver {
    rules: Arc<Rules>,
    purpose: Purpose,
}

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let rules = self.rules.clone();
        let purpose = self.purpose;
        Box::pin(async move {
            let ips = rules.resolve(name.as_str(), purpose).await?;
            // Port 0: the connector uses the URL's port.
            let addrs: reqwest::dns::Addrs =
                Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

/// The client of `purpose`: no proxy, at most [`MAX_REDIRECTS`] redirects,
/// each checked by [`Rules::check_hop`], names resolved by [`Resolver`].
pub(super) fn build(rules: &Arc<Rules>, purpose: Purpose) -> reqwest::Client {
    let policy_rules = rules.clone();
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        let previous = attempt.previous();
        if previous.len() > MAX_REDIRECTS {
            let from = previous.last().unwrap_or(attempt.url()).clone();
            return attempt.error(fetch_failed(
                &from,
                format!("more than {MAX_REDIRECTS} redirects"),
            ));
        }
        match policy_rules.check_hop(attempt.url(), purpose) {
            Ok(()) => attempt.follow(),
            Err(e) => attempt.error(e),
        }
    });
    reqwest::Client::builder()
        .no_proxy()
        .redirect(policy)
        // A redirect's target is not told the URL that sent there.
        .referer(false)
        .dns_resolver(Arc::new(Resolver {
            rules: rules.clone(),
            purpose,
        }))
        .user_agent(concat!("onebot-gateway/", env!("CARGO_PKG_VERSION")))
        .build()
        // As `reqwest::Client::new`: fails only when the TLS backend
        // cannot start.
        .expect("the HTTP client builds")
}

/// The gateway error of a failed exchange for `url`: the guard's or the
/// redirect policy's own error when one is in the cause chain (with the
/// URL of the hop when it names none), else `UrlFetchFailed` with the
/// causes.
pub(super) fn failure(url: &Url, e: reqwest::Error) -> Error {
    let url = e.url().cloned().unwrap_or_else(|| url.clone());
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        if let Some(error) = cause.downcast_ref::<Error>() {
            let error = error.clone();
            if error.metadata.contains_key("url") {
                return error;
            }
            return error.with("url", url.as_str());
        }
        source = cause.source();
    }
    fetch_failed(&url, http_cause(e))
}

/// What a failed HTTP exchange says, its causes included (connection
/// refused, TLS, DNS), without the URL.
fn http_cause(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}
