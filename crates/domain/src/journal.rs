//! The journal: the durable log the event hub writes every event to before
//! it delivers it, and where the messages the gateway sends wait for the
//! archive.
//!
//! One writer thread owns the journal's writes. Whatever is submitted while
//! it commits is committed together in the next transaction (group commit),
//! so a burst of events costs one commit, not one per event, and an event
//! waits for at most the commit before it. After each commit the writer
//! delivers the batch's events (the hub's callback), completes the waiters
//! of the sent messages, and wakes the archive's ingest, which reads the
//! journal after its own checkpoint: entries the archive has not taken yet
//! (a slow database, a crash) are never lost, only late. What was just
//! committed is also handed to the ingest in memory (the newest
//! [`HANDOFF_CAP`] entries, at most [`HANDOFF_BYTES`]), so an ingest that keeps up takes each entry
//! without reading it back; one that fell behind reads the journal.
//!
//! The journal keeps, per account, the newest `events.buffer_size` events
//! (the resume buffer, reloaded at start so sequence numbers continue and
//! `after_sequence` from before a restart resumes) and every entry the
//! archive has not taken; older entries are trimmed.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use flume::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use parking_lot::{Condvar, Mutex};
use tokio::sync::{Notify, oneshot};
use tokio_util::sync::CancellationToken;

use super::model::{InboundEvent, Message};
use crate::error::Result;

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

impl StoredEvent {
    /// Event number `sequence` of `account_id`, received at `received_ms`.
    pub fn new(
        account_id: Arc<str>,
        sequence: u64,
        received_ms: i64,
        event: Arc<InboundEvent>,
    ) -> StoredEvent {
        StoredEvent {
            account_id,
            sequence,
            received_ms,
            event,
        }
    }

    /// The bytes the resume buffer counts for this event
    /// ([`InboundEvent::approx_bytes`]).
    pub fn footprint(&self) -> usize {
        self.event.approx_bytes()
    }
}

/// What the journal holds.
#[derive(Debug, Clone)]
pub enum JournalEntry {
    /// An inbound event, numbered.
    Event(StoredEvent),
    /// A message the gateway sent and the peer acknowledged with an id.
    Sent {
        /// The account that sent it.
        account_id: Arc<str>,
        /// The message as sent.
        message: Box<Message>,
    },
}

impl JournalEntry {
    /// About how many bytes of memory the entry holds.
    pub fn approx_bytes(&self) -> usize {
        match self {
            JournalEntry::Event(e) => e.event.approx_bytes(),
            JournalEntry::Sent { message, .. } => message.approx_bytes(),
        }
    }

    /// The account the entry belongs to.
    pub fn account_id(&self) -> &str {
        match self {
            JournalEntry::Event(e) => &e.account_id,
            JournalEntry::Sent { account_id, .. } => account_id,
        }
    }
}

/// An entry with its place in the journal.
#[derive(Debug, Clone)]
pub struct Journaled {
    /// Position in the journal, increasing by one per entry.
    pub id: u64,
    /// The entry.
    pub entry: JournalEntry,
}

impl Journaled {
    /// About how many bytes of memory the entry holds.
    pub fn approx_bytes(&self) -> usize {
        self.entry.approx_bytes()
    }
}

/// Entries read back from the journal.
#[derive(Debug, Clone, Default)]
pub struct JournalPage {
    /// The entries that could be read, in id order.
    pub entries: Vec<Journaled>,
    /// The id of the last entry read, readable or not (`None`: nothing
    /// after the position asked for).
    pub last_id: Option<u64>,
}

/// What the journal held when it was opened.
#[derive(Debug, Clone, Default)]
pub struct JournalState {
    /// The newest events of every account (at most the number asked for per
    /// account), oldest first.
    pub recent: Vec<StoredEvent>,
    /// The last sequence number stored per account.
    pub last_sequences: HashMap<String, u64>,
    /// The id of the newest entry (0 when empty).
    pub last_id: u64,
    /// The id of the newest entry the archive has taken.
    pub checkpoint: u64,
}

/// The durable log behind the journal (the port its adapter implements).
/// Every method blocks; the journal calls them from its own thread (writes)
/// or the blocking pool (reads).
pub trait EventJournal: Send + Sync + 'static {
    /// Reads the state at start: the newest `keep_per_account` events of
    /// every account, newest first only as long as their
    /// [`footprint`](StoredEvent::footprint)s add up to at most
    /// `max_bytes_per_account` (the newest one always), the last sequence
    /// numbers, the last id and the archive's checkpoint. Rows are read one
    /// at a time: what is left out is never held.
    fn open(&self, keep_per_account: usize, max_bytes_per_account: usize) -> Result<JournalState>;

    /// Stores `entries` (and the archive's `checkpoint`, when given) in one
    /// durable commit.
    fn append(&self, entries: &[Journaled], checkpoint: Option<u64>) -> Result<()>;

    /// Up to `limit` entries with an id above `after_id`, in id order;
    /// fewer once the entries read hold [`READ_BYTES`] (at least one).
    fn read_after(&self, after_id: u64, limit: usize) -> Result<JournalPage>;

    /// Deletes what is no longer needed: entries at or below `checkpoint`
    /// except the newest `keep_per_account` events of each account.
    /// Returns the number of entries deleted.
    fn trim(&self, keep_per_account: usize, checkpoint: u64) -> Result<u64>;

    /// Where the journal lives, for logs.
    fn describe(&self) -> String;

    /// Reads `account`'s state now, as [`open`](Self::open) reads every
    /// account's: its last sequence number and its newest events (oldest
    /// first, within `keep` and `max_bytes` as there). `None` when the
    /// journal is this gateway's alone, so what it holds in memory is
    /// already all there is; a journal shared under `[ha]` answers, and a
    /// gateway that comes to lead the account continues from there.
    fn reload(
        &self,
        account: &str,
        keep: usize,
        max_bytes: usize,
    ) -> Result<Option<(u64, Vec<StoredEvent>)>> {
        let _ = (account, keep, max_bytes);
        Ok(None)
    }

    /// Up to `limit` events of `account` with a sequence number above
    /// `after`, in sequence order, whichever gateway journaled them. `None`
    /// when the journal is this gateway's alone: [`read_after`](Self::read_after)
    /// already reads every event it has.
    fn events_after(
        &self,
        account: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<StoredEvent>>> {
        let _ = (account, after, limit);
        Ok(None)
    }

    /// The last sequence number of `account` the reader `reader` (an event
    /// sink) published, as any gateway sharing the journal recorded it;
    /// `None` when the journal is not shared.
    fn reader_position(&self, reader: &str, account: &str) -> Result<Option<u64>> {
        let _ = (reader, account);
        Ok(None)
    }

    /// Records the last sequence numbers `reader` published, per account,
    /// where the gateways sharing the journal read them (a position never
    /// goes back); nothing when the journal is not shared.
    fn store_reader_positions(&self, reader: &str, positions: &[(String, u64)]) -> Result<()> {
        let _ = (reader, positions);
        Ok(())
    }
}

/// Most bytes of stored entries one [`EventJournal::read_after`] reads.
pub const READ_BYTES: usize = 16 * 1024 * 1024;
/// Most submissions committed in one transaction; also at most half the
/// resume buffer, so one commit's events never overrun a subscriber that
/// was keeping up.
const MAX_BATCH: usize = 2048;
/// Submissions waiting for the writer before submitting blocks. The queue
/// grows as submissions wait: an idle journal holds none of it (a channel
/// that sets its slots up front would keep megabytes resident from start).
const CHANNEL_BOUND: usize = 65_536;
/// Most bytes of entries (by [`JournalEntry::approx_bytes`]) submitted and
/// not yet committed and delivered; a submission beyond it waits for room,
/// as beyond [`CHANNEL_BOUND`]. One entry is always let in, however large.
pub const QUEUE_BYTES: usize = 32 * 1024 * 1024;
/// Entries appended between two trims (or [`TRIM_EVERY`], whichever first):
/// small trims, so none holds up delivery for long.
const TRIM_ENTRIES: u64 = 1024;
/// Longest time between two trims while entries arrive.
const TRIM_EVERY: Duration = Duration::from_secs(30);
/// Longest a checkpoint of the archive waits to be stored with the next
/// entries before it is stored alone: while events arrive it costs no
/// commit of its own. A checkpoint not yet stored when the process is killed
/// only makes the archive take those entries again at start; it keeps one
/// copy of each message.
pub const CHECKPOINT_DELAY: Duration = Duration::from_millis(200);
/// Committed entries held in memory for the archive's ingest; older ones
/// are dropped (the ingest reads them from the journal instead).
pub const HANDOFF_CAP: usize = 4096;
/// Most bytes of entries held for the archive's ingest (by
/// [`Journaled::approx_bytes`]); older ones are dropped beyond it, as
/// beyond [`HANDOFF_CAP`].
pub const HANDOFF_BYTES: usize = 16 * 1024 * 1024;

/// The newest committed entries the archive has not taken, in id order
/// without gaps, and their bytes.
#[derive(Default)]
struct Held {
    entries: VecDeque<Journaled>,
    bytes: usize,
}

impl Held {
    fn pop_front(&mut self) -> Option<Journaled> {
        let j = self.entries.pop_front()?;
        self.bytes = self.bytes.saturating_sub(j.approx_bytes());
        Some(j)
    }
}

type Handoff = Arc<Mutex<Held>>;

/// The bytes of entries between submission and delivery, bounded by
/// [`QUEUE_BYTES`]: submitters wait on it, the writer gives room back after
/// each delivery, and stops the waiting for good when it ends.
#[derive(Default)]
struct Room {
    state: Mutex<RoomState>,
    freed: Condvar,
}

#[derive(Default)]
struct RoomState {
    used: usize,
    closed: bool,
}

impl Room {
    /// Waits until `bytes` more fit (or nothing is queued, or the writer
    /// has ended), then counts them.
    fn take(&self, bytes: usize) {
        let mut state = self.state.lock();
        while !state.closed && state.used > 0 && state.used.saturating_add(bytes) > QUEUE_BYTES {
            self.freed.wait(&mut state);
        }
        state.used = state.used.saturating_add(bytes);
    }

    /// Gives `bytes` back.
    fn give(&self, bytes: usize) {
        let mut state = self.state.lock();
        state.used = state.used.saturating_sub(bytes);
        drop(state);
        self.freed.notify_all();
    }

    /// Lets every waiting and later submission through.
    fn close(&self) {
        self.state.lock().closed = true;
        self.freed.notify_all();
    }
}

enum Command {
    Entry(JournalEntry, Option<oneshot::Sender<()>>),
    Checkpoint(u64),
}

/// Called with the events of every commit, in sequence order per account.
pub type Deliver = Box<dyn Fn(Vec<StoredEvent>) + Send + 'static>;

/// Handle to the journal's writer; cheap to clone.
#[derive(Clone)]
pub struct Journal {
    tx: Sender<Command>,
    room: Arc<Room>,
    store: Arc<dyn EventJournal>,
    committed: Arc<Notify>,
    /// Id of the newest committed entry.
    last_committed: Arc<AtomicU64>,
    /// The archive's checkpoint when the journal was opened.
    opened_checkpoint: u64,
    handoff: Handoff,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("store", &self.store.describe())
            .finish_non_exhaustive()
    }
}

/// How the journal runs.
#[derive(Debug, Clone, Copy)]
pub struct JournalOptions {
    /// Events kept per account (the resume buffer).
    pub keep_per_account: usize,
    /// True when an archive takes the entries (its checkpoint bounds
    /// trimming); false: entries are done once committed.
    pub archived: bool,
    /// Longest the archive's checkpoint waits to ride with the next
    /// entries before it is stored alone ([`CHECKPOINT_DELAY`]).
    pub checkpoint_delay: Duration,
}

impl Journal {
    /// Starts the writer thread over `store`, whose state `state` was read
    /// by [`EventJournal::open`]; `deliver` gets the events of each commit.
    /// The thread ends when every handle is gone or `stop` fires (what is
    /// submitted after that is neither stored nor delivered).
    pub fn start(
        store: Arc<dyn EventJournal>,
        state: &JournalState,
        options: JournalOptions,
        deliver: Deliver,
        stop: CancellationToken,
    ) -> Result<Journal> {
        let (tx, rx) = flume::bounded(CHANNEL_BOUND);
        let committed = Arc::new(Notify::new());
        let last_committed = Arc::new(AtomicU64::new(state.last_id));
        let handoff = Handoff::default();
        let room = Arc::new(Room::default());
        let writer = Writer {
            store: store.clone(),
            rx,
            room: room.clone(),
            next_id: state.last_id + 1,
            checkpoint: state.checkpoint,
            options,
            deliver,
            committed: committed.clone(),
            last_committed: last_committed.clone(),
            handoff: handoff.clone(),
            failing: false,
            stop,
        };
        std::thread::Builder::new()
            .name("journal".into())
            .spawn(move || writer.run())
            .map_err(|e| crate::error::Error::internal(format!("starting the journal: {e}")))?;
        Ok(Journal {
            tx,
            room,
            store,
            committed,
            last_committed,
            opened_checkpoint: state.checkpoint,
            handoff,
        })
    }

    /// Submits an event; it is delivered once committed. Blocks only while
    /// the writer is far behind ([`QUEUE_BYTES`] or tens of thousands of
    /// entries).
    pub fn submit_event(&self, event: StoredEvent) {
        self.submit(JournalEntry::Event(event), None);
    }

    fn submit(&self, entry: JournalEntry, done: Option<oneshot::Sender<()>>) {
        self.room.take(entry.approx_bytes());
        let _ = self.tx.send(Command::Entry(entry, done));
    }

    /// Submits a sent message and resolves once it is committed (or the
    /// journal is gone).
    pub fn submit_sent(&self, account_id: Arc<str>, message: Message) -> oneshot::Receiver<()> {
        let (done, rx) = oneshot::channel();
        self.submit(
            JournalEntry::Sent {
                account_id,
                message: Box::new(message),
            },
            Some(done),
        );
        rx
    }

    /// Records that the archive has taken every entry up to `id` (stored
    /// with the next commit of entries, or alone once it has waited
    /// [`JournalOptions::checkpoint_delay`] or the journal stops).
    pub fn checkpoint(&self, id: u64) {
        let _ = self.tx.send(Command::Checkpoint(id));
    }

    /// Bytes of entries submitted and not yet committed and delivered (at
    /// most [`QUEUE_BYTES`] and one entry).
    pub fn queued_bytes(&self) -> usize {
        self.room.state.lock().used
    }

    /// The journal's store (the archive's ingest reads it).
    pub fn store(&self) -> &Arc<dyn EventJournal> {
        &self.store
    }

    /// Resolves after the next commit.
    pub fn committed(&self) -> &Arc<Notify> {
        &self.committed
    }

    /// The archive's checkpoint when the journal was opened: where the
    /// archive's ingest starts.
    pub fn opened_checkpoint(&self) -> u64 {
        self.opened_checkpoint
    }

    /// The id of the newest committed entry.
    pub fn last_committed(&self) -> u64 {
        self.last_committed.load(Ordering::Acquire)
    }

    /// Up to `limit` committed entries after `after_id`, from memory, as
    /// [`EventJournal::read_after`] would read them: an empty page when
    /// nothing was committed after it. `None` when memory no longer holds
    /// the entry right after `after_id` (the reader fell behind, or the
    /// entries were committed before this start): read the journal then.
    /// Only an archived journal hands entries over, and what is handed
    /// over is taken: one reader, the archive's ingest.
    pub fn take_committed(&self, after_id: u64, limit: usize) -> Option<JournalPage> {
        // Entries are in the handoff before they are counted committed, so
        // every id up to this one is there unless it was dropped.
        if self.last_committed() <= after_id {
            return Some(JournalPage::default());
        }
        let mut handoff = self.handoff.lock();
        while handoff.entries.front().is_some_and(|j| j.id <= after_id) {
            handoff.pop_front();
        }
        if handoff.entries.front()?.id != after_id + 1 {
            return None;
        }
        let n = limit.min(handoff.entries.len());
        let entries: Vec<Journaled> = (0..n).filter_map(|_| handoff.pop_front()).collect();
        Some(JournalPage {
            last_id: entries.last().map(|j| j.id),
            entries,
        })
    }
}

struct Writer {
    store: Arc<dyn EventJournal>,
    rx: Receiver<Command>,
    room: Arc<Room>,
    next_id: u64,
    checkpoint: u64,
    options: JournalOptions,
    deliver: Deliver,
    committed: Arc<Notify>,
    last_committed: Arc<AtomicU64>,
    handoff: Handoff,
    /// True while appends fail (logged once per failing stretch).
    failing: bool,
    stop: CancellationToken,
}

impl Drop for Writer {
    fn drop(&mut self) {
        // Ended or panicked: nobody will give room back.
        self.room.close();
    }
}

impl Writer {
    fn run(mut self) {
        let mut since_trim = 0u64;
        let mut last_trim = Instant::now();
        let batch = (self.options.keep_per_account / 2).clamp(1, MAX_BATCH);
        // Since when the archive's checkpoint is newer than the stored one.
        let mut unsaved: Option<Instant> = None;
        loop {
            let next = match unsaved {
                None => self.rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(since) => self.rx.recv_timeout(
                    self.options
                        .checkpoint_delay
                        .saturating_sub(since.elapsed()),
                ),
            };
            let first = match next {
                Ok(first) => first,
                Err(RecvTimeoutError::Timeout) => {
                    self.append(&[], Some(self.checkpoint));
                    unsaved = None;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            if self.stop.is_cancelled() {
                break;
            }
            let mut commands = vec![first];
            while commands.len() < batch {
                match self.rx.try_recv() {
                    Ok(c) => commands.push(c),
                    Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
                }
            }
            let mut entries = Vec::with_capacity(commands.len());
            let mut waiters = Vec::new();
            let mut checkpoint = None;
            for command in commands {
                match command {
                    Command::Entry(entry, done) => {
                        entries.push(Journaled {
                            id: self.next_id,
                            entry,
                        });
                        self.next_id += 1;
                        waiters.extend(done);
                    }
                    Command::Checkpoint(id) => {
                        checkpoint = Some(checkpoint.unwrap_or(0).max(id));
                    }
                }
            }
            if !self.options.archived && !entries.is_empty() {
                checkpoint = Some(self.next_id - 1);
            }
            if let Some(c) = checkpoint {
                self.checkpoint = self.checkpoint.max(c);
            }
            if entries.is_empty() {
                // Only the archive moved on: stored with the next entries,
                // or alone once it has waited `checkpoint_delay`.
                if checkpoint.is_some() {
                    unsaved.get_or_insert_with(Instant::now);
                }
                continue;
            }
            let pending = unsaved.take().is_some();
            let checkpoint = (pending || checkpoint.is_some()).then_some(self.checkpoint);
            self.append(&entries, checkpoint);
            if self.options.archived {
                self.hand_over(&entries);
            }
            // Counted committed before anything is delivered or answered:
            // a search made by whoever saw an entry waits for the archive
            // to take it.
            self.last_committed
                .store(self.next_id - 1, Ordering::Release);
            self.committed.notify_waiters();
            self.committed.notify_one();
            since_trim += entries.len() as u64;
            let bytes: usize = entries.iter().map(Journaled::approx_bytes).sum();
            let events: Vec<StoredEvent> = entries
                .into_iter()
                .filter_map(|j| match j.entry {
                    JournalEntry::Event(e) => Some(e),
                    JournalEntry::Sent { .. } => None,
                })
                .collect();
            if !events.is_empty() {
                (self.deliver)(events);
            }
            self.room.give(bytes);
            for done in waiters {
                let _ = done.send(());
            }
            if since_trim >= TRIM_ENTRIES || (since_trim > 0 && last_trim.elapsed() >= TRIM_EVERY) {
                since_trim = 0;
                last_trim = Instant::now();
                if let Err(e) = self
                    .store
                    .trim(self.options.keep_per_account, self.checkpoint)
                {
                    tracing::warn!(journal = %self.store.describe(), error = %e, "trimming the journal failed");
                }
            }
        }
        if unsaved.is_some() {
            self.append(&[], Some(self.checkpoint));
        }
    }

    /// Hands `entries` to the archive's ingest, dropping the oldest beyond
    /// [`HANDOFF_CAP`] entries or [`HANDOFF_BYTES`]. Entries whose commit
    /// failed are handed over too: like delivery, archiving is not held
    /// back by a broken journal.
    fn hand_over(&self, entries: &[Journaled]) {
        let mut handoff = self.handoff.lock();
        for j in entries {
            handoff.bytes = handoff.bytes.saturating_add(j.approx_bytes());
            handoff.entries.push_back(j.clone());
        }
        while handoff.entries.len() > HANDOFF_CAP || handoff.bytes > HANDOFF_BYTES {
            if handoff.pop_front().is_none() {
                break;
            }
        }
    }

    /// Commits; on failure the entries are still delivered (an event is
    /// never held back by a broken disk) and the failure is logged once
    /// until appends succeed again.
    fn append(&mut self, entries: &[Journaled], checkpoint: Option<u64>) {
        match self.store.append(entries, checkpoint) {
            Ok(()) => {
                if self.failing {
                    self.failing = false;
                    tracing::info!(journal = %self.store.describe(), "the journal is writable again");
                }
            }
            Err(e) => {
                onebot_gateway_telemetry::metrics::journal_failures(entries.len());
                if !self.failing {
                    self.failing = true;
                    tracing::error!(
                        journal = %self.store.describe(),
                        error = %e,
                        "the journal cannot be written; events are delivered but will not survive a restart"
                    );
                }
            }
        }
    }
}
