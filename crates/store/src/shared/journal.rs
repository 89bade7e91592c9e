//! The journal `[ha]` shares ([`EventJournal`]): table `gateway_journal`.
//!
//! - **Sequences** are per account across the gateways: a unique index on
//!   `(account_id, seq)`, and every event row is committed fenced by the
//!   account's lease ([`Shared::fence_in`]). A gateway that comes to lead an
//!   account reads its last sequence and newest events back
//!   ([`EventJournal::reload`]) after the lease changed hands, when no
//!   former leader can commit any more: numbering goes on with no gap and
//!   no repeat, and `after_sequence` from the former leader resumes.
//! - **Positions** (`id`: what the archive's checkpoint and
//!   [`read_after`](EventJournal::read_after) count) are per gateway
//!   instance (`ha.instance`): each gateway's writer numbers its own rows
//!   and its archive ingest takes them. An instance's checkpoint is kept in
//!   `gateway_journal_checkpoints`, so a gateway run again under the same
//!   instance name (a StatefulSet's pod) archives what it left.
//! - **Trimming** removes an instance's own rows the archive has taken,
//!   except each account's newest `keep` events (the resume buffer, which
//!   every instance's rows count towards).
//!
//! Entries of an account whose lease this gateway no longer holds are not
//! committed (the rest of the batch is); the account is stepped down from
//! at once.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::Shared;
use crate::journal::{KIND_EVENT, decode_row, encode_entry, resume_buffer};
use onebot_gateway_domain::error::{Kind, Result};
use onebot_gateway_domain::journal::{
    EventJournal, JournalEntry, JournalPage, JournalState, Journaled, READ_BYTES, StoredEvent,
};

/// The newest events of an account, newest first.
const RECENT: &str = "SELECT id, seq, received_ms, body FROM gateway_journal \
                      WHERE account_id = $1 AND seq IS NOT NULL ORDER BY seq DESC LIMIT $2";

/// The journal in the shared database.
pub struct PgJournal {
    shared: Arc<Shared>,
    instance: String,
}

impl std::fmt::Debug for PgJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgJournal")
            .field("instance", &self.instance)
            .finish_non_exhaustive()
    }
}

impl PgJournal {
    /// The journal of the gateway instance `instance` in `shared`.
    pub fn new(shared: Arc<Shared>, instance: &str) -> Self {
        Self {
            shared,
            instance: instance.to_owned(),
        }
    }

    /// The last sequence number of `account` and its newest events, oldest
    /// first, within `keep` events and `max_bytes` (the newest always).
    async fn recent(
        shared: &Arc<Shared>,
        account: &str,
        keep: usize,
        max_bytes: usize,
    ) -> Result<(u64, Vec<StoredEvent>)> {
        let client = shared.reader().await?;
        let err = shared.err();
        let rows = client
            .query(RECENT, &[&account, &(keep as i64)])
            .await
            .map_err(&err)?;
        let last = rows.first().map_or(0, |r| r.get::<_, i64>(1) as u64);
        let journal = shared.describe();
        let rows = rows
            .into_iter()
            .map(|row| Ok((row.get(0), row.get(1), row.get(2), row.get(3))));
        let recent = resume_buffer(&journal, account, rows, max_bytes)?;
        Ok((last, recent))
    }
}

impl EventJournal for PgJournal {
    fn open(&self, keep_per_account: usize, max_bytes_per_account: usize) -> Result<JournalState> {
        let shared = self.shared.clone();
        let instance = self.instance.clone();
        self.shared.run(async move {
            let client = shared.reader().await?;
            let err = shared.err();
            let last_id: i64 = client
                .query_one(
                    "SELECT coalesce(max(id), 0) FROM gateway_journal WHERE instance = $1",
                    &[&instance],
                )
                .await
                .map_err(&err)?
                .get(0);
            let checkpoint: i64 = client
                .query_opt(
                    "SELECT checkpoint FROM gateway_journal_checkpoints WHERE instance = $1",
                    &[&instance],
                )
                .await
                .map_err(&err)?
                .map_or(0, |r| r.get(0));
            let mut state = JournalState {
                last_id: last_id.max(checkpoint) as u64,
                checkpoint: checkpoint as u64,
                ..JournalState::default()
            };
            // Only the accounts this gateway leads: the others are read back
            // when it comes to lead them.
            let accounts: Vec<String> = client
                .query(
                    "SELECT DISTINCT account_id FROM gateway_journal WHERE seq IS NOT NULL",
                    &[],
                )
                .await
                .map_err(&err)?
                .iter()
                .map(|r| r.get(0))
                .filter(|a: &String| shared.fence().epoch(a).is_some())
                .collect();
            for account in accounts {
                let (last, events) =
                    Self::recent(&shared, &account, keep_per_account, max_bytes_per_account)
                        .await?;
                state.last_sequences.insert(account, last);
                state.recent.extend(events);
            }
            Ok(state)
        })
    }

    fn append(&self, entries: &[Journaled], checkpoint: Option<u64>) -> Result<()> {
        let shared = self.shared.clone();
        let instance = self.instance.clone();
        let mut columns = Columns::default();
        for j in entries {
            let (seq, received_ms, kind, body) = encode_entry(&j.entry);
            columns.ids.push(j.id as i64);
            columns.accounts.push(j.entry.account_id().to_owned());
            columns.seqs.push(seq);
            columns.received.push(received_ms);
            columns.kinds.push(kind as i16);
            columns.bodies.push(body);
        }
        self.shared.run(async move {
            let err = shared.err();
            let mut client = shared.writer().await?;
            let tx = client.transaction().await.map_err(&err)?;
            let accounts: BTreeSet<String> = columns.accounts.iter().cloned().collect();
            let mut epochs = HashMap::new();
            for account in accounts {
                match shared.fence_in(&tx, &account).await {
                    Ok(epoch) => {
                        epochs.insert(account, epoch);
                    }
                    Err(e) if e.kind == Kind::NotLeader => {
                        tracing::warn!(account_id = %account, "this gateway lost the account's lease: its newest events are not journaled (the new leader receives them itself)");
                    }
                    Err(e) => return Err(e),
                }
            }
            let columns = columns.fenced(&epochs);
            if !columns.ids.is_empty() {
                tx.execute(
                    "INSERT INTO gateway_journal \
                     (instance, id, account_id, seq, received_ms, kind, body, epoch) \
                     SELECT $1, * FROM UNNEST($2::BIGINT[], $3::TEXT[], $4::BIGINT[], \
                     $5::BIGINT[], $6::SMALLINT[], $7::BYTEA[], $8::BIGINT[])",
                    &[
                        &instance,
                        &columns.ids,
                        &columns.accounts,
                        &columns.seqs,
                        &columns.received,
                        &columns.kinds,
                        &columns.bodies,
                        &columns.epochs,
                    ],
                )
                .await
                .map_err(&err)?;
            }
            if let Some(c) = checkpoint {
                tx.execute(
                    "INSERT INTO gateway_journal_checkpoints (instance, checkpoint) VALUES ($1, $2) \
                     ON CONFLICT (instance) DO UPDATE SET checkpoint = \
                     greatest(gateway_journal_checkpoints.checkpoint, EXCLUDED.checkpoint)",
                    &[&instance, &(c as i64)],
                )
                .await
                .map_err(&err)?;
            }
            tx.commit().await.map_err(&err)
        })
    }

    fn read_after(&self, after_id: u64, limit: usize) -> Result<JournalPage> {
        let shared = self.shared.clone();
        let instance = self.instance.clone();
        self.shared.run(async move {
            let client = shared.reader().await?;
            let rows = client
                .query(
                    "SELECT id, account_id, seq, received_ms, kind, body FROM gateway_journal \
                     WHERE instance = $1 AND id > $2 ORDER BY id LIMIT $3",
                    &[&instance, &(after_id as i64), &(limit.max(1) as i64)],
                )
                .await
                .map_err(shared.err())?;
            let mut page = JournalPage::default();
            let mut bytes = 0usize;
            for row in rows {
                if bytes >= READ_BYTES {
                    break;
                }
                let id: i64 = row.get(0);
                let body: Vec<u8> = row.get(5);
                bytes = bytes.saturating_add(body.len());
                page.last_id = Some(id as u64);
                let kind: i16 = row.get(4);
                match decode_row(
                    id,
                    row.get(1),
                    row.get(2),
                    row.get(3),
                    i64::from(kind),
                    &body,
                ) {
                    Ok(entry) => page.entries.push(Journaled {
                        id: id as u64,
                        entry,
                    }),
                    Err(e) => {
                        tracing::warn!(id, error = %e, "a journal entry cannot be read; the archive skips it");
                    }
                }
            }
            Ok(page)
        })
    }

    fn trim(&self, keep_per_account: usize, checkpoint: u64) -> Result<u64> {
        let shared = self.shared.clone();
        let instance = self.instance.clone();
        self.shared.run(async move {
            let client = shared.writer().await?;
            let deleted = client
                .execute(
                    "DELETE FROM gateway_journal j WHERE j.instance = $1 AND j.id <= $2 \
                     AND (j.seq IS NULL OR j.seq <= (SELECT max(k.seq) FROM gateway_journal k \
                     WHERE k.account_id = j.account_id AND k.seq IS NOT NULL) - $3)",
                    &[&instance, &(checkpoint as i64), &(keep_per_account as i64)],
                )
                .await
                .map_err(shared.err())?;
            Ok(deleted)
        })
    }

    fn describe(&self) -> String {
        format!("{} (instance {})", self.shared.describe(), self.instance)
    }

    fn events_after(
        &self,
        account: &str,
        after: u64,
        limit: usize,
    ) -> Result<Option<Vec<StoredEvent>>> {
        let shared = self.shared.clone();
        let account = account.to_owned();
        self.shared.run(async move {
            let client = shared.reader().await?;
            let rows = client
                .query(
                    "SELECT id, seq, received_ms, body FROM gateway_journal \
                     WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                    &[&account, &(after as i64), &(limit.max(1) as i64)],
                )
                .await
                .map_err(shared.err())?;
            let mut events = Vec::with_capacity(rows.len());
            for row in rows {
                let (id, seq, received_ms, body): (i64, i64, i64, Vec<u8>) =
                    (row.get(0), row.get(1), row.get(2), row.get(3));
                match decode_row(id, account.clone(), Some(seq), received_ms, KIND_EVENT, &body) {
                    Ok(JournalEntry::Event(e)) => events.push(e),
                    Ok(JournalEntry::Sent { .. }) => {}
                    Err(e) => {
                        tracing::warn!(account_id = %account, seq, error = %e, "a journal entry cannot be read; it is left out");
                    }
                }
            }
            Ok(Some(events))
        })
    }

    fn reader_position(&self, reader: &str, account: &str) -> Result<Option<u64>> {
        let shared = self.shared.clone();
        let (reader, account) = (reader.to_owned(), account.to_owned());
        self.shared.run(async move {
            let client = shared.reader().await?;
            let row = client
                .query_opt(
                    "SELECT sequence FROM gateway_sink_positions WHERE sink = $1 AND account_id = $2",
                    &[&reader, &account],
                )
                .await
                .map_err(shared.err())?;
            Ok(Some(row.map_or(0, |r| r.get::<_, i64>(0) as u64)))
        })
    }

    fn store_reader_positions(&self, reader: &str, positions: &[(String, u64)]) -> Result<()> {
        if positions.is_empty() {
            return Ok(());
        }
        let shared = self.shared.clone();
        let reader = reader.to_owned();
        let accounts: Vec<String> = positions.iter().map(|(a, _)| a.clone()).collect();
        let sequences: Vec<i64> = positions.iter().map(|(_, s)| *s as i64).collect();
        self.shared.run(async move {
            let client = shared.writer().await?;
            client
                .execute(
                    "INSERT INTO gateway_sink_positions (sink, account_id, sequence) \
                     SELECT $1, * FROM UNNEST($2::TEXT[], $3::BIGINT[]) \
                     ON CONFLICT (sink, account_id) DO UPDATE SET sequence = \
                     greatest(gateway_sink_positions.sequence, EXCLUDED.sequence)",
                    &[&reader, &accounts, &sequences],
                )
                .await
                .map_err(shared.err())?;
            Ok(())
        })
    }

    fn reload(
        &self,
        account: &str,
        keep: usize,
        max_bytes: usize,
    ) -> Result<Option<(u64, Vec<StoredEvent>)>> {
        let shared = self.shared.clone();
        let account = account.to_owned();
        self.shared.run(async move {
            Self::recent(&shared, &account, keep, max_bytes)
                .await
                .map(Some)
        })
    }
}

/// The rows of one append, as the arrays of its one statement.
#[derive(Default)]
struct Columns {
    ids: Vec<i64>,
    accounts: Vec<String>,
    seqs: Vec<Option<i64>>,
    received: Vec<i64>,
    kinds: Vec<i16>,
    bodies: Vec<Vec<u8>>,
    epochs: Vec<i64>,
}

impl Columns {
    /// The rows of the accounts `epochs` holds, each with its account's
    /// epoch; the others are left out.
    fn fenced(self, epochs: &HashMap<String, i64>) -> Columns {
        let mut kept = Columns::default();
        let rows = self
            .ids
            .into_iter()
            .zip(self.accounts)
            .zip(self.seqs)
            .zip(self.received)
            .zip(self.kinds)
            .zip(self.bodies);
        for (((((id, account), seq), received), kind), body) in rows {
            let Some(epoch) = epochs.get(&account) else {
                continue;
            };
            kept.ids.push(id);
            kept.epochs.push(*epoch);
            kept.accounts.push(account);
            kept.seqs.push(seq);
            kept.received.push(received);
            kept.kinds.push(kind);
            kept.bodies.push(body);
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shared::tests::TestDb;
    use onebot_gateway_domain::model::InboundEvent;

    fn event(id: u64, account: &str, seq: u64) -> Journaled {
        Journaled {
            id,
            entry: JournalEntry::Event(StoredEvent::new(
                Arc::from(account),
                seq,
                seq as i64,
                Arc::new(InboundEvent::Poke {
                    group_id: 1,
                    user_id: 2,
                    target_id: 3,
                    time: seq as i64,
                }),
            )),
        }
    }

    fn seqs(events: &[StoredEvent]) -> Vec<u64> {
        events.iter().map(|e| e.sequence).collect()
    }

    /// Runs a blocking call of the journal off the runtime's threads.
    async fn off<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        tokio::task::spawn_blocking(f).await.unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_new_leader_continues_the_sequence_and_a_fenced_one_commits_nothing() {
        let Some(db) = TestDb::fresh("journal_takeover").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        db.lead(&a, "acc").await;
        let ja = Arc::new(PgJournal::new(a.shared.clone(), "a"));
        let jb = Arc::new(PgJournal::new(b.shared.clone(), "b"));
        {
            let ja = ja.clone();
            off(move || {
                ja.append(&[event(1, "acc", 1), event(2, "acc", 2)], Some(1))
                    .unwrap();
                ja.append(&[event(3, "acc", 3)], None).unwrap();
            })
            .await;
        }
        // A reopened: its positions and the account's state are back.
        let state = {
            let ja = ja.clone();
            off(move || ja.open(10, usize::MAX).unwrap()).await
        };
        assert_eq!((state.last_id, state.checkpoint), (3, 1));
        assert_eq!(state.last_sequences.get("acc"), Some(&3));
        assert_eq!(seqs(&state.recent), [1, 2, 3]);
        // B does not lead the account: its open leaves it out.
        let state_b = {
            let jb = jb.clone();
            off(move || jb.open(10, usize::MAX).unwrap()).await
        };
        assert!(state_b.last_sequences.is_empty() && state_b.last_id == 0);

        // The lease moves to B; B reads the account back.
        db.let_go(&a, "acc").await;
        db.lead(&b, "acc").await;
        let (last, recent) = {
            let jb = jb.clone();
            off(move || jb.reload("acc", 2, usize::MAX).unwrap().unwrap()).await
        };
        assert_eq!((last, seqs(&recent)), (3, vec![2, 3]));
        // B numbers on; A, paused through the handover, commits nothing
        // and is told to step down; the rest of its batch is kept.
        {
            let (ja, jb) = (ja.clone(), jb.clone());
            off(move || {
                jb.append(&[event(1, "acc", 4)], None).unwrap();
                ja.append(&[event(4, "acc", 4), event(5, "acc", 5)], None)
                    .unwrap();
            })
            .await;
        }
        assert!(a.fence.lost.lock().contains("acc"));
        let (last, recent) = {
            let jb = jb.clone();
            off(move || jb.reload("acc", 10, usize::MAX).unwrap().unwrap()).await
        };
        assert_eq!((last, seqs(&recent)), (4, vec![1, 2, 3, 4]));
        // Each instance reads its own positions.
        let page = {
            let ja = ja.clone();
            off(move || ja.read_after(0, 10).unwrap()).await
        };
        assert_eq!(page.last_id, Some(3));
        let page = {
            let jb = jb.clone();
            off(move || jb.read_after(0, 10).unwrap()).await
        };
        assert_eq!(page.entries.len(), 1);
        assert_eq!(page.entries[0].id, 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_sink_reads_any_instances_events_and_its_shared_position_never_goes_back() {
        let Some(db) = TestDb::fresh("journal_readers").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        db.lead(&a, "acc").await;
        let ja = Arc::new(PgJournal::new(a.shared.clone(), "a"));
        let jb = Arc::new(PgJournal::new(b.shared.clone(), "b"));
        off({
            let ja = ja.clone();
            move || {
                let batch: Vec<Journaled> = (1..=4).map(|i| event(i, "acc", i)).collect();
                ja.append(&batch, None).unwrap();
                ja.store_reader_positions("nats", &[("acc".into(), 3)])
                    .unwrap();
                // A late, lower write does not move it back.
                ja.store_reader_positions("nats", &[("acc".into(), 2)])
                    .unwrap();
            }
        })
        .await;
        let (position, other, events) = off({
            let jb = jb.clone();
            move || {
                (
                    jb.reader_position("nats", "acc").unwrap(),
                    jb.reader_position("other", "acc").unwrap(),
                    jb.events_after("acc", 1, 2).unwrap().unwrap(),
                )
            }
        })
        .await;
        assert_eq!((position, other), (Some(3), Some(0)));
        assert_eq!(seqs(&events), [2, 3]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn trimming_keeps_the_newest_events_of_each_account_across_instances() {
        let Some(db) = TestDb::fresh("journal_trim").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        db.lead(&a, "acc").await;
        let ja = Arc::new(PgJournal::new(a.shared.clone(), "a"));
        let jb = Arc::new(PgJournal::new(b.shared.clone(), "b"));
        {
            let ja = ja.clone();
            off(move || {
                let batch: Vec<Journaled> = (1..=6).map(|i| event(i, "acc", i)).collect();
                ja.append(&batch, None).unwrap();
            })
            .await;
        }
        db.let_go(&a, "acc").await;
        db.lead(&b, "acc").await;
        {
            let jb = jb.clone();
            off(move || jb.append(&[event(1, "acc", 7)], None).unwrap()).await;
        }
        // A's archive took entries up to 5; keep 3 events: A's events 1..=4
        // go (5 is among the newest 3 of the account: 5, 6, 7).
        let deleted = {
            let ja = ja.clone();
            off(move || ja.trim(3, 5).unwrap()).await
        };
        assert_eq!(deleted, 4);
        let (last, recent) = {
            let jb = jb.clone();
            off(move || jb.reload("acc", 10, usize::MAX).unwrap().unwrap()).await
        };
        assert_eq!((last, seqs(&recent)), (7, vec![5, 6, 7]));
    }
}
