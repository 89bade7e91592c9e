//! The event hub: numbers, buffers and fans out inbound events per account.
//!
//! The adapter publishes every inbound event (and every connection state
//! change) here through [`EventSink`]. Per account the hub
//! - gives each event the next sequence number (1, 2, 3, … per process);
//! - keeps the newest `events.buffer_size` events in a ring buffer, so a
//!   subscriber that reconnects with `after_sequence` first gets what it
//!   missed, or [`Kind::EventGapTooOld`] (metadata `oldest_sequence`) when
//!   the gap is older than the buffer;
//! - fans out to live subscribers through a bounded broadcast channel: a
//!   subscriber that falls more than `buffer_size` events behind gets
//!   [`Kind::EventStreamLagged`] (metadata `last_sequence`, the last event it
//!   saw, to resume from), never silent loss.
//!
//! Streams end when the gateway shuts down (the hub's cancellation token).
//!
//! # Observing events from domain code
//! [`EventHub::observe`] registers a callback run synchronously for every
//! event of every account before it is numbered and fanned out (the member
//! cache uses it to invalidate on joins, leaves, card changes and
//! reconnects; a callback never lags or misses events). Callbacks must be
//! quick and must not block. [`EventHub::subscribe_all`] is the
//! asynchronous alternative: a broadcast of every numbered event.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::model::{ChatRef, InboundEvent};
use super::ports::EventSink;
use crate::error::{Error, Kind, Result};

/// A callback run for every published event: `(account_id, event)`.
pub type Observer = Arc<dyn Fn(&str, &InboundEvent) + Send + Sync>;

/// One numbered event.
#[derive(Debug, Clone)]
pub struct StoredEvent {
    /// The account that received it.
    pub account_id: Arc<str>,
    /// Per-account sequence number, from 1.
    pub sequence: u64,
    /// When the gateway received it, Unix milliseconds.
    pub received_ms: i64,
    /// The event.
    pub event: Arc<InboundEvent>,
}

/// Kinds of events, for filtering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A group or private message.
    Message,
    /// A poke notice.
    Poke,
    /// A member joined a group.
    MemberJoined,
    /// A member left a group.
    MemberLeft,
    /// A member's card changed.
    CardChanged,
    /// A lifecycle meta event or offline notice.
    Lifecycle,
    /// The gateway's connection changed state.
    Connection,
    /// Any other OneBot event.
    Unknown,
    /// A message was recalled.
    MessageRecalled,
}

impl EventKind {
    /// The kind of an event.
    pub fn of(event: &InboundEvent) -> EventKind {
        match event {
            InboundEvent::Message { .. } => EventKind::Message,
            InboundEvent::Poke { .. } => EventKind::Poke,
            InboundEvent::MemberJoined { .. } => EventKind::MemberJoined,
            InboundEvent::MemberLeft { .. } => EventKind::MemberLeft,
            InboundEvent::CardChanged { .. } => EventKind::CardChanged,
            InboundEvent::Lifecycle { .. } => EventKind::Lifecycle,
            InboundEvent::Connection { .. } => EventKind::Connection,
            InboundEvent::Unknown { .. } => EventKind::Unknown,
            InboundEvent::MessageRecalled { .. } => EventKind::MessageRecalled,
        }
    }
}

/// The chat an event belongs to, if any: messages and recalls their chat,
/// group notices their group, a private poke the poker; lifecycle and
/// connection events none; unknown events their `group_id` when they carry
/// one.
pub fn chat_of(event: &InboundEvent) -> Option<ChatRef> {
    match event {
        InboundEvent::Message { message, .. } => Some(message.chat),
        InboundEvent::Poke {
            group_id, user_id, ..
        } => Some(if *group_id != 0 {
            ChatRef::Group(*group_id)
        } else {
            ChatRef::Private(*user_id)
        }),
        InboundEvent::MemberJoined { group_id, .. }
        | InboundEvent::MemberLeft { group_id, .. }
        | InboundEvent::CardChanged { group_id, .. } => Some(ChatRef::Group(*group_id)),
        InboundEvent::Lifecycle { .. } | InboundEvent::Connection { .. } => None,
        InboundEvent::Unknown { group_id, .. } => group_id.map(ChatRef::Group),
        InboundEvent::MessageRecalled { chat, .. } => Some(*chat),
    }
}

/// Which events a subscriber wants. Empty sets mean "all".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Only events of these chats; events without a chat always pass.
    pub chats: HashSet<ChatRef>,
    /// Only these kinds.
    pub kinds: HashSet<EventKind>,
}

impl EventFilter {
    /// True when `event` passes.
    pub fn matches(&self, event: &InboundEvent) -> bool {
        if !self.kinds.is_empty() && !self.kinds.contains(&EventKind::of(event)) {
            return false;
        }
        if self.chats.is_empty() {
            return true;
        }
        chat_of(event).is_none_or(|chat| self.chats.contains(&chat))
    }
}

struct AccountLog {
    next: u64,
    ring: VecDeque<StoredEvent>,
    tx: broadcast::Sender<StoredEvent>,
}

/// Numbers, buffers and fans out inbound events; implements [`EventSink`].
pub struct EventHub {
    capacity: usize,
    logs: Mutex<HashMap<String, AccountLog>>,
    observers: RwLock<Vec<Observer>>,
    all: broadcast::Sender<StoredEvent>,
    shutdown: CancellationToken,
}

impl std::fmt::Debug for EventHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHub")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each critical section is a few pushes and pops: consistent even after
    // a panic elsewhere.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl EventHub {
    /// A hub keeping `buffer_size` events per account; every stream ends
    /// when `shutdown` fires.
    pub fn new(buffer_size: usize, shutdown: CancellationToken) -> Self {
        let capacity = buffer_size.max(1);
        Self {
            capacity,
            logs: Mutex::new(HashMap::new()),
            observers: RwLock::new(Vec::new()),
            all: broadcast::channel(capacity).0,
            shutdown,
        }
    }

    /// Registers a callback run synchronously for every event (see the
    /// module docs).
    pub fn observe(&self, observer: Observer) {
        self.observers
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .push(observer);
    }

    /// Every numbered event of every account, as a broadcast (lagging
    /// receivers get `RecvError::Lagged`).
    pub fn subscribe_all(&self) -> broadcast::Receiver<StoredEvent> {
        self.all.subscribe()
    }

    /// The sequence number of the newest event of `account_id` (0 before
    /// the first).
    pub fn last_sequence(&self, account_id: &str) -> u64 {
        lock(&self.logs)
            .get(account_id)
            .map_or(0, |log| log.next - 1)
    }

    /// Subscribes to `account_id`'s events matching `filter`: first the
    /// buffered events after `after_sequence` (if given), then live ones.
    ///
    /// Fails with `EventGapTooOld` when events after `after_sequence` have
    /// left the buffer, and with `InvalidRequest` (field `after_sequence`)
    /// when it is ahead of the newest event (e.g. from before a restart).
    pub fn subscribe(
        &self,
        account_id: &str,
        after_sequence: Option<u64>,
        filter: EventFilter,
    ) -> Result<Subscription> {
        let mut logs = lock(&self.logs);
        let log = logs
            .entry(account_id.to_string())
            .or_insert_with(|| self.new_log());
        let last = log.next - 1;
        let replay = match after_sequence {
            None => VecDeque::new(),
            Some(after) if after > last => {
                return Err(Error::invalid(
                    "after_sequence",
                    format!(
                        "after_sequence {after} is ahead of the newest event {last} of account {account_id:?}; the gateway may have restarted, resubscribe without it"
                    ),
                )
                .with("after_sequence", after)
                .with("last_sequence", last)
                .with("account_id", account_id));
            }
            Some(after) => {
                let oldest = log.ring.front().map_or(log.next, |e| e.sequence);
                if after.saturating_add(1) < oldest {
                    return Err(Error::new(
                        Kind::EventGapTooOld,
                        format!(
                            "events after {after} of account {account_id:?} are no longer buffered; the oldest is {oldest}"
                        ),
                    )
                    .with("oldest_sequence", oldest)
                    .with("after_sequence", after)
                    .with("account_id", account_id));
                }
                log.ring
                    .iter()
                    .filter(|e| e.sequence > after)
                    .cloned()
                    .collect()
            }
        };
        // Subscribing under the lock: the live stream starts exactly after
        // the replay, with no gap and no duplicate.
        Ok(Subscription {
            account_id: account_id.to_string(),
            replay,
            rx: log.tx.subscribe(),
            last: after_sequence.unwrap_or(last),
            filter,
            shutdown: self.shutdown.clone(),
            done: false,
        })
    }

    fn new_log(&self) -> AccountLog {
        AccountLog {
            next: 1,
            ring: VecDeque::with_capacity(self.capacity.min(1024)),
            tx: broadcast::channel(self.capacity).0,
        }
    }
}

impl EventSink for EventHub {
    fn publish(&self, account_id: &str, event: InboundEvent) {
        {
            let observers = self.observers.read().unwrap_or_else(|p| p.into_inner());
            for observer in observers.iter() {
                observer(account_id, &event);
            }
        }
        let stored = {
            let mut logs = lock(&self.logs);
            let log = logs
                .entry(account_id.to_string())
                .or_insert_with(|| self.new_log());
            let stored = StoredEvent {
                account_id: Arc::from(account_id),
                sequence: log.next,
                received_ms: jiff::Timestamp::now().as_millisecond(),
                event: Arc::new(event),
            };
            log.next += 1;
            if log.ring.len() == self.capacity {
                log.ring.pop_front();
            }
            log.ring.push_back(stored.clone());
            // No receiver is fine: the event stays in the ring.
            let _ = log.tx.send(stored.clone());
            stored
        };
        let _ = self.all.send(stored);
    }
}

/// One subscriber's stream of events.
#[derive(Debug)]
pub struct Subscription {
    account_id: String,
    replay: VecDeque<StoredEvent>,
    rx: broadcast::Receiver<StoredEvent>,
    last: u64,
    filter: EventFilter,
    shutdown: CancellationToken,
    done: bool,
}

impl Subscription {
    /// The sequence number of the last event this subscriber has passed
    /// (delivered or filtered out).
    pub fn last_sequence(&self) -> u64 {
        self.last
    }

    /// The next matching event; `None` when the gateway shuts down. After
    /// an error (the subscriber lagged) the stream is over.
    pub async fn next(&mut self) -> Option<Result<StoredEvent>> {
        if self.done {
            return None;
        }
        loop {
            let event = match self.replay.pop_front() {
                Some(e) => e,
                None => {
                    let received = tokio::select! {
                        biased;
                        _ = self.shutdown.cancelled() => None,
                        r = self.rx.recv() => Some(r),
                    };
                    match received {
                        None | Some(Err(broadcast::error::RecvError::Closed)) => {
                            self.done = true;
                            return None;
                        }
                        Some(Err(broadcast::error::RecvError::Lagged(missed))) => {
                            self.done = true;
                            return Some(Err(Error::new(
                                Kind::EventStreamLagged,
                                format!(
                                    "the subscriber fell {missed} events behind account {:?}; resubscribe with after_sequence {}",
                                    self.account_id, self.last
                                ),
                            )
                            .with("last_sequence", self.last)
                            .with("missed", missed)
                            .with("account_id", &self.account_id)));
                        }
                        Some(Ok(e)) => e,
                    }
                }
            };
            if event.sequence <= self.last {
                continue;
            }
            self.last = event.sequence;
            if self.filter.matches(&event.event) {
                return Some(Ok(event));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::domain::model::ConnState;

    fn poke(group_id: i64) -> InboundEvent {
        InboundEvent::Poke {
            group_id,
            user_id: 1,
            target_id: 2,
            time: 0,
        }
    }

    fn conn() -> InboundEvent {
        InboundEvent::Connection {
            state: ConnState::Connected,
            detail: String::new(),
        }
    }

    #[tokio::test]
    async fn numbers_per_account_and_fans_out() {
        let hub = EventHub::new(8, CancellationToken::new());
        let mut a1 = hub.subscribe("a", None, EventFilter::default()).unwrap();
        let mut a2 = hub.subscribe("a", None, EventFilter::default()).unwrap();
        hub.publish("a", poke(1));
        hub.publish("b", poke(1));
        hub.publish("a", poke(2));
        for sub in [&mut a1, &mut a2] {
            let first = sub.next().await.unwrap().unwrap();
            let second = sub.next().await.unwrap().unwrap();
            assert_eq!((first.sequence, second.sequence), (1, 2));
            assert_eq!(&*second.event, &poke(2));
        }
        assert_eq!(hub.last_sequence("b"), 1);
        assert_eq!(hub.last_sequence("c"), 0);
    }

    #[tokio::test]
    async fn resumes_from_the_buffer_or_reports_the_gap() {
        let hub = EventHub::new(3, CancellationToken::new());
        for g in 1..=5 {
            hub.publish("a", poke(g));
        }
        // Buffer holds 3, 4, 5.
        let mut sub = hub.subscribe("a", Some(2), EventFilter::default()).unwrap();
        let seqs = [
            sub.next().await.unwrap().unwrap().sequence,
            sub.next().await.unwrap().unwrap().sequence,
            sub.next().await.unwrap().unwrap().sequence,
        ];
        assert_eq!(seqs, [3, 4, 5]);
        hub.publish("a", poke(6));
        assert_eq!(sub.next().await.unwrap().unwrap().sequence, 6);

        let err = hub
            .subscribe("a", Some(1), EventFilter::default())
            .unwrap_err();
        assert_eq!(err.kind, Kind::EventGapTooOld);
        assert_eq!(err.meta("oldest_sequence"), Some("4"));
        let err = hub
            .subscribe("a", Some(99), EventFilter::default())
            .unwrap_err();
        assert_eq!(err.kind, Kind::InvalidRequest);
        assert_eq!(err.field.as_deref(), Some("after_sequence"));
        // Up to date: nothing to replay.
        let mut sub = hub.subscribe("a", Some(6), EventFilter::default()).unwrap();
        hub.publish("a", poke(7));
        assert_eq!(sub.next().await.unwrap().unwrap().sequence, 7);
    }

    #[tokio::test]
    async fn a_slow_subscriber_gets_an_error_not_silent_loss() {
        let hub = EventHub::new(2, CancellationToken::new());
        let mut sub = hub.subscribe("a", None, EventFilter::default()).unwrap();
        hub.publish("a", poke(1));
        assert_eq!(sub.next().await.unwrap().unwrap().sequence, 1);
        for g in 0..5 {
            hub.publish("a", poke(g));
        }
        let err = sub.next().await.unwrap().unwrap_err();
        assert_eq!(err.kind, Kind::EventStreamLagged);
        assert_eq!(err.meta("last_sequence"), Some("1"));
        assert!(sub.next().await.is_none(), "the stream is over");
    }

    #[tokio::test]
    async fn filters_by_chat_and_kind_and_ends_on_shutdown() {
        let cancel = CancellationToken::new();
        let hub = EventHub::new(16, cancel.clone());
        let filter = EventFilter {
            chats: [ChatRef::Group(7)].into_iter().collect(),
            kinds: HashSet::new(),
        };
        let mut sub = hub.subscribe("a", None, filter).unwrap();
        let kinds = EventFilter {
            chats: HashSet::new(),
            kinds: [EventKind::Connection].into_iter().collect(),
        };
        let mut only_conn = hub.subscribe("a", None, kinds).unwrap();
        hub.publish("a", poke(8));
        hub.publish("a", poke(7));
        hub.publish("a", conn());
        assert_eq!(&*sub.next().await.unwrap().unwrap().event, &poke(7));
        assert_eq!(&*sub.next().await.unwrap().unwrap().event, &conn());
        let c = only_conn.next().await.unwrap().unwrap();
        assert_eq!((c.sequence, only_conn.last_sequence()), (3, 3));
        cancel.cancel();
        assert!(sub.next().await.is_none());
    }

    #[tokio::test]
    async fn observers_see_every_event_synchronously() {
        let hub = EventHub::new(1, CancellationToken::new());
        let seen = Arc::new(AtomicUsize::new(0));
        let s = seen.clone();
        hub.observe(Arc::new(move |account, event| {
            if account == "a" && matches!(event, InboundEvent::Poke { .. }) {
                s.fetch_add(1, Ordering::SeqCst);
            }
        }));
        let mut all = hub.subscribe_all();
        for g in 0..10 {
            hub.publish("a", poke(g));
        }
        assert_eq!(seen.load(Ordering::SeqCst), 10);
        assert!(matches!(
            all.recv().await,
            Err(broadcast::error::RecvError::Lagged(9))
        ));
    }
}
