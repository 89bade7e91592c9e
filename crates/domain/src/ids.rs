//! Minted message ids: the `int64` the gateway gives a message id that is
//! not one.
//!
//! An adapter whose peer names messages by something other than an `i64`
//! (a non-numeric string, an unsigned number beyond `i64`, a composite of
//! chat and sequence) carries that **text** as its minted id:
//!
//! ```text
//! mint(text) = -(2^32 + (first 8 bytes of SHA-256(text), big-endian) mod (2^53 - 2^32))
//! ```
//!
//! so minted ids lie in `(-2^53, -2^32]`: beyond every real peer's ids
//! (signed 32-bit hashes, positive NT ids), and still exact in a
//! JavaScript number. The id is a pure function of the text: the same on
//! every run, in every process, for every adapter and account.
//!
//! It is reversible: [`text_of`] gives the text back for every id this
//! gateway minted. Minting never touches the disk. Memory holds the
//! recently minted and resolved mappings within a byte budget (4 MiB, each
//! mapping counted as its text plus a fixed overhead); once
//! [`persist_with`] has opened a store ([`IdMap`]), every new mapping is
//! written to it by a thread of its own, in batches, and is held in memory
//! until written, so an id resolves from memory, else from the store (a
//! point read). Without an open store nothing can be evicted to disk, so
//! every mapping stays in memory. A mapping memory knows is not written
//! again.
//!
//! Two texts with one id (a SHA-256 prefix collision): the first keeps the
//! id, the second is refused with a warning and resolves to the first.
//! There is one store per process: the first one opened holds every
//! mapping.

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::{Arc, LazyLock, OnceLock};

use lru::LruCache;
use parking_lot::{Condvar, Mutex};
use sha2::{Digest, Sha256};

/// The magnitude minted ids start at (`2^32`).
const FLOOR: u64 = 1 << 32;
/// How many minted ids there are (`2^53 - 2^32`).
const SPAN: u64 = (1 << 53) - FLOOR;

/// How many bytes the mappings held in memory may take once a store is
/// open, each counted as its text's length plus [`ENTRY_OVERHEAD`]. The
/// least recently minted or resolved mappings beyond it are dropped from
/// memory (the store still has them); mappings not yet written are held
/// besides it until written.
const MEMORY_BUDGET: usize = 4 << 20;

/// The bytes one mapping costs in memory beside its text: the cache's
/// node, key and links, its slot in the cache's table, and the shared
/// text's header and allocation.
const ENTRY_OVERHEAD: usize = 96;

/// The minted id of `text`: a pure function (the formula of the module
/// documentation), remembered so [`text_of`] can give the text back.
pub fn mint(text: &str) -> i64 {
    MINTED.mint(text)
}

/// True when `id` lies in the minted range `(-2^53, -2^32]`.
pub fn is_minted(id: i64) -> bool {
    (-((FLOOR + SPAN) as i64 - 1)..=-(FLOOR as i64)).contains(&id)
}

/// The text `id` was minted from, if this gateway minted it (this process,
/// or any earlier run once a store is open). Reads the store (a blocking
/// point read) only for an id in the minted range that memory does not
/// hold.
pub fn text_of(id: i64) -> Option<Arc<str>> {
    MINTED.text_of(id)
}

/// The durable store of minted ids: minted id → text. A port; its calls
/// block.
pub trait IdMap: Send + Sync + 'static {
    /// The text stored for `id`, if any.
    fn get(&self, id: i64) -> Result<Option<String>, String>;

    /// Stores mappings, all or none; an id already stored keeps its text.
    fn put(&self, entries: &[(i64, String)]) -> Result<(), String>;
}

/// Makes the minted ids of this process durable in the store `open` opens:
/// every mapping minted so far and from now on is written to it (by a
/// thread of its own, so minting never waits on the disk), and ids memory
/// no longer holds are read back from it. The first call in a process
/// wins; later calls (another gateway in the same test process) keep the
/// first store and do not call `open`.
pub fn persist_with<M: IdMap>(open: impl FnOnce() -> Result<M, String>) -> Result<(), String> {
    MINTED.persist_with(open)
}

/// The id `text` mints, without remembering it.
fn formula(text: &str) -> i64 {
    let digest = Sha256::digest(text.as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    let h = u64::from_be_bytes(head) % SPAN;
    -((FLOOR + h) as i64)
}

/// What one mapping costs against the budget.
fn cost(text: &str) -> usize {
    text.len() + ENTRY_OVERHEAD
}

static MINTED: LazyLock<Minted> = LazyLock::new(|| Minted::new(MEMORY_BUDGET));

/// The mappings of one process: memory, and the store once open.
struct Minted {
    memory: Mutex<Memory>,
    /// Signalled whenever written mappings leave `pending`.
    written: Condvar,
    store: OnceLock<Persist>,
    /// Held while a store is opened, so only the first call opens one.
    opening: Mutex<()>,
}

struct Memory {
    /// The recently minted and resolved mappings, least recent first out.
    recent: LruCache<i64, Arc<str>>,
    /// What `recent` costs.
    bytes: usize,
    budget: usize,
    /// Mappings sent to the store and not yet written.
    pending: HashMap<i64, Arc<str>>,
}

struct Persist {
    map: Arc<dyn IdMap>,
    tx: mpsc::Sender<(i64, Arc<str>)>,
}

impl Memory {
    /// The text memory holds for `id`.
    fn find(&mut self, id: i64) -> Option<Arc<str>> {
        if let Some(t) = self.recent.get(&id) {
            return Some(t.clone());
        }
        self.pending.get(&id).cloned()
    }

    /// Remembers a mapping as the most recent one.
    fn hold(&mut self, id: i64, text: Arc<str>) {
        self.bytes += cost(&text);
        if let Some(old) = self.recent.put(id, text) {
            self.bytes -= cost(&old);
        }
    }

    /// Drops the least recent mappings beyond the budget.
    fn evict(&mut self) {
        while self.bytes > self.budget {
            match self.recent.pop_lru() {
                Some((_, text)) => self.bytes -= cost(&text),
                None => break,
            }
        }
    }
}

impl Minted {
    fn new(budget: usize) -> Minted {
        Minted {
            memory: Mutex::new(Memory {
                recent: LruCache::unbounded(),
                bytes: 0,
                budget,
                pending: HashMap::new(),
            }),
            written: Condvar::new(),
            store: OnceLock::new(),
            opening: Mutex::new(()),
        }
    }

    fn mint(&self, text: &str) -> i64 {
        let id = formula(text);
        let mut mem = self.memory.lock();
        match mem.find(id) {
            Some(known) if &*known == text => {}
            Some(known) => {
                tracing::warn!(id, first = %known, second = %text, "two message ids mint one gateway id");
            }
            None => {
                let text: Arc<str> = Arc::from(text);
                mem.hold(id, text.clone());
                if let Some(store) = self.store.get() {
                    mem.pending.insert(id, text.clone());
                    // The writer lives as long as its sender; a failed
                    // send leaves the mapping pending, still resolvable.
                    let _ = store.tx.send((id, text));
                    mem.evict();
                }
            }
        }
        id
    }

    fn text_of(&self, id: i64) -> Option<Arc<str>> {
        if !is_minted(id) {
            return None;
        }
        if let Some(text) = self.memory.lock().find(id) {
            return Some(text);
        }
        let store = self.store.get()?;
        let text: Arc<str> = match store.map.get(id) {
            Ok(found) => Arc::from(found?),
            Err(e) => {
                tracing::warn!(id, error = %e, "minted message id not read back");
                return None;
            }
        };
        let mut mem = self.memory.lock();
        // Minted meanwhile: memory's text is the one written.
        if let Some(known) = mem.find(id) {
            return Some(known);
        }
        mem.hold(id, text.clone());
        mem.evict();
        Some(text)
    }

    fn persist_with<M: IdMap>(
        &'static self,
        open: impl FnOnce() -> Result<M, String>,
    ) -> Result<(), String> {
        let _opening = self.opening.lock();
        if self.store.get().is_some() {
            return Ok(());
        }
        let map: Arc<dyn IdMap> = Arc::new(open()?);
        let (tx, rx) = mpsc::channel::<(i64, Arc<str>)>();
        let writer = map.clone();
        std::thread::Builder::new()
            .name("minted-ids".into())
            .spawn(move || self.write(writer.as_ref(), &rx))
            .map_err(|e| e.to_string())?;
        // Under the memory lock, so every mapping is either sent here or
        // minted after the store is set.
        let mut mem = self.memory.lock();
        let held: Vec<(i64, Arc<str>)> = mem.recent.iter().map(|(i, t)| (*i, t.clone())).collect();
        for (id, text) in held {
            mem.pending.insert(id, text.clone());
            let _ = tx.send((id, text));
        }
        if self.store.set(Persist { map, tx }).is_err() {
            return Ok(());
        }
        mem.evict();
        Ok(())
    }

    /// The writer: batches what waits, writes it, and lets memory drop it.
    fn write(&self, map: &dyn IdMap, rx: &mpsc::Receiver<(i64, Arc<str>)>) {
        while let Ok(first) = rx.recv() {
            let mut batch = vec![first];
            batch.extend(rx.try_iter());
            let rows: Vec<(i64, String)> = batch.iter().map(|(i, t)| (*i, t.to_string())).collect();
            if let Err(e) = map.put(&rows) {
                // Still in memory until evicted; an id evicted then no
                // longer resolves.
                tracing::warn!(error = %e, count = rows.len(), "minted message ids not stored");
            }
            let mut mem = self.memory.lock();
            for (id, _) in &batch {
                mem.pending.remove(id);
            }
            drop(mem);
            self.written.notify_all();
        }
    }
}

#[cfg(test)]
#[path = "ids_tests.rs"]
mod tests;
