//! `[events]`: inbound event buffering and stream heartbeats.

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

/// Inbound event buffering and stream heartbeats.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct EventsConfig {
    /// Events kept per account for `after_sequence` resumes.
    pub buffer_size: usize,
    /// Seconds of silence after which a StreamEvents stream carries a
    /// heartbeat message (besides the one every stream starts with). Keep it
    /// below the read/idle timeout of every proxy in front of the gateway
    /// (nginx `grpc_read_timeout`, Envoy `stream_idle_timeout`): HTTP/2
    /// PINGs do not count as stream data there. 0 sends only the first one.
    pub heartbeat_secs: u64,
    /// Bytes of events kept per account for `after_sequence` resumes (the
    /// buffer holds at most `buffer_size` events and at most this many
    /// bytes, whichever is reached first; the newest event always stays).
    /// The journal's reload at start obeys the same bound.
    pub buffer_bytes: usize,
    /// Where else every committed event is published (`[[events.sinks]]`).
    pub sinks: Vec<super::sink::SinkConfig>,
}

impl Default for EventsConfig {
    fn default() -> Self {
        Self {
            buffer_size: 1024,
            heartbeat_secs: 15,
            buffer_bytes: 16 * 1024 * 1024,
            sinks: Vec::new(),
        }
    }
}

impl EventsConfig {
    /// Checks `[events]`: the buffer holds at least one event; heartbeats
    /// come at most once a day apart (longer is no heartbeat at all).
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        let key = Key::new("events");
        key.field("buffer_size").positive(self.buffer_size)?;
        key.field("buffer_bytes").positive(self.buffer_bytes)?;
        key.field("heartbeat_secs")
            .in_range(self.heartbeat_secs, 0..=86_400)?;
        let mut names = std::collections::BTreeSet::new();
        for (i, sink) in self.sinks.iter().enumerate() {
            let key = key.field("sinks").index(i);
            sink.validate(&key)?;
            key.field("name").ensure(
                names.insert(sink.name.as_str()),
                format!("another sink is named {:?}", sink.name),
            )?;
        }
        Ok(())
    }
}
