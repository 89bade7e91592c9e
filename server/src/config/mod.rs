//! Configuration: typed settings with defaults, layered sources, validation.
//!
//! Sources, later ones winning: compiled-in defaults, the TOML file given by
//! `--config`, environment variables `ONEBOT_GATEWAY__SECTION__KEY` (for
//! example `ONEBOT_GATEWAY__ACCOUNTS__DEFAULT__WS_URL`), then command-line
//! flags. [`Config::validate`] runs before anything binds and names the bad
//! key in its error.

mod account;
mod auth;
mod events;
mod limits;
mod media;
mod metrics;
mod redact;
mod reverse_ws;
mod sandbox;
mod server;
mod telemetry;
mod tools;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::Figment;
use figment::providers::{Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

pub use account::{AccountConfig, DEFAULT_ACCOUNT, Secret, SharedDir};
pub use auth::{Access, AuthConfig, TokenConfig};
pub use events::EventsConfig;
pub use limits::LimitsConfig;
pub use media::{MAX_INLINE_MEDIA_BYTES, MediaConfig};
pub use metrics::MetricsConfig;
pub use redact::{REDACTED, redact_url};
pub use reverse_ws::ReverseWsConfig;
pub use sandbox::SandboxConfig;
pub use server::{ServerConfig, TlsConfig};
pub use telemetry::{OtlpConfig, TelemetryConfig};
pub use tools::{Locale, ToolsConfig};

use redact::SECRET_KEYS;

/// Prefix of environment variables read by [`Config::load`].
pub const ENV_PREFIX: &str = "ONEBOT_GATEWAY__";

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
mod tests;
