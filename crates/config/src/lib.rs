//! Configuration: typed settings with defaults, layered sources, validation.
//!
//! Sources, later ones winning: compiled-in defaults, the TOML file given by
//! `--config`, environment variables `ONEBOT_GATEWAY__SECTION__KEY` (for
//! example `ONEBOT_GATEWAY__ACCOUNTS__DEFAULT__WS_URL`), then command-line
//! flags. [`Config::validate`] runs before anything binds and names the bad
//! key in its error.

mod account;
mod archive;
mod auth;
mod check;
mod events;
mod flavor;
mod ha;
mod limits;
mod mcp;
mod media;
mod metrics;
mod policy;
mod redact;
mod reverse_ws;
mod sandbox;
mod server;
mod sink;
mod telemetry;
mod tools;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use figment::Figment;
use figment::providers::{Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

pub use account::{
    AccountConfig, DEFAULT_ACCOUNT, MilkyEvents, MilkyMedia, Protocol, Secret, SharedDir,
};
pub use archive::{ArchiveConfig, parse_chat};
pub use auth::{Access, AuthConfig, TokenConfig};
pub use check::ConfigError;
pub use events::EventsConfig;
pub use flavor::{Flavor, UnknownFlavor};
pub use ha::{HaConfig, LeaseKind};
pub use limits::{LimitsConfig, MAX_PEER_MESSAGE_BYTES};
pub use mcp::{McpConfig, normalize_origin};
pub use media::{
    CAPTURE_KINDS, CaptureConfig, DEFAULT_PEER_URL_HOSTS, MAX_INLINE_MEDIA_BYTES, MediaConfig,
};
pub use metrics::MetricsConfig;
pub use policy::{Approval, POLICY_ACTIONS, POLICY_ROLES, PolicyConfig, PolicyRule};
pub use redact::{REDACTED, redact_url};
pub use reverse_ws::ReverseWsConfig;
pub use sandbox::SandboxConfig;
pub use server::{ServerConfig, TlsConfig};
pub use sink::{SinkConfig, SinkEncoding, SinkKind};
pub use telemetry::{OtlpConfig, TelemetryConfig};
pub use tools::{Locale, ToolsConfig};

use check::Key;
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
    /// The Model Context Protocol endpoint.
    pub mcp: McpConfig,
    /// Trace export.
    pub telemetry: TelemetryConfig,
    /// The durable message archive.
    pub archive: ArchiveConfig,
    /// On whose behalf agents may act, and what waits for approval.
    pub policy: PolicyConfig,
    /// Failover of accounts between gateways; off when absent.
    pub ha: Option<HaConfig>,
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
            mcp: McpConfig::default(),
            telemetry: TelemetryConfig::default(),
            archive: ArchiveConfig::default(),
            policy: PolicyConfig::default(),
            ha: None,
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

    /// Checks ranges and consistency; the error names the key. The checks
    /// run in a fixed order (the grace period and worker threads, the time
    /// zone, sandbox, media, events, archive, policy, reverse WebSocket, each
    /// account, then the listener's connections and TLS, auth, limits,
    /// metrics, MCP and telemetry), so a config with several bad values
    /// always reports the same one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.server.validate_process()?;
        Key::new("timezone").ensure(
            jiff::tz::TimeZone::get(&self.timezone).is_ok(),
            format!("unknown time zone {:?}", self.timezone),
        )?;
        self.sandbox.validate()?;
        self.media.validate()?;
        self.events.validate()?;
        self.archive.validate()?;
        self.policy.validate()?;
        if let Some(ha) = &self.ha {
            ha.validate(self.archive.url.as_ref())?;
        }
        if let Some(rev) = &self.reverse_ws {
            rev.validate()?;
        }
        for (id, account) in &self.accounts {
            account.validate(id, self.reverse_ws.as_ref().map(|r| r.listen))?;
        }
        self.server.validate_connections()?;
        // Without accounts the embedded sandbox runs as `default`.
        self.auth.validate(|id| {
            self.accounts.contains_key(id) || (self.accounts.is_empty() && id == DEFAULT_ACCOUNT)
        })?;
        self.limits.validate()?;
        let largest_upload = self.media.video_max_bytes.max(self.media.file_max_bytes);
        Key::new("limits.max_share_per_client").ensure(
            self.limits.share_of(self.media.staging_quota_bytes) >= largest_upload,
            "leaves one client less of media.staging_quota_bytes than the largest upload",
        )?;
        if let Some(metrics) = &self.metrics {
            metrics.validate(self.server.listen)?;
        }
        self.mcp.validate(self.server.listen)?;
        self.telemetry.validate()
    }

    /// The config as TOML with every secret redacted (`--print-config`):
    /// OneBot access tokens, bearer token values, `access_token` query
    /// parameters typed into peer URLs, and the credentials of the
    /// archive's database URL.
    pub fn to_redacted_toml(&self) -> String {
        let mut copy = self.clone();
        for account in copy.accounts.values_mut() {
            if account.access_token.is_some() {
                account.access_token = Some(Secret::new(REDACTED));
            }
            for url in [
                &mut account.ws_url,
                &mut account.http_url,
                &mut account.milky_url,
                &mut account.milky_media_url,
            ]
            .into_iter()
            .flatten()
            {
                *url = redact_url(url);
            }
        }
        if let Some(url) = &mut copy.archive.url {
            *url = Secret::new(redact_url(url.expose()));
        }
        if let Some(url) = copy.ha.as_mut().and_then(|h| h.url.as_mut()) {
            *url = Secret::new(redact_url(url.expose()));
        }
        for token in &mut copy.auth.tokens {
            if token.value.is_some() {
                token.value = Some(Secret::new(REDACTED));
            }
        }
        // Which protocol each account speaks, as comments above the TOML.
        let protocols: String = copy
            .accounts
            .iter()
            .map(|(id, a)| match a.protocol() {
                Protocol::Milky => format!(
                    "# accounts.{id} speaks milky; media by {} (milky_media = {})\n",
                    if a.milky_media_by_http() {
                        "one-time http:// URLs"
                    } else {
                        "base64:// in the request"
                    },
                    a.milky_media_setting().name()
                ),
                p => format!("# accounts.{id} speaks {}\n", p.name()),
            })
            .collect();
        match toml::to_string_pretty(&copy) {
            Ok(text) => format!("{protocols}{text}"),
            Err(e) => format!("# cannot print: {e}\n"),
        }
    }
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
