use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::*;

/// A store over a map that counts its calls; `put` waits while the gate
/// is closed.
#[derive(Default)]
struct Counted {
    rows: Mutex<HashMap<i64, String>>,
    gets: AtomicUsize,
    written: AtomicUsize,
    closed: Mutex<bool>,
    opened: Condvar,
}

impl Counted {
    fn gated() -> Arc<Counted> {
        let c = Counted::default();
        *c.closed.lock() = true;
        Arc::new(c)
    }

    fn open_gate(&self) {
        *self.closed.lock() = false;
        self.opened.notify_all();
    }

    fn gets(&self) -> usize {
        self.gets.load(Ordering::SeqCst)
    }

    fn written(&self) -> usize {
        self.written.load(Ordering::SeqCst)
    }
}

impl IdMap for Arc<Counted> {
    fn get(&self, id: i64) -> Result<Option<String>, String> {
        self.gets.fetch_add(1, Ordering::SeqCst);
        Ok(self.rows.lock().get(&id).cloned())
    }

    fn put(&self, entries: &[(i64, String)]) -> Result<(), String> {
        let mut closed = self.closed.lock();
        while *closed {
            self.opened.wait(&mut closed);
        }
        drop(closed);
        let mut rows = self.rows.lock();
        for (id, text) in entries {
            rows.entry(*id).or_insert_with(|| text.clone());
        }
        self.written.fetch_add(entries.len(), Ordering::SeqCst);
        Ok(())
    }
}

/// A process's mappings of their own, with `budget` bytes of memory.
fn minted(budget: usize) -> &'static Minted {
    Box::leak(Box::new(Minted::new(budget)))
}

/// `minted` with `store` open.
fn stored(budget: usize, store: &Arc<Counted>) -> &'static Minted {
    let m = minted(budget);
    m.persist_with(|| Ok(store.clone())).unwrap();
    m
}

impl Minted {
    /// Waits until every mapping sent to the store is written.
    fn settle(&self) {
        let mut mem = self.memory.lock();
        while !mem.pending.is_empty() {
            self.written.wait(&mut mem);
        }
    }

    fn held(&self) -> (usize, usize) {
        let mem = self.memory.lock();
        (mem.recent.len(), mem.bytes)
    }
}

#[test]
fn a_minted_id_is_the_formula_and_lies_in_its_range() {
    // -(2^32 + 0xba7816bf8f01cfea mod (2^53 - 2^32)): SHA-256("abc").
    assert_eq!(mint("abc"), -6_786_819_526_086_634);
    let wide = mint(&u64::MAX.to_string());
    assert!(is_minted(wide) && wide.unsigned_abs() < 1 << 53);
    assert!(is_minted(-(1 << 32)) && is_minted(-(1 << 53) + 1));
    assert!(!is_minted(-(1 << 53)) && !is_minted(-(1 << 32) + 1));
    assert!(!is_minted(i64::from(i32::MIN)) && !is_minted(0) && !is_minted(5));
}

#[test]
fn text_of_gives_back_only_what_was_minted() {
    let id = mint("milky:10001:group:42:7");
    assert_eq!(text_of(id).as_deref(), Some("milky:10001:group:42:7"));
    assert_eq!(mint("milky:10001:group:42:7"), id, "the same id every time");
    assert_eq!(text_of(-(1 << 40)), None, "in range, never minted");
    assert_eq!(text_of(5), None);
}

#[test]
fn without_a_store_every_mapping_stays_in_memory() {
    let m = minted(cost("t-00") * 2);
    let ids: Vec<i64> = (0..100).map(|i| m.mint(&format!("t-{i:02}"))).collect();
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(
            m.text_of(*id).as_deref(),
            Some(format!("t-{i:02}").as_str())
        );
    }
    assert_eq!(m.held().0, 100);
}

#[test]
fn an_evicted_id_resolves_from_the_store_and_is_held_again() {
    let store = Arc::new(Counted::default());
    let m = stored(cost("first") * 3, &store);
    let first = m.mint("first");
    for i in 0..10 {
        m.mint(&format!("other-{i}"));
    }
    m.settle();
    assert_eq!(store.written(), 11);
    assert!(m.held().0 <= 3, "evicted down to the budget");

    assert_eq!(m.text_of(first).as_deref(), Some("first"));
    assert_eq!(store.gets(), 1, "read back from the store");
    assert_eq!(m.text_of(first).as_deref(), Some("first"));
    assert_eq!(store.gets(), 1, "held in memory again");

    // Known to memory: not written again.
    assert_eq!(m.mint("first"), first);
    m.settle();
    assert_eq!(store.written(), 11);

    assert_eq!(m.text_of(-(1 << 40)), None);
    assert_eq!(store.gets(), 2, "an unknown id in range asks the store");
    assert_eq!(m.text_of(7), None);
    assert_eq!(store.gets(), 2, "an id out of range does not");
}

#[test]
fn mappings_not_yet_written_stay_resolvable_from_memory() {
    let store = Counted::gated();
    let m = stored(cost("held") * 2, &store);
    let held = m.mint("held");
    let others: Vec<i64> = (0..20).map(|i| m.mint(&format!("o-{i}"))).collect();
    assert!(m.held().0 <= 2, "the cache is within its budget");
    assert_eq!(m.text_of(held).as_deref(), Some("held"));
    assert_eq!(m.text_of(others[0]).as_deref(), Some("o-0"));
    assert_eq!(store.gets(), 0, "nothing read from the store");
    assert_eq!(store.written(), 0);

    store.open_gate();
    m.settle();
    assert_eq!(store.written(), 21);
    assert_eq!(m.text_of(held).as_deref(), Some("held"));
    assert_eq!(store.gets(), 1, "written, evicted, read back");
}

#[test]
fn memory_stays_within_its_budget_over_many_ids() {
    let store = Arc::new(Counted::default());
    let m = stored(MEMORY_BUDGET, &store);
    let text = |i: u32| format!("milky:1234567890:group:{}:{i}", 100_000 + i % 50);
    let first = m.mint(&text(0));
    for i in 1..200_000 {
        m.mint(&text(i));
    }
    m.settle();
    let (entries, bytes) = m.held();
    assert!(bytes <= MEMORY_BUDGET, "{bytes} bytes held");
    assert!(
        entries * cost(&text(0)) <= MEMORY_BUDGET,
        "{entries} entries held"
    );
    assert!(entries > 10_000, "the budget is used: {entries} entries");
    assert_eq!(store.written(), 200_000);
    assert_eq!(m.text_of(first).as_deref(), Some(text(0).as_str()));
    assert_eq!(store.gets(), 1);
}

#[test]
fn the_first_store_opened_gets_what_was_minted_before_and_keeps_its_place() {
    let m = minted(MEMORY_BUDGET);
    let before = m.mint("before");
    let store = Arc::new(Counted::default());
    m.persist_with(|| Ok(store.clone())).unwrap();
    m.settle();
    assert_eq!(
        store.rows.lock().get(&before).map(String::as_str),
        Some("before")
    );

    let asked = AtomicBool::new(false);
    m.persist_with(|| {
        asked.store(true, Ordering::SeqCst);
        Ok(Arc::new(Counted::default()))
    })
    .unwrap();
    assert!(!asked.load(Ordering::SeqCst), "a later call opens nothing");
    let after = m.mint("after");
    m.settle();
    assert_eq!(
        store.rows.lock().get(&after).map(String::as_str),
        Some("after")
    );
}

#[test]
fn a_store_that_fails_to_open_leaves_the_next_call_free_to_open_one() {
    let m = minted(MEMORY_BUDGET);
    let failed = m.persist_with(|| Err::<Arc<Counted>, _>("no disk".to_string()));
    assert_eq!(failed, Err("no disk".to_string()));
    let store = Arc::new(Counted::default());
    m.persist_with(|| Ok(store.clone())).unwrap();
    let id = m.mint("later");
    m.settle();
    assert_eq!(
        store.rows.lock().get(&id).map(String::as_str),
        Some("later")
    );
}

#[test]
fn of_two_texts_with_one_id_the_first_keeps_it() {
    let m = minted(MEMORY_BUDGET);
    let id = formula("second");
    // A collision stands in: "first" already holds the id "second" mints.
    m.memory.lock().hold(id, Arc::from("first"));
    assert_eq!(m.mint("second"), id);
    assert_eq!(m.text_of(id).as_deref(), Some("first"));
}
