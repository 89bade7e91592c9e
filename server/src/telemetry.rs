//! Logs, traces and metrics.
//!
//! - Logs: `tracing` with `RUST_LOG`-style filtering, as text or JSON
//!   ([`LogFormat`]), on stderr. [`subscriber`] builds the stack for any
//!   writer (tests capture logs with it); [`init`] installs it globally,
//!   with OTLP trace export when built with the `otlp` feature and
//!   configured.
//! - Spans: the gRPC layer opens one `rpc` span per call with the method,
//!   the request id and the token name; `onebot_gateway_telemetry` fills in
//!   the account and chat where the code resolves them.
//! - Metrics: `onebot_gateway_telemetry::metrics`.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use onebot_gateway_config::TelemetryConfig;

/// Name of the per-RPC span.
pub const RPC_SPAN: &str = "rpc";

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, with the span fields.
    Json,
}

/// The log filter: `RUST_LOG` when set and valid, else `info` (the MCP
/// SDK's per-session and per-request lines at `warn`: the gateway logs
/// what matters of them itself).
pub fn env_filter() -> EnvFilter {
    EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"))
}

/// Targets whose TRACE events print a whole HTTP request, headers included,
/// and so the OneBot access token (`Authorization`, `?access_token=`):
/// tungstenite's client handshake (a `log` record, bridged into tracing).
const CREDENTIAL_TRACE_TARGETS: [&str; 1] = ["tungstenite::handshake::client"];

/// True for events no filter may let through: the TRACE events of
/// [`CREDENTIAL_TRACE_TARGETS`], whatever `RUST_LOG` says.
fn prints_credentials(meta: &tracing::Metadata<'_>) -> bool {
    *meta.level() == tracing::Level::TRACE
        && CREDENTIAL_TRACE_TARGETS
            .iter()
            .any(|t| meta.target().starts_with(t))
}

/// The filter every subscriber of the gateway carries, beside its level
/// filter: events that would print credentials are dropped.
pub fn secret_filter()
-> tracing_subscriber::filter::FilterFn<impl Fn(&tracing::Metadata<'_>) -> bool> {
    tracing_subscriber::filter::filter_fn(|meta| !prints_credentials(meta))
}

/// A subscriber writing `format` lines to `writer`, filtered by `filter`
/// (and by [`secret_filter`]).
pub fn subscriber<W>(
    format: LogFormat,
    filter: EnvFilter,
    writer: W,
    ansi: bool,
) -> Box<dyn tracing::Subscriber + Send + Sync>
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    let base = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi)
        .with_writer(writer);
    match format {
        LogFormat::Text => Box::new(base.finish().with(secret_filter())),
        LogFormat::Json => Box::new(
            base.json()
                .with_current_span(true)
                .finish()
                .with(secret_filter()),
        ),
    }
}

/// Keeps trace export running; flushes it when dropped.
#[must_use = "dropping the guard stops trace export"]
pub struct TelemetryGuard {
    #[cfg(feature = "otlp")]
    provider: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        #[cfg(feature = "otlp")]
        if let Some(provider) = self.provider.take()
            && let Err(e) = provider.shutdown()
        {
            eprintln!("flushing OTLP traces failed: {e}");
        }
    }
}

/// Installs the global subscriber: `format` lines on stderr, plus OTLP trace
/// export when `telemetry.otlp` is set (binaries built with `otlp`). Must run
/// inside a Tokio runtime when OTLP is on.
pub fn init(format: LogFormat, telemetry: &TelemetryConfig) -> anyhow::Result<TelemetryGuard> {
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let fmt = tracing_subscriber::fmt::layer()
        .with_ansi(ansi)
        .with_writer(std::io::stderr);
    let fmt: Box<dyn tracing_subscriber::Layer<_> + Send + Sync> = match format {
        LogFormat::Text => Box::new(fmt),
        LogFormat::Json => Box::new(fmt.json().with_current_span(true)),
    };
    let registry = tracing_subscriber::registry()
        .with(env_filter())
        .with(secret_filter())
        .with(fmt);
    #[cfg(feature = "otlp")]
    {
        let (layer, provider) = match &telemetry.otlp {
            Some(otlp) => {
                let (layer, provider) = otlp_layer(otlp)?;
                (Some(layer), Some(provider))
            }
            None => (None, None),
        };
        registry.with(layer).try_init()?;
        Ok(TelemetryGuard { provider })
    }
    #[cfg(not(feature = "otlp"))]
    {
        if telemetry.otlp.is_some() {
            anyhow::bail!("telemetry.otlp needs a binary built with the `otlp` feature");
        }
        registry.try_init()?;
        Ok(TelemetryGuard {})
    }
}

#[cfg(feature = "otlp")]
fn otlp_layer<S>(
    otlp: &onebot_gateway_config::OtlpConfig,
) -> anyhow::Result<(
    impl tracing_subscriber::Layer<S>,
    opentelemetry_sdk::trace::SdkTracerProvider,
)>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_otlp::WithExportConfig as _;

    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(otlp.endpoint.clone())
        .build()?;
    let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_sampler(opentelemetry_sdk::trace::Sampler::ParentBased(Box::new(
            opentelemetry_sdk::trace::Sampler::TraceIdRatioBased(otlp.sample_ratio),
        )))
        .with_resource(
            opentelemetry_sdk::Resource::builder()
                .with_service_name(otlp.service_name.clone())
                .build(),
        )
        .build();
    let tracer = provider.tracer("onebot-gateway");
    Ok((tracing_opentelemetry::layer().with_tracer(tracer), provider))
}
