//! `[archive]`: the durable message archive (what is kept, for how long,
//! where).

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::account::Secret;
use super::check::ConfigError;
use super::check::Key;
use super::redact::redact_url;

/// The durable message archive.
#[derive(Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ArchiveConfig {
    /// Archive the messages of the whitelisted chats (and `chats`), the
    /// messages the gateway sends and the history pages it reads.
    pub enabled: bool,
    /// Messages older than this many days are deleted by a background task.
    pub retention_days: u32,
    /// Most bytes of stored messages; the oldest are deleted first beyond it.
    pub max_bytes: u64,
    /// Chats archived besides every account's whitelists, as
    /// `group:<id>` or `private:<id>`.
    pub chats: Vec<String>,
    /// `postgres://user:password@host:port/database`: keep the archive in
    /// PostgreSQL instead of the embedded store under the data directory.
    pub url: Option<Secret>,
    /// PEM CA bundle trusted (besides the system roots) for TLS to the
    /// PostgreSQL server (the URL's `sslmode`: `prefer` by default,
    /// `require`, `disable`).
    pub ca_file: Option<PathBuf>,
    /// Most messages one gap-healing backfill reads per chat.
    pub backfill_max_messages: u32,
    /// Most bytes of one message's text (its text segments together, UTF-8)
    /// the archive keeps and indexes; a longer text is archived cut at a
    /// character boundary and marked truncated.
    pub max_text_bytes: usize,
}

impl Default for ArchiveConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            retention_days: 30,
            max_bytes: 1024 * 1024 * 1024,
            chats: Vec::new(),
            url: None,
            ca_file: None,
            backfill_max_messages: 500,
            max_text_bytes: 64 * 1024,
        }
    }
}

impl fmt::Debug for ArchiveConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArchiveConfig")
            .field("enabled", &self.enabled)
            .field("retention_days", &self.retention_days)
            .field("max_bytes", &self.max_bytes)
            .field("chats", &self.chats)
            .field("url", &self.url.as_ref().map(|u| redact_url(u.expose())))
            .field("ca_file", &self.ca_file)
            .field("backfill_max_messages", &self.backfill_max_messages)
            .field("max_text_bytes", &self.max_text_bytes)
            .finish()
    }
}

/// The kind and id of a chat written `group:<id>` or `private:<id>`, or
/// `None` when it is neither (or the id is not a positive number).
pub fn parse_chat(text: &str) -> Option<(&str, i64)> {
    let (kind, id) = text.trim().split_once(':')?;
    let id: i64 = id.trim().parse().ok()?;
    (matches!(kind, "group" | "private") && id > 0).then_some((kind, id))
}

impl ArchiveConfig {
    /// Checks `[archive]`: a positive retention and size, chats written
    /// `group:<id>` / `private:<id>`, a `postgres://` URL, a positive
    /// backfill bound.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        let key = Key::new("archive");
        key.field("retention_days").positive(self.retention_days)?;
        key.field("max_bytes")
            .at_least(self.max_bytes, 1024 * 1024)?;
        for (i, chat) in self.chats.iter().enumerate() {
            key.field("chats").index(i).ensure(
                parse_chat(chat).is_some(),
                format!("{chat:?} is not group:<id> or private:<id> with a positive id"),
            )?;
        }
        if let Some(url) = &self.url {
            let ok = url::Url::parse(url.expose())
                .is_ok_and(|u| matches!(u.scheme(), "postgres" | "postgresql"));
            key.field("url").ensure(
                ok,
                "must be a postgres:// or postgresql:// URL (leave it out for the embedded store)",
            )?;
        }
        key.field("backfill_max_messages")
            .positive(self.backfill_max_messages)?;
        key.field("max_text_bytes")
            .in_range(self.max_text_bytes, 1024..=16 * 1024 * 1024)
    }
}
