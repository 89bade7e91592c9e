use super::*;

#[test]
fn reading_after_each_append_pages_in_order_without_recompiling() {
    let dir = tempfile::tempdir().unwrap();
    let journal = SqliteJournal::open(dir.path()).unwrap();
    let event = |id: u64| Journaled {
        id,
        entry: JournalEntry::Event(StoredEvent::new(
            Arc::from("a"),
            id,
            0,
            Arc::new(onebot_gateway_domain::model::InboundEvent::Poke {
                group_id: 1,
                user_id: 2,
                target_id: 3,
                time: id as i64,
            }),
        )),
    };
    for id in 1..=20 {
        journal.append(&[event(id)], None).unwrap();
        let page = journal.read_after(id - 1, 64).unwrap();
        assert_eq!(page.last_id, Some(id));
        assert_eq!(page.entries.len(), 1);
    }
    // A page stops at its limit, oldest first.
    let page = journal.read_after(5, 3).unwrap();
    let ids: Vec<u64> = page.entries.iter().map(|j| j.id).collect();
    assert_eq!(ids, [6, 7, 8]);
    assert_eq!(page.last_id, Some(8));
    // The cached statement was compiled once, not once per read.
    let conn = journal.read.lock();
    let stmt = conn.prepare_cached(READ_AFTER).unwrap();
    assert_eq!(stmt.get_status(rusqlite::StatementStatus::RePrepare), 0);
    assert_eq!(stmt.get_status(rusqlite::StatementStatus::Run), 21);
}

fn message(id: i64) -> onebot_gateway_domain::model::Message {
    use onebot_gateway_domain::model::{ChatRef, Message, RawJson, Segment, Sender};
    Message {
        message_id: id,
        message_seq: Some(id + 100),
        peer_seq: None,
        time: 1_700_000_000 + id,
        sender: Sender {
            user_id: 20,
            nickname: "昵称".into(),
            card: "群名片".into(),
            role: "admin".into(),
        },
        segments: vec![
            Segment::At {
                user_id: Some(10),
                all: false,
                name: Some("机器人".into()),
            },
            Segment::Text(format!(" 第{id}条")),
        ],
        chat: ChatRef::Group(30),
        raw: RawJson::from_text(format!("{{\"message_id\":{id}}}")),
    }
}

/// A group message event of account `a`, numbered `id`.
fn event(id: i64) -> StoredEvent {
    let event = onebot_gateway_domain::model::InboundEvent::message(message(id), false);
    StoredEvent::new(Arc::from("a"), id as u64, 0, Arc::new(event))
}

/// The journal's writer over `store`, as it was left.
fn start(
    store: Arc<dyn EventJournal>,
    archived: bool,
    checkpoint_delay: Duration,
) -> onebot_gateway_domain::journal::Journal {
    use onebot_gateway_domain::journal::{Journal, JournalOptions};
    let state = store.open(64, usize::MAX).unwrap();
    let options = JournalOptions {
        keep_per_account: 64,
        archived,
        checkpoint_delay,
    };
    let stop = tokio_util::sync::CancellationToken::new();
    Journal::start(store, &state, options, Box::new(|_| {}), stop).unwrap()
}

/// Starts the journal over `dir`, submits `events` message events and
/// one sent message, and returns once all of them are committed.
fn committed(
    dir: &Path,
    archived: bool,
    events: i64,
) -> (onebot_gateway_domain::journal::Journal, Arc<SqliteJournal>) {
    let store = Arc::new(SqliteJournal::open(dir).unwrap());
    let journal = start(
        store.clone(),
        archived,
        onebot_gateway_domain::journal::CHECKPOINT_DELAY,
    );
    let first = journal.last_committed() as i64 + 1;
    for id in first..first + events {
        journal.submit_event(event(id));
    }
    // Resolved once committed, with every entry submitted before it.
    journal
        .submit_sent(Arc::from("a"), message(0))
        .blocking_recv()
        .unwrap();
    (journal, store)
}

fn same_entries(handed: &JournalPage, read: &JournalPage) {
    assert_eq!(handed.last_id, read.last_id);
    assert_eq!(handed.entries.len(), read.entries.len());
    for (h, r) in handed.entries.iter().zip(&read.entries) {
        assert_eq!(h.id, r.id);
        match (&h.entry, &r.entry) {
            (JournalEntry::Event(h), JournalEntry::Event(r)) => {
                assert_eq!((&h.account_id, h.sequence), (&r.account_id, r.sequence));
                assert_eq!(*h.event, *r.event);
            }
            (
                JournalEntry::Sent {
                    account_id: ha,
                    message: hm,
                },
                JournalEntry::Sent {
                    account_id: ra,
                    message: rm,
                },
            ) => assert_eq!((ha, hm), (ra, rm)),
            (h, r) => panic!("entry {}: handed {h:?}, read {r:?}", r.account_id()),
        }
    }
}

#[test]
fn the_archive_takes_what_was_just_committed_as_the_journal_would_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let (journal, store) = committed(dir.path(), true, 9);
    // Ids 1..=9 are the events, 10 the sent message.
    let first = journal.take_committed(0, 4).unwrap();
    same_entries(&first, &store.read_after(0, 4).unwrap());
    assert_eq!(first.last_id, Some(4));
    let rest = journal.take_committed(4, 100).unwrap();
    same_entries(&rest, &store.read_after(4, 100).unwrap());
    assert_eq!(rest.last_id, Some(10));
    // Nothing committed after the last one: an empty page, as a read.
    let none = journal.take_committed(10, 100).unwrap();
    assert!(none.entries.is_empty() && none.last_id.is_none());
    // What was taken is gone from memory: the reader reads the journal.
    assert!(journal.take_committed(2, 100).is_none());
}

#[test]
fn a_reader_that_fell_behind_the_handoff_reads_the_journal_then_catches_up() {
    use onebot_gateway_domain::journal::HANDOFF_CAP;
    let dir = tempfile::tempdir().unwrap();
    let events = HANDOFF_CAP as i64 + 10;
    let (journal, store) = committed(dir.path(), true, events);
    let last = events as u64 + 1;
    // The oldest entries were dropped from memory.
    assert!(journal.take_committed(0, 1024).is_none());
    let dropped = last - HANDOFF_CAP as u64;
    assert!(journal.take_committed(dropped - 1, 1024).is_none());
    let page = journal.take_committed(dropped, 8).unwrap();
    same_entries(&page, &store.read_after(dropped, 8).unwrap());
    assert_eq!(page.entries[0].id, dropped + 1);
}

#[test]
fn entries_committed_before_a_restart_or_without_an_archive_are_read_from_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let (journal, _) = committed(dir.path(), false, 3);
    assert!(journal.take_committed(0, 100).is_none());
    drop(journal);
    let (journal, store) = committed(dir.path(), true, 2);
    // Ids 1..=4 were committed by the first start, 5..=7 by this one.
    assert!(journal.take_committed(0, 100).is_none());
    assert!(journal.take_committed(3, 100).is_none());
    let page = journal.take_committed(4, 100).unwrap();
    same_entries(&page, &store.read_after(4, 100).unwrap());
    assert_eq!(page.last_id, Some(7));
}

/// The journal's store with a hook: `before` runs before each append,
/// `after` with its entry count and checkpoint once it is stored.
struct Hooked {
    store: SqliteJournal,
    before: Box<dyn Fn() + Send + Sync>,
    after: Box<dyn Fn(usize, Option<u64>) + Send + Sync>,
}

impl EventJournal for Hooked {
    fn open(&self, keep_per_account: usize, max_bytes: usize) -> Result<JournalState> {
        self.store.open(keep_per_account, max_bytes)
    }
    fn append(&self, entries: &[Journaled], checkpoint: Option<u64>) -> Result<()> {
        (self.before)();
        self.store.append(entries, checkpoint)?;
        (self.after)(entries.len(), checkpoint);
        Ok(())
    }
    fn read_after(&self, after_id: u64, limit: usize) -> Result<JournalPage> {
        self.store.read_after(after_id, limit)
    }
    fn trim(&self, keep_per_account: usize, checkpoint: u64) -> Result<u64> {
        self.store.trim(keep_per_account, checkpoint)
    }
    fn describe(&self) -> String {
        self.store.describe()
    }
}

/// A journal over a store in `dir` that records each append.
fn recorded(
    dir: &Path,
    checkpoint_delay: Duration,
) -> (
    onebot_gateway_domain::journal::Journal,
    std::sync::mpsc::Receiver<(usize, Option<u64>)>,
) {
    let (tx, appends) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    let store = Arc::new(Hooked {
        store: SqliteJournal::open(dir).unwrap(),
        before: Box::new(|| {}),
        after: Box::new(move |n, checkpoint| {
            let _ = tx.lock().send((n, checkpoint));
        }),
    });
    (start(store, true, checkpoint_delay), appends)
}

#[test]
fn the_archives_checkpoint_rides_with_the_next_entries_instead_of_a_commit_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    // Longer than any test runs: a checkpoint is never stored alone.
    let (journal, appends) = recorded(dir.path(), Duration::from_secs(3600));
    journal.submit_event(event(1));
    assert_eq!(appends.recv().unwrap(), (1, None));
    journal.checkpoint(1);
    journal.submit_event(event(2));
    assert_eq!(appends.recv().unwrap(), (1, Some(1)));
    // Stored when the journal stops, though its wait is not over.
    journal.checkpoint(2);
    drop(journal);
    assert_eq!(appends.recv().unwrap(), (0, Some(2)));
    assert!(appends.recv().is_err(), "nothing else was committed");
    let reopened = SqliteJournal::open(dir.path()).unwrap();
    assert_eq!(reopened.open(64, usize::MAX).unwrap().checkpoint, 2);
}

#[test]
fn a_checkpoint_with_no_entries_after_it_is_stored_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (journal, appends) = recorded(dir.path(), Duration::ZERO);
    journal.submit_event(event(1));
    assert_eq!(appends.recv().unwrap(), (1, None));
    journal.checkpoint(1);
    assert_eq!(appends.recv().unwrap(), (0, Some(1)));
    let reopened = SqliteJournal::open(dir.path()).unwrap();
    assert_eq!(reopened.open(64, usize::MAX).unwrap().checkpoint, 1);
    drop(journal);
}

#[test]
fn submitters_wait_while_the_writer_holds_its_bytes() {
    use onebot_gateway_domain::journal::{JournalEntry, QUEUE_BYTES};
    let big = |sequence: u64| {
        let event = onebot_gateway_domain::model::InboundEvent::Unknown {
            post_type: "notice".into(),
            group_id: None,
            time: 0,
            raw: onebot_gateway_domain::model::RawJson::from_text("x".repeat(4 << 20)),
        };
        StoredEvent::new(Arc::from("a"), sequence, 0, Arc::new(event))
    };
    let size = JournalEntry::Event(big(1)).approx_bytes();
    let fit = QUEUE_BYTES / size;
    let dir = tempfile::tempdir().unwrap();
    let (open, gate) = std::sync::mpsc::channel::<()>();
    // The first append waits until `open` is dropped.
    let gate = Mutex::new(gate);
    let store = Arc::new(Hooked {
        store: SqliteJournal::open(dir.path()).unwrap(),
        before: Box::new(move || {
            let _ = gate.lock().recv();
        }),
        after: Box::new(|_, _| {}),
    });
    let journal = start(store, false, Duration::ZERO);
    let (progress, submitted) = std::sync::mpsc::channel();
    let submitter = std::thread::spawn(move || {
        for sequence in 1..=3 * fit as u64 {
            journal.submit_event(big(sequence));
            let queued = journal.queued_bytes();
            assert!(
                queued <= QUEUE_BYTES + size,
                "{queued} bytes queued behind a stalled writer"
            );
            progress.send(sequence).unwrap();
        }
    });
    // The writer holds the first batch in its append; the submitter gets
    // as far as the bytes allow, then waits for room.
    for want in 1..=fit as u64 {
        assert_eq!(submitted.recv().unwrap(), want);
    }
    drop(open);
    for want in fit as u64 + 1..=3 * fit as u64 {
        assert_eq!(submitted.recv().unwrap(), want);
    }
    submitter.join().unwrap();
}
