//! `[telemetry]`: trace export.

use serde::{Deserialize, Serialize};

/// Trace export.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct TelemetryConfig {
    /// OTLP/gRPC trace export; needs a binary built with the `otlp` feature.
    pub otlp: Option<OtlpConfig>,
}

/// OTLP/gRPC trace export.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct OtlpConfig {
    /// Collector endpoint, e.g. `http://otel-collector:4317`.
    pub endpoint: String,
    /// `service.name` of the exported spans.
    pub service_name: String,
    /// Fraction of traces sampled, 0.0 to 1.0.
    pub sample_ratio: f64,
}

impl Default for OtlpConfig {
    fn default() -> Self {
        Self {
            endpoint: "http://127.0.0.1:4317".into(),
            service_name: "onebot-gateway".into(),
            sample_ratio: 1.0,
        }
    }
}
