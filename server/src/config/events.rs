//! `[events]`: inbound event buffering.

use serde::{Deserialize, Serialize};

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
