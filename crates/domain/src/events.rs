//! The event hub: numbers, buffers and fans out inbound events per account.
//!
//! The adapter publishes every inbound event (and every connection state
//! change) here through [`EventSink`]. Per account the hub
//! - gives each event the next sequence number (1, 2, 3, …); with a
//!   [`Journal`] ([`EventHub::durable`]) the numbers continue across
//!   restarts, and an event is delivered only once the journal has
//!   committed it (group commit: a burst shares one commit), so every
//!   event a subscriber ever saw is still there after a crash;
//! - keeps the newest `events.buffer_size` events in a ring buffer, at most
//!   `events.buffer_bytes` of them by [`StoredEvent::footprint`] (the newest
//!   event always stays; the journal's reload at start obeys the same
//!   bounds), so a subscriber that reconnects with
//!   `after_sequence`, even across a gateway restart, first gets what it
//!   missed, or [`Kind::EventGapTooOld`] (metadata `oldest_sequence`) when
//!   the gap is older than the buffer;
//! - fans out to live subscribers from that same buffer: a subscriber reads
//!   the events after the last one it passed, woken by a watch of the
//!   newest sequence number, so a stalled subscriber holds no events of its
//!   own and the buffer's bounds are all the memory events take. A
//!   subscriber whose next event has left the buffer gets
//!   [`Kind::EventStreamLagged`] (metadata `last_sequence`, the last event
//!   it saw, to resume from), never silent loss.
//!
//! Streams end when the gateway shuts down (the hub's cancellation token).
//!
//! # Observing events from domain code
//! [`EventHub::observe`] registers a callback run synchronously for every
//! event of every account before it is numbered and fanned out (the member
//! cache uses it to invalidate on joins, leaves, card changes and
//! reconnects; a callback never lags or misses events). Callbacks must be
//! quick and must not block.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::task::Poll;

use parking_lot::{Mutex, RwLock};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use super::journal::StoredEvent;
use super::journal::{EventJournal, Journal, JournalOptions};
use super::model::{ChatRef, InboundEvent};
use super::ports::EventSink;
use crate::error::{Error, Kind, Result};

/// A callback run for every published event: `(account_id, event)`.
pub type Observer = Arc<dyn Fn(&str, &InboundEvent) + Send + Sync>;

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
    /// An approval changed state.
    Approval,
    /// An emoji reaction was added or removed.
    Reaction,
    /// A message was marked or unmarked as essence.
    Essence,
    /// A member or the whole group was muted or unmuted.
    Mute,
    /// A member was made or stopped being an admin.
    AdminChanged,
    /// A file was uploaded to a group's files.
    GroupFileUploaded,
    /// A group's name changed.
    GroupNameChanged,
}

impl EventKind {
    /// The lower-case name (`message`, `member_joined`, …), as event sinks
    /// put it in subjects.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Message => "message",
            EventKind::Poke => "poke",
            EventKind::MemberJoined => "member_joined",
            EventKind::MemberLeft => "member_left",
            EventKind::CardChanged => "card_changed",
            EventKind::Lifecycle => "lifecycle",
            EventKind::Connection => "connection",
            EventKind::Unknown => "unknown",
            EventKind::MessageRecalled => "message_recalled",
            EventKind::Approval => "approval",
            EventKind::Reaction => "reaction",
            EventKind::Essence => "essence",
            EventKind::Mute => "mute",
            EventKind::AdminChanged => "admin_changed",
            EventKind::GroupFileUploaded => "group_file_uploaded",
            EventKind::GroupNameChanged => "group_name_changed",
        }
    }

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
            InboundEvent::Approval(_) => EventKind::Approval,
            InboundEvent::Reaction { .. } => EventKind::Reaction,
            InboundEvent::Essence { .. } => EventKind::Essence,
            InboundEvent::Mute { .. } => EventKind::Mute,
            InboundEvent::AdminChanged { .. } => EventKind::AdminChanged,
            InboundEvent::GroupFileUploaded { .. } => EventKind::GroupFileUploaded,
            InboundEvent::GroupNameChanged { .. } => EventKind::GroupNameChanged,
        }
    }
}

/// The chat an event belongs to, if any: messages and recalls their chat,
/// group notices their group, a private poke the poker, approvals the held
/// action's chat; lifecycle and
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
        | InboundEvent::CardChanged { group_id, .. }
        | InboundEvent::Reaction { group_id, .. }
        | InboundEvent::Essence { group_id, .. }
        | InboundEvent::Mute { group_id, .. }
        | InboundEvent::AdminChanged { group_id, .. }
        | InboundEvent::GroupFileUploaded { group_id, .. }
        | InboundEvent::GroupNameChanged { group_id, .. } => Some(ChatRef::Group(*group_id)),
        InboundEvent::Lifecycle { .. } | InboundEvent::Connection { .. } => None,
        InboundEvent::Unknown { group_id, .. } => group_id.map(ChatRef::Group),
        InboundEvent::MessageRecalled { chat, .. } => Some(*chat),
        InboundEvent::Approval(r) => {
            onebot_gateway_config::parse_chat(&r.chat).map(|(kind, id)| {
                if kind == "group" {
                    ChatRef::Group(id)
                } else {
                    ChatRef::Private(id)
                }
            })
        }
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
    /// The last sequence number delivered.
    last: u64,
    ring: VecDeque<StoredEvent>,
    /// The footprints of the events in `ring`, added up.
    bytes: usize,
}

impl AccountLog {
    /// Appends `event` to the ring, then drops the oldest events while more
    /// than `capacity` or more than `max_bytes` are held (never the newest).
    fn push(&mut self, event: StoredEvent, capacity: usize, max_bytes: usize) {
        self.bytes = self.bytes.saturating_add(event.footprint());
        self.ring.push_back(event);
        while self.ring.len() > 1 && (self.ring.len() > capacity || self.bytes > max_bytes) {
            if let Some(old) = self.ring.pop_front() {
                self.bytes = self.bytes.saturating_sub(old.footprint());
            }
        }
    }
}

/// One account's buffer and the watch its subscribers wait on (the newest
/// sequence number).
struct Account {
    log: Mutex<AccountLog>,
    newest: watch::Sender<u64>,
}

impl Account {
    fn new(log: AccountLog) -> Arc<Account> {
        let newest = watch::Sender::new(log.last);
        Arc::new(Account {
            log: Mutex::new(log),
            newest,
        })
    }
}

/// Most events a subscriber takes from the buffer at a time.
const BATCH_EVENTS: usize = 64;
/// Most bytes of events (by [`StoredEvent::footprint`]) a subscriber takes
/// from the buffer at a time; at least one event is always taken.
const BATCH_BYTES: usize = 1 << 20;

/// Numbers, buffers and fans out inbound events; implements [`EventSink`].
pub struct EventHub {
    capacity: usize,
    /// Most bytes of events in one account's ring.
    max_bytes: usize,
    logs: Mutex<HashMap<String, Arc<Account>>>,
    /// The next sequence number to give, per account. A lock of its own:
    /// a publisher waiting for room in the journal never holds up delivery.
    next: Mutex<HashMap<String, u64>>,
    observers: RwLock<Vec<Observer>>,
    shutdown: CancellationToken,
    journal: Option<Journal>,
}

impl std::fmt::Debug for EventHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventHub")
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl EventHub {
    /// A hub keeping `buffer_size` events per account in memory only
    /// (numbers start at 1 in every process); every stream ends when
    /// `shutdown` fires.
    pub fn new(buffer_size: usize, shutdown: CancellationToken) -> Self {
        Self::bounded(buffer_size, usize::MAX, shutdown)
    }

    /// [`new`](Self::new) keeping at most `buffer_bytes` of events per
    /// account as well.
    pub fn bounded(buffer_size: usize, buffer_bytes: usize, shutdown: CancellationToken) -> Self {
        let capacity = buffer_size.max(1);
        Self {
            capacity,
            max_bytes: buffer_bytes,
            logs: Mutex::new(HashMap::new()),
            next: Mutex::new(HashMap::new()),
            observers: RwLock::new(Vec::new()),
            shutdown,
            journal: None,
        }
    }

    /// A hub whose events go through the journal in `store` before they are
    /// delivered: the resume buffer and the sequence numbers are reloaded
    /// from it, and numbering continues where the last process stopped.
    /// `archived`: an archive takes the journal's entries (see
    /// [`JournalOptions`]); `stop` ends the journal's writer.
    pub fn durable(
        buffer_size: usize,
        buffer_bytes: usize,
        shutdown: CancellationToken,
        stop: CancellationToken,
        store: Arc<dyn EventJournal>,
        archived: bool,
    ) -> Result<Arc<Self>> {
        let capacity = buffer_size.max(1);
        let state = store.open(capacity, buffer_bytes)?;
        let mut logs = HashMap::new();
        let mut next = HashMap::new();
        for (account, last) in &state.last_sequences {
            let mut log = AccountLog {
                last: *last,
                ring: VecDeque::with_capacity(capacity.min(1024)),
                bytes: 0,
            };
            for e in state
                .recent
                .iter()
                .filter(|e| &*e.account_id == account.as_str())
            {
                log.push(e.clone(), capacity, buffer_bytes);
            }
            logs.insert(account.clone(), Account::new(log));
            next.insert(account.clone(), last + 1);
        }
        let options = JournalOptions {
            keep_per_account: capacity,
            archived,
            checkpoint_delay: super::journal::CHECKPOINT_DELAY,
        };
        let mut failed = None;
        let hub = Arc::new_cyclic(|weak: &std::sync::Weak<EventHub>| {
            let weak = weak.clone();
            let deliver = Box::new(move |events: Vec<StoredEvent>| {
                if let Some(hub) = weak.upgrade() {
                    hub.deliver(events);
                }
            });
            let journal = match Journal::start(store, &state, options, deliver, stop) {
                Ok(j) => Some(j),
                Err(e) => {
                    failed = Some(e);
                    None
                }
            };
            EventHub {
                capacity,
                max_bytes: buffer_bytes,
                logs: Mutex::new(logs),
                next: Mutex::new(next),
                observers: RwLock::new(Vec::new()),
                shutdown,
                journal,
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(hub),
        }
    }

    /// The journal events go through, when the hub is durable.
    pub fn journal(&self) -> Option<&Journal> {
        self.journal.as_ref()
    }

    /// Continues `account_id` from what its shared journal holds now (under
    /// `[ha]`, when this gateway comes to lead it): its sequence numbers go
    /// on after the former leader's last event, and the resume buffer is
    /// that leader's newest events, so an `after_sequence` from it resumes
    /// here. Nothing changes when the journal is this gateway's alone.
    pub async fn take_over(&self, account_id: &str) -> Result<()> {
        let Some(journal) = &self.journal else {
            return Ok(());
        };
        let store = journal.store().clone();
        let (account, keep, max_bytes) = (account_id.to_owned(), self.capacity, self.max_bytes);
        let reloaded =
            crate::store::blocking(move || store.reload(&account, keep, max_bytes)).await?;
        let Some((last, events)) = reloaded else {
            return Ok(());
        };
        // Under the numbering lock: nothing of the account is numbered
        // from the old state meanwhile.
        let mut next = self.next.lock();
        next.insert(account_id.to_owned(), last + 1);
        let account = self.account(account_id);
        let mut log = account.log.lock();
        log.last = last;
        log.ring.clear();
        log.bytes = 0;
        for e in events {
            log.push(e, self.capacity, self.max_bytes);
        }
        drop(log);
        account.newest.send_replace(last);
        drop(next);
        tracing::info!(
            account_id,
            last_sequence = last,
            "events continue from the shared journal"
        );
        Ok(())
    }

    /// Registers a callback run synchronously for every event (see the
    /// module docs).
    pub fn observe(&self, observer: Observer) {
        self.observers.write().push(observer);
    }

    /// The sequence number of the newest event of `account_id` (0 before
    /// the first).
    pub fn last_sequence(&self, account_id: &str) -> u64 {
        let account = self.logs.lock().get(account_id).cloned();
        account.map_or(0, |account| account.log.lock().last)
    }

    /// True when a buffered event of `account_id` satisfies `pred` (the
    /// buffer holds the newest `events.buffer_size` events).
    pub fn any_buffered(&self, account_id: &str, pred: impl Fn(&StoredEvent) -> bool) -> bool {
        let account = self.logs.lock().get(account_id).cloned();
        account.is_some_and(|account| account.log.lock().ring.iter().any(pred))
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
        let account = self.account(account_id);
        let log = account.log.lock();
        let last = log.last;
        if let Some(after) = after_sequence {
            if after > last {
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
            let oldest = log.ring.front().map_or(last + 1, |e| e.sequence);
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
        }
        drop(log);
        // The watch is taken after the checks: the buffer holds every event
        // after the start, and any later one wakes the subscriber.
        let newest = account.newest.subscribe();
        Ok(Subscription {
            account_id: account_id.to_string(),
            account,
            newest,
            batch: VecDeque::new(),
            last: after_sequence.unwrap_or(last),
            filter,
            shutdown: self.shutdown.clone(),
            done: false,
        })
    }

    /// The buffer of `account_id`, made empty on first use.
    fn account(&self, account_id: &str) -> Arc<Account> {
        let mut logs = self.logs.lock();
        if let Some(account) = logs.get(account_id) {
            return account.clone();
        }
        logs.entry(account_id.to_string())
            .or_insert_with(|| Account::new(self.new_log()))
            .clone()
    }

    fn new_log(&self) -> AccountLog {
        AccountLog {
            last: 0,
            ring: VecDeque::with_capacity(self.capacity.min(1024)),
            bytes: 0,
        }
    }

    /// Numbers an event of `account_id`.
    fn number(
        next: &mut HashMap<String, u64>,
        account_id: &str,
        event: InboundEvent,
    ) -> StoredEvent {
        let slot = match next.get_mut(account_id) {
            Some(slot) => slot,
            None => next.entry(account_id.to_string()).or_insert(1),
        };
        let stored = StoredEvent::new(
            Arc::from(account_id),
            *slot,
            jiff::Timestamp::now().as_millisecond(),
            Arc::new(event),
        );
        *slot += 1;
        stored
    }

    /// Puts numbered events in their buffers, in order, then wakes the
    /// subscribers of each account once.
    fn deliver(&self, events: Vec<StoredEvent>) {
        let mut woken: Vec<(Arc<Account>, u64)> = Vec::new();
        for stored in events {
            let account = self.account(&stored.account_id);
            let sequence = stored.sequence;
            {
                let mut log = account.log.lock();
                log.last = sequence;
                log.push(stored, self.capacity, self.max_bytes);
            }
            match woken.iter_mut().find(|(a, _)| Arc::ptr_eq(a, &account)) {
                Some(slot) => slot.1 = sequence,
                None => woken.push((account, sequence)),
            }
        }
        for (account, sequence) in woken {
            account.newest.send_replace(sequence);
        }
    }
}

impl EventSink for EventHub {
    fn publish(&self, account_id: &str, event: InboundEvent) {
        {
            let observers = self.observers.read();
            for observer in observers.iter() {
                observer(account_id, &event);
            }
        }
        let mut next = self.next.lock();
        let stored = Self::number(&mut next, account_id, event);
        match &self.journal {
            // Submitted under the numbering lock: the journal commits (and
            // delivers) in sequence order.
            Some(journal) => journal.submit_event(stored),
            // Delivered under the numbering lock too: in order.
            None => self.deliver(vec![stored]),
        }
        drop(next);
    }
}

/// One subscriber's stream of events: it reads its account's buffer after
/// the last event it passed.
pub struct Subscription {
    account_id: String,
    account: Arc<Account>,
    newest: watch::Receiver<u64>,
    /// Events taken from the buffer and not yet returned.
    batch: VecDeque<StoredEvent>,
    last: u64,
    filter: EventFilter,
    shutdown: CancellationToken,
    done: bool,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("account_id", &self.account_id)
            .field("last", &self.last)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// The sequence number of the last event this subscriber has passed
    /// (delivered or filtered out).
    pub fn last_sequence(&self) -> u64 {
        self.last
    }

    /// The next matching event; `None` when the gateway shuts down. After
    /// an error (the subscriber lagged) the stream is over. Cancel-safe: an
    /// event taken from the buffer is returned in the same poll.
    pub async fn next(&mut self) -> Option<Result<StoredEvent>> {
        loop {
            // Seen before the buffer is read: an event delivered after the
            // read changes the watch and wakes the wait below.
            self.newest.borrow_and_update();
            if let Poll::Ready(item) = self.try_next() {
                return item;
            }
            let woken = tokio::select! {
                biased;
                _ = self.shutdown.cancelled() => false,
                r = self.newest.changed() => r.is_ok(),
            };
            if !woken {
                self.done = true;
                return None;
            }
        }
    }

    /// What [`Subscription::next`] returns when it needs no wait: an event
    /// already buffered (or the end, or the lag error); `Pending` when the
    /// buffer holds nothing matching yet. A busy stream takes its events
    /// here without arming the shutdown or watch wake-ups per event.
    pub fn try_next(&mut self) -> Poll<Option<Result<StoredEvent>>> {
        if self.done {
            return Poll::Ready(None);
        }
        if self.shutdown.is_cancelled() {
            self.done = true;
            return Poll::Ready(None);
        }
        loop {
            let event = match self.batch.pop_front() {
                Some(e) => e,
                None => match self.refill() {
                    Ok(true) => continue,
                    Ok(false) => return Poll::Pending,
                    Err(e) => return Poll::Ready(Some(Err(e))),
                },
            };
            if let Some(event) = self.pass(event) {
                return Poll::Ready(Some(Ok(event)));
            }
        }
    }

    /// Takes the next events after `last` from the buffer (at most
    /// [`BATCH_EVENTS`] and [`BATCH_BYTES`]); false when there are none yet,
    /// the lag error when the next one has left the buffer.
    fn refill(&mut self) -> Result<bool> {
        let log = self.account.log.lock();
        if log.last <= self.last {
            return Ok(false);
        }
        let oldest = log.ring.front().map_or(log.last + 1, |e| e.sequence);
        if oldest > self.last + 1 {
            let missed = oldest - self.last - 1;
            drop(log);
            return Err(self.lagged(missed));
        }
        // The buffer's sequence numbers are consecutive.
        let start = usize::try_from(self.last + 1 - oldest).unwrap_or(usize::MAX);
        let mut bytes = 0usize;
        for e in log.ring.iter().skip(start).take(BATCH_EVENTS) {
            if !self.batch.is_empty() && bytes >= BATCH_BYTES {
                break;
            }
            bytes = bytes.saturating_add(e.footprint());
            self.batch.push_back(e.clone());
        }
        Ok(!self.batch.is_empty())
    }

    /// `event` when it is new to this subscriber and matches its filter;
    /// either way its sequence number is passed.
    fn pass(&mut self, event: StoredEvent) -> Option<StoredEvent> {
        if event.sequence <= self.last {
            return None;
        }
        self.last = event.sequence;
        self.filter.matches(&event.event).then_some(event)
    }

    /// Ends the stream with the lag error: the `missed` events after the
    /// last one it passed left the buffer before this subscriber read them.
    fn lagged(&mut self, missed: u64) -> Error {
        self.done = true;
        self.batch.clear();
        Error::new(
            Kind::EventStreamLagged,
            format!(
                "the subscriber fell {missed} events behind account {:?}; resubscribe with after_sequence {}",
                self.account_id, self.last
            ),
        )
        .with("last_sequence", self.last)
        .with("missed", missed)
        .with("account_id", &self.account_id)
    }
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
