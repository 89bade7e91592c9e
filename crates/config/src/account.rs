//! `[accounts.<id>]`: one OneBot account, its secrets and shared directory.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;
use super::flavor::{Flavor, UnknownFlavor};
use super::redact::{REDACTED, redact_url};

/// The id of the account used when a request leaves `account_id` empty.
pub const DEFAULT_ACCOUNT: &str = "default";

/// A secret string: never printed by `Debug` or `Display`.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }
    /// The secret itself; use only where it goes on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{REDACTED}\"")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// One OneBot account. Its `Debug` output redacts the access token and
/// credentials in the URLs.
#[derive(Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AccountConfig {
    /// Forward WebSocket URL of the implementation (`ws://`).
    pub ws_url: Option<String>,
    /// HTTP API base URL of the implementation.
    pub http_url: Option<String>,
    /// Base URL of a Milky implementation's HTTP server (`http://` or
    /// `https://`): its API at `/api/:api`, its events at `/event`. An
    /// account with it speaks Milky, not OneBot v11.
    pub milky_url: Option<String>,
    /// How a Milky account receives events: `websocket` (the default) or
    /// `sse` (Server-Sent Events), both on `/event`.
    pub milky_events: MilkyEvents,
    /// How a Milky account hands media (images, videos, files) to the
    /// implementation: `auto` (the default: `http` when `milky_url`'s host
    /// is a loopback address or `localhost`, else `base64`), `http` (a
    /// one-time URL on the account's media listener, which the
    /// implementation fetches) or `base64` (the bytes inline in the
    /// request). Milky accounts only.
    pub milky_media: Option<MilkyMedia>,
    /// The address the account's media listener binds (`127.0.0.1:0`, any
    /// free port, when unset). Milky accounts only.
    pub milky_media_listen: Option<String>,
    /// The base URL (`http://` or `https://`) the implementation reaches
    /// the media listener at, when it is not `http://<bound address>`
    /// (another container or host). Milky accounts only.
    pub milky_media_url: Option<String>,
    /// The implementation's access token, sent as `Authorization: Bearer
    /// <token>` (OneBot v11 and Milky alike).
    pub access_token: Option<Secret>,
    /// Also send the token as `?access_token=` on the WebSocket URL.
    pub token_in_query: bool,
    /// Accept this account over the reverse WebSocket listener (matched by
    /// `self_id`).
    pub reverse: bool,
    /// Expected QQ number of the bot; required for `reverse`.
    pub self_id: Option<i64>,
    /// `auto` (detect from `app_name`) or one of `napcat`, `llonebot`,
    /// `lagrange`, `snowluma`, `go-cqhttp`, `generic`.
    pub flavor: String,
    /// Where history anchors go: `auto` (learned from the peer: a probe on
    /// connect, then every page), or fixed: `message_seq` (the row's own
    /// `message_seq`), `real_seq`, `message_id_as_seq`, `message_id`, `both`.
    pub history_anchor: String,
    /// Whether the peer returns the anchor row itself; unset: learned.
    pub history_anchor_included: Option<bool>,
    /// Per-call timeout in milliseconds (the gRPC deadline may shorten it).
    pub request_timeout_ms: u64,
    /// How long an RPC waits for a connecting account, in milliseconds.
    pub connect_wait_ms: u64,
    /// Timeout of one connection attempt, in milliseconds.
    pub connect_timeout_ms: u64,
    /// Smallest reconnect backoff, in milliseconds.
    pub backoff_min_ms: u64,
    /// Largest reconnect backoff, in milliseconds.
    pub backoff_max_ms: u64,
    /// Draw each reconnect delay at random between `backoff_min_ms` and the
    /// current exponential step ("full jitter"); off means the step itself.
    pub backoff_jitter: bool,
    /// Interval between reconnects after an authentication failure, ms.
    pub auth_retry_ms: u64,
    /// WebSocket ping interval used when the peer announces no heartbeat, ms.
    pub ping_interval_ms: u64,
    /// Group whitelist for send, poke and recall.
    pub groups: Vec<i64>,
    /// Private-chat whitelist for send and recall: the QQ numbers of the
    /// users this account may write to privately. Empty (the default):
    /// private sends are off.
    pub users: Vec<i64>,
    /// Largest text chunk, in characters.
    pub reply_chunk_size: usize,
    /// Offline queue capacity, in entries.
    pub queue_max_entries: usize,
    /// Offline queue entry lifetime, in seconds.
    pub queue_ttl_secs: u64,
    /// Sends per minute per group.
    pub rate_group_per_minute: u32,
    /// Burst of sends per group.
    pub rate_group_burst: u32,
    /// Sends per minute per account.
    pub rate_account_per_minute: u32,
    /// Burst of sends per account.
    pub rate_account_burst: u32,
    /// Pokes per minute per account.
    pub rate_poke_per_minute: u32,
    /// First pause of this account's sends after the platform's risk control
    /// refused one, in seconds; doubles on each refusal in a row.
    pub risk_backoff_min_secs: u64,
    /// Longest pause after risk control, in seconds.
    pub risk_backoff_max_secs: u64,
    /// Member cache lifetime in seconds; 0 disables the cache.
    pub member_cache_ttl_secs: u64,
    /// Largest number of calls waiting for replies.
    pub max_pending_calls: usize,
    /// A directory shared with the implementation (Docker volume): media are
    /// written under `local` and referred to as `peer` paths.
    pub shared_dir: Option<SharedDir>,
    /// PEM CA bundle trusted (besides the system roots) for `wss://` and
    /// `https://` peers, e.g. a private CA in front of NapCat.
    pub ca_file: Option<PathBuf>,
}

impl fmt::Debug for AccountConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountConfig")
            .field("ws_url", &self.ws_url.as_deref().map(redact_url))
            .field("http_url", &self.http_url.as_deref().map(redact_url))
            .field("milky_url", &self.milky_url.as_deref().map(redact_url))
            .field("milky_events", &self.milky_events)
            .field("milky_media", &self.milky_media)
            .field("milky_media_listen", &self.milky_media_listen)
            .field(
                "milky_media_url",
                &self.milky_media_url.as_deref().map(redact_url),
            )
            .field("access_token", &self.access_token)
            .field("token_in_query", &self.token_in_query)
            .field("reverse", &self.reverse)
            .field("self_id", &self.self_id)
            .field("flavor", &self.flavor)
            .field("history_anchor", &self.history_anchor)
            .field("history_anchor_included", &self.history_anchor_included)
            .field("request_timeout_ms", &self.request_timeout_ms)
            .field("connect_wait_ms", &self.connect_wait_ms)
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("backoff_min_ms", &self.backoff_min_ms)
            .field("backoff_max_ms", &self.backoff_max_ms)
            .field("auth_retry_ms", &self.auth_retry_ms)
            .field("ping_interval_ms", &self.ping_interval_ms)
            .field("groups", &self.groups)
            .field("users", &self.users)
            .field("reply_chunk_size", &self.reply_chunk_size)
            .field("queue_max_entries", &self.queue_max_entries)
            .field("queue_ttl_secs", &self.queue_ttl_secs)
            .field("rate_group_per_minute", &self.rate_group_per_minute)
            .field("rate_group_burst", &self.rate_group_burst)
            .field("rate_account_per_minute", &self.rate_account_per_minute)
            .field("rate_account_burst", &self.rate_account_burst)
            .field("rate_poke_per_minute", &self.rate_poke_per_minute)
            .field("member_cache_ttl_secs", &self.member_cache_ttl_secs)
            .field("max_pending_calls", &self.max_pending_calls)
            .field("shared_dir", &self.shared_dir)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

impl Default for AccountConfig {
    fn default() -> Self {
        Self {
            ws_url: None,
            http_url: None,
            milky_url: None,
            milky_events: MilkyEvents::WebSocket,
            milky_media: None,
            milky_media_listen: None,
            milky_media_url: None,
            access_token: None,
            token_in_query: false,
            reverse: false,
            self_id: None,
            flavor: "auto".into(),
            history_anchor: "auto".into(),
            history_anchor_included: None,
            request_timeout_ms: 30_000,
            connect_wait_ms: 3_000,
            connect_timeout_ms: 10_000,
            backoff_min_ms: 500,
            backoff_max_ms: 10_000,
            backoff_jitter: true,
            auth_retry_ms: 60_000,
            ping_interval_ms: 15_000,
            groups: Vec::new(),
            users: Vec::new(),
            reply_chunk_size: 2000,
            queue_max_entries: 50,
            queue_ttl_secs: 30 * 60,
            rate_group_per_minute: 20,
            rate_group_burst: 5,
            rate_account_per_minute: 60,
            rate_account_burst: 10,
            rate_poke_per_minute: 10,
            risk_backoff_min_secs: 60,
            risk_backoff_max_secs: 1800,
            member_cache_ttl_secs: 60,
            max_pending_calls: 4096,
            shared_dir: None,
            ca_file: None,
        }
    }
}

impl AccountConfig {
    /// True when no transport is configured: every RPC answers
    /// ACCOUNT_NOT_CONFIGURED.
    pub fn has_transport(&self) -> bool {
        self.ws_url.is_some() || self.http_url.is_some() || self.reverse || self.milky_url.is_some()
    }

    /// The protocol the account speaks upstream: Milky when `milky_url` is
    /// set, else OneBot v11.
    pub fn protocol(&self) -> Protocol {
        if self.milky_url.is_some() {
            Protocol::Milky
        } else {
            Protocol::OneBotV11
        }
    }

    /// The `milky_media` setting (`auto` when unset).
    pub fn milky_media_setting(&self) -> MilkyMedia {
        self.milky_media.unwrap_or_default()
    }

    /// Whether a Milky account's media go by one-time `http://` URLs:
    /// `milky_media = "http"`, or `auto` with a `milky_url` whose host is a
    /// loopback address or `localhost`.
    pub fn milky_media_by_http(&self) -> bool {
        match self.milky_media_setting() {
            MilkyMedia::Http => true,
            MilkyMedia::Base64 => false,
            MilkyMedia::Auto => self.milky_url.as_deref().is_some_and(is_loopback_url),
        }
    }

    /// The address the media listener binds: `milky_media_listen`, or
    /// `127.0.0.1:0` (validation refuses one that does not parse).
    pub fn milky_media_listen_addr(&self) -> SocketAddr {
        self.milky_media_listen
            .as_deref()
            .and_then(|a| a.parse().ok())
            .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// `request_timeout_ms` as a duration.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }
    /// `connect_wait_ms` as a duration.
    pub fn connect_wait(&self) -> Duration {
        Duration::from_millis(self.connect_wait_ms)
    }
    /// The `flavor` setting parsed: `None` to detect the implementation;
    /// an error when it names none (validation refuses that).
    pub fn flavor_setting(&self) -> Result<Option<Flavor>, UnknownFlavor> {
        Flavor::parse_setting(&self.flavor)
    }

    /// Checks account `id`. `reverse_listener` is the address of the
    /// `[reverse_ws]` listener, which a reverse account needs; beyond
    /// loopback it also needs an `access_token`.
    pub(super) fn validate(
        &self,
        id: &str,
        reverse_listener: Option<std::net::SocketAddr>,
    ) -> Result<(), ConfigError> {
        let account = Key::new("accounts").field(id);
        account.ensure(
            is_account_id(id),
            "account ids use letters, digits, `_` and `-`",
        )?;
        let key = |name: &str| account.field(name);
        if let Some(url) = &self.milky_url {
            let milky_url = key("milky_url");
            let onebot_keys: Vec<&str> = [
                ("ws_url", self.ws_url.is_some()),
                ("http_url", self.http_url.is_some()),
                ("reverse", self.reverse),
            ]
            .into_iter()
            .filter_map(|(name, set)| set.then_some(name))
            .collect();
            if !onebot_keys.is_empty() {
                return Err(milky_url.invalid(format!(
                    "an account speaks either Milky (milky_url) or OneBot v11 (ws_url, http_url, reverse); remove milky_url or {}",
                    onebot_keys.join(" and ")
                )));
            }
            match url::Url::parse(url) {
                Ok(u)
                    if (u.scheme() == "http" || u.scheme() == "https")
                        && u.host_str().is_some() => {}
                Ok(_) => {
                    return Err(milky_url.invalid("must be an http:// or https:// URL with a host"));
                }
                Err(e) => return Err(milky_url.invalid(format!("invalid URL: {e}"))),
            }
        }
        self.validate_milky_media(&account)?;
        if let Some(url) = &self.ws_url {
            let ws_url = key("ws_url");
            match url::Url::parse(url) {
                Ok(u) if u.scheme() == "ws" && u.host_str().is_some() => {}
                Ok(u) if u.scheme() == "wss" => {
                    return Err(ws_url.invalid(
                        "wss:// is not supported; reach the implementation over ws:// (loopback or a private network) or terminate TLS in front of it",
                    ));
                }
                Ok(_) => return Err(ws_url.invalid("must be a ws:// URL with a host")),
                Err(e) => return Err(ws_url.invalid(format!("invalid URL: {e}"))),
            }
        }
        if let Some(url) = &self.http_url {
            let http_url = key("http_url");
            match url::Url::parse(url) {
                Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {}
                Ok(_) => return Err(http_url.invalid("must be an http:// or https:// URL")),
                Err(e) => return Err(http_url.invalid(format!("invalid URL: {e}"))),
            }
        }
        if self.reverse {
            key("reverse").ensure(
                reverse_listener.is_some(),
                "needs a [reverse_ws] listener section",
            )?;
            key("self_id").ensure(
                self.self_id.is_some_and(|s| s > 0),
                "a reverse account needs the bot's QQ number",
            )?;
            key("ws_url").ensure(
                self.ws_url.is_none(),
                "a reverse account is dialled by the implementation; remove ws_url or reverse",
            )?;
            if let Some(listen) = reverse_listener.filter(|a| !a.ip().is_loopback()) {
                key("access_token").ensure(
                    self.access_token.is_some(),
                    format!(
                        "a reverse account needs an access_token when reverse_ws.listen ({listen}) is not a loopback address: anyone who reaches the listener could connect as this bot"
                    ),
                )?;
            }
        }
        if let Err(e) = self.flavor_setting() {
            return Err(key("flavor").invalid(e.to_string()));
        }
        if history_anchor_choice(&self.history_anchor).is_none() {
            return Err(key("history_anchor").invalid(format!(
                "unknown history anchor {:?}; expected auto, message_seq, real_seq, message_id_as_seq, message_id or both",
                self.history_anchor
            )));
        }
        key("request_timeout_ms").positive(self.request_timeout_ms)?;
        key("connect_timeout_ms").positive(self.connect_timeout_ms)?;
        key("backoff_min_ms").positive(self.backoff_min_ms)?;
        key("backoff_min_ms").not_above(
            self.backoff_min_ms,
            "backoff_max_ms",
            self.backoff_max_ms,
        )?;
        key("auth_retry_ms").at_least(self.auth_retry_ms, 1_000)?;
        key("ping_interval_ms").positive(self.ping_interval_ms)?;
        key("groups").group_ids(&self.groups)?;
        key("users").user_ids(&self.users)?;
        key("reply_chunk_size").in_range(self.reply_chunk_size, 1..=20_000)?;
        key("queue_max_entries").positive(self.queue_max_entries)?;
        key("queue_ttl_secs").positive(self.queue_ttl_secs)?;
        for (name, value) in [
            ("rate_group_per_minute", self.rate_group_per_minute),
            ("rate_group_burst", self.rate_group_burst),
            ("rate_account_per_minute", self.rate_account_per_minute),
            ("rate_account_burst", self.rate_account_burst),
            ("rate_poke_per_minute", self.rate_poke_per_minute),
        ] {
            key(name).positive(value)?;
        }
        key("risk_backoff_min_secs").positive(self.risk_backoff_min_secs)?;
        key("risk_backoff_min_secs").not_above(
            self.risk_backoff_min_secs,
            "risk_backoff_max_secs",
            self.risk_backoff_max_secs,
        )?;
        key("max_pending_calls").positive(self.max_pending_calls)?;
        if let Some(shared) = &self.shared_dir {
            key("shared_dir").ensure(
                shared.local.is_absolute() && shared.peer.is_absolute(),
                "local and peer must be absolute paths",
            )?;
        }
        Ok(())
    }
}

impl AccountConfig {
    /// The `milky_media*` keys: Milky accounts only; the listen address
    /// and the base URL must parse.
    fn validate_milky_media(&self, account: &Key) -> Result<(), ConfigError> {
        let set = [
            ("milky_media", self.milky_media.is_some()),
            ("milky_media_listen", self.milky_media_listen.is_some()),
            ("milky_media_url", self.milky_media_url.is_some()),
        ];
        if self.milky_url.is_none() {
            if let Some((name, _)) = set.into_iter().find(|(_, on)| *on) {
                return Err(account
                    .field(name)
                    .invalid("applies to Milky accounts only (set milky_url or remove it)"));
            }
            return Ok(());
        }
        if let Some(listen) = &self.milky_media_listen {
            account.field("milky_media_listen").ensure(
                listen.parse::<SocketAddr>().is_ok(),
                format!("{listen:?} is not an address: expected IP:port, such as 127.0.0.1:0"),
            )?;
        }
        if let Some(url) = &self.milky_media_url {
            let key = account.field("milky_media_url");
            match url::Url::parse(url) {
                Ok(u)
                    if (u.scheme() == "http" || u.scheme() == "https")
                        && u.host_str().is_some()
                        && u.query().is_none()
                        && u.fragment().is_none() => {}
                Ok(_) => {
                    return Err(key.invalid(
                        "must be an http:// or https:// URL with a host and no query or fragment",
                    ));
                }
                Err(e) => return Err(key.invalid(format!("invalid URL: {e}"))),
            }
        }
        Ok(())
    }
}

/// Whether `url`'s host is a loopback address (127.0.0.0/8, ::1) or
/// `localhost`.
fn is_loopback_url(url: &str) -> bool {
    match url::Url::parse(url).ok().as_ref().and_then(url::Url::host) {
        Some(url::Host::Domain(d)) => {
            let d = d.trim_end_matches('.');
            d.eq_ignore_ascii_case("localhost") || d.to_ascii_lowercase().ends_with(".localhost")
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// How a Milky account hands media to its implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum MilkyMedia {
    /// `http` when `milky_url` is on loopback, else `base64`.
    #[default]
    Auto,
    /// A one-time URL on the account's media listener.
    Http,
    /// The bytes inline as a `base64://` URI.
    Base64,
}

impl MilkyMedia {
    /// The setting's name in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            MilkyMedia::Auto => "auto",
            MilkyMedia::Http => "http",
            MilkyMedia::Base64 => "base64",
        }
    }
}

/// The protocol an account speaks to its implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Protocol {
    /// OneBot v11 (`ws_url`, `http_url` or `reverse`).
    #[default]
    #[serde(rename = "onebot_v11")]
    OneBotV11,
    /// Milky (`milky_url`).
    #[serde(rename = "milky")]
    Milky,
}

impl Protocol {
    /// The name clients see (`ListAccounts`, `serve --print-config`).
    pub fn name(self) -> &'static str {
        match self {
            Protocol::OneBotV11 => "onebot_v11",
            Protocol::Milky => "milky",
        }
    }
}

/// How a Milky account receives its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum MilkyEvents {
    /// A WebSocket on `/event`.
    #[default]
    #[serde(rename = "websocket")]
    WebSocket,
    /// Server-Sent Events on `/event`.
    Sse,
}

/// The `history_anchor` names the adapter understands (`auto` included);
/// `None` for any other. Kept here so a typo fails at start-up, naming the
/// key.
fn history_anchor_choice(s: &str) -> Option<&'static str> {
    const NAMES: [&str; 7] = [
        "auto",
        "message_seq",
        "real_seq",
        "message_id_as_seq",
        "message_id",
        "both",
        "",
    ];
    let s = s.trim().to_ascii_lowercase();
    NAMES.into_iter().find(|n| *n == s)
}

/// An account id is non-empty and uses ASCII letters, digits, `_` and `-`.
fn is_account_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A directory visible to both the gateway and the implementation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SharedDir {
    /// The directory as the gateway sees it.
    pub local: PathBuf,
    /// The same directory as the implementation sees it.
    pub peer: PathBuf,
}

#[cfg(test)]
#[path = "account_milky_tests.rs"]
mod milky_tests;
