//! `[server]`: the gRPC listener, its connections and TLS.

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

/// Most `worker_threads` a configuration may ask for.
pub const MAX_WORKER_THREADS: usize = 1024;

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
    /// Threads that run the gateway's tasks (RPCs, peer links, events):
    /// 0 (the default) one work-stealing worker per CPU core, N > 1 that
    /// many, 1 all on one thread (tokio's current-thread scheduler, the
    /// least CPU per call). Blocking work (the stores, files, media
    /// encoding and digests) has its own pool whatever this says.
    pub worker_threads: usize,
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
            worker_threads: 0,
        }
    }
}

impl ServerConfig {
    /// Checks the process settings: `grace_period_ms`, `worker_threads`.
    /// [`super::Config::validate`] runs this first and
    /// [`ServerConfig::validate_connections`] after the accounts.
    pub(super) fn validate_process(&self) -> Result<(), ConfigError> {
        Key::new("server").field("grace_period_ms").ensure(
            self.grace_period_ms <= 3_600_000,
            "must be at most 3600000 (one hour)",
        )?;
        Key::new("server").field("worker_threads").ensure(
            self.worker_threads <= MAX_WORKER_THREADS,
            format!("must be at most {MAX_WORKER_THREADS} (0 means one per CPU core)"),
        )
    }

    /// Checks the HTTP/2 keepalive and `[server.tls]`: a PING needs a
    /// timeout for its acknowledgement whenever pings are on.
    pub(super) fn validate_connections(&self) -> Result<(), ConfigError> {
        Key::new("server")
            .field("http2_keepalive_timeout_ms")
            .ensure(
                self.http2_keepalive_interval_ms == 0 || self.http2_keepalive_timeout_ms > 0,
                "must be positive when keepalive pings are on",
            )?;
        if let Some(tls) = &self.tls {
            tls.validate()?;
        }
        Ok(())
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

impl TlsConfig {
    /// Checks `[server.tls]`: no empty file names, a reload interval of at
    /// least 100 ms, a positive handshake timeout.
    fn validate(&self) -> Result<(), ConfigError> {
        let key = Key::new("server").field("tls");
        for (name, path) in [
            ("cert_file", Some(&self.cert_file)),
            ("key_file", Some(&self.key_file)),
            ("client_ca_file", self.client_ca_file.as_ref()),
        ] {
            key.field(name).ensure(
                !path.is_some_and(|p| p.as_os_str().is_empty()),
                "must not be empty",
            )?;
        }
        key.field("reload_interval_ms")
            .at_least(self.reload_interval_ms, 100)?;
        key.field("handshake_timeout_ms")
            .positive(self.handshake_timeout_ms)
    }
}

fn default_tls_reload_ms() -> u64 {
    10_000
}

fn default_tls_handshake_ms() -> u64 {
    10_000
}
