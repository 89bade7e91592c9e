//! Reconnect delays, the one schedule every adapter dials its peer again
//! by: exponential from `backoff_min_ms` to `backoff_max_ms` (doubling,
//! from `backon`), with full jitter over that envelope.
//!
//! With jitter each delay is drawn uniformly from `[min, envelope]`, where the
//! envelope doubles per failed attempt up to the maximum; the floor at `min`
//! keeps a dead peer from ever being polled faster than `backoff_min_ms`.
//! Without jitter the delay is the envelope itself.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBackoff, ExponentialBuilder};

/// Reconnect delay schedule of one connection.
#[derive(Debug)]
pub struct Backoff {
    builder: ExponentialBuilder,
    current: ExponentialBackoff,
    min: Duration,
    max: Duration,
    jitter: bool,
}

impl Backoff {
    /// A schedule from `min` to `max` (clamped so `max >= min`).
    pub fn new(min: Duration, max: Duration, jitter: bool) -> Self {
        let max = max.max(min);
        let builder = ExponentialBuilder::new()
            .with_min_delay(min)
            .with_max_delay(max)
            .with_factor(2.0)
            .without_max_times();
        Self {
            current: builder.build(),
            builder,
            min,
            max,
            jitter,
        }
    }

    /// The next delay.
    pub fn next_delay(&mut self) -> Duration {
        let envelope = self.current.next().unwrap_or(self.max).min(self.max);
        if !self.jitter || envelope <= self.min {
            return envelope;
        }
        let lo = u64::try_from(self.min.as_millis()).unwrap_or(u64::MAX);
        let hi = u64::try_from(envelope.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(rand::random_range(lo..=hi))
    }

    /// Starts over at `min` (after a successful connection).
    pub fn reset(&mut self) {
        self.current = self.builder.build();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_to_the_cap_and_resets() {
        let ms = Duration::from_millis;
        let mut b = Backoff::new(ms(500), ms(10_000), false);
        let got: Vec<_> = (0..8).map(|_| b.next_delay()).collect();
        assert_eq!(
            got,
            [500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000].map(ms)
        );
        b.reset();
        assert_eq!(b.next_delay(), ms(500));
    }

    #[test]
    fn jitter_stays_within_the_envelope() {
        let ms = Duration::from_millis;
        let mut b = Backoff::new(ms(500), ms(10_000), true);
        assert_eq!(b.next_delay(), ms(500));
        let mut envelope = 500;
        for _ in 0..20 {
            envelope = (envelope * 2).min(10_000);
            let d = b.next_delay();
            assert!(d >= ms(500) && d <= ms(envelope), "{d:?} > {envelope}");
        }
    }
}
