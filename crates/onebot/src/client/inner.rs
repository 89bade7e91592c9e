//! The state one account's adapter shares between its tasks: settings, the
//! status watch, the current routes, the seq cache and the echo counter.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::flavor::Flavor;
use crate::history::SeqCache;
use crate::history::probe::Marks;
use crate::history::profile::Learned;
use crate::transport::http::HttpTransport;
use crate::transport::reverse::ClientRole;
use crate::transport::ws::Link;
use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::backoff::Backoff;
use onebot_gateway_domain::lease::Gate;
use onebot_gateway_domain::model::AccountStatus;
use onebot_gateway_domain::ports::EventSink;

/// The status detail (and last error) of an account while its gate is
/// closed.
pub(crate) use onebot_gateway_domain::lease::STANDBY;

/// Who drives an account's state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The forward WebSocket (we dial `ws_url`).
    Forward,
    /// The reverse WebSocket (the implementation dials us).
    Reverse,
    /// HTTP alone.
    Http,
}

/// The transports that can carry an action right now.
pub(crate) struct Routes {
    /// The WebSocket link, when one is up.
    pub(crate) link: Option<Arc<Link>>,
    /// The last HTTP probe succeeded.
    pub(crate) http_ok: bool,
}

/// One account's shared adapter state.
pub(crate) struct Inner {
    pub(crate) id: String,
    pub(crate) cfg: AccountConfig,
    pub(crate) flavor_setting: Option<Flavor>,
    pub(crate) owner: Owner,
    pub(crate) status: watch::Sender<AccountStatus>,
    pub(crate) routes: Mutex<Routes>,
    pub(crate) http: Option<Arc<HttpTransport>>,
    /// Notified when HTTP should be probed again at once.
    pub(crate) http_check: Notify,
    pub(crate) seqs: Mutex<SeqCache>,
    /// What is known of messages seen, for anchors and judging pages.
    pub(crate) marks: Mutex<Marks>,
    /// How the peer pages its history, as learned so far.
    pub(crate) learned: Mutex<Learned>,
    pub(crate) sink: Arc<dyn EventSink>,
    pub(crate) echo: AtomicU64,
    pub(crate) retry_at: Mutex<Option<Instant>>,
    pub(crate) cancel: CancellationToken,
    /// The flavor in use, for the status's profile and every call.
    pub(crate) flavor: Mutex<Option<Flavor>>,
    /// Reverse connections attached: the action link (Universal or API)
    /// and the events-only one. One of each at a time: a second one is
    /// refused while the first lives, never a takeover.
    pub(crate) reverse_attached: ReverseSlots,
    /// Event frames above this many bytes are dropped undecoded.
    pub(crate) max_event_bytes: usize,
    /// Open while this gateway may connect to the implementation.
    pub(crate) gate: Gate,
}

/// The reverse connections of an account, by kind.
#[derive(Debug, Default)]
pub(crate) struct ReverseSlots {
    actions: AtomicBool,
    events: AtomicBool,
}

impl ReverseSlots {
    fn slot(&self, role: ClientRole) -> &AtomicBool {
        match role {
            ClientRole::Universal | ClientRole::Api => &self.actions,
            ClientRole::Event => &self.events,
        }
    }

    /// True while a connection of `role`'s kind is attached.
    pub(crate) fn taken(&self, role: ClientRole) -> bool {
        self.slot(role).load(Ordering::Acquire)
    }

    /// Takes the slot of `role`'s kind until the guard is dropped; `None`
    /// while another connection holds it.
    pub(crate) fn take(&self, role: ClientRole) -> Option<SlotGuard<'_>> {
        let slot = self.slot(role);
        (!slot.swap(true, Ordering::AcqRel)).then_some(SlotGuard(slot))
    }
}

/// Frees a reverse slot when dropped.
pub(crate) struct SlotGuard<'a>(&'a AtomicBool);

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Locks `m`. Every critical section is a few field updates: a panic cannot
/// leave them half-done, so a poisoned lock is still consistent.
impl Inner {
    /// The flavor calls are made with (the generic one until detected).
    pub(crate) fn flavor(&self) -> Flavor {
        self.flavor.lock().unwrap_or_default()
    }

    /// The flavor identification calls are classified with: the configured
    /// one, else generic.
    pub(crate) fn setting_flavor(&self) -> Flavor {
        match self.flavor_setting {
            Some(f) => f,
            None => Flavor::Generic,
        }
    }

    /// A fresh echo.
    pub(crate) fn next_echo(&self) -> String {
        self.echo.fetch_add(1, Ordering::Relaxed).to_string()
    }

    /// The reconnect schedule of this account.
    pub(crate) fn backoff(&self) -> Backoff {
        Backoff::new(
            Duration::from_millis(self.cfg.backoff_min_ms),
            Duration::from_millis(self.cfg.backoff_max_ms),
            self.cfg.backoff_jitter,
        )
    }

    /// Sleeps `d`; false when shutdown came first.
    pub(crate) async fn sleep(&self, d: Duration) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(d) => true,
            _ = self.cancel.cancelled() => false,
        }
    }

    /// Remembers when the next reconnect attempt is due (the retry hint of
    /// offline errors).
    pub(crate) fn set_retry_in(&self, delay: Duration) {
        *self.retry_at.lock() = Some(Instant::now() + delay);
    }

    /// How long until the next reconnect attempt, at least `backoff_min_ms`.
    pub(crate) fn retry_hint(&self) -> Duration {
        let min = Duration::from_millis(self.cfg.backoff_min_ms);
        self.retry_at
            .lock()
            .map(|at| at.saturating_duration_since(Instant::now()))
            .filter(|d| *d >= min)
            .unwrap_or(min)
    }
}
