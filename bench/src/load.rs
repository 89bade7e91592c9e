//! Closed-loop load: `concurrency` workers each issue one call after the
//! other for a fixed time; latencies and errors are collected per run.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One call of a system under test.
pub type Call =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>> + Send + Sync>;

/// Wraps an async closure as a [`Call`].
pub fn call<F, Fut>(f: F) -> Call
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), String>> + Send + 'static,
{
    Arc::new(move || Box::pin(f()))
}

/// The outcome of one run.
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    /// Latencies of the successful calls, sorted.
    pub latencies: Vec<Duration>,
    /// Failed calls.
    pub errors: u64,
    /// The first error seen.
    pub first_error: Option<String>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

impl RunStats {
    /// The `q` quantile (0..=1) of the latencies (nearest rank).
    pub fn quantile(&self, q: f64) -> Duration {
        quantile(&self.latencies, q)
    }

    /// Successful calls per second.
    pub fn rps(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The `q` quantile of sorted durations (nearest rank); zero when empty.
pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The median of `values` (mean of the middle two when even).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Runs `call` from `concurrency` workers for `duration` (after each worker
/// made `warmup` untimed calls; the clock starts when all have).
pub async fn run(call: &Call, concurrency: usize, warmup: usize, duration: Duration) -> RunStats {
    let mut workers = Vec::with_capacity(concurrency);
    let barrier = Arc::new(tokio::sync::Barrier::new(concurrency + 1));
    for _ in 0..concurrency {
        let call = call.clone();
        let barrier = barrier.clone();
        workers.push(tokio::spawn(async move {
            for _ in 0..warmup {
                let _ = call().await;
            }
            barrier.wait().await;
            let end = Instant::now() + duration;
            let mut lat = Vec::with_capacity(4096);
            let mut errors = 0u64;
            let mut first_error = None;
            while Instant::now() < end {
                let t = Instant::now();
                match call().await {
                    Ok(()) => lat.push(t.elapsed()),
                    Err(e) => {
                        errors += 1;
                        first_error.get_or_insert(e);
                    }
                }
            }
            (lat, errors, first_error)
        }));
    }
    barrier.wait().await;
    let started = Instant::now();
    let mut stats = RunStats::default();
    for w in workers {
        if let Ok((lat, errors, first)) = w.await {
            stats.latencies.extend(lat);
            stats.errors += errors;
            if stats.first_error.is_none() {
                stats.first_error = first;
            }
        }
    }
    stats.elapsed = started.elapsed();
    stats.latencies.sort_unstable();
    stats
}
