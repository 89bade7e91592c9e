//! The NATS event sink's measurements: 5 000 messages per second injected
//! into a sandbox peer (in this process) for a gateway process to deliver on
//! `StreamEvents`, without an event sink and with `[[events.sinks]]`
//! publishing to a real `nats-server -js` on loopback, alternating (the
//! archive on in both, as by default): every event must reach the
//! subscriber (no lag), and with the sink every message event must be
//! acknowledged by JetStream (counted in the stream afterwards, "until
//! stored" from the end of the run). The target compares the p50 delivery
//! latency with the sink to without.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use async_nats::jetstream::{self, consumer};

use crate::archive::{INBOUND_RATE, InboundRun, SinkTarget, inbound};
use crate::load::median;

#[path = "../../tests/src/nats.rs"]
mod nats;

/// Target: p50 delivery latency with the sink ≤ this × without.
pub const LATENCY_TARGET: f64 = 1.2;

/// Every run, alternating without and with the sink.
#[derive(Debug, Clone, Default)]
pub struct SinkReport {
    /// The runs without the sink.
    pub off: Vec<InboundRun>,
    /// The runs with it.
    pub on: Vec<InboundRun>,
}

impl SinkReport {
    /// p50 with the sink / p50 without (medians over runs).
    pub fn latency_ratio(&self) -> f64 {
        let p50 = |runs: &[InboundRun]| median(&runs.iter().map(|r| r.p50_us).collect::<Vec<_>>());
        p50(&self.on) / p50(&self.off).max(1.0)
    }

    /// True when every run delivered every message at the rate, and with
    /// the sink JetStream acknowledged every message event.
    pub fn sustained(&self) -> bool {
        !self.on.is_empty()
            && self
                .off
                .iter()
                .chain(&self.on)
                .all(|r| !r.lagged && r.received == r.sent && r.rate >= INBOUND_RATE as f64 * 0.98)
            && self.on.iter().all(|r| r.stored == r.sent)
    }
}

/// Runs `rounds` pairs of `secs`-second runs.
pub async fn measure(bin: &Path, rounds: usize, secs: f64) -> Result<SinkReport> {
    let server = nats::NatsServer::start();
    let url = server.url();
    let mut report = SinkReport::default();
    for round in 0..rounds {
        let duration = Duration::from_secs_f64(secs);
        let off = inbound(bin, true, None, duration, round).await?;
        let stream = format!("BENCH{round}");
        let prefix = format!("bench{round}");
        let on = inbound(
            bin,
            true,
            Some(SinkTarget {
                url: &url,
                stream: &stream,
                prefix: &prefix,
            }),
            duration,
            round,
        )
        .await?;
        for (label, r) in [("off", &off), ("on", &on)] {
            eprintln!(
                "bench: inbound sink={label}: {}/{} at {:.0}/s, p50 {:.0} µs, p99 {:.0} µs, lagged {}, in JetStream {} (+{:.0} ms)",
                r.received, r.sent, r.rate, r.p50_us, r.p99_us, r.lagged, r.stored, r.store_lag_ms
            );
        }
        report.off.push(off);
        report.on.push(on);
    }
    Ok(report)
}

/// Waits (at most 60 s after `since`) until the stream of `sink` holds
/// `want` message events; returns how many it holds and how long after
/// `since` that was.
pub async fn wait_stored(
    sink: &SinkTarget<'_>,
    want: u64,
    since: Instant,
) -> Result<(u64, Duration)> {
    let client = async_nats::connect(sink.url).await?;
    let js = jetstream::new(client);
    let mut held = 0;
    let mut counter = None;
    while since.elapsed() < Duration::from_secs(60) {
        if counter.is_none()
            && let Ok(stream) = js.get_stream(sink.stream).await
        {
            counter = Some(
                stream
                    .create_consumer(consumer::pull::Config {
                        filter_subject: format!("{}.default.message.>", sink.prefix),
                        ..Default::default()
                    })
                    .await?,
            );
        }
        if let Some(c) = counter.as_mut() {
            held = c.info().await?.num_pending;
            if held >= want {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok((held, since.elapsed()))
}
