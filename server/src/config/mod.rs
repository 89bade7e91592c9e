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
    /// Bearer-token authentication of gRPC clients; open when no token is
    /// configured.
    pub auth: AuthConfig,
    /// Request size, concurrency, stream and time limits.
    pub limits: LimitsConfig,
    /// Prometheus metrics listener; off when absent.
    pub metrics: Option<MetricsConfig>,
    /// Trace export.
    pub telemetry: TelemetryConfig,
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
            auth: AuthConfig::default(),
            limits: LimitsConfig::default(),
            metrics: None,
            telemetry: TelemetryConfig::default(),
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
    /// TLS (and optionally mTLS) on the gRPC listener; plaintext when absent.
    pub tls: Option<TlsConfig>,
    /// Interval of HTTP/2 PING frames on idle connections, in milliseconds;
    /// 0 disables them.
    pub http2_keepalive_interval_ms: u64,
    /// How long to wait for a PING acknowledgement before closing the
    /// connection, in milliseconds.
    pub http2_keepalive_timeout_ms: u64,
    /// TCP keepalive idle time of accepted sockets, in milliseconds; 0
    /// disables TCP keepalive.
    pub tcp_keepalive_ms: u64,
    /// Close connections older than this (with a grace of
    /// `grace_period_ms`), so load balancers and meshes can rebalance, in
    /// milliseconds; 0 keeps connections forever.
    pub max_connection_age_ms: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 50051)),
            data_dir: PathBuf::from("./data"),
            grace_period_ms: 10_000,
            tls: None,
            http2_keepalive_interval_ms: 30_000,
            http2_keepalive_timeout_ms: 20_000,
            tcp_keepalive_ms: 60_000,
            max_connection_age_ms: 0,
        }
    }
}

/// TLS on the gRPC listener. The files are re-read when they change (every
/// `reload_interval_ms`), so rotated certificates apply without a restart.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// PEM certificate chain, leaf first.
    pub cert_file: PathBuf,
    /// PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub key_file: PathBuf,
    /// PEM CA bundle; when set, clients must present a certificate signed
    /// by one of these CAs (mutual TLS).
    #[serde(default)]
    pub client_ca_file: Option<PathBuf>,
    /// How often the files are checked for changes, in milliseconds.
    #[serde(default = "default_tls_reload_ms")]
    pub reload_interval_ms: u64,
    /// Longest TLS handshake, in milliseconds.
    #[serde(default = "default_tls_handshake_ms")]
    pub handshake_timeout_ms: u64,
}

fn default_tls_reload_ms() -> u64 {
    10_000
}

fn default_tls_handshake_ms() -> u64 {
    10_000
}

/// Access a bearer token grants.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Reading RPCs only: no SendMessage, PokeMember, UploadMedia or write
    /// tools.
    #[default]
    ReadOnly,
    /// Every RPC.
    ReadWrite,
}

/// Bearer-token authentication of gRPC clients.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AuthConfig {
    /// Accepted tokens with their scopes. Empty: no authentication (every
    /// caller may do everything).
    pub tokens: Vec<TokenConfig>,
    /// Serve `grpc.health.v1.Health` without a token (probes).
    pub open_health: bool,
    /// Serve gRPC reflection without a token.
    pub open_reflection: bool,
}

impl Default for AuthConfig {
    fn default() -> Self {
        Self {
            tokens: Vec::new(),
            open_health: true,
            open_reflection: true,
        }
    }
}

/// One accepted bearer token. Exactly one of `value`, `value_file` and
/// `value_env` gives the token itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TokenConfig {
    /// Name of the token in logs, metrics and errors (never the value).
    pub name: String,
    /// The token inline.
    #[serde(default)]
    pub value: Option<Secret>,
    /// A file holding the token (surrounding whitespace is ignored), e.g. a
    /// mounted Kubernetes secret.
    #[serde(default)]
    pub value_file: Option<PathBuf>,
    /// An environment variable holding the token.
    #[serde(default)]
    pub value_env: Option<String>,
    /// Account ids the token may use; `"*"` means every account.
    pub accounts: Vec<String>,
    /// `read_only` (default) or `read_write`.
    #[serde(default)]
    pub access: Access,
    /// When set, the only groups the token may read or write (private chats
    /// are then out of scope too).
    #[serde(default)]
    pub groups: Option<Vec<i64>>,
}

impl TokenConfig {
    /// A token given inline, for `accounts` (`"*"`: every account) with
    /// `access` and no group restriction.
    pub fn inline(name: &str, value: &str, accounts: &[&str], access: Access) -> TokenConfig {
        TokenConfig {
            name: name.into(),
            value: Some(Secret::new(value)),
            value_file: None,
            value_env: None,
            accounts: accounts.iter().map(|s| s.to_string()).collect(),
            access,
            groups: None,
        }
    }
}

/// Request size, concurrency, stream and time limits of the gRPC listener.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsConfig {
    /// Largest request message of every RPC but UploadMedia, in bytes
    /// (inline media in SendMessage count against it).
    pub max_request_bytes: usize,
    /// Largest message of the UploadMedia stream (one chunk), in bytes.
    pub max_upload_message_bytes: usize,
    /// Largest response message, in bytes.
    pub max_response_bytes: usize,
    /// RPCs (other than event streams and health) handled at once; more are
    /// shed with RESOURCE_EXHAUSTED, reason OVERLOADED.
    pub max_concurrent_requests: usize,
    /// Open StreamEvents streams over all clients.
    pub max_event_streams: usize,
    /// Open StreamEvents streams per client (per token; per remote address
    /// without authentication).
    pub max_event_streams_per_client: usize,
    /// HTTP/2 streams one connection may have open at once.
    pub max_concurrent_streams_per_connection: u32,
    /// Longest unary RPC, in milliseconds (a shorter client deadline wins).
    pub request_timeout_ms: u64,
    /// Longest UploadMedia stream, in milliseconds.
    pub upload_timeout_ms: u64,
    /// Retry delay suggested to shed clients (RetryInfo), in milliseconds.
    pub overload_retry_after_ms: u64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            max_request_bytes: 4 * 1024 * 1024,
            max_upload_message_bytes: 16 * 1024 * 1024,
            max_response_bytes: 16 * 1024 * 1024,
            max_concurrent_requests: 256,
            max_event_streams: 256,
            max_event_streams_per_client: 16,
            max_concurrent_streams_per_connection: 128,
            request_timeout_ms: 120_000,
            upload_timeout_ms: 600_000,
            overload_retry_after_ms: 1_000,
        }
    }
}

/// The Prometheus listener (`GET <path>` in the text exposition format).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MetricsConfig {
    /// Listen address of the metrics HTTP server.
    pub listen: SocketAddr,
    /// Path of the metrics page.
    pub path: String,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 9464)),
            path: "/metrics".into(),
        }
    }
}

/// Trace export.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct TelemetryConfig {
    /// OTLP/gRPC trace export; needs a binary built with the `otlp` feature.
    pub otlp: Option<OtlpConfig>,
}

/// OTLP/gRPC trace export.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct OtlpConfig {
    /// Collector endpoint, e.g. `http://otel-collector:4317`.
    pub endpoint: String,
    /// `service.name` of the exported spans.
    pub service_name: String,
    /// Fraction of traces sampled, 0.0 to 1.0.
    pub sample_ratio: f64,
}

impl Default for OtlpConfig {
    fn default() -> Self {
        Self {
            endpoint: "http://127.0.0.1:4317".into(),
            service_name: "onebot-gateway".into(),
            sample_ratio: 1.0,
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

/// One OneBot account. Its `Debug` output redacts the access token and
/// credentials in the URLs.
#[derive(Clone, Serialize, Deserialize, PartialEq)]
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
    /// PEM CA bundle trusted (besides the system roots) for `wss://` and
    /// `https://` peers, e.g. a private CA in front of NapCat.
    pub ca_file: Option<PathBuf>,
}

impl fmt::Debug for AccountConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccountConfig")
            .field("ws_url", &self.ws_url.as_deref().map(redact_url))
            .field("http_url", &self.http_url.as_deref().map(redact_url))
            .field("access_token", &self.access_token)
            .field("token_in_query", &self.token_in_query)
            .field("reverse", &self.reverse)
            .field("self_id", &self.self_id)
            .field("flavor", &self.flavor)
            .field("request_timeout_ms", &self.request_timeout_ms)
            .field("connect_wait_ms", &self.connect_wait_ms)
            .field("connect_timeout_ms", &self.connect_timeout_ms)
            .field("backoff_min_ms", &self.backoff_min_ms)
            .field("backoff_max_ms", &self.backoff_max_ms)
            .field("auth_retry_ms", &self.auth_retry_ms)
            .field("ping_interval_ms", &self.ping_interval_ms)
            .field("groups", &self.groups)
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
            ca_file: None,
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
        self.validate_production()?;
        Ok(())
    }

    /// Checks the `[server.tls]`, `[auth]`, `[limits]`, `[metrics]` and
    /// `[telemetry]` sections.
    fn validate_production(&self) -> Result<(), ConfigError> {
        let s = &self.server;
        if s.http2_keepalive_interval_ms > 0 && s.http2_keepalive_timeout_ms == 0 {
            return Err(invalid(
                "server.http2_keepalive_timeout_ms",
                "must be positive when keepalive pings are on",
            ));
        }
        if let Some(tls) = &s.tls {
            for (key, path) in [
                ("server.tls.cert_file", Some(&tls.cert_file)),
                ("server.tls.key_file", Some(&tls.key_file)),
                ("server.tls.client_ca_file", tls.client_ca_file.as_ref()),
            ] {
                if path.is_some_and(|p| p.as_os_str().is_empty()) {
                    return Err(invalid(key, "must not be empty"));
                }
            }
            if tls.reload_interval_ms < 100 {
                return Err(invalid(
                    "server.tls.reload_interval_ms",
                    "must be at least 100",
                ));
            }
            if tls.handshake_timeout_ms == 0 {
                return Err(invalid(
                    "server.tls.handshake_timeout_ms",
                    "must be positive",
                ));
            }
        }
        let mut names = std::collections::BTreeSet::new();
        for (i, t) in self.auth.tokens.iter().enumerate() {
            let key = |k: &str| format!("auth.tokens[{i}].{k}");
            if t.name.is_empty()
                || !t
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            {
                return Err(invalid(
                    key("name"),
                    "token names use letters, digits, `_`, `-` and `.`",
                ));
            }
            if !names.insert(t.name.as_str()) {
                return Err(invalid(
                    key("name"),
                    format!("duplicate token name {:?}", t.name),
                ));
            }
            let sources = [
                t.value.is_some(),
                t.value_file.is_some(),
                t.value_env.is_some(),
            ];
            if sources.iter().filter(|s| **s).count() != 1 {
                return Err(invalid(
                    key("value"),
                    "set exactly one of value, value_file and value_env",
                ));
            }
            if t.value
                .as_ref()
                .is_some_and(|v| v.expose().trim().is_empty())
            {
                return Err(invalid(key("value"), "must not be empty"));
            }
            if t.value_env.as_ref().is_some_and(|v| v.is_empty()) {
                return Err(invalid(key("value_env"), "must name a variable"));
            }
            if t.accounts.is_empty() {
                return Err(invalid(
                    key("accounts"),
                    "list the account ids the token may use, or \"*\" for all",
                ));
            }
            for (j, a) in t.accounts.iter().enumerate() {
                let known = a == "*"
                    || self.accounts.contains_key(a)
                    || (self.accounts.is_empty() && a == DEFAULT_ACCOUNT);
                if !known {
                    return Err(invalid(
                        format!("auth.tokens[{i}].accounts[{j}]"),
                        format!("unknown account {a:?}"),
                    ));
                }
            }
            if t.groups.as_ref().is_some_and(Vec::is_empty) {
                return Err(invalid(
                    key("groups"),
                    "list at least one group, or leave groups out for every group",
                ));
            }
            for (j, g) in t.groups.iter().flatten().enumerate() {
                if *g <= 0 {
                    return Err(invalid(
                        format!("auth.tokens[{i}].groups[{j}]"),
                        "group ids are positive",
                    ));
                }
            }
        }
        let l = &self.limits;
        for (key, value) in [
            ("limits.max_request_bytes", l.max_request_bytes as u64),
            (
                "limits.max_upload_message_bytes",
                l.max_upload_message_bytes as u64,
            ),
            ("limits.max_response_bytes", l.max_response_bytes as u64),
            (
                "limits.max_concurrent_requests",
                l.max_concurrent_requests as u64,
            ),
            ("limits.max_event_streams", l.max_event_streams as u64),
            (
                "limits.max_event_streams_per_client",
                l.max_event_streams_per_client as u64,
            ),
            (
                "limits.max_concurrent_streams_per_connection",
                u64::from(l.max_concurrent_streams_per_connection),
            ),
            ("limits.request_timeout_ms", l.request_timeout_ms),
            ("limits.upload_timeout_ms", l.upload_timeout_ms),
        ] {
            if value == 0 {
                return Err(invalid(key, "must be positive"));
            }
        }
        for (key, value) in [
            ("limits.max_request_bytes", l.max_request_bytes),
            (
                "limits.max_upload_message_bytes",
                l.max_upload_message_bytes,
            ),
            ("limits.max_response_bytes", l.max_response_bytes),
        ] {
            // gRPC frames carry a 32-bit length.
            if value > u32::MAX as usize {
                return Err(invalid(key, "must be below 4 GiB"));
            }
        }
        if let Some(m) = &self.metrics {
            if !m.path.starts_with('/') {
                return Err(invalid("metrics.path", "must start with `/`"));
            }
            if m.listen == s.listen && m.listen.port() != 0 {
                return Err(invalid("metrics.listen", "must differ from server.listen"));
            }
        }
        if let Some(otlp) = &self.telemetry.otlp {
            if !cfg!(feature = "otlp") {
                return Err(invalid(
                    "telemetry.otlp",
                    "this binary was built without the `otlp` feature",
                ));
            }
            match url::Url::parse(&otlp.endpoint) {
                Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {}
                _ => {
                    return Err(invalid(
                        "telemetry.otlp.endpoint",
                        "must be an http:// or https:// URL",
                    ));
                }
            }
            if !(0.0..=1.0).contains(&otlp.sample_ratio) {
                return Err(invalid(
                    "telemetry.otlp.sample_ratio",
                    "must be between 0.0 and 1.0",
                ));
            }
        }
        Ok(())
    }

    /// The config as TOML with every secret redacted (`--print-config`):
    /// OneBot access tokens, bearer token values, and `access_token` query
    /// parameters typed into peer URLs.
    pub fn to_redacted_toml(&self) -> String {
        let mut copy = self.clone();
        for account in copy.accounts.values_mut() {
            if account.access_token.is_some() {
                account.access_token = Some(Secret::new(REDACTED));
            }
            for url in [&mut account.ws_url, &mut account.http_url]
                .into_iter()
                .flatten()
            {
                *url = redact_url(url);
            }
        }
        for token in &mut copy.auth.tokens {
            if token.value.is_some() {
                token.value = Some(Secret::new(REDACTED));
            }
        }
        toml::to_string_pretty(&copy).unwrap_or_else(|e| format!("# cannot print: {e}\n"))
    }
}

/// What a redacted secret reads as.
pub const REDACTED: &str = "<redacted>";

/// `url` with the values of credential-bearing query parameters
/// (`access_token`, `token`) and any user info replaced by `<redacted>`,
/// for logs and errors. Unparsable input is returned redacted whole.
pub fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return REDACTED.to_string();
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        let _ = parsed.set_username(REDACTED);
        let _ = parsed.set_password(None);
    }
    if parsed.query().is_some() {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(k, v)| {
                let secret = matches!(k.to_ascii_lowercase().as_str(), "access_token" | "token");
                let v = if secret {
                    REDACTED.to_string()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    parsed.to_string()
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

/// Keys whose values are secrets: their parse errors name the key but not
/// the value (figment's messages quote the offending value).
const SECRET_KEYS: [&str; 2] = ["access_token", "value"];

fn describe_figment_error(e: figment::Error) -> String {
    e.into_iter()
        .map(|err| {
            let key = err.path.join(".");
            let secret = err
                .path
                .last()
                .is_some_and(|k| SECRET_KEYS.contains(&k.as_str()));
            if key.is_empty() {
                err.kind.to_string()
            } else if secret {
                format!("key `{key}`: invalid value (not shown: it is a secret)")
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

    /// The `Invalid` error of `text`, as `(key, message)`.
    fn refusal(text: &str) -> (String, String) {
        match Config::from_toml(text) {
            Err(ConfigError::Invalid { key, message }) => (key, message),
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    /// One bad value each: the key and message every check reports.
    const ONE_BAD_VALUE: &[(&str, &str, &str)] = &[
        (
            "[server]\ngrace_period_ms = 3600001",
            "server.grace_period_ms",
            "must be at most 3600000 (one hour)",
        ),
        (
            "timezone = \"Mars/Olympus\"",
            "timezone",
            "unknown time zone \"Mars/Olympus\"",
        ),
        (
            "[sandbox]\nflavor = \"qq\"",
            "sandbox.flavor",
            "unknown flavor \"qq\"; expected napcat, llonebot, lagrange, snowluma or go-cqhttp",
        ),
        (
            "[media]\nimage_max_bytes = 0",
            "media.image_max_bytes",
            "must be positive",
        ),
        (
            "[media]\nvideo_max_bytes = 0",
            "media.video_max_bytes",
            "must be positive",
        ),
        (
            "[media]\nfile_max_bytes = 0",
            "media.file_max_bytes",
            "must be positive",
        ),
        (
            "[media]\nimage_max_bytes = 38797313",
            "media.image_max_bytes",
            "38797313 bytes cannot be carried to the peer: NapCat's 50 MB WebSocket frame holds about 38797312 bytes of base64-encoded media",
        ),
        (
            "[media]\nfile_max_bytes = 38797313",
            "media.file_max_bytes",
            "38797313 bytes cannot be carried to the peer: NapCat's 50 MB WebSocket frame holds about 38797312 bytes of base64-encoded media",
        ),
        (
            "[media]\nttl_secs = 0",
            "media.ttl_secs",
            "must be positive",
        ),
        (
            "[media]\nstaging_quota_bytes = 1000",
            "media.staging_quota_bytes",
            "must hold at least one largest upload",
        ),
        (
            "[media]\nurl_timeout_ms = 0",
            "media.url_timeout_ms",
            "must be positive",
        ),
        (
            "[media]\nurl_allow_networks = [\"10.0.0.0/8\", \"10.0.0.0/33\"]",
            "media.url_allow_networks[1]",
            "\"10.0.0.0/33\" is not a network in CIDR form (e.g. 10.1.2.0/24)",
        ),
        (
            "[media]\nmedia_roots = [\"/abs\", \"rel\"]",
            "media.media_roots[1]",
            "must be an absolute path",
        ),
        (
            "[events]\nbuffer_size = 0",
            "events.buffer_size",
            "must be positive",
        ),
        (
            "[reverse_ws]\npath = \"x\"",
            "reverse_ws.path",
            "must start with `/`",
        ),
        (
            "[accounts.\"a b\"]",
            "accounts.a b",
            "account ids use letters, digits, `_` and `-`",
        ),
        (
            "[accounts.\"\"]",
            "accounts.",
            "account ids use letters, digits, `_` and `-`",
        ),
        (
            "[accounts.a]\nws_url = \"wss://x\"",
            "accounts.a.ws_url",
            "wss:// is not supported; reach the implementation over ws:// (loopback or a private network) or terminate TLS in front of it",
        ),
        (
            "[accounts.a]\nws_url = \"http://x\"",
            "accounts.a.ws_url",
            "must be a ws:// URL with a host",
        ),
        (
            "[accounts.a]\nws_url = \"::\"",
            "accounts.a.ws_url",
            "invalid URL: relative URL without a base",
        ),
        (
            "[accounts.a]\nhttp_url = \"ftp://x\"",
            "accounts.a.http_url",
            "must be an http:// or https:// URL",
        ),
        (
            "[accounts.a]\nhttp_url = \"nope\"",
            "accounts.a.http_url",
            "invalid URL: relative URL without a base",
        ),
        (
            "[accounts.a]\nreverse = true",
            "accounts.a.reverse",
            "needs a [reverse_ws] listener section",
        ),
        (
            "[reverse_ws]\n[accounts.a]\nreverse = true",
            "accounts.a.self_id",
            "a reverse account needs the bot's QQ number",
        ),
        (
            "[reverse_ws]\n[accounts.a]\nreverse = true\nself_id = 0",
            "accounts.a.self_id",
            "a reverse account needs the bot's QQ number",
        ),
        (
            "[reverse_ws]\n[accounts.a]\nreverse = true\nself_id = 1\nws_url = \"ws://x\"",
            "accounts.a.ws_url",
            "a reverse account is dialled by the implementation; remove ws_url or reverse",
        ),
        (
            "[accounts.a]\nflavor = \"qq\"",
            "accounts.a.flavor",
            "unknown flavor \"qq\"; expected auto, napcat, llonebot, lagrange, snowluma, go-cqhttp or generic",
        ),
        (
            "[accounts.a]\nrequest_timeout_ms = 0",
            "accounts.a.request_timeout_ms",
            "must be positive",
        ),
        (
            "[accounts.a]\nconnect_timeout_ms = 0",
            "accounts.a.connect_timeout_ms",
            "must be positive",
        ),
        (
            "[accounts.a]\nbackoff_min_ms = 0",
            "accounts.a.backoff_min_ms",
            "must be positive",
        ),
        (
            "[accounts.a]\nbackoff_min_ms = 20000",
            "accounts.a.backoff_min_ms",
            "must not exceed backoff_max_ms",
        ),
        (
            "[accounts.a]\nauth_retry_ms = 999",
            "accounts.a.auth_retry_ms",
            "must be at least 1000",
        ),
        (
            "[accounts.a]\nping_interval_ms = 0",
            "accounts.a.ping_interval_ms",
            "must be positive",
        ),
        (
            "[accounts.a]\ngroups = [1, -1]",
            "accounts.a.groups[1]",
            "group ids are positive",
        ),
        (
            "[accounts.a]\nreply_chunk_size = 0",
            "accounts.a.reply_chunk_size",
            "must be in 1..=20000",
        ),
        (
            "[accounts.a]\nreply_chunk_size = 20001",
            "accounts.a.reply_chunk_size",
            "must be in 1..=20000",
        ),
        (
            "[accounts.a]\nqueue_max_entries = 0",
            "accounts.a.queue_max_entries",
            "must be positive",
        ),
        (
            "[accounts.a]\nqueue_ttl_secs = 0",
            "accounts.a.queue_ttl_secs",
            "must be positive",
        ),
        (
            "[accounts.a]\nrate_group_per_minute = 0",
            "accounts.a.rate_group_per_minute",
            "must be positive",
        ),
        (
            "[accounts.a]\nrate_group_burst = 0",
            "accounts.a.rate_group_burst",
            "must be positive",
        ),
        (
            "[accounts.a]\nrate_account_per_minute = 0",
            "accounts.a.rate_account_per_minute",
            "must be positive",
        ),
        (
            "[accounts.a]\nrate_account_burst = 0",
            "accounts.a.rate_account_burst",
            "must be positive",
        ),
        (
            "[accounts.a]\nrate_poke_per_minute = 0",
            "accounts.a.rate_poke_per_minute",
            "must be positive",
        ),
        (
            "[accounts.a]\nrisk_backoff_min_secs = 0",
            "accounts.a.risk_backoff_min_secs",
            "must be positive",
        ),
        (
            "[accounts.a]\nrisk_backoff_min_secs = 4000",
            "accounts.a.risk_backoff_min_secs",
            "must not exceed risk_backoff_max_secs",
        ),
        (
            "[accounts.a]\nmax_pending_calls = 0",
            "accounts.a.max_pending_calls",
            "must be positive",
        ),
        (
            "[accounts.a]\nshared_dir = { local = \"rel\", peer = \"/p\" }",
            "accounts.a.shared_dir",
            "local and peer must be absolute paths",
        ),
        (
            "[accounts.a]\nshared_dir = { local = \"/l\", peer = \"rel\" }",
            "accounts.a.shared_dir",
            "local and peer must be absolute paths",
        ),
        (
            "[server]\nhttp2_keepalive_timeout_ms = 0",
            "server.http2_keepalive_timeout_ms",
            "must be positive when keepalive pings are on",
        ),
        (
            "[server.tls]\ncert_file = \"\"\nkey_file = \"k\"",
            "server.tls.cert_file",
            "must not be empty",
        ),
        (
            "[server.tls]\ncert_file = \"c\"\nkey_file = \"\"",
            "server.tls.key_file",
            "must not be empty",
        ),
        (
            "[server.tls]\ncert_file = \"c\"\nkey_file = \"k\"\nclient_ca_file = \"\"",
            "server.tls.client_ca_file",
            "must not be empty",
        ),
        (
            "[server.tls]\ncert_file = \"c\"\nkey_file = \"k\"\nreload_interval_ms = 99",
            "server.tls.reload_interval_ms",
            "must be at least 100",
        ),
        (
            "[server.tls]\ncert_file = \"c\"\nkey_file = \"k\"\nhandshake_timeout_ms = 0",
            "server.tls.handshake_timeout_ms",
            "must be positive",
        ),
        (
            "[[auth.tokens]]\nname = \"\"\nvalue = \"x\"\naccounts = [\"*\"]",
            "auth.tokens[0].name",
            "token names use letters, digits, `_`, `-` and `.`",
        ),
        (
            "[[auth.tokens]]\nname = \"a b\"\nvalue = \"x\"\naccounts = [\"*\"]",
            "auth.tokens[0].name",
            "token names use letters, digits, `_`, `-` and `.`",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\n[[auth.tokens]]\nname = \"t\"\nvalue = \"y\"\naccounts = [\"*\"]",
            "auth.tokens[1].name",
            "duplicate token name \"t\"",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\naccounts = [\"*\"]",
            "auth.tokens[0].value",
            "set exactly one of value, value_file and value_env",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\nvalue_env = \"E\"\naccounts = [\"*\"]",
            "auth.tokens[0].value",
            "set exactly one of value, value_file and value_env",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"  \"\naccounts = [\"*\"]",
            "auth.tokens[0].value",
            "must not be empty",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue_env = \"\"\naccounts = [\"*\"]",
            "auth.tokens[0].value_env",
            "must name a variable",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = []",
            "auth.tokens[0].accounts",
            "list the account ids the token may use, or \"*\" for all",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\", \"nope\"]",
            "auth.tokens[0].accounts[1]",
            "unknown account \"nope\"",
        ),
        (
            "[accounts.a]\n[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"a\", \"default\"]",
            "auth.tokens[0].accounts[1]",
            "unknown account \"default\"",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\ngroups = []",
            "auth.tokens[0].groups",
            "list at least one group, or leave groups out for every group",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\ngroups = [5, 0]",
            "auth.tokens[0].groups[1]",
            "group ids are positive",
        ),
        (
            "[limits]\nmax_request_bytes = 0",
            "limits.max_request_bytes",
            "must be positive",
        ),
        (
            "[limits]\nmax_upload_message_bytes = 0",
            "limits.max_upload_message_bytes",
            "must be positive",
        ),
        (
            "[limits]\nmax_response_bytes = 0",
            "limits.max_response_bytes",
            "must be positive",
        ),
        (
            "[limits]\nmax_concurrent_requests = 0",
            "limits.max_concurrent_requests",
            "must be positive",
        ),
        (
            "[limits]\nmax_event_streams = 0",
            "limits.max_event_streams",
            "must be positive",
        ),
        (
            "[limits]\nmax_event_streams_per_client = 0",
            "limits.max_event_streams_per_client",
            "must be positive",
        ),
        (
            "[limits]\nmax_concurrent_streams_per_connection = 0",
            "limits.max_concurrent_streams_per_connection",
            "must be positive",
        ),
        (
            "[limits]\nrequest_timeout_ms = 0",
            "limits.request_timeout_ms",
            "must be positive",
        ),
        (
            "[limits]\nupload_timeout_ms = 0",
            "limits.upload_timeout_ms",
            "must be positive",
        ),
        (
            "[limits]\nmax_request_bytes = 4294967296",
            "limits.max_request_bytes",
            "must be below 4 GiB",
        ),
        (
            "[limits]\nmax_upload_message_bytes = 4294967296",
            "limits.max_upload_message_bytes",
            "must be below 4 GiB",
        ),
        (
            "[limits]\nmax_response_bytes = 4294967296",
            "limits.max_response_bytes",
            "must be below 4 GiB",
        ),
        (
            "[metrics]\npath = \"x\"",
            "metrics.path",
            "must start with `/`",
        ),
        (
            "[metrics]\nlisten = \"127.0.0.1:50051\"",
            "metrics.listen",
            "must differ from server.listen",
        ),
    ];

    /// Several bad values: the check that runs first decides the error.
    const FIRST_CHECK_WINS: &[(&str, &str, &str)] = &[
        (
            "timezone = \"Mars/Olympus\"\n[server]\ngrace_period_ms = 3600001",
            "server.grace_period_ms",
            "must be at most 3600000 (one hour)",
        ),
        (
            "timezone = \"Mars/Olympus\"\n[sandbox]\nflavor = \"qq\"",
            "timezone",
            "unknown time zone \"Mars/Olympus\"",
        ),
        (
            "[sandbox]\nflavor = \"qq\"\n[media]\nttl_secs = 0",
            "sandbox.flavor",
            "unknown flavor \"qq\"; expected napcat, llonebot, lagrange, snowluma or go-cqhttp",
        ),
        (
            "[media]\nmedia_roots = [\"rel\"]\nurl_allow_networks = [\"x\"]",
            "media.url_allow_networks[0]",
            "\"x\" is not a network in CIDR form (e.g. 10.1.2.0/24)",
        ),
        (
            "[media]\nimage_max_bytes = 0\nvideo_max_bytes = 38797313",
            "media.image_max_bytes",
            "must be positive",
        ),
        (
            "[media]\nimage_max_bytes = 38797313\nvideo_max_bytes = 0",
            "media.image_max_bytes",
            "38797313 bytes cannot be carried to the peer: NapCat's 50 MB WebSocket frame holds about 38797312 bytes of base64-encoded media",
        ),
        (
            "[media]\nurl_timeout_ms = 0\nstaging_quota_bytes = 1",
            "media.staging_quota_bytes",
            "must hold at least one largest upload",
        ),
        (
            "[events]\nbuffer_size = 0\n[media]\nttl_secs = 0",
            "media.ttl_secs",
            "must be positive",
        ),
        (
            "[events]\nbuffer_size = 0\n[reverse_ws]\npath = \"x\"",
            "events.buffer_size",
            "must be positive",
        ),
        (
            "[reverse_ws]\npath = \"x\"\n[accounts.a]\nflavor = \"qq\"",
            "reverse_ws.path",
            "must start with `/`",
        ),
        (
            "[accounts.b]\nflavor = \"qq\"\n[accounts.a]\nping_interval_ms = 0",
            "accounts.a.ping_interval_ms",
            "must be positive",
        ),
        (
            "[accounts.a]\nflavor = \"qq\"\nws_url = \"http://x\"",
            "accounts.a.ws_url",
            "must be a ws:// URL with a host",
        ),
        (
            "[accounts.a]\nreverse = true\nhttp_url = \"ftp://x\"",
            "accounts.a.http_url",
            "must be an http:// or https:// URL",
        ),
        (
            "[accounts.a]\nbackoff_min_ms = 0\nbackoff_max_ms = 0",
            "accounts.a.backoff_min_ms",
            "must be positive",
        ),
        (
            "[accounts.a]\nrisk_backoff_min_secs = 0\nrisk_backoff_max_secs = 0",
            "accounts.a.risk_backoff_min_secs",
            "must be positive",
        ),
        (
            "[accounts.a]\nrate_poke_per_minute = 0\nrate_group_burst = 0\nqueue_ttl_secs = 0",
            "accounts.a.queue_ttl_secs",
            "must be positive",
        ),
        (
            "[accounts.a]\nshared_dir = { local = \"rel\", peer = \"/p\" }\nmax_pending_calls = 0",
            "accounts.a.max_pending_calls",
            "must be positive",
        ),
        (
            "[accounts.a]\ngroups = [0]\nping_interval_ms = 0",
            "accounts.a.ping_interval_ms",
            "must be positive",
        ),
        (
            "[accounts.a]\ngroups = [0]\nreply_chunk_size = 0",
            "accounts.a.groups[0]",
            "group ids are positive",
        ),
        (
            "[accounts.a]\nping_interval_ms = 0\n[server]\nhttp2_keepalive_timeout_ms = 0",
            "accounts.a.ping_interval_ms",
            "must be positive",
        ),
        (
            "[server]\nhttp2_keepalive_timeout_ms = 0\n[server.tls]\ncert_file = \"\"\nkey_file = \"k\"",
            "server.http2_keepalive_timeout_ms",
            "must be positive when keepalive pings are on",
        ),
        (
            "[server.tls]\ncert_file = \"c\"\nkey_file = \"\"\nreload_interval_ms = 1\n[[auth.tokens]]\nname = \"\"\nvalue = \"x\"\naccounts = [\"*\"]",
            "server.tls.key_file",
            "must not be empty",
        ),
        (
            "[server.tls]\ncert_file = \"c\"\nkey_file = \"k\"\nreload_interval_ms = 1\nhandshake_timeout_ms = 0",
            "server.tls.reload_interval_ms",
            "must be at least 100",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\n[[auth.tokens]]\nname = \"t\"\naccounts = []",
            "auth.tokens[1].name",
            "duplicate token name \"t\"",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"\"\naccounts = []",
            "auth.tokens[0].value",
            "must not be empty",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"nope\"]\ngroups = []",
            "auth.tokens[0].accounts[0]",
            "unknown account \"nope\"",
        ),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\ngroups = [0]\n[limits]\nmax_event_streams = 0",
            "auth.tokens[0].groups[0]",
            "group ids are positive",
        ),
        (
            "[limits]\nmax_event_streams = 0\nmax_request_bytes = 0",
            "limits.max_request_bytes",
            "must be positive",
        ),
        (
            "[limits]\nmax_request_bytes = 4294967296\nupload_timeout_ms = 0",
            "limits.upload_timeout_ms",
            "must be positive",
        ),
        (
            "[limits]\nmax_response_bytes = 4294967296\nmax_request_bytes = 4294967296",
            "limits.max_request_bytes",
            "must be below 4 GiB",
        ),
        (
            "[limits]\nupload_timeout_ms = 0\n[metrics]\npath = \"x\"",
            "limits.upload_timeout_ms",
            "must be positive",
        ),
        (
            "[metrics]\npath = \"x\"\nlisten = \"127.0.0.1:50051\"",
            "metrics.path",
            "must start with `/`",
        ),
    ];

    /// Values on the edge of their range, and settings that switch a check off.
    const ACCEPTED: &[&str] = &[
        "[server]\ngrace_period_ms = 3600000",
        "[reverse_ws]\n[accounts.a]\nreverse = true\nself_id = 1",
        "[accounts.a]\nflavor = \" LLBot \"",
        "[accounts.a]\nflavor = \"\"",
        "[accounts.a]\nbackoff_min_ms = 10000",
        "[accounts.a]\nauth_retry_ms = 1000",
        "[accounts.a]\nreply_chunk_size = 20000",
        "[server]\nhttp2_keepalive_timeout_ms = 0\nhttp2_keepalive_interval_ms = 0",
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"default\"]",
        "[limits]\nmax_response_bytes = 4294967295",
        "[limits]\noverload_retry_after_ms = 0",
        "[server]\nlisten = \"127.0.0.1:0\"\n[metrics]\nlisten = \"127.0.0.1:0\"",
    ];

    #[test]
    fn every_check_reports_its_key_and_message() {
        for (text, key, message) in ONE_BAD_VALUE {
            assert_eq!(
                refusal(text),
                (key.to_string(), message.to_string()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn checks_run_in_a_fixed_order() {
        for (text, key, message) in FIRST_CHECK_WINS {
            assert_eq!(
                refusal(text),
                (key.to_string(), message.to_string()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn edge_values_are_accepted() {
        for text in ACCEPTED {
            if let Err(e) = Config::from_toml(text) {
                panic!("{text:?} gave {e}");
            }
        }
    }

    #[cfg(not(feature = "otlp"))]
    #[test]
    fn otlp_needs_the_feature() {
        let text = "[telemetry.otlp]\nendpoint = \"http://collector:4317\"";
        assert_eq!(
            refusal(text),
            (
                "telemetry.otlp".to_string(),
                "this binary was built without the `otlp` feature".to_string()
            )
        );
    }

    #[cfg(feature = "otlp")]
    #[test]
    fn otlp_endpoint_and_ratio_are_checked() {
        for (text, key, message) in [
            (
                "[telemetry.otlp]\nendpoint = \"ftp://x\"\nsample_ratio = 2.0",
                "telemetry.otlp.endpoint",
                "must be an http:// or https:// URL",
            ),
            (
                "[telemetry.otlp]\nsample_ratio = 1.5",
                "telemetry.otlp.sample_ratio",
                "must be between 0.0 and 1.0",
            ),
        ] {
            assert_eq!(
                refusal(text),
                (key.to_string(), message.to_string()),
                "{text:?}"
            );
        }
        assert!(Config::from_toml("[telemetry.otlp]\nsample_ratio = 0.0").is_ok());
    }

    #[test]
    fn secret_parse_errors_hide_the_value() {
        for (text, key) in [
            ("[accounts.a]\naccess_token = 5", "accounts.a.access_token"),
            (
                "[[auth.tokens]]\nname = \"t\"\nvalue = 3\naccounts = [\"*\"]",
                "auth.tokens.0.value",
            ),
        ] {
            let err = Config::from_toml(text).unwrap_err().to_string();
            assert_eq!(
                err,
                format!("configuration: key `{key}`: invalid value (not shown: it is a secret)")
            );
        }
    }
}
