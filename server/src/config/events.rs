//! `[events]`: inbound event buffering.

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

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

impl EventsConfig {
    /// Checks `[events]`: the buffer holds at least one event.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        Key::new("events")
            .field("buffer_size")
            .positive(self.buffer_size)
    }
}
