//! `[metrics]`: the Prometheus listener.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

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
