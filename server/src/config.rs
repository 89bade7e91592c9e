//! Configuration: typed settings with defaults, layered sources, validation.
//!
//! Sources, later ones winning: compiled-in defaults, the TOML file given by
//! `--config`, environment variables `ONEBOT_GATEWAY__SECTION__KEY` (for
//! example `ONEBOT_GATEWAY__ACCOUNTS__DEFAULT__WS_URL`), then command-line
//! flags. [`Config::validate`] runs before anything binds and names the bad
//! key in its error.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use figment::Figment;
use figment::providers::{Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

/// The id of the account used when a request leaves `account_id` empty.
pub const DEFAULT_ACCOUNT: &str = "default";

/// Prefix of environment variables read by [`Config::load`].
pub const ENV_PREFIX: &str = "ONEBOT_GATEWAY__";

/// NapCat's WebSocket server refuses frames over 50 MB (`maxPayload`); base64
/// inflates by 4/3 and the JSON envelope needs a little room, so this is the
/// largest raw media size any flavor can carry inline.
pub const MAX_INLINE_MEDIA_BYTES: u64 = 37 * 1024 * 1024;

/// Whole gateway configuration.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// gRPC listener and process settings.
    pub server: ServerConfig,
    /// Time zone of rendered history lines (IANA name).
    pub timezone: String,
    /// The embedded sandbox peer, started when no account is configured.
    pub sandbox: SandboxConfig,
    /// Media staging, limits and sources.
    pub media: MediaConfig,
    /// Inbound event buffering.
    pub events: EventsConfig,
    /// The agent tool surface.
    pub tools: ToolsConfig,
    /// Reverse WebSocket listener (implementations dial in); off when absent.
    pub reverse_ws: Option<ReverseWsConfig>,
    /// OneBot accounts keyed by id. Empty means: run the embedded sandbox as
    /// account `default`.
    pub accounts: BTreeMap<String, AccountConfig>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            server: ServerConfig::default(),
            timezone: "Asia/Shanghai".into(),
            sandbox: SandboxConfig::default(),
            media: MediaConfig::default(),
            events: EventsConfig::default(),
            tools: ToolsConfig::default(),
            reverse_ws: None,
            accounts: BTreeMap::new(),
        }
    }
}

/// gRPC listener and process settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    /// Address of the gRPC listener.
    pub listen: SocketAddr,
    /// Directory for the durable queue and media staging.
    pub data_dir: PathBuf,
    /// How long in-flight RPCs may run after SIGINT/SIGTERM, in milliseconds.
    pub grace_period_ms: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 50051)),
            data_dir: PathBuf::from("./data"),
            grace_period_ms: 10_000,
        }
    }
}

/// The embedded sandbox peer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxConfig {
    /// Loopback address of the sandbox's OneBot listener (port 0 = any).
    pub listen: SocketAddr,
    /// Which implementation the sandbox imitates.
    pub flavor: String,
    /// Group whitelist of the sandbox's `default` account.
    pub groups: Vec<i64>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            flavor: "napcat".into(),
            groups: vec![20_000_003],
        }
    }
}

/// Media staging, limits and sources.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MediaConfig {
    /// Largest image, in bytes (default 10 MiB).
    pub image_max_bytes: u64,
    /// Largest video, in bytes (default 30 MiB).
    pub video_max_bytes: u64,
    /// Largest group file, in bytes (default 30 MiB).
    pub file_max_bytes: u64,
    /// How long staged uploads live, in seconds (default 30 minutes).
    pub ttl_secs: u64,
    /// Total bytes the staging area may hold (default 1 GiB).
    pub staging_quota_bytes: u64,
    /// Directories under which `MediaSource.path` may read; empty disables
    /// server-side paths.
    pub media_roots: Vec<PathBuf>,
    /// Let `MediaSource.url` reach loopback, private and link-local addresses
    /// (cloud metadata endpoints stay refused).
    pub allow_private_urls: bool,
    /// Networks (CIDR, e.g. `10.1.2.0/24`) `MediaSource.url` may reach even
    /// though they are private, link-local or metadata addresses.
    pub url_allow_networks: Vec<String>,
    /// Timeout of one URL fetch, in milliseconds.
    pub url_timeout_ms: u64,
}

impl Default for MediaConfig {
    fn default() -> Self {
        Self {
            image_max_bytes: 10 * 1024 * 1024,
            video_max_bytes: 30 * 1024 * 1024,
            file_max_bytes: 30 * 1024 * 1024,
            ttl_secs: 30 * 60,
            staging_quota_bytes: 1024 * 1024 * 1024,
            media_roots: Vec::new(),
            allow_private_urls: false,
            url_allow_networks: Vec::new(),
            url_timeout_ms: 30_000,
        }
    }
}

/// Inbound event buffering.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct EventsConfig {
    /// Events kept per account for `after_sequence` resumes.
    pub buffer_size: usize,
}

impl Default for EventsConfig {
    fn default() -> Self {
        Self { buffer_size: 1024 }
    }
}

/// Language of tool error texts.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    /// Chinese, as in the seeds.
    #[default]
    Zh,
    /// English.
    En,
}

/// The agent tool surface.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ToolsConfig {
    /// Serve `AgentToolService` at all.
    pub enabled: bool,
    /// Offer the write tools `qq_send` and `qq_poke`.
    pub write_enabled: bool,
    /// Language of error texts.
    pub locale: Locale,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            write_enabled: true,
            locale: Locale::Zh,
        }
    }
}

/// Reverse WebSocket listener: implementations dial in and are matched to an
/// account by `X-Self-ID`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ReverseWsConfig {
    /// Listen address.
    pub listen: SocketAddr,
    /// Upgrade path.
    pub path: String,
    /// Timeout of one upgrade handshake, in milliseconds.
    pub handshake_timeout_ms: u64,
}

impl Default for ReverseWsConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8082)),
            path: "/onebot/v11/ws".into(),
            handshake_timeout_ms: 10_000,
        }
    }
}

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
        f.write_str("\"<redacted>\"")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// One OneBot account.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AccountConfig {
    /// Forward WebSocket URL of the implementation (`ws://`).
    pub ws_url: Option<String>,
    /// HTTP API base URL of the implementation.
    pub http_url: Option<String>,
    /// OneBot access token, sent as `Authorization: Bearer <token>`.
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
    /// Group whitelist for send and poke.
    pub groups: Vec<i64>,
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
}

impl Default for AccountConfig {
    fn default() -> Self {
        Self {
            ws_url: None,
            http_url: None,
            access_token: None,
            token_in_query: false,
            reverse: false,
            self_id: None,
            flavor: "auto".into(),
            request_timeout_ms: 30_000,
            connect_wait_ms: 3_000,
            connect_timeout_ms: 10_000,
            backoff_min_ms: 500,
            backoff_max_ms: 10_000,
            backoff_jitter: true,
            auth_retry_ms: 60_000,
            ping_interval_ms: 15_000,
            groups: Vec::new(),
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
        }
    }
}

impl AccountConfig {
    /// True when no transport is configured: every RPC answers
    /// ACCOUNT_NOT_CONFIGURED.
    pub fn has_transport(&self) -> bool {
        self.ws_url.is_some() || self.http_url.is_some() || self.reverse
    }
    /// `request_timeout_ms` as a duration.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }
    /// `connect_wait_ms` as a duration.
    pub fn connect_wait(&self) -> Duration {
        Duration::from_millis(self.connect_wait_ms)
    }
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

/// Command-line overrides, applied last.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `--listen`.
    pub listen: Option<SocketAddr>,
    /// `--data-dir`.
    pub data_dir: Option<PathBuf>,
}

/// A configuration error naming the offending key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A source could not be read or parsed.
    #[error("configuration: {0}")]
    Load(String),
    /// A value is out of range or inconsistent.
    #[error("configuration key `{key}`: {message}")]
    Invalid {
        /// Dotted key path, e.g. `accounts.default.ws_url`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

fn invalid(key: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        key: key.into(),
        message: message.into(),
    }
}

impl Config {
    /// Loads defaults, then `file`, then the environment (`env` pairs, usually
    /// `std::env::vars()`), then `overrides`; validates the result.
    pub fn load(
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
        overrides: &Overrides,
    ) -> Result<Self, ConfigError> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if let Some(file) = file {
            if !file.exists() {
                return Err(ConfigError::Load(format!(
                    "config file {} does not exist",
                    file.display()
                )));
            }
            figment = figment.merge(Toml::file_exact(file));
        }
        // Figment's Env provider reads the process environment; collecting the
        // pairs first keeps tests free of `set_var`.
        let pairs: Vec<(String, String)> = env
            .into_iter()
            .filter(|(k, _)| k.starts_with(ENV_PREFIX))
            .collect();
        figment = figment.merge(env_provider(pairs));
        if let Some(listen) = overrides.listen {
            figment = figment.merge(Serialized::default("server.listen", listen));
        }
        if let Some(dir) = &overrides.data_dir {
            figment = figment.merge(Serialized::default("server.data_dir", dir));
        }
        let config: Config = figment
            .extract()
            .map_err(|e| ConfigError::Load(describe_figment_error(e)))?;
        config.validate()?;
        Ok(config)
    }

    /// Parses a TOML document over the defaults (tests and `--print-config`).
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let config: Config = Figment::from(Serialized::defaults(Config::default()))
            .merge(Toml::string(text))
            .extract()
            .map_err(|e| ConfigError::Load(describe_figment_error(e)))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks ranges and consistency; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.server.grace_period_ms > 3_600_000 {
            return Err(invalid(
                "server.grace_period_ms",
                "must be at most 3600000 (one hour)",
            ));
        }
        if jiff::tz::TimeZone::get(&self.timezone).is_err() {
            return Err(invalid(
                "timezone",
                format!("unknown time zone {:?}", self.timezone),
            ));
        }
        if self
            .sandbox
            .flavor
            .parse::<onebot_sandbox::Flavor>()
            .is_err()
        {
            return Err(invalid(
                "sandbox.flavor",
                format!(
                    "unknown flavor {:?}; expected napcat, llonebot, lagrange, snowluma or go-cqhttp",
                    self.sandbox.flavor
                ),
            ));
        }
        let m = &self.media;
        for (key, value) in [
            ("media.image_max_bytes", m.image_max_bytes),
            ("media.video_max_bytes", m.video_max_bytes),
            ("media.file_max_bytes", m.file_max_bytes),
        ] {
            if value == 0 {
                return Err(invalid(key, "must be positive"));
            }
            if value > MAX_INLINE_MEDIA_BYTES {
                return Err(invalid(
                    key,
                    format!(
                        "{value} bytes cannot be carried to the peer: NapCat's 50 MB WebSocket frame holds about {MAX_INLINE_MEDIA_BYTES} bytes of base64-encoded media"
                    ),
                ));
            }
        }
        if m.ttl_secs == 0 {
            return Err(invalid("media.ttl_secs", "must be positive"));
        }
        if m.staging_quota_bytes < m.video_max_bytes.max(m.file_max_bytes) {
            return Err(invalid(
                "media.staging_quota_bytes",
                "must hold at least one largest upload",
            ));
        }
        if m.url_timeout_ms == 0 {
            return Err(invalid("media.url_timeout_ms", "must be positive"));
        }
        for (i, net) in m.url_allow_networks.iter().enumerate() {
            if net.parse::<ipnet::IpNet>().is_err() {
                return Err(invalid(
                    format!("media.url_allow_networks[{i}]"),
                    format!("{net:?} is not a network in CIDR form (e.g. 10.1.2.0/24)"),
                ));
            }
        }
        for (i, root) in m.media_roots.iter().enumerate() {
            if !root.is_absolute() {
                return Err(invalid(
                    format!("media.media_roots[{i}]"),
                    "must be an absolute path",
                ));
            }
        }
        if self.events.buffer_size == 0 {
            return Err(invalid("events.buffer_size", "must be positive"));
        }
        if let Some(rev) = &self.reverse_ws
            && !rev.path.starts_with('/')
        {
            return Err(invalid("reverse_ws.path", "must start with `/`"));
        }
        for (id, account) in &self.accounts {
            validate_account(id, account, self.reverse_ws.is_some())?;
        }
        Ok(())
    }

    /// The config as TOML with every secret redacted (`--print-config`).
    pub fn to_redacted_toml(&self) -> String {
        let mut copy = self.clone();
        for account in copy.accounts.values_mut() {
            if account.access_token.is_some() {
                account.access_token = Some(Secret::new("<redacted>"));
            }
        }
        toml::to_string_pretty(&copy).unwrap_or_else(|e| format!("# cannot print: {e}\n"))
    }

    /// The media size limit of a kind, in bytes.
    pub fn media_limit(&self, kind: crate::domain::MediaKind) -> u64 {
        match kind {
            crate::domain::MediaKind::Image => self.media.image_max_bytes,
            crate::domain::MediaKind::Video => self.media.video_max_bytes,
            crate::domain::MediaKind::File => self.media.file_max_bytes,
        }
    }
}

fn validate_account(
    id: &str,
    a: &AccountConfig,
    reverse_listener: bool,
) -> Result<(), ConfigError> {
    let key = |k: &str| format!("accounts.{id}.{k}");
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(invalid(
            format!("accounts.{id}"),
            "account ids use letters, digits, `_` and `-`",
        ));
    }
    if let Some(url) = &a.ws_url {
        match url::Url::parse(url) {
            Ok(u) if u.scheme() == "ws" && u.host_str().is_some() => {}
            Ok(u) if u.scheme() == "wss" => {
                return Err(invalid(
                    key("ws_url"),
                    "wss:// is not supported; reach the implementation over ws:// (loopback or a private network) or terminate TLS in front of it",
                ));
            }
            Ok(_) => return Err(invalid(key("ws_url"), "must be a ws:// URL with a host")),
            Err(e) => return Err(invalid(key("ws_url"), format!("invalid URL: {e}"))),
        }
    }
    if let Some(url) = &a.http_url {
        match url::Url::parse(url) {
            Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {}
            Ok(_) => {
                return Err(invalid(
                    key("http_url"),
                    "must be an http:// or https:// URL",
                ));
            }
            Err(e) => return Err(invalid(key("http_url"), format!("invalid URL: {e}"))),
        }
    }
    if a.reverse {
        if !reverse_listener {
            return Err(invalid(
                key("reverse"),
                "needs a [reverse_ws] listener section",
            ));
        }
        if a.self_id.is_none_or(|s| s <= 0) {
            return Err(invalid(
                key("self_id"),
                "a reverse account needs the bot's QQ number",
            ));
        }
        if a.ws_url.is_some() {
            return Err(invalid(
                key("ws_url"),
                "a reverse account is dialled by the implementation; remove ws_url or reverse",
            ));
        }
    }
    if crate::onebot::Flavor::parse_setting(&a.flavor).is_none() {
        return Err(invalid(
            key("flavor"),
            format!(
                "unknown flavor {:?}; expected auto, napcat, llonebot, lagrange, snowluma, go-cqhttp or generic",
                a.flavor
            ),
        ));
    }
    if a.request_timeout_ms == 0 {
        return Err(invalid(key("request_timeout_ms"), "must be positive"));
    }
    if a.connect_timeout_ms == 0 {
        return Err(invalid(key("connect_timeout_ms"), "must be positive"));
    }
    if a.backoff_min_ms == 0 {
        return Err(invalid(key("backoff_min_ms"), "must be positive"));
    }
    if a.backoff_min_ms > a.backoff_max_ms {
        return Err(invalid(
            key("backoff_min_ms"),
            "must not exceed backoff_max_ms",
        ));
    }
    if a.auth_retry_ms < 1_000 {
        return Err(invalid(key("auth_retry_ms"), "must be at least 1000"));
    }
    if a.ping_interval_ms == 0 {
        return Err(invalid(key("ping_interval_ms"), "must be positive"));
    }
    for (i, g) in a.groups.iter().enumerate() {
        if *g <= 0 {
            return Err(invalid(
                format!("accounts.{id}.groups[{i}]"),
                "group ids are positive",
            ));
        }
    }
    if a.reply_chunk_size == 0 || a.reply_chunk_size > 20_000 {
        return Err(invalid(key("reply_chunk_size"), "must be in 1..=20000"));
    }
    if a.queue_max_entries == 0 {
        return Err(invalid(key("queue_max_entries"), "must be positive"));
    }
    if a.queue_ttl_secs == 0 {
        return Err(invalid(key("queue_ttl_secs"), "must be positive"));
    }
    for (k, v) in [
        ("rate_group_per_minute", a.rate_group_per_minute),
        ("rate_group_burst", a.rate_group_burst),
        ("rate_account_per_minute", a.rate_account_per_minute),
        ("rate_account_burst", a.rate_account_burst),
        ("rate_poke_per_minute", a.rate_poke_per_minute),
    ] {
        if v == 0 {
            return Err(invalid(key(k), "must be positive"));
        }
    }
    if a.risk_backoff_min_secs == 0 {
        return Err(invalid(key("risk_backoff_min_secs"), "must be positive"));
    }
    if a.risk_backoff_min_secs > a.risk_backoff_max_secs {
        return Err(invalid(
            key("risk_backoff_min_secs"),
            "must not exceed risk_backoff_max_secs",
        ));
    }
    if a.max_pending_calls == 0 {
        return Err(invalid(key("max_pending_calls"), "must be positive"));
    }
    if let Some(shared) = &a.shared_dir
        && (!shared.local.is_absolute() || !shared.peer.is_absolute())
    {
        return Err(invalid(
            key("shared_dir"),
            "local and peer must be absolute paths",
        ));
    }
    Ok(())
}

fn env_provider(pairs: Vec<(String, String)>) -> impl figment::Provider {
    EnvPairs(pairs)
}

/// A figment provider over explicit `ONEBOT_GATEWAY__A__B=value` pairs, parsed
/// like figment's `Env` (values are TOML-ish: numbers, booleans, arrays).
struct EnvPairs(Vec<(String, String)>);

impl figment::Provider for EnvPairs {
    fn metadata(&self) -> figment::Metadata {
        figment::Metadata::named("environment variable")
    }

    fn data(
        &self,
    ) -> Result<figment::value::Map<figment::Profile, figment::value::Dict>, figment::Error> {
        let mut figment = Figment::new();
        for (key, value) in &self.0 {
            let Some(rest) = key.strip_prefix(ENV_PREFIX) else {
                continue;
            };
            let path = rest
                .split("__")
                .map(|s| s.to_ascii_lowercase())
                .collect::<Vec<_>>()
                .join(".");
            if path.is_empty() {
                continue;
            }
            let parsed: figment::value::Value = value
                .parse()
                .unwrap_or_else(|_| figment::value::Value::from(value.clone()));
            figment = figment.merge(Serialized::default(&path, parsed));
        }
        figment.data()
    }
}

fn describe_figment_error(e: figment::Error) -> String {
    e.into_iter()
        .map(|err| {
            let key = err.path.join(".");
            if key.is_empty() {
                err.kind.to_string()
            } else {
                format!("key `{key}`: {}", err.kind)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_validate() {
        let c = Config::load(None, env(&[]), &Overrides::default()).unwrap();
        assert_eq!(c.server.listen.to_string(), "127.0.0.1:50051");
        assert!(c.accounts.is_empty());
        assert_eq!(c.timezone, "Asia/Shanghai");
    }

    #[test]
    fn toml_accounts_and_env_layering() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.toml");
        std::fs::write(
            &path,
            r#"
            [server]
            listen = "127.0.0.1:6000"
            [accounts.default]
            ws_url = "ws://127.0.0.1:3001/"
            access_token = "s3cret"
            groups = [20000002]
            "#,
        )
        .unwrap();
        let c = Config::load(
            Some(&path),
            env(&[
                ("ONEBOT_GATEWAY__ACCOUNTS__DEFAULT__REPLY_CHUNK_SIZE", "500"),
                (
                    "ONEBOT_GATEWAY__ACCOUNTS__OTHER__HTTP_URL",
                    "http://127.0.0.1:3000",
                ),
                ("UNRELATED", "x"),
            ]),
            &Overrides {
                listen: Some("127.0.0.1:7000".parse().unwrap()),
                data_dir: None,
            },
        )
        .unwrap();
        assert_eq!(c.server.listen.port(), 7000);
        let d = &c.accounts["default"];
        assert_eq!(d.reply_chunk_size, 500);
        assert_eq!(d.groups, vec![20000002]);
        assert_eq!(d.access_token.as_ref().unwrap().expose(), "s3cret");
        assert!(format!("{d:?}").contains("<redacted>"));
        assert!(!format!("{d:?}").contains("s3cret"));
        assert_eq!(
            c.accounts["other"].http_url.as_deref(),
            Some("http://127.0.0.1:3000")
        );
        let printed = c.to_redacted_toml();
        assert!(printed.contains("<redacted>"), "{printed}");
        assert!(!printed.contains("s3cret"), "{printed}");
    }

    #[test]
    fn errors_name_the_key() {
        let cases = [
            ("[accounts.a]\nws_url = \"http://x\"", "accounts.a.ws_url"),
            (
                "[accounts.a]\nbackoff_min_ms = 20000",
                "accounts.a.backoff_min_ms",
            ),
            (
                "[media]\nvideo_max_bytes = 60000000",
                "media.video_max_bytes",
            ),
            ("timezone = \"Mars/Olympus\"", "timezone"),
            ("[accounts.a]\ngroups = [-1]", "accounts.a.groups[0]"),
            ("[accounts.a]\nflavor = \"qq\"", "accounts.a.flavor"),
            ("[server]\nlisten = \"nope\"", "server.listen"),
            ("[accounts.a]\nbogus = 1", "bogus"),
            (
                "[media]\nurl_allow_networks = [\"10.0.0.0/33\"]",
                "media.url_allow_networks[0]",
            ),
            (
                "[accounts.a]\nrisk_backoff_min_secs = 4000",
                "accounts.a.risk_backoff_min_secs",
            ),
        ];
        for (text, key) in cases {
            let err = Config::from_toml(text).unwrap_err().to_string();
            assert!(err.contains(key), "{text:?} gave {err}");
        }
    }

    #[test]
    fn media_limit_over_frame_is_refused_but_37_mib_is_fine() {
        assert!(Config::from_toml("[media]\nvideo_max_bytes = 38797312").is_ok());
        assert!(Config::from_toml("[media]\nvideo_max_bytes = 38797313").is_err());
    }
}
