//! The event path between the adapters and the event hub.
//!
//! Adapters publish here ([`EventSink`]); per account, in arrival order,
//! - every message is remembered for later quotes, and a message that
//!   quotes another gets the quoted message filled in ([`Quotes`]: the
//!   cache, else the peer within the resolver's time budget), then its
//!   mentions (and those of what it quotes) get their names ([`Mentions`]:
//!   the senders, the member cache, else the group's member list within the
//!   namer's time budget) before it goes on, so the journal, the resume
//!   buffer and every subscriber see the same names; events behind it wait,
//!   so the order never changes, but look-ups of up to [`IN_FLIGHT`] events
//!   run at once;
//! - a message is delivered once: a copy read back from history after a
//!   gap ([`Inbound::publish_backfilled`]) and a live copy of the same
//!   message (chat and id) are one event, whichever comes first;
//! - a recall is published once: the gateway's own recall (RecallMessage)
//!   and the peer's notice of it are the same event; while the gateway's
//!   recall is under way the peer's notice of it waits for the gateway's
//!   (which knows who recalled: a private notice does not say), and a notice
//!   after it is dropped; a recall also evicts the message from the quote
//!   cache.
//!
//! Until [`Inbound::attach`] names the accounts, quotes and mentions pass
//! through as the peer sent them.

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, Weak};

use futures_util::StreamExt as _;
use futures_util::stream::FuturesOrdered;
use parking_lot::Mutex;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::account::Account;
use super::call::Deadline;
use super::events::EventHub;
use super::mentions::{Mentions, wants_names};
use super::model::{ChatRef, InboundEvent, Message, Segment};
use super::ports::EventSink;
use super::quotes::Quotes;

/// Events of one account being prepared at once.
pub const IN_FLIGHT: usize = 64;

/// Recalls remembered per account to publish each once, and messages
/// remembered per account to deliver each once.
const KEPT: usize = 512;

/// An event on its way, with whether the gateway made it.
type Prepared = Pin<Box<dyn Future<Output = (InboundEvent, bool)> + Send>>;

/// Recent keys (chat, message id) of one account, oldest first.
#[derive(Debug, Default)]
struct Seen {
    seen: HashSet<(ChatRef, i64)>,
    order: VecDeque<(ChatRef, i64)>,
}

impl Seen {
    /// True the first time `key` is seen (within the last [`KEPT`]).
    fn first(&mut self, key: (ChatRef, i64)) -> bool {
        if !self.seen.insert(key) {
            return false;
        }
        self.order.push_back(key);
        while self.order.len() > KEPT {
            if let Some(old) = self.order.pop_front() {
                self.seen.remove(&old);
            }
        }
        true
    }
}

/// The event path: quotes resolved, mentions named, recalls published
/// once; implements [`EventSink`] for the adapters.
pub struct Inbound {
    me: Weak<Inbound>,
    hub: Arc<EventHub>,
    quotes: Arc<Quotes>,
    mentions: Arc<Mentions>,
    accounts: OnceLock<HashMap<String, Arc<Account>>>,
    lanes: Mutex<HashMap<String, mpsc::UnboundedSender<(InboundEvent, bool)>>>,
    recalls: Mutex<HashMap<String, Seen>>,
    /// Messages delivered lately, by account.
    messages: Mutex<HashMap<String, Seen>>,
    /// Recalls the gateway is making, by account: the peer's notices of
    /// them are dropped (the gateway publishes its own).
    own: Mutex<HashSet<(String, ChatRef, i64)>>,
    shutdown: CancellationToken,
}

impl std::fmt::Debug for Inbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbound").finish_non_exhaustive()
    }
}

impl Inbound {
    /// A path into `hub` resolving quotes with `quotes` and naming
    /// mentions with a [`Mentions`] of its own (over a new member cache);
    /// its tasks end with `shutdown`.
    pub fn new(hub: Arc<EventHub>, quotes: Arc<Quotes>, shutdown: CancellationToken) -> Arc<Self> {
        Self::with_mentions(hub, quotes, Arc::default(), shutdown)
    }

    /// A path into `hub` resolving quotes with `quotes` and naming mentions
    /// with `mentions`; its tasks end with `shutdown`.
    pub fn with_mentions(
        hub: Arc<EventHub>,
        quotes: Arc<Quotes>,
        mentions: Arc<Mentions>,
        shutdown: CancellationToken,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            me: me.clone(),
            hub,
            quotes,
            mentions,
            accounts: OnceLock::new(),
            lanes: Mutex::new(HashMap::new()),
            recalls: Mutex::new(HashMap::new()),
            messages: Mutex::new(HashMap::new()),
            own: Mutex::new(HashSet::new()),
            shutdown,
        })
    }

    /// The quote resolver (shared with the read use cases).
    pub fn quotes(&self) -> &Arc<Quotes> {
        &self.quotes
    }

    /// The mention namer (shared with the read use cases; its member
    /// cache is the gateway's).
    pub fn mentions(&self) -> &Arc<Mentions> {
        &self.mentions
    }

    /// The hub events end in.
    pub fn hub(&self) -> &Arc<EventHub> {
        &self.hub
    }

    /// Names the accounts (once; later calls change nothing).
    pub fn attach(&self, accounts: &[Arc<Account>]) {
        let accounts = accounts.iter().map(|a| (a.id.clone(), a.clone())).collect();
        let _ = self.accounts.set(accounts);
    }

    /// Announces a recall the gateway is about to make: until
    /// [`Inbound::publish_own`] or [`Inbound::cancel_own`], the peer's
    /// notice of it is not published.
    pub fn expect_own(&self, account_id: &str, chat: ChatRef, message_id: i64) {
        self.own
            .lock()
            .insert((account_id.to_owned(), chat, message_id));
    }

    /// The announced recall did not happen.
    pub fn cancel_own(&self, account_id: &str, chat: ChatRef, message_id: i64) {
        self.own
            .lock()
            .remove(&(account_id.to_owned(), chat, message_id));
    }

    /// Publishes an event the gateway itself made (a recall through
    /// RecallMessage), in line with the account's other events.
    pub fn publish_own(&self, account_id: &str, event: InboundEvent) {
        self.send(account_id, event, true);
    }

    /// Publishes a message the backfill read back from the peer's history
    /// after a gap, marked as backfilled, in line with the account's other
    /// events; dropped when the same message was delivered lately.
    pub fn publish_backfilled(&self, account_id: &str, message: Message, self_sent: bool) {
        let event = InboundEvent::Message {
            message,
            self_sent,
            backfilled: true,
        };
        self.send(account_id, event, false);
    }

    fn send(&self, account_id: &str, event: InboundEvent, own: bool) {
        match self.lane(account_id) {
            Some(tx) => {
                if let Err(mpsc::error::SendError((event, own))) = tx.send((event, own)) {
                    // The lane ended (shutdown): deliver in place.
                    self.deliver(account_id, event, own);
                }
            }
            None => self.deliver(account_id, event, own),
        }
    }

    fn account(&self, account_id: &str) -> Option<Arc<Account>> {
        self.accounts.get()?.get(account_id).cloned()
    }

    /// Readies one event: remembers a message and, when it quotes another
    /// or mentions someone, returns the look-ups that fill the quote and
    /// the names in.
    fn prepare(&self, account_id: &str, event: InboundEvent, own: bool) -> Prepared {
        let (message, self_sent, backfilled) = match event {
            InboundEvent::Message {
                message,
                self_sent,
                backfilled,
            } => (message, self_sent, backfilled),
            other => return Box::pin(std::future::ready((other, own))),
        };
        self.quotes.remember(account_id, &message);
        let quotes_something = message
            .segments
            .iter()
            .any(|s| matches!(s, Segment::Reply { quoted: None, .. }));
        // A quoted message may mention someone too: decided once it is in.
        let work = quotes_something || wants_names(&message);
        let account = self.account(account_id).filter(|_| work);
        let Some(account) = account else {
            return Box::pin(std::future::ready((
                InboundEvent::Message {
                    message,
                    self_sent,
                    backfilled,
                },
                own,
            )));
        };
        let quotes = self.quotes.clone();
        let mentions = self.mentions.clone();
        Box::pin(async move {
            let mut one = [message];
            if quotes_something {
                quotes
                    .resolve(&account.id, &*account.peer, &mut one, Deadline::NONE)
                    .await;
            }
            mentions.name(&account, &mut one, Deadline::NONE).await;
            let [message] = one;
            (
                InboundEvent::Message {
                    message,
                    self_sent,
                    backfilled,
                },
                own,
            )
        })
    }

    /// Hands a ready event to the hub (a message or a recall only the first
    /// time; the peer's notice of a recall the gateway is making not at
    /// all).
    fn deliver(&self, account_id: &str, event: InboundEvent, own: bool) {
        if let InboundEvent::Message { message, .. } = &event
            && message.message_id != 0
        {
            let key = (message.chat, message.message_id);
            let mut messages = self.messages.lock();
            let first = match messages.get_mut(account_id) {
                Some(seen) => seen.first(key),
                None => messages
                    .entry(account_id.to_owned())
                    .or_default()
                    .first(key),
            };
            if !first {
                return;
            }
        }
        if let InboundEvent::MessageRecalled {
            chat, message_id, ..
        } = &event
        {
            let key = (account_id.to_owned(), *chat, *message_id);
            {
                let mut pending = self.own.lock();
                if own {
                    pending.remove(&key);
                } else if pending.contains(&key) {
                    return;
                }
            }
            let first = self
                .recalls
                .lock()
                .entry(account_id.to_owned())
                .or_default()
                .first((*chat, *message_id));
            if !first {
                return;
            }
            self.quotes.forget(account_id, *message_id);
        }
        self.hub.publish(account_id, event);
    }

    fn lane(&self, account_id: &str) -> Option<mpsc::UnboundedSender<(InboundEvent, bool)>> {
        let mut lanes = self.lanes.lock();
        if let Some(tx) = lanes.get(account_id).filter(|tx| !tx.is_closed()) {
            return Some(tx.clone());
        }
        let me = self.me.upgrade()?;
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(me.run_lane(account_id.to_owned(), rx));
        lanes.insert(account_id.to_owned(), tx.clone());
        Some(tx)
    }

    /// One account's events, in order: prepared up to [`IN_FLIGHT`] at a
    /// time, delivered as each (and everything before it) is ready.
    async fn run_lane(
        self: Arc<Self>,
        account_id: String,
        mut rx: mpsc::UnboundedReceiver<(InboundEvent, bool)>,
    ) {
        let mut pending: FuturesOrdered<Prepared> = FuturesOrdered::new();
        let mut open = true;
        loop {
            tokio::select! {
                biased;
                _ = self.shutdown.cancelled() => return,
                Some((event, own)) = pending.next(), if !pending.is_empty() => {
                    self.deliver(&account_id, event, own);
                }
                next = rx.recv(), if open && pending.len() < IN_FLIGHT => match next {
                    Some((event, own)) => pending.push_back(self.prepare(&account_id, event, own)),
                    None => open = false,
                },
                else => return,
            }
        }
    }
}

impl EventSink for Inbound {
    fn publish(&self, account_id: &str, event: InboundEvent) {
        self.send(account_id, event, false);
    }
}
