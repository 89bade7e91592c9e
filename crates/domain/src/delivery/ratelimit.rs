//! Send and poke rate limits (GCRA from crate `governor`).
//!
//! Time comes from tokio's clock ([`TokioClock`]), so paused-time tests
//! drive the limits deterministically. The state lives in [`Cells`], a
//! governor state store the account's sender can snapshot and restore: a
//! message needs a cell of its chat's limit (each group and each private
//! chat has its own) *and* of the account's, and
//! when only one of the two is available the other is rolled back instead
//! of being consumed by a message that is not sent.
//!
//! Only the account's sender task takes cells of a [`SendLimits`], so a
//! wait computed now is exact: cells only accumulate until it acts.

use std::collections::HashMap;
use std::hash::Hash;
use std::num::NonZeroU32;
use std::ops::Add;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, Reference};
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::StateStore;
use governor::{NotUntil, Quota, RateLimiter};
use parking_lot::Mutex;

use crate::model::ChatRef;

/// An instant of tokio's clock (paused in tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TokioInstant(tokio::time::Instant);

impl Add<Nanos> for TokioInstant {
    type Output = Self;

    fn add(self, other: Nanos) -> Self {
        Self(self.0 + Duration::from(other))
    }
}

impl Reference for TokioInstant {
    fn duration_since(&self, earlier: Self) -> Nanos {
        Nanos::from(self.0.saturating_duration_since(earlier.0))
    }

    fn saturating_sub(&self, duration: Nanos) -> Self {
        self.0
            .checked_sub(Duration::from(duration))
            .map_or(*self, Self)
    }
}

/// Governor clock over `tokio::time::Instant`.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioClock;

impl Clock for TokioClock {
    type Instant = TokioInstant;

    fn now(&self) -> TokioInstant {
        TokioInstant(tokio::time::Instant::now())
    }
}

/// A governor state store (one theoretical arrival time per key) that can
/// be snapshot and restored.
#[derive(Debug)]
pub struct Cells<K> {
    map: Mutex<HashMap<K, Nanos>>,
}

impl<K> Default for Cells<K> {
    fn default() -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Hash + Eq + Clone> Cells<K> {
    fn snapshot(&self, key: &K) -> Option<Nanos> {
        self.map.lock().get(key).copied()
    }

    fn restore(&self, key: &K, value: Option<Nanos>) {
        let mut map = self.map.lock();
        match value {
            Some(v) => map.insert(key.clone(), v),
            None => map.remove(key),
        };
    }
}

/// Shared handle to [`Cells`], the store a [`RateLimiter`] owns.
#[derive(Debug)]
pub struct SharedCells<K>(Arc<Cells<K>>);

impl<K: Hash + Eq + Clone> StateStore for SharedCells<K> {
    type Key = K;

    fn measure_and_replace<T, F, E>(&self, key: &K, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        let mut map = self.0.map.lock();
        let (out, next) = f(map.get(key).copied())?;
        map.insert(key.clone(), next);
        Ok(out)
    }
}

type Limiter<K> = RateLimiter<K, SharedCells<K>, TokioClock, NoOpMiddleware<TokioInstant>>;

/// One limit: a governor limiter plus its state handle.
#[derive(Debug)]
pub struct Limit<K: Hash + Eq + Clone> {
    limiter: Limiter<K>,
    cells: Arc<Cells<K>>,
    burst: u32,
    period: Duration,
}

impl<K: Hash + Eq + Clone> Limit<K> {
    /// `per_minute` cells a minute with bursts of `burst` (both at least 1).
    pub fn new(per_minute: u32, burst: u32) -> Self {
        let per_minute = NonZeroU32::new(per_minute.max(1)).unwrap_or(NonZeroU32::MIN);
        let burst = NonZeroU32::new(burst.max(1)).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::per_minute(per_minute).allow_burst(burst);
        let cells = Arc::new(Cells::default());
        Self {
            limiter: RateLimiter::new(quota, SharedCells(cells.clone()), TokioClock),
            cells,
            burst: burst.get(),
            period: quota.replenish_interval(),
        }
    }

    /// The burst size.
    pub fn burst(&self) -> u32 {
        self.burst
    }

    /// Time between two cells at the sustained rate.
    pub fn period(&self) -> Duration {
        self.period
    }

    fn wait(&self, not_until: &NotUntil<TokioInstant>) -> Duration {
        not_until
            .wait_time_from(TokioClock.now())
            .max(Duration::from_millis(1))
    }

    /// Takes `n` (1..=burst) cells of `key` now, or says how long until
    /// they are all available (nothing taken).
    pub fn try_take(&self, key: &K, n: u32) -> Result<(), Duration> {
        let Some(n) = NonZeroU32::new(n.min(self.burst)) else {
            return Ok(());
        };
        match self.limiter.check_key_n(key, n) {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(not_until)) => Err(self.wait(&not_until)),
            // n is clamped to the burst, so capacity always suffices.
            Err(_) => Err(self.period),
        }
    }

    /// Waits until one cell of `key` is available and takes it.
    pub async fn take_one(&self, key: &K) {
        loop {
            match self.limiter.check_key(key) {
                Ok(_) => return,
                Err(not_until) => tokio::time::sleep(self.wait(&not_until)).await,
            }
        }
    }
}

/// Per-chat (each group, each private chat) and per-account send limits
/// of one account.
#[derive(Debug)]
pub struct SendLimits {
    chat: Limit<ChatRef>,
    account: Limit<()>,
}

/// Which limit made a send wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The group's limit.
    Group,
    /// The private chat's limit.
    User,
    /// The account's limit.
    Account,
}

impl Scope {
    /// `group`, `user` or `account`.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Group => "group",
            Scope::User => "user",
            Scope::Account => "account",
        }
    }

    /// The scope of `chat`'s own limit.
    fn of(chat: ChatRef) -> Scope {
        match chat {
            ChatRef::Group(_) => Scope::Group,
            ChatRef::Private(_) => Scope::User,
        }
    }
}

impl SendLimits {
    /// Limits from the account's `rate_*` settings: the group rates apply
    /// to every group and to every private chat, each with its own cells.
    pub fn new(
        group_per_minute: u32,
        group_burst: u32,
        account_per_minute: u32,
        account_burst: u32,
    ) -> Self {
        Self {
            chat: Limit::new(group_per_minute, group_burst),
            account: Limit::new(account_per_minute, account_burst),
        }
    }

    /// Tries to take, for a request of `n` messages to `chat`, the cells of
    /// its first messages (up to each limit's burst) from both limits at
    /// once. On failure nothing is taken and the wait (with the limit that
    /// imposes it) is returned.
    pub fn try_reserve(&self, chat: ChatRef, n: u32) -> Result<(), (Duration, Scope)> {
        let before = self.chat.cells.snapshot(&chat);
        if let Err(wait) = self.chat.try_take(&chat, n) {
            let account = self.account.try_take_peek(n);
            return Err(match account {
                Some(a) if a > wait => (a, Scope::Account),
                _ => (wait, Scope::of(chat)),
            });
        }
        if let Err(wait) = self.account.try_take(&(), n) {
            self.chat.cells.restore(&chat, before);
            return Err((wait, Scope::Account));
        }
        Ok(())
    }

    /// How long the messages of a request of `n` to `chat` beyond the
    /// reserved bursts take at the sustained rates.
    pub fn pacing(&self, chat: ChatRef, n: u32) -> (Duration, Scope) {
        let over = |burst: u32, period: Duration| period * n.saturating_sub(burst);
        let own = over(self.chat.burst, self.chat.period);
        let account = over(self.account.burst, self.account.period);
        if account > own {
            (account, Scope::Account)
        } else {
            (own, Scope::of(chat))
        }
    }

    /// Before message `index` (0-based) of a request to `chat`: waits for
    /// and takes the cells the reservation did not cover.
    pub async fn pace(&self, chat: ChatRef, index: u32) {
        if index >= self.chat.burst {
            self.chat.take_one(&chat).await;
        }
        if index >= self.account.burst {
            self.account.take_one(&()).await;
        }
    }
}

impl Limit<()> {
    /// How long until `n` cells are available, without taking any.
    fn try_take_peek(&self, n: u32) -> Option<Duration> {
        let before = self.cells.snapshot(&());
        match self.try_take(&(), n) {
            Ok(()) => {
                self.cells.restore(&(), before);
                None
            }
            Err(wait) => Some(wait),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn burst_then_sustained_rate() {
        let l = Limit::<i64>::new(20, 5);
        assert_eq!(l.period(), Duration::from_secs(3));
        for _ in 0..5 {
            assert!(l.try_take(&1, 1).is_ok());
        }
        let wait = l.try_take(&1, 1).unwrap_err();
        assert_eq!(wait, Duration::from_secs(3));
        // Other keys have their own cells.
        assert!(l.try_take(&2, 5).is_ok());
        tokio::time::advance(Duration::from_secs(3)).await;
        assert!(l.try_take(&1, 1).is_ok());
        assert!(l.try_take(&1, 1).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn reservation_is_all_or_nothing() {
        let limits = SendLimits::new(20, 5, 60, 3);
        let g = ChatRef::Group(7);
        // The account's burst (3) is the smaller one.
        assert!(limits.try_reserve(g, 3).is_ok());
        let (wait, scope) = limits.try_reserve(g, 1).unwrap_err();
        assert_eq!(scope, Scope::Account);
        assert_eq!(wait, Duration::from_secs(1));
        // The refused reservation did not take a group cell: after 3 s the
        // group has 5 - 3 + 1 cells and the account 3.
        tokio::time::advance(Duration::from_secs(3)).await;
        assert!(limits.try_reserve(g, 3).is_ok());
        // The group is now empty (3 s per cell).
        let (wait, scope) = limits.try_reserve(g, 1).unwrap_err();
        assert_eq!(scope, Scope::Group);
        assert_eq!(wait, Duration::from_secs(3));
    }

    #[tokio::test(start_paused = true)]
    async fn each_private_chat_has_its_own_bucket() {
        let limits = SendLimits::new(20, 2, 60, 10);
        let (a, b) = (ChatRef::Private(1), ChatRef::Private(2));
        assert!(limits.try_reserve(a, 2).is_ok());
        let (wait, scope) = limits.try_reserve(a, 1).unwrap_err();
        assert_eq!((wait, scope.name()), (Duration::from_secs(3), "user"));
        // Another user, and a group of the same number, are not affected.
        assert!(limits.try_reserve(b, 2).is_ok());
        assert!(limits.try_reserve(ChatRef::Group(1), 2).is_ok());
        assert_eq!(limits.pacing(a, 3), (Duration::from_secs(3), Scope::User));
    }

    #[tokio::test(start_paused = true)]
    async fn pacing_beyond_the_burst() {
        let limits = SendLimits::new(20, 5, 60, 10);
        let g = ChatRef::Group(1);
        assert_eq!(limits.pacing(g, 5).0, Duration::ZERO);
        assert_eq!(limits.pacing(g, 7), (Duration::from_secs(6), Scope::Group));
        assert_eq!(
            SendLimits::new(60, 10, 6, 1).pacing(g, 3),
            (Duration::from_secs(20), Scope::Account)
        );
        assert!(limits.try_reserve(g, 7).is_ok());
        let start = tokio::time::Instant::now();
        for i in 0..7 {
            limits.pace(g, i).await;
        }
        assert_eq!(start.elapsed(), Duration::from_secs(6));
    }
}
