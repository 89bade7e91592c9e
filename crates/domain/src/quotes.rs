//! Quoted messages resolved: a `reply` segment as the peer sends it carries
//! only the quoted message's id; GetHistory, GetMessage and message events
//! fill in the quoted message itself, one level deep.
//!
//! Where a quote comes from, in order:
//! 1. the same page (a history page, or the message itself), when the
//!    quoted message is on it;
//! 2. the account's cache of messages seen (pages, events and earlier
//!    look-ups) and of ids the peer said it does not know (for
//!    [`MISS_TTL`]);
//! 3. the peer (`get_message`), at most [`CONCURRENCY`] at a time, within a
//!    per-call time budget ([`BUDGET`], shortened by the caller's deadline).
//!
//! A quoted message counts only when it is in the quoting message's chat,
//! so a quote never shows what the caller may not read. What cannot be
//! resolved (unknown, recalled, another chat, out of time, a peer failure)
//! stays an id. A recall evicts the message from the cache.
//!
//! The cache holds at most [`CACHE_CAPACITY`] ids and [`CACHE_BYTES`] of
//! messages per account ([`Message::approx_bytes`]), evicting the least
//! recently used first (the newest entry always stays).

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use foldhash::{HashMap, HashMapExt as _};
use futures_util::StreamExt as _;
use lru::LruCache;
use parking_lot::Mutex;
use tokio::time::Instant;

use crate::call::Deadline;
use crate::error::Kind;
use crate::model::{ChatRef, Message, Segment};
use crate::ports::PeerApi;

/// Messages (and misses) remembered per account.
pub const CACHE_CAPACITY: usize = 4096;
/// Most bytes of messages remembered per account.
pub const CACHE_BYTES: usize = 8 * 1024 * 1024;
/// Peer look-ups running at once for one call.
pub const CONCURRENCY: usize = 4;
/// Longest time one call spends resolving quotes.
pub const BUDGET: Duration = Duration::from_secs(2);
/// How long an id the peer does not know is not asked for again.
pub const MISS_TTL: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
enum Cached {
    Found(Arc<Message>),
    Missing(Instant),
}

impl Cached {
    fn bytes(&self) -> usize {
        match self {
            Cached::Found(m) => m.approx_bytes(),
            Cached::Missing(_) => 32,
        }
    }
}

/// One account's cache and the bytes it holds.
#[derive(Debug)]
struct Lru {
    entries: LruCache<i64, Cached>,
    bytes: usize,
}

impl Lru {
    fn new() -> Self {
        Self {
            entries: LruCache::new(NonZeroUsize::new(CACHE_CAPACITY).unwrap_or(NonZeroUsize::MIN)),
            bytes: 0,
        }
    }

    fn put(&mut self, id: i64, entry: Cached) {
        self.bytes = self.bytes.saturating_add(entry.bytes());
        if let Some((_, old)) = self.entries.push(id, entry) {
            self.bytes = self.bytes.saturating_sub(old.bytes());
        }
        while self.bytes > CACHE_BYTES && self.entries.len() > 1 {
            match self.entries.pop_lru() {
                Some((_, old)) => self.bytes = self.bytes.saturating_sub(old.bytes()),
                None => break,
            }
        }
    }

    fn pop(&mut self, id: &i64) {
        if let Some(old) = self.entries.pop(id) {
            self.bytes = self.bytes.saturating_sub(old.bytes());
        }
    }
}

/// The quote resolver and its per-account cache.
#[derive(Debug)]
pub struct Quotes {
    cache: Mutex<HashMap<String, Lru>>,
    budget: Duration,
}

impl Default for Quotes {
    fn default() -> Self {
        Self::new(BUDGET)
    }
}

/// `message` without the quotes of its own replies (quotes are one level
/// deep).
fn stripped(message: &Message) -> Message {
    let mut m = message.clone();
    for seg in &mut m.segments {
        if let Segment::Reply { quoted, .. } = seg {
            *quoted = None;
        }
    }
    m
}

/// The id a reply segment quotes, when it is a usable one (Lagrange sends
/// `0` for a private quote it does not know).
fn quoted_id(id: &str) -> Option<i64> {
    id.trim().parse::<i64>().ok().filter(|id| *id != 0)
}

impl Quotes {
    /// A resolver spending at most `budget` on one call.
    pub fn new(budget: Duration) -> Self {
        Self {
            cache: Mutex::new(HashMap::new()),
            budget,
        }
    }

    fn put(&self, account: &str, id: i64, entry: Cached) {
        let mut cache = self.cache.lock();
        let lru = cache.entry(account.to_owned()).or_insert_with(Lru::new);
        lru.put(id, entry);
    }

    fn cached(&self, account: &str, id: i64) -> Option<Cached> {
        let mut cache = self.cache.lock();
        let lru = cache.get_mut(account)?;
        match lru.entries.get(&id)? {
            Cached::Missing(at) if at.elapsed() >= MISS_TTL => {
                lru.pop(&id);
                None
            }
            hit => Some(hit.clone()),
        }
    }

    /// Remembers a message seen (an event, a page), so later quotes of it
    /// need no peer call.
    pub fn remember(&self, account: &str, message: &Message) {
        self.put(
            account,
            message.message_id,
            Cached::Found(Arc::new(stripped(message))),
        );
    }

    /// Forgets a message (it was recalled).
    pub fn forget(&self, account: &str, message_id: i64) {
        if let Some(lru) = self.cache.lock().get_mut(account) {
            lru.pop(&message_id);
        }
    }

    /// Fills the quotes of `messages` (see the module docs), asking `peer`
    /// for what neither the page nor the cache holds, until the budget or
    /// `deadline` runs out. Never fails: what is not resolved stays an id.
    pub async fn resolve(
        &self,
        account: &str,
        peer: &dyn PeerApi,
        messages: &mut [Message],
        deadline: Deadline,
    ) {
        // (message index, segment index, chat, quoted id)
        let mut wanted = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            for (j, seg) in m.segments.iter().enumerate() {
                if let Segment::Reply { id, quoted: None } = seg
                    && let Some(id) = quoted_id(id)
                {
                    wanted.push((i, j, m.chat, id));
                }
            }
        }
        if wanted.is_empty() {
            return;
        }
        let on_page: HashMap<(ChatRef, i64), usize> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| ((m.chat, m.message_id), i))
            .collect();
        let mut found: HashMap<(ChatRef, i64), Arc<Message>> = HashMap::new();
        let mut fetch: Vec<(ChatRef, i64)> = Vec::new();
        for &(_, _, chat, id) in &wanted {
            let key = (chat, id);
            if found.contains_key(&key) || fetch.contains(&key) {
                continue;
            }
            if let Some(&i) = on_page.get(&key) {
                found.insert(key, Arc::new(stripped(&messages[i])));
                continue;
            }
            match self.cached(account, id) {
                Some(Cached::Found(m)) if m.chat == chat => {
                    found.insert(key, m);
                }
                // Known in another chat (not this quote), or known missing.
                Some(_) => {}
                None => fetch.push(key),
            }
        }
        if !fetch.is_empty() {
            self.fetch(account, peer, fetch, deadline, &mut found).await;
        }
        for (i, j, chat, id) in wanted {
            if let Some(m) = found.get(&(chat, id))
                && let Some(Segment::Reply { quoted, .. }) = messages[i].segments.get_mut(j)
            {
                *quoted = Some(Box::new(Message::clone(m)));
            }
        }
    }

    /// Asks the peer for `keys`, [`CONCURRENCY`] at a time, until the
    /// budget or the deadline ends; records what it learns.
    async fn fetch(
        &self,
        account: &str,
        peer: &dyn PeerApi,
        keys: Vec<(ChatRef, i64)>,
        deadline: Deadline,
        found: &mut HashMap<(ChatRef, i64), Arc<Message>>,
    ) {
        let mut until = Instant::now() + self.budget;
        if let Some(d) = deadline.instant() {
            until = until.min(d);
        }
        let lookup = Deadline::at(until);
        let mut answers =
            futures_util::stream::iter(keys)
                .map(|(chat, id)| async move {
                    (chat, id, peer.get_message(id, Some(chat), lookup).await)
                })
                .buffer_unordered(CONCURRENCY);
        loop {
            let next = tokio::time::timeout_at(until, answers.next()).await;
            let Ok(Some((chat, id, answer))) = next else {
                // Out of time (the rest stay ids), or every answer is in.
                return;
            };
            match answer {
                Ok(m) => {
                    let m = Arc::new(stripped(&m));
                    self.put(account, id, Cached::Found(m.clone()));
                    if m.chat == chat {
                        found.insert((chat, id), m);
                    }
                }
                Err(e) if e.kind == Kind::MessageNotFound => {
                    self.put(account, id, Cached::Missing(Instant::now()));
                }
                Err(e) => {
                    tracing::debug!(account_id = account, message_id = id, error = %e, "a quoted message could not be read");
                }
            }
        }
    }
}

/// What a [`Quotes`] cache holds of one message id.
#[derive(Debug, Clone)]
pub enum Known {
    /// The message, as last seen (its own quotes stripped).
    Message(Arc<Message>),
    /// The peer said it does not know the id, less than [`MISS_TTL`] ago.
    Missing,
}

impl Quotes {
    /// What the account's cache holds of `message_id`, without asking the
    /// peer; `None` when it holds nothing.
    pub fn known(&self, account: &str, message_id: i64) -> Option<Known> {
        self.cached(account, message_id).map(|c| match c {
            Cached::Found(m) => Known::Message(m),
            Cached::Missing(_) => Known::Missing,
        })
    }

    /// Remembers that the peer does not know `message_id`.
    pub fn remember_missing(&self, account: &str, message_id: i64) {
        self.put(account, message_id, Cached::Missing(Instant::now()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{RawJson, Sender};

    fn message(id: i64, text_bytes: usize) -> Message {
        Message {
            message_id: id,
            message_seq: None,
            peer_seq: None,
            time: 1,
            sender: Sender::default(),
            segments: vec![Segment::Text("x".repeat(text_bytes))],
            chat: ChatRef::Group(1),
            raw: RawJson::null(),
        }
    }

    #[test]
    fn the_cache_is_bounded_by_bytes_least_recently_used_first() {
        let quotes = Quotes::default();
        let size = CACHE_BYTES / 4;
        for id in 1..=3 {
            quotes.remember("a", &message(id, size));
        }
        // 1 used again: 2 is the least recently used when 4 and 5 arrive.
        assert!(quotes.known("a", 1).is_some());
        quotes.remember("a", &message(4, size));
        quotes.remember("a", &message(5, size));
        let held: Vec<i64> = (1..=5)
            .filter(|id| quotes.known("a", *id).is_some())
            .collect();
        assert_eq!(held, vec![1, 4, 5]);
        // A message above the bound on its own stays, alone.
        quotes.remember("a", &message(6, CACHE_BYTES));
        let held: Vec<i64> = (1..=6)
            .filter(|id| quotes.known("a", *id).is_some())
            .collect();
        assert_eq!(held, vec![6]);
        // Small messages fill up to the count.
        for id in 100..(100 + CACHE_CAPACITY as i64 + 10) {
            quotes.remember("a", &message(id, 10));
        }
        assert!(quotes.known("a", 6).is_none());
        assert!(quotes.known("a", 109).is_none());
        assert!(quotes.known("a", 110).is_some());
    }
}
