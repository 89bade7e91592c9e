//! Reconnect delays: exponential from `backoff_min_ms` to `backoff_max_ms`
//! (doubling, from `backon`), with full jitter over that envelope: each
//! delay drawn from `[min, envelope]`, never below `min`. Without jitter
//! the delay is the envelope itself.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBackoff, ExponentialBuilder};

/// The reconnect delay schedule of one connection.
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

    /// Starts over at `min` (after a connection that was up).
    pub fn reset(&mut self) {
        self.current = self.builder.build();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_to_the_cap_resets_and_jitters_within_the_envelope() {
        let ms = Duration::from_millis;
        let mut b = Backoff::new(ms(500), ms(4000), false);
        let got: Vec<_> = (0..5).map(|_| b.next_delay()).collect();
        assert_eq!(got, [500, 1000, 2000, 4000, 4000].map(ms));
        b.reset();
        assert_eq!(b.next_delay(), ms(500));
        let mut j = Backoff::new(ms(500), ms(4000), true);
        for envelope in [500, 1000, 2000, 4000, 4000] {
            let d = j.next_delay();
            assert!(d >= ms(500) && d <= ms(envelope), "{d:?}");
        }
    }
}
