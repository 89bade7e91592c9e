//! `[mcp]`: the Model Context Protocol endpoint (Streamable HTTP).

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

/// The MCP endpoint: the agent tools, chat resources and their updates
/// over Streamable HTTP, on the gRPC listener (beside gRPC, on one port)
/// or on a listener of its own.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct McpConfig {
    /// Serve MCP at all.
    pub enabled: bool,
    /// The endpoint's path: `/` and letters, digits, `_`, `-` and `/`.
    pub path: String,
    /// A plaintext listener of its own; absent: the gRPC listener (and its
    /// TLS).
    pub listen: Option<SocketAddr>,
    /// Browser origins allowed to call (`https://app.example.com`, with a
    /// port when it is not the scheme's default). A request whose `Origin`
    /// header is not listed gets 403; a request without `Origin` (not from
    /// a browser) is served.
    pub allowed_origins: Vec<String>,
    /// `Host` values accepted (names, or `name:port`). Empty: on a loopback
    /// listener only `localhost`, `127.0.0.1` and `::1` (DNS rebinding
    /// protection), on any other address every host.
    pub allowed_hosts: Vec<String>,
    /// Largest request body, in bytes (413 beyond).
    pub max_request_bytes: usize,
    /// Sessions and `subscriptions/listen` streams open at once; more are
    /// refused with 503 until one closes or expires.
    pub max_sessions: usize,
    /// A session without any traffic for this long is closed, in
    /// milliseconds.
    pub session_idle_timeout_ms: u64,
}

impl Default for McpConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            path: "/mcp".into(),
            listen: None,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_request_bytes: 4 * 1024 * 1024,
            max_sessions: 256,
            session_idle_timeout_ms: 300_000,
        }
    }
}

impl McpConfig {
    /// Checks `[mcp]`: a path of plain segments (so it never names a gRPC
    /// method, whose paths hold a `.`), origins as `scheme://host[:port]`,
    /// a listener other than the gRPC one, positive limits.
    pub(super) fn validate(&self, server_listen: SocketAddr) -> Result<(), ConfigError> {
        let key = Key::new("mcp");
        let path = key.field("path");
        path.url_path(&self.path)?;
        path.ensure(
            self.path.len() > 1
                && self.path[1..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/'))
                && !self.path.ends_with('/'),
            "use `/` followed by letters, digits, `_`, `-` and `/` (not ending in `/`), e.g. /mcp",
        )?;
        if let Some(listen) = self.listen {
            key.field("listen").ensure(
                listen != server_listen || listen.port() == 0,
                "must differ from server.listen (leave it out to serve MCP on the gRPC listener)",
            )?;
        }
        for (i, origin) in self.allowed_origins.iter().enumerate() {
            key.field("allowed_origins")
                .index(i)
                .ensure(
                    normalize_origin(origin).is_some(),
                    format!("{origin:?} is not an origin; write scheme://host or scheme://host:port, e.g. https://app.example.com"),
                )?;
        }
        for (i, host) in self.allowed_hosts.iter().enumerate() {
            key.field("allowed_hosts").index(i).ensure(
                !host.is_empty() && !host.contains(['/', ' ', '@']),
                format!("{host:?} is not a host; write a name or name:port"),
            )?;
        }
        key.field("max_request_bytes")
            .at_least(self.max_request_bytes, 1024)?;
        key.field("max_sessions").positive(self.max_sessions)?;
        key.field("session_idle_timeout_ms")
            .at_least(self.session_idle_timeout_ms, 1000)
    }
}

/// An origin in the form browsers send it: lower-case `scheme://host`, with
/// `:port` only when it is not the scheme's default. `None` for anything
/// else (a path, user info, a query). `null` stays `null`.
pub fn normalize_origin(origin: &str) -> Option<String> {
    let origin = origin.trim();
    if origin == "null" {
        return Some("null".into());
    }
    let url = url::Url::parse(origin).ok()?;
    let scheme = url.scheme();
    let host = url.host_str()?;
    let clean = url.username().is_empty()
        && url.password().is_none()
        && url.query().is_none()
        && url.fragment().is_none()
        && (url.path() == "/" || url.path().is_empty())
        && !origin.ends_with('/');
    if !clean {
        return None;
    }
    Some(match url.port() {
        Some(port) => format!("{scheme}://{host}:{port}"),
        None => format!("{scheme}://{host}"),
    })
}
