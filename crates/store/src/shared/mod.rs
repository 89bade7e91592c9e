//! The stores `[ha]` shares between the gateways of one deployment, in the
//! PostgreSQL database of the leases, behind the same ports as the embedded
//! stores: the journal ([`journal::PgJournal`]), the offline queue,
//! idempotency records and media indexes ([`state::PgState`]), the message
//! id map ([`ids::PgIds`]) and the bytes of captured and staged media
//! ([`blobs::PgBlobs`]). What a new leader of an account needs is there
//! when it takes the account over.
//!
//! # Fencing
//! Every write that belongs to an account is committed in a transaction
//! that first reads the account's lease row `FOR SHARE` and goes on only
//! when its epoch is the one this gateway holds ([`Fence::epoch`]). A claim
//! that moves the lease to another gateway updates that row, so it waits
//! for such a transaction and every later one sees the new epoch: a
//! gateway that lost its lease (paused, partitioned) commits nothing after
//! the new leader took it, and is told to step down ([`Fence::lost`]).
//! Rows that belong to no account (the message id map, whose ids are
//! derived from their text; media bytes, addressed by their hash) are the
//! same whoever writes them, and carry no epoch.
//!
//! # Calls
//! The stores' connections live on a runtime of their own (one thread),
//! and every call runs its statements there: a blocking port's call
//! ([`Shared::run`]: the domain calls them on the blocking pool, the
//! journal's thread, or once at start on the gateway's own thread) waits
//! for it; an async one ([`Shared::exec`]) awaits it. So a call that blocks
//! never waits on a connection its own thread would have to drive.

pub mod blobs;
pub mod ids;
pub mod journal;
pub mod state;

#[cfg(test)]
mod tests;

use std::future::Future;
use std::sync::Arc;

use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};
use tokio_postgres::{Client, Transaction};

use crate::pg::{self, pg_err};
use crate::pg_tls::RustlsConnect;
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::lease::{Fence, fenced};

/// What errors and logs call these stores.
pub(crate) const WHAT: &str = "shared store";
/// The advisory lock their migrations hold.
const MIGRATION_LOCK: i64 = 0x6f6e_6562_6f74_0004;

/// The tables. Byte values are `BYTEA`; an account's rows carry the epoch
/// of the lease they were written under.
const MIGRATIONS: &[&str] = &["
CREATE TABLE IF NOT EXISTS gateway_journal (
    instance TEXT NOT NULL,
    id BIGINT NOT NULL,
    account_id TEXT NOT NULL,
    seq BIGINT,
    received_ms BIGINT NOT NULL,
    kind SMALLINT NOT NULL,
    body BYTEA NOT NULL,
    epoch BIGINT NOT NULL,
    PRIMARY KEY (instance, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS gateway_journal_events
    ON gateway_journal (account_id, seq) WHERE seq IS NOT NULL;
CREATE TABLE IF NOT EXISTS gateway_journal_checkpoints (
    instance TEXT PRIMARY KEY,
    checkpoint BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS gateway_sink_positions (
    sink TEXT NOT NULL,
    account_id TEXT NOT NULL,
    sequence BIGINT NOT NULL,
    PRIMARY KEY (sink, account_id)
);
CREATE TABLE IF NOT EXISTS gateway_queue (
    account_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    value BYTEA NOT NULL,
    epoch BIGINT NOT NULL,
    PRIMARY KEY (account_id, seq)
);
CREATE TABLE IF NOT EXISTS gateway_idempotency (
    account_id TEXT NOT NULL,
    key TEXT NOT NULL,
    value BYTEA NOT NULL,
    epoch BIGINT NOT NULL,
    PRIMARY KEY (account_id, key)
);
CREATE TABLE IF NOT EXISTS gateway_counters (
    name TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS gateway_staged_media (
    id TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS gateway_received_media (
    account_id TEXT NOT NULL,
    media_id TEXT NOT NULL,
    value BYTEA NOT NULL,
    PRIMARY KEY (account_id, media_id)
);
CREATE TABLE IF NOT EXISTS gateway_secrets (
    name TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS gateway_message_ids (
    id BIGINT PRIMARY KEY,
    text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS gateway_media_blobs (
    name TEXT NOT NULL,
    part INTEGER NOT NULL,
    bytes BYTEA NOT NULL,
    PRIMARY KEY (name, part)
);
"];

/// One database the shared stores use: a connection for reads (statements
/// pipelined), one for transactions (one at a time), the fence their
/// writes carry, and the runtime their calls run on.
pub struct Shared {
    read: pg::Conn,
    write: Mutex<Option<Client>>,
    url: String,
    tls: RustlsConnect,
    described: String,
    fence: Arc<dyn Fence>,
    runtime: tokio::runtime::Handle,
    /// Shut down without waiting when the stores go.
    owned: Option<tokio::runtime::Runtime>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(rt) = self.owned.take() {
            rt.shutdown_background();
        }
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("url", &self.read.shown())
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// Connects to `url` (TLS verified by `tls`), creates the tables that
    /// are missing, and fences writes with `fence`. Called in a runtime,
    /// which the stores' calls then run on. Errors name the redacted URL.
    pub async fn open(
        url: &str,
        tls: Arc<rustls::ClientConfig>,
        fence: Arc<dyn Fence>,
    ) -> Result<Arc<Self>> {
        let owned = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("shared-store")
            .enable_all()
            .build()
            .map_err(|e| Error::internal(format!("starting the shared store's runtime: {e}")))?;
        let runtime = owned.handle().clone();
        let opened = {
            let (url, tls) = (url.to_owned(), tls.clone());
            runtime
                .spawn(async move {
                    pg::Conn::open(
                        WHAT,
                        &url,
                        tls,
                        MIGRATION_LOCK,
                        "gateway_shared_schema",
                        MIGRATIONS,
                    )
                    .await
                })
                .await
        };
        let read = match opened {
            Ok(read) => read?,
            Err(e) => {
                owned.shutdown_background();
                return Err(Error::internal(format!(
                    "opening the shared store failed: {e}"
                )));
            }
        };
        let tls = RustlsConnect::new(tls);
        Ok(Arc::new(Self {
            described: pg::describe_url(url, read.shown()),
            write: Mutex::new(None),
            url: url.to_owned(),
            tls,
            read,
            fence,
            runtime,
            owned: Some(owned),
        }))
    }

    /// `postgres host:port/database`, for logs.
    pub fn describe(&self) -> String {
        self.described.clone()
    }

    /// The fence of the writes.
    pub fn fence(&self) -> &Arc<dyn Fence> {
        &self.fence
    }

    /// Maps an error of a statement.
    pub(crate) fn err(&self) -> impl Fn(tokio_postgres::Error) -> Error + '_ {
        pg_err(WHAT, self.read.shown())
    }

    /// The read connection, opened again (on the stores' runtime) when it
    /// broke.
    pub(crate) async fn reader(self: &Arc<Self>) -> Result<Arc<Client>> {
        let me = self.clone();
        self.exec(async move { me.read.client().await }).await
    }

    /// A new connection, driven by the stores' runtime as all of theirs.
    pub(crate) async fn connect(&self) -> Result<Client> {
        let (url, shown, tls) = (
            self.url.clone(),
            self.read.shown().to_owned(),
            self.tls.clone(),
        );
        self.exec(async move { pg::connect(WHAT, &url, &shown, &tls).await })
            .await
    }

    /// The write connection (one caller at a time), opened again when it
    /// broke.
    pub(crate) async fn writer(&self) -> Result<MappedMutexGuard<'_, Client>> {
        let mut guard = self.write.lock().await;
        if guard.as_ref().is_none_or(Client::is_closed) {
            *guard = Some(self.connect().await?);
        }
        MutexGuard::try_map(guard, Option::as_mut)
            .map_err(|_| Error::internal("the shared store's connection is missing"))
    }

    /// Runs `f` on the stores' runtime and awaits it: how an async call
    /// reaches the database.
    pub async fn exec<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Future<Output = Result<T>> + Send + 'static,
    {
        self.runtime
            .spawn(f)
            .await
            .map_err(|e| Error::internal(format!("a shared store call failed: {e}")))?
    }

    /// Runs `f` on the stores' runtime and waits for it, blocking the
    /// calling thread: how a blocking port's call reaches the database.
    /// Never called from a task of the stores' runtime.
    pub fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Future<Output = Result<T>> + Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.runtime.spawn(async move {
            let _ = tx.send(f.await);
        });
        rx.recv()
            .map_err(|_| Error::internal("the shared store's runtime has stopped"))?
    }

    /// Checks, inside `tx`, that this gateway still holds the lease of
    /// `account` at the epoch it knows, and keeps the lease row from
    /// changing hands until `tx` ends. Returns the epoch; fails with
    /// `NotLeader` (and makes the gateway step down) when it does not.
    pub(crate) async fn fence_in(&self, tx: &Transaction<'_>, account: &str) -> Result<i64> {
        let Some(mine) = self.fence.epoch(account) else {
            return Err(fenced(account));
        };
        let row = tx
            .query_opt(
                "SELECT epoch FROM gateway_leases WHERE account_id = $1 FOR SHARE",
                &[&account],
            )
            .await
            .map_err(self.err())?;
        let epoch: Option<i64> = row.map(|r| r.get(0));
        match epoch {
            Some(e) if u64::try_from(e).ok() == Some(mine) => Ok(e),
            _ => {
                self.fence.lost(account);
                Err(fenced(account))
            }
        }
    }
}
