//! `[tools]`: the agent tool surface.

use serde::{Deserialize, Serialize};

/// Language of tool error texts.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Locale {
    /// Chinese (the default).
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
