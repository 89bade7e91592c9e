//! `[metrics]`: the Prometheus listener.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

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

impl MetricsConfig {
    /// Checks `[metrics]`: the path starts with `/`, and the listener is not
    /// the gRPC listener `server_listen` (port 0 picks a free port, so two
    /// of them never collide).
    pub(super) fn validate(&self, server_listen: SocketAddr) -> Result<(), ConfigError> {
        let key = Key::new("metrics");
        key.field("path").url_path(&self.path)?;
        key.field("listen").ensure(
            self.listen != server_listen || self.listen.port() == 0,
            "must differ from server.listen",
        )
    }
}
