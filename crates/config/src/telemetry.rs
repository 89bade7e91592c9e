//! `[telemetry]`: trace export.

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

/// Trace export.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct TelemetryConfig {
    /// OTLP/gRPC trace export; needs a binary built with the `otlp` feature.
    pub otlp: Option<OtlpConfig>,
}

impl TelemetryConfig {
    /// Checks `[telemetry]`.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        if let Some(otlp) = &self.otlp {
            otlp.validate()?;
        }
        Ok(())
    }
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

impl OtlpConfig {
    /// Checks `[telemetry.otlp]`: the binary has the `otlp` feature, the
    /// endpoint is an http:// or https:// URL, the ratio is in 0.0..=1.0.
    fn validate(&self) -> Result<(), ConfigError> {
        let key = Key::new("telemetry").field("otlp");
        key.ensure(
            cfg!(feature = "otlp"),
            "this binary was built without the `otlp` feature",
        )?;
        let http = url::Url::parse(&self.endpoint)
            .is_ok_and(|u| u.scheme() == "http" || u.scheme() == "https");
        key.field("endpoint")
            .ensure(http, "must be an http:// or https:// URL")?;
        key.field("sample_ratio").ensure(
            (0.0..=1.0).contains(&self.sample_ratio),
            "must be between 0.0 and 1.0",
        )
    }
}
