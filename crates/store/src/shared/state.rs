//! The durable state of `[ha]` in the shared PostgreSQL database: the
//! offline queues, idempotency records and the indexes of staged and
//! received media (the domain's [`QueueStore`], [`IdempotencyStore`],
//! [`MediaIndex`] and [`ReceivedIndex`]), with the semantics of the
//! embedded [`crate::state::StateStore`].
//!
//! # Transactions
//! A port's write transaction is one PostgreSQL transaction on the write
//! connection ([`Shared::writer`]): a task of the store's runtime holds it
//! and runs the statements the blocking caller sends it one at a time
//! ([`Txn`]), so a synchronous closure (the queue's, the idempotency
//! update's) reads and writes inside it. The write connection serves one
//! transaction at a time, so this gateway's writes are serialized. A
//! transaction is committed only when everything in it succeeded: after a
//! failed statement or a refused write the commit fails with that error
//! and nothing of the transaction is kept.
//!
//! # Fencing
//! Every write that belongs to an account (a queue entry, an idempotency
//! record, a received media record) first checks the account's lease in
//! the same transaction ([`Shared::fence_in`], once per account and
//! transaction) and carries its epoch where the table has the column. A
//! write refused by the fence fails with `NotLeader` and its transaction
//! keeps nothing. The index of staged media belongs to no account and is
//! not fenced; neither is the received media secret, which every gateway
//! shares.
//!
//! Keys are compared bytewise (`COLLATE "C"`, or sorted here), so rows list
//! in the order of their keys' bytes, as in the embedded store.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::mpsc as std_mpsc;

use tokio::sync::mpsc;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::Shared;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::store::{
    IdempotencyStore, MediaIndex, QueueStore, QueueTxn, ReceivedIndex, Replacement,
};

/// The counter of queue sequence numbers in `gateway_counters`.
const QUEUE_SEQ: &str = "queue_seq";
/// The received-media secret's name in `gateway_secrets`.
const RECEIVED_SECRET: &str = "received_media";

/// A statement's parameter, owned so it can go to the runtime's task.
type Param = Box<dyn ToSql + Send + Sync>;

/// The parameters as the driver takes them.
fn refs(params: &[Param]) -> Vec<&(dyn ToSql + Sync)> {
    params
        .iter()
        .map(|p| p.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

/// A sequence number as stored.
fn stored_seq(seq: u64) -> Result<i64> {
    i64::try_from(seq)
        .map_err(|_| Error::internal(format!("queue sequence number {seq} is out of range")))
}

/// The offline queues, idempotency records and media indexes in the shared
/// database.
pub struct PgState {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for PgState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgState")
            .field("shared", &self.shared)
            .finish()
    }
}

impl PgState {
    /// The state in `shared`'s database (its tables are created by
    /// [`Shared::open`]).
    pub fn new(shared: Arc<Shared>) -> Self {
        Self { shared }
    }

    /// Runs one read statement on the read connection.
    fn query(&self, sql: &'static str, params: Vec<Param>) -> Result<Vec<Row>> {
        let shared = self.shared.clone();
        self.shared.run(async move {
            let client = shared.reader().await?;
            client
                .query(sql, &refs(&params))
                .await
                .map_err(shared.err())
        })
    }

    /// Begins a write transaction.
    fn begin(&self) -> Result<Txn> {
        Txn::begin(&self.shared)
    }
}

/// What the blocking side asks of the transaction's task.
enum Op {
    Query(&'static str, Vec<Param>),
    Execute(&'static str, Vec<Param>),
    Fence(String),
    Commit,
}

/// What the task answers.
enum Reply {
    Rows(Vec<Row>),
    Count(u64),
    Epoch(i64),
    Done,
}

/// One transaction on the write connection, held by a task of the store's
/// runtime and driven from a blocking thread. Dropping it uncommitted
/// rolls it back. Never use it from a task of that runtime (its calls
/// block).
struct Txn {
    ops: mpsc::UnboundedSender<Op>,
    replies: std_mpsc::Receiver<Result<Reply>>,
    /// The first error of the transaction: its commit fails with it.
    failed: Option<Error>,
    /// The epochs of the accounts fenced so far.
    epochs: HashMap<String, i64>,
}

fn stopped() -> Error {
    Error::internal("the shared store's runtime has stopped")
}

fn unexpected() -> Error {
    Error::internal("the shared store's transaction answered out of turn")
}

/// The task that holds a transaction: begins it (answering `Done`), runs
/// each operation and answers it, commits on `Commit`, and rolls back when
/// the blocking side goes away without committing.
async fn drive(
    shared: Arc<Shared>,
    mut ops: mpsc::UnboundedReceiver<Op>,
    replies: std_mpsc::Sender<Result<Reply>>,
) {
    let mut client = match shared.writer().await {
        Ok(c) => c,
        Err(e) => {
            let _ = replies.send(Err(e));
            return;
        }
    };
    let tx = match client.transaction().await {
        Ok(tx) => tx,
        Err(e) => {
            let _ = replies.send(Err(shared.err()(e)));
            return;
        }
    };
    if replies.send(Ok(Reply::Done)).is_err() {
        let _ = tx.rollback().await;
        return;
    }
    while let Some(op) = ops.recv().await {
        let out = match op {
            Op::Query(sql, params) => tx
                .query(sql, &refs(&params))
                .await
                .map(Reply::Rows)
                .map_err(shared.err()),
            Op::Execute(sql, params) => tx
                .execute(sql, &refs(&params))
                .await
                .map(Reply::Count)
                .map_err(shared.err()),
            Op::Fence(account) => shared.fence_in(&tx, &account).await.map(Reply::Epoch),
            Op::Commit => {
                let done = tx.commit().await.map(|()| Reply::Done);
                let _ = replies.send(done.map_err(shared.err()));
                return;
            }
        };
        if replies.send(out).is_err() {
            break;
        }
    }
    let _ = tx.rollback().await;
}

impl Txn {
    /// Begins a transaction on `shared`'s write connection (waiting for
    /// the one in progress).
    fn begin(shared: &Arc<Shared>) -> Result<Self> {
        let (ops, rx) = mpsc::unbounded_channel();
        let (reply, replies) = std_mpsc::channel();
        shared.runtime.spawn(drive(shared.clone(), rx, reply));
        let txn = Self {
            ops,
            replies,
            failed: None,
            epochs: HashMap::new(),
        };
        match txn.replies.recv().map_err(|_| stopped())?? {
            Reply::Done => Ok(txn),
            _ => Err(unexpected()),
        }
    }

    /// Sends `op` and waits for its answer. A failed statement fails the
    /// transaction (PostgreSQL aborts it); a refusal by the fence does not
    /// by itself (the caller decides, see [`Txn::fail`]).
    fn call(&mut self, op: Op) -> Result<Reply> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        self.ops.send(op).map_err(|_| stopped())?;
        let out = self.replies.recv().map_err(|_| stopped())?;
        if let Err(e) = &out
            && e.kind != Kind::NotLeader
        {
            self.failed = Some(e.clone());
        }
        out
    }

    /// Marks the transaction failed with `e` (when it is not already):
    /// its commit then fails and keeps nothing.
    fn fail(&mut self, e: &Error) {
        self.failed.get_or_insert_with(|| e.clone());
    }

    /// Passes `out` through, failing the transaction when it is an error:
    /// how a write refused (by the fence or the database) keeps the rest of
    /// the transaction from being committed without it.
    fn written<T>(&mut self, out: Result<T>) -> Result<T> {
        if let Err(e) = &out {
            self.fail(e);
        }
        out
    }

    fn query(&mut self, sql: &'static str, params: Vec<Param>) -> Result<Vec<Row>> {
        match self.call(Op::Query(sql, params))? {
            Reply::Rows(rows) => Ok(rows),
            _ => Err(unexpected()),
        }
    }

    fn execute(&mut self, sql: &'static str, params: Vec<Param>) -> Result<u64> {
        match self.call(Op::Execute(sql, params))? {
            Reply::Count(n) => Ok(n),
            _ => Err(unexpected()),
        }
    }

    /// The epoch this gateway holds `account` at, checked in this
    /// transaction (once; the lease row then cannot change hands until the
    /// transaction ends). `NotLeader` when it does not hold it.
    fn fence(&mut self, account: &str) -> Result<i64> {
        if let Some(epoch) = self.epochs.get(account) {
            return Ok(*epoch);
        }
        match self.call(Op::Fence(account.to_owned()))? {
            Reply::Epoch(epoch) => {
                self.epochs.insert(account.to_owned(), epoch);
                Ok(epoch)
            }
            _ => Err(unexpected()),
        }
    }

    /// Commits; fails (keeping nothing) when the transaction failed
    /// before.
    fn commit(mut self) -> Result<()> {
        match self.call(Op::Commit)? {
            Reply::Done => Ok(()),
            _ => Err(unexpected()),
        }
    }
}

const QUEUE_OF: &str = "SELECT value FROM gateway_queue WHERE account_id = $1 ORDER BY seq";

/// A write transaction over the offline queues.
struct QueueWrite {
    txn: Txn,
}

impl QueueTxn for QueueWrite {
    fn entries(&mut self, account: &str) -> Result<Vec<Vec<u8>>> {
        let rows = self
            .txn
            .query(QUEUE_OF, vec![Box::new(account.to_owned())])?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn put(&mut self, account: &str, seq: u64, value: &[u8]) -> Result<()> {
        let out = (|| {
            let seq = stored_seq(seq)?;
            let epoch = self.txn.fence(account)?;
            self.txn.execute(
                "INSERT INTO gateway_queue (account_id, seq, value, epoch) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (account_id, seq) DO UPDATE SET value = EXCLUDED.value, epoch = EXCLUDED.epoch",
                vec![
                    Box::new(account.to_owned()),
                    Box::new(seq),
                    Box::new(value.to_vec()),
                    Box::new(epoch),
                ],
            )
        })();
        self.txn.written(out).map(drop)
    }

    fn remove(&mut self, account: &str, seq: u64) -> Result<()> {
        let out = (|| {
            let seq = stored_seq(seq)?;
            self.txn.fence(account)?;
            self.txn.execute(
                "DELETE FROM gateway_queue WHERE account_id = $1 AND seq = $2",
                vec![Box::new(account.to_owned()), Box::new(seq)],
            )
        })();
        self.txn.written(out).map(drop)
    }

    fn next_seq(&mut self) -> Result<u64> {
        let rows = self.txn.query(
            "INSERT INTO gateway_counters (name, value) VALUES ($1, 1) \
             ON CONFLICT (name) DO UPDATE SET value = gateway_counters.value + 1 RETURNING value",
            vec![Box::new(QUEUE_SEQ)],
        )?;
        let next: i64 = rows.first().ok_or_else(unexpected)?.get(0);
        u64::try_from(next).map_err(|_| Error::internal(format!("queue counter at {next}")))
    }
}

impl QueueStore for PgState {
    fn depths(&self) -> Result<Vec<(String, usize)>> {
        let rows = self.query(
            "SELECT account_id, count(*) FROM gateway_queue \
             GROUP BY account_id ORDER BY account_id COLLATE \"C\"",
            vec![],
        )?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), usize::try_from(r.get::<_, i64>(1)).unwrap_or(0)))
            .collect())
    }

    fn list(&self, account: &str) -> Result<Vec<Vec<u8>>> {
        let rows = self.query(QUEUE_OF, vec![Box::new(account.to_owned())])?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn write(&self, f: &mut dyn FnMut(&mut dyn QueueTxn) -> Result<()>) -> Result<()> {
        let mut write = QueueWrite { txn: self.begin()? };
        f(&mut write)?;
        write.txn.commit()
    }
}

const IDEMPOTENCY_OF: &str =
    "SELECT value FROM gateway_idempotency WHERE account_id = $1 AND key = $2";

impl IdempotencyStore for PgState {
    fn get(&self, account: &str, key: &str) -> Result<Option<Vec<u8>>> {
        let rows = self.query(
            IDEMPOTENCY_OF,
            vec![Box::new(account.to_owned()), Box::new(key.to_owned())],
        )?;
        Ok(rows.first().map(|r| r.get(0)))
    }

    /// Reads the record `FOR UPDATE` and writes what `f` returns in the
    /// same transaction, fenced on `account` (only when there is
    /// something to write).
    fn update(
        &self,
        account: &str,
        key: &str,
        f: &mut dyn FnMut(Option<&[u8]>) -> Result<Replacement>,
    ) -> Result<()> {
        let mut txn = self.begin()?;
        let rows = txn.query(
            "SELECT value FROM gateway_idempotency WHERE account_id = $1 AND key = $2 FOR UPDATE",
            vec![Box::new(account.to_owned()), Box::new(key.to_owned())],
        )?;
        let existing: Option<Vec<u8>> = rows.first().map(|r| r.get(0));
        if let Some(new) = f(existing.as_deref())? {
            let epoch = txn.fence(account)?;
            txn.execute(
                "INSERT INTO gateway_idempotency (account_id, key, value, epoch) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (account_id, key) DO UPDATE SET value = EXCLUDED.value, epoch = EXCLUDED.epoch",
                vec![
                    Box::new(account.to_owned()),
                    Box::new(key.to_owned()),
                    Box::new(new),
                    Box::new(epoch),
                ],
            )?;
        }
        txn.commit()
    }

    fn remove(&self, account: &str, key: &str) -> Result<()> {
        let mut txn = self.begin()?;
        txn.fence(account)?;
        txn.execute(
            "DELETE FROM gateway_idempotency WHERE account_id = $1 AND key = $2",
            vec![Box::new(account.to_owned()), Box::new(key.to_owned())],
        )?;
        txn.commit()
    }

    /// Sweeps only the records of the accounts this gateway leads, each
    /// account fenced in the one transaction: another gateway's accounts
    /// are its leader's to sweep, and an account whose lease turns out
    /// lost is skipped (its records stay for the new leader). Records of
    /// an account no gateway leads any more stay until one leads it again.
    fn retain(&self, keep: &mut dyn FnMut(&[u8]) -> bool) -> Result<usize> {
        let fence = self.shared.fence().clone();
        let mut txn = self.begin()?;
        let accounts = txn.query(
            "SELECT DISTINCT account_id FROM gateway_idempotency",
            vec![],
        )?;
        let led: Vec<String> = accounts
            .iter()
            .map(|r| r.get::<_, String>(0))
            .filter(|account| fence.epoch(account).is_some())
            .collect();
        if led.is_empty() {
            return Ok(0);
        }
        let rows = txn.query(
            "SELECT account_id, key, value FROM gateway_idempotency WHERE account_id = ANY($1) \
             ORDER BY account_id COLLATE \"C\", key COLLATE \"C\"",
            vec![Box::new(led)],
        )?;
        let mut gone: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for row in &rows {
            if !keep(row.get::<_, &[u8]>(2)) {
                gone.entry(row.get(0)).or_default().push(row.get(1));
            }
        }
        let mut removed = 0u64;
        for (account, keys) in gone {
            match txn.fence(&account) {
                Ok(_) => {}
                Err(e) if e.kind == Kind::NotLeader => continue,
                Err(e) => return Err(e),
            }
            removed += txn.execute(
                "DELETE FROM gateway_idempotency WHERE account_id = $1 AND key = ANY($2)",
                vec![Box::new(account), Box::new(keys)],
            )?;
        }
        txn.commit()?;
        Ok(usize::try_from(removed).unwrap_or(usize::MAX))
    }
}

/// Staged media belong to no account (the domain keeps one owner per
/// media id, and an id is never reused): their writes are not fenced.
impl MediaIndex for PgState {
    fn all(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let rows = self.query(
            "SELECT id, value FROM gateway_staged_media ORDER BY id COLLATE \"C\"",
            vec![],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn put(&self, id: &str, value: &[u8]) -> Result<()> {
        let mut txn = self.begin()?;
        txn.execute(
            "INSERT INTO gateway_staged_media (id, value) VALUES ($1, $2) \
             ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value",
            vec![Box::new(id.to_owned()), Box::new(value.to_vec())],
        )?;
        txn.commit()
    }

    fn remove(&self, ids: &[String]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut txn = self.begin()?;
        txn.execute(
            "DELETE FROM gateway_staged_media WHERE id = ANY($1)",
            vec![Box::new(ids.to_vec())],
        )?;
        txn.commit()
    }
}

/// A received media key, `<account>\0<media id>`, split at its first NUL
/// (PostgreSQL text cannot hold one).
fn split_key(key: &str) -> Result<(&str, &str)> {
    key.split_once('\0').ok_or_else(|| {
        Error::internal(format!("a received media key without its account: {key:?}"))
    })
}

/// The received media index keeps the key's account and media id in
/// columns of their own and gives keys back as `<account>\0<media id>`.
impl ReceivedIndex for PgState {
    /// The secret is shared by every gateway of the database (stored by
    /// the first, kept by the others), so they all derive the same media
    /// ids.
    fn secret(&self, fresh: [u8; 32]) -> Result<[u8; 32]> {
        let mut txn = self.begin()?;
        txn.execute(
            "INSERT INTO gateway_secrets (name, value) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value \
             WHERE octet_length(gateway_secrets.value) <> 32",
            vec![Box::new(RECEIVED_SECRET), Box::new(fresh.to_vec())],
        )?;
        let rows = txn.query(
            "SELECT value FROM gateway_secrets WHERE name = $1",
            vec![Box::new(RECEIVED_SECRET)],
        )?;
        txn.commit()?;
        let stored: Vec<u8> = rows.first().ok_or_else(unexpected)?.get(0);
        <[u8; 32]>::try_from(stored.as_slice())
            .map_err(|_| Error::internal("the stored received media secret is not 32 bytes"))
    }

    /// The records of the accounts this gateway leads: the received-media
    /// store of a gateway holds (expires, evicts) only its own accounts'
    /// items, whose writes its fence lets through.
    fn all(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let rows = self.query(
            "SELECT account_id, media_id, value FROM gateway_received_media",
            vec![],
        )?;
        let fence = self.shared.fence();
        let mut all: Vec<(String, Vec<u8>)> = rows
            .iter()
            .filter(|r| fence.epoch(r.get(0)).is_some())
            .map(|r| {
                let (account, id): (&str, &str) = (r.get(0), r.get(1));
                (format!("{account}\0{id}"), r.get(2))
            })
            .collect();
        all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(all)
    }

    /// Fenced on every account the keys of `put` and `remove` name, in the
    /// one transaction.
    fn apply(&self, put: &[(String, Vec<u8>)], remove: &[String]) -> Result<()> {
        if put.is_empty() && remove.is_empty() {
            return Ok(());
        }
        // A key put twice keeps its last value, as a replace would.
        let mut puts: BTreeMap<(&str, &str), &[u8]> = BTreeMap::new();
        for (key, value) in put {
            puts.insert(split_key(key)?, value);
        }
        let removes = remove
            .iter()
            .map(|k| split_key(k))
            .collect::<Result<Vec<_>>>()?;
        let accounts: BTreeSet<&str> = puts
            .keys()
            .chain(removes.iter())
            .map(|(account, _)| *account)
            .collect();
        let mut txn = self.begin()?;
        for account in accounts {
            txn.fence(account)?;
        }
        if !puts.is_empty() {
            let accounts: Vec<String> = puts.keys().map(|k| k.0.to_owned()).collect();
            let ids: Vec<String> = puts.keys().map(|k| k.1.to_owned()).collect();
            let values: Vec<Vec<u8>> = puts.values().map(|v| v.to_vec()).collect();
            txn.execute(
                "INSERT INTO gateway_received_media (account_id, media_id, value) \
                 SELECT * FROM UNNEST($1::TEXT[], $2::TEXT[], $3::BYTEA[]) \
                 ON CONFLICT (account_id, media_id) DO UPDATE SET value = EXCLUDED.value",
                vec![Box::new(accounts), Box::new(ids), Box::new(values)],
            )?;
        }
        if !removes.is_empty() {
            let accounts: Vec<String> = removes.iter().map(|k| k.0.to_owned()).collect();
            let ids: Vec<String> = removes.iter().map(|k| k.1.to_owned()).collect();
            txn.execute(
                "DELETE FROM gateway_received_media \
                 WHERE (account_id, media_id) IN (SELECT * FROM UNNEST($1::TEXT[], $2::TEXT[]))",
                vec![Box::new(accounts), Box::new(ids)],
            )?;
        }
        txn.commit()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::shared::tests::{TestDb, TestGateway};
    use onebot_gateway_domain::lease::LeaseStore;

    async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        tokio::task::spawn_blocking(f).await.unwrap()
    }

    fn state(gw: &TestGateway) -> Arc<PgState> {
        Arc::new(PgState::new(gw.shared.clone()))
    }

    fn list(store: &Arc<PgState>, account: &'static str) -> impl FnOnce() -> Vec<Vec<u8>> + use<> {
        let store = store.clone();
        move || QueueStore::list(&*store, account).unwrap()
    }

    /// `(account, seq, epoch)` of every queue row.
    async fn queue_rows(gw: &TestGateway) -> Vec<(String, i64, i64)> {
        let client = gw.shared.reader().await.unwrap();
        client
            .query(
                "SELECT account_id, seq, epoch FROM gateway_queue ORDER BY account_id, seq",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_queue_lists_in_sequence_order_and_its_counter_increases() {
        let Some(db) = TestDb::fresh("queue_round_trip").await else {
            return;
        };
        let gw = db.gateway("a").await;
        for account in ["acc", "other", "B"] {
            db.lead(&gw, account).await;
        }
        let store = state(&gw);
        let s = store.clone();
        let seqs = blocking(move || {
            let mut seqs = Vec::new();
            QueueStore::write(&*s, &mut |txn| {
                seqs = (0..3).map(|_| txn.next_seq()).collect::<Result<_>>()?;
                txn.put("acc", seqs[2], b"c")?;
                txn.put("acc", seqs[0], b"a")?;
                txn.put("other", seqs[1], b"b")?;
                assert_eq!(txn.entries("acc")?, [b"a".to_vec(), b"c".to_vec()]);
                txn.remove("acc", seqs[2])?;
                txn.remove("acc", 999)?;
                assert_eq!(txn.entries("acc")?, [b"a".to_vec()]);
                Ok(())
            })
            .unwrap();
            seqs
        })
        .await;
        assert_eq!(seqs, [1, 2, 3]);
        assert_eq!(blocking(list(&store, "acc")).await, [b"a".to_vec()]);
        let s = store.clone();
        blocking(move || {
            QueueStore::write(&*s, &mut |txn| {
                assert_eq!(txn.next_seq()?, 4);
                txn.put("acc", 1, b"a2")?;
                txn.put("acc", 4, b"d")?;
                txn.put("B", 5, b"e")
            })
            .unwrap()
        })
        .await;
        assert_eq!(
            blocking(list(&store, "acc")).await,
            [b"a2".to_vec(), b"d".to_vec()]
        );
        let s = store.clone();
        let depths = blocking(move || s.depths().unwrap()).await;
        assert_eq!(
            depths,
            [
                ("B".to_string(), 1),
                ("acc".to_string(), 2),
                ("other".to_string(), 1)
            ]
        );
        let epoch = gw.fence.epochs.lock()["acc"] as i64;
        assert!(
            queue_rows(&gw)
                .await
                .iter()
                .all(|(a, _, e)| a != "acc" || *e == epoch)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_writes_of_two_gateways_each_commit_whole() {
        let Some(db) = TestDb::fresh("queue_concurrent").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        db.lead(&a, "acc").await;
        db.lead(&b, "other").await;
        let mut tasks = Vec::new();
        for (gw, account) in [(&a, "acc"), (&b, "other")] {
            for _ in 0..8 {
                let store = state(gw);
                tasks.push(tokio::task::spawn_blocking(move || {
                    QueueStore::write(&*store, &mut |txn| {
                        let n = txn.entries(account)?.len();
                        let seq = txn.next_seq()?;
                        txn.put(account, seq, n.to_string().as_bytes())
                    })
                }));
            }
        }
        for task in tasks {
            task.await.unwrap().unwrap();
        }
        // Each write saw every earlier one of its gateway: one at a time.
        let expected: Vec<Vec<u8>> = (0..8).map(|n| n.to_string().into_bytes()).collect();
        assert_eq!(blocking(list(&state(&a), "acc")).await, expected);
        assert_eq!(blocking(list(&state(&b), "other")).await, expected);
        let mut seqs: Vec<i64> = queue_rows(&a).await.iter().map(|r| r.1).collect();
        seqs.sort_unstable();
        assert_eq!(seqs, (1..=16).collect::<Vec<i64>>());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_or_refused_transaction_keeps_nothing() {
        let Some(db) = TestDb::fresh("queue_rollback").await else {
            return;
        };
        let gw = db.gateway("a").await;
        db.lead(&gw, "acc").await;
        let store = state(&gw);
        let s = store.clone();
        let failed = blocking(move || {
            QueueStore::write(&*s, &mut |txn| {
                let seq = txn.next_seq()?;
                txn.put("acc", seq, b"x")?;
                Err(Error::internal("refused"))
            })
        })
        .await;
        assert_eq!(failed.unwrap_err().message, "refused");
        // A write the fence refuses fails the transaction even when the
        // closure goes on without it.
        let s = store.clone();
        let refused = blocking(move || {
            QueueStore::write(&*s, &mut |txn| {
                let seq = txn.next_seq()?;
                txn.put("acc", seq, b"y")?;
                let stranger = txn.put("stranger", seq, b"z");
                assert_eq!(stranger.unwrap_err().kind, Kind::NotLeader);
                Ok(())
            })
        })
        .await;
        assert_eq!(refused.unwrap_err().kind, Kind::NotLeader);
        assert!(blocking(list(&store, "acc")).await.is_empty());
        assert!(blocking(list(&store, "stranger")).await.is_empty());
        // Not leading "stranger" is not having lost it.
        assert!(gw.fence.lost.lock().is_empty());
        let s = store.clone();
        blocking(move || {
            QueueStore::write(&*s, &mut |txn| {
                assert_eq!(txn.next_seq()?, 1, "the counter was not advanced");
                Ok(())
            })
            .unwrap()
        })
        .await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_gateway_that_lost_the_lease_writes_nothing_and_the_new_leader_goes_on() {
        let Some(db) = TestDb::fresh("queue_fenced").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        let (sa, sb) = (state(&a), state(&b));
        db.lead(&a, "acc").await;
        let s = sa.clone();
        blocking(move || {
            QueueStore::write(&*s, &mut |txn| {
                let seq = txn.next_seq()?;
                txn.put("acc", seq, b"from a")
            })
            .unwrap()
        })
        .await;
        db.let_go(&a, "acc").await;
        db.lead(&b, "acc").await;
        // `a` still believes it holds the old epoch, as a paused gateway
        // would.
        let s = sa.clone();
        let late = blocking(move || {
            QueueStore::write(&*s, &mut |txn| {
                let seq = txn.next_seq()?;
                txn.put("acc", seq, b"late")
            })
        })
        .await;
        let err = late.unwrap_err();
        assert_eq!(err.kind, Kind::NotLeader, "{err}");
        assert!(a.fence.lost.lock().contains("acc"));
        assert_eq!(blocking(list(&sb, "acc")).await, [b"from a".to_vec()]);
        let s = sb.clone();
        blocking(move || {
            QueueStore::write(&*s, &mut |txn| {
                assert_eq!(txn.entries("acc")?, [b"from a".to_vec()]);
                let seq = txn.next_seq()?;
                txn.put("acc", seq, b"from b")
            })
            .unwrap()
        })
        .await;
        assert_eq!(
            blocking(list(&sb, "acc")).await,
            [b"from a".to_vec(), b"from b".to_vec()]
        );
        let epochs: Vec<i64> = queue_rows(&b).await.iter().map(|r| r.2).collect();
        assert_eq!(epochs, [1, 2]);
        // Once lost, `a` is refused without asking the database.
        let s = sa.clone();
        let again = blocking(move || QueueStore::write(&*s, &mut |txn| txn.remove("acc", 1))).await;
        assert_eq!(again.unwrap_err().kind, Kind::NotLeader);
        assert_eq!(blocking(list(&sb, "acc")).await.len(), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn idempotency_records_update_in_one_transaction_and_are_swept_by_their_leader() {
        let Some(db) = TestDb::fresh("idempotency").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        db.lead(&a, "acc").await;
        db.lead(&b, "theirs").await;
        let (sa, sb) = (state(&a), state(&b));
        let s = sa.clone();
        blocking(move || {
            let s = &*s;
            s.update("acc", "k", &mut |old| {
                assert_eq!(old, None);
                Ok(Some(b"1".to_vec()))
            })
            .unwrap();
            s.update("acc", "k", &mut |old| {
                assert_eq!(old, Some(&b"1"[..]));
                Ok(None)
            })
            .unwrap();
            assert_eq!(s.get("acc", "k").unwrap().as_deref(), Some(&b"1"[..]));
            s.update("acc", "k", &mut |old| {
                assert_eq!(old, Some(&b"1"[..]));
                Ok(Some(b"2".to_vec()))
            })
            .unwrap();
            let failed = s.update("acc", "k", &mut |_| Err(Error::internal("no")));
            assert!(failed.is_err());
            assert_eq!(s.get("acc", "k").unwrap().as_deref(), Some(&b"2"[..]));
            let refused = s.update("theirs", "k", &mut |_| Ok(Some(b"x".to_vec())));
            assert_eq!(refused.unwrap_err().kind, Kind::NotLeader);
            assert_eq!(s.get("theirs", "k").unwrap(), None);
            IdempotencyStore::remove(s, "acc", "k").unwrap();
            assert_eq!(s.get("acc", "k").unwrap(), None);
            for (key, value) in [("k1", "keep"), ("k2", "drop"), ("k3", "drop")] {
                s.update("acc", key, &mut |_| Ok(Some(value.as_bytes().to_vec())))
                    .unwrap();
            }
        })
        .await;
        let s = sb.clone();
        blocking(move || {
            s.update("theirs", "k", &mut |_| Ok(Some(b"drop".to_vec())))
                .unwrap()
        })
        .await;
        let s = sa.clone();
        let removed = blocking(move || s.retain(&mut |v| v == b"keep").unwrap()).await;
        assert_eq!(removed, 2);
        let (s, t) = (sa.clone(), sb.clone());
        blocking(move || {
            assert!(s.get("acc", "k1").unwrap().is_some());
            assert_eq!(s.get("acc", "k2").unwrap(), None);
            assert_eq!(s.get("acc", "k3").unwrap(), None);
            // The other gateway's account is its leader's to sweep.
            assert!(s.get("theirs", "k").unwrap().is_some());
            assert_eq!(t.retain(&mut |v| v == b"keep").unwrap(), 1);
            assert_eq!(t.get("theirs", "k").unwrap(), None);
            assert!(t.get("acc", "k1").unwrap().is_some());
        })
        .await;
        // A lost lease: the sweep leaves the account's records alone, and
        // the gateway steps down.
        db.let_go(&a, "acc").await;
        db.lead(&b, "acc").await;
        let s = sa.clone();
        let swept = blocking(move || s.retain(&mut |_| false)).await;
        assert_eq!(swept.unwrap(), 0);
        assert!(a.fence.lost.lock().contains("acc"));
        a.fence.lost.lock().clear();
        let epoch = db
            .leases
            .claim("acc", &b.me, Duration::from_secs(60))
            .await
            .unwrap()
            .epoch;
        a.fence.epochs.lock().insert("acc".into(), epoch - 1);
        // An update is refused too.
        let s = sa.clone();
        let late =
            blocking(move || s.update("acc", "k1", &mut |_| Ok(Some(b"late".to_vec())))).await;
        assert_eq!(late.unwrap_err().kind, Kind::NotLeader);
        assert!(a.fence.lost.lock().contains("acc"));
        let s = sb.clone();
        let kept = blocking(move || s.get("acc", "k1").unwrap()).await;
        assert_eq!(kept.as_deref(), Some(&b"keep"[..]));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn received_media_keys_keep_their_nul_and_their_writes_are_fenced() {
        let Some(db) = TestDb::fresh("received").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        db.lead(&a, "a").await;
        db.lead(&a, "a\u{e9}").await;
        db.lead(&a, "b").await;
        let (sa, sb) = (state(&a), state(&b));
        let s = sa.clone();
        blocking(move || {
            let s = &*s;
            let put: Vec<(String, Vec<u8>)> = ["b\0x", "a\0z", "a\0y", "a\u{e9}\0q", "a\0y"]
                .iter()
                .map(|k| (k.to_string(), k.as_bytes().to_vec()))
                .collect();
            ReceivedIndex::apply(s, &put, &[]).unwrap();
            ReceivedIndex::apply(s, &[], &["a\0z".to_string()]).unwrap();
            let keys: Vec<String> = ReceivedIndex::all(s)
                .unwrap()
                .into_iter()
                .map(|(k, v)| {
                    assert_eq!(k.as_bytes(), v.as_slice());
                    k
                })
                .collect();
            assert_eq!(keys, ["a\0y", "a\u{e9}\0q", "b\0x"]);
            // One account not led refuses the whole apply.
            let refused = ReceivedIndex::apply(
                s,
                &[
                    ("a\0new".to_string(), b"n".to_vec()),
                    ("c\0m".to_string(), b"m".to_vec()),
                ],
                &["b\0x".to_string()],
            );
            assert_eq!(refused.unwrap_err().kind, Kind::NotLeader);
            assert_eq!(ReceivedIndex::all(s).unwrap().len(), 3);
            let bad = ReceivedIndex::apply(s, &[("no account".into(), vec![])], &[]);
            assert!(bad.is_err());
        })
        .await;
        db.let_go(&a, "b").await;
        db.lead(&b, "b").await;
        let s = sa.clone();
        let late = blocking(move || ReceivedIndex::apply(&*s, &[], &["b\0x".to_string()])).await;
        assert_eq!(late.unwrap_err().kind, Kind::NotLeader);
        assert!(a.fence.lost.lock().contains("b"));
        let s = sb.clone();
        blocking(move || {
            let s = &*s;
            // B holds the records of the account it leads, and only those.
            let keys = |s: &PgState| -> Vec<String> {
                ReceivedIndex::all(s)
                    .unwrap()
                    .into_iter()
                    .map(|(k, _)| k)
                    .collect()
            };
            let before = keys(s);
            assert!(before.contains(&"b\0x".to_string()), "{before:?}");
            assert!(before.iter().all(|k| k.starts_with("b\0")), "{before:?}");
            ReceivedIndex::apply(s, &[], &["b\0x".to_string()]).unwrap();
            assert_eq!(keys(s).len(), before.len() - 1);
        })
        .await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_gateway_gets_the_first_secret_and_staged_media_are_shared() {
        let Some(db) = TestDb::fresh("secret").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        let (sa, sb) = (state(&a), state(&b));
        let (s, t) = (sa.clone(), sb.clone());
        blocking(move || {
            assert_eq!(s.secret([1; 32]).unwrap(), [1; 32]);
            assert_eq!(t.secret([2; 32]).unwrap(), [1; 32]);
            assert_eq!(s.secret([3; 32]).unwrap(), [1; 32]);
            // Staged media belong to no account: no lease is needed.
            MediaIndex::put(&*s, "m2", b"2").unwrap();
            MediaIndex::put(&*t, "m1", b"1").unwrap();
            MediaIndex::put(&*t, "m2", b"2b").unwrap();
            assert_eq!(
                MediaIndex::all(&*s).unwrap(),
                [
                    ("m1".to_string(), b"1".to_vec()),
                    ("m2".to_string(), b"2b".to_vec())
                ]
            );
            MediaIndex::remove(&*s, &["m1".to_string(), "missing".to_string()]).unwrap();
            MediaIndex::remove(&*s, &[]).unwrap();
            assert_eq!(
                MediaIndex::all(&*t).unwrap(),
                [("m2".to_string(), b"2b".to_vec())]
            );
        })
        .await;
    }
}
