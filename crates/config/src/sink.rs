//! `[[events.sinks]]`: where the journal's events are published besides
//! the gRPC event stream (NATS JetStream).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::account::Secret;
use super::check::{ConfigError, Key};

/// The kind of a sink.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum SinkKind {
    /// NATS JetStream.
    #[default]
    Nats,
}

/// How a sink encodes an event.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum SinkEncoding {
    /// The `Event` message in the proto3 JSON mapping.
    #[default]
    Json,
    /// The `Event` message in protobuf, as StreamEvents sends it.
    Protobuf,
}

/// One event sink: every committed event of every account is published
/// once, in order per account, at least once (JetStream drops repeats by
/// `Nats-Msg-Id`).
#[derive(Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SinkConfig {
    /// The kind (`nats`).
    pub kind: SinkKind,
    /// A name for logs, metrics and the sink's position file; unique
    /// among the sinks (default `nats`).
    pub name: String,
    /// `nats://host:port` (`tls://` for TLS); several, comma-separated, for
    /// a cluster.
    pub url: String,
    /// The JetStream stream, created when missing with the subjects
    /// `<subject_prefix>.>`.
    pub stream: String,
    /// Subjects are `<subject_prefix>.<account>.<kind>.<chat>`.
    pub subject_prefix: String,
    /// `json` or `protobuf`.
    pub encoding: SinkEncoding,
    /// Token authentication.
    pub token: Option<Secret>,
    /// User of user/password authentication.
    pub user: Option<String>,
    /// Password of user/password authentication.
    pub password: Option<Secret>,
    /// A NATS credentials file (JWT and NKey seed).
    pub creds_file: Option<PathBuf>,
    /// Require TLS.
    pub tls_required: bool,
    /// PEM roots to verify the server with (default: the system's).
    pub tls_ca_file: Option<PathBuf>,
    /// PEM client certificate (with `tls_key_file`) for mutual TLS.
    pub tls_cert_file: Option<PathBuf>,
    /// PEM key of `tls_cert_file`.
    pub tls_key_file: Option<PathBuf>,
    /// How long JetStream remembers a `Nats-Msg-Id` to drop a repeat, in
    /// seconds, for a stream the sink creates (must cover a restart of the
    /// gateway: its position is written about once a second, so a restart
    /// repeats at most the last second's events).
    pub duplicate_window_secs: u64,
}

impl std::fmt::Debug for SinkConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SinkConfig")
            .field("kind", &self.kind)
            .field("name", &self.name)
            .field("url", &crate::redact::redact_url(&self.url))
            .field("stream", &self.stream)
            .field("subject_prefix", &self.subject_prefix)
            .field("encoding", &self.encoding)
            .field("token", &self.token)
            .field("user", &self.user)
            .field("password", &self.password)
            .field("creds_file", &self.creds_file)
            .field("tls_required", &self.tls_required)
            .field("tls_ca_file", &self.tls_ca_file)
            .field("tls_cert_file", &self.tls_cert_file)
            .field("tls_key_file", &self.tls_key_file)
            .field("duplicate_window_secs", &self.duplicate_window_secs)
            .finish()
    }
}

impl Default for SinkConfig {
    fn default() -> Self {
        Self {
            kind: SinkKind::Nats,
            name: "nats".into(),
            url: "nats://127.0.0.1:4222".into(),
            stream: "QQ_EVENTS".into(),
            subject_prefix: "qq".into(),
            encoding: SinkEncoding::Json,
            token: None,
            user: None,
            password: None,
            creds_file: None,
            tls_required: false,
            tls_ca_file: None,
            tls_cert_file: None,
            tls_key_file: None,
            duplicate_window_secs: 600,
        }
    }
}

/// A subject token: letters, digits, `_` and `-` (no `.`, `*`, `>` or
/// white space).
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl SinkConfig {
    /// Checks one sink.
    pub(super) fn validate(&self, key: &Key) -> Result<(), ConfigError> {
        key.field("name").ensure(
            is_token(&self.name),
            "a sink name is letters, digits, _ and -",
        )?;
        key.field("url").ensure(
            self.url.split(',').all(|u| !u.trim().is_empty()),
            "one or more NATS URLs, comma-separated, such as nats://127.0.0.1:4222",
        )?;
        key.field("stream").ensure(
            is_token(&self.stream),
            "a JetStream stream name is letters, digits, _ and -",
        )?;
        let prefix_ok =
            !self.subject_prefix.is_empty() && self.subject_prefix.split('.').all(is_token);
        key.field("subject_prefix").ensure(
            prefix_ok,
            "subject tokens separated by dots (letters, digits, _ and -; no wildcards)",
        )?;
        key.field("password").ensure(
            self.password.is_none() || self.user.is_some(),
            "a password needs a user",
        )?;
        key.field("tls_key_file").ensure(
            self.tls_cert_file.is_some() == self.tls_key_file.is_some(),
            "tls_cert_file and tls_key_file go together",
        )?;
        key.field("duplicate_window_secs")
            .in_range(self.duplicate_window_secs, 10..=86_400)
    }
}
