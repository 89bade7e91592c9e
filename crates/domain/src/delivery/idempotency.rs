//! Idempotency keys of SendMessage, persisted in an [`IdempotencyStore`].
//!
//! A key is claimed (durably) before the first frame. The request's
//! fingerprint is stored with it: the same key with another request is
//! `IdempotencyKeyReused`. Once the send is over, its outcome (the response,
//! or the error of a request that may have been partly delivered) is stored
//! and replayed for the window ([`WINDOW`]); a send that failed before any
//! frame left releases the key so the client may retry. A key still claimed
//! by a request running in this process makes a duplicate wait for its
//! outcome; a key left claimed by a process that died mid-send replays
//! `SendOutcomeUnknown` instead of sending again.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::receipt::SendResult;
use crate::error::{Error, Kind, Result};
use crate::store::{IdempotencyStore, blocking, decode, encode};

/// How long a key is remembered.
pub const WINDOW: Duration = Duration::from_secs(10 * 60);

/// Longest accepted key, in bytes.
pub const MAX_KEY_BYTES: usize = 128;

/// A stored outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Stored {
    Sent(SendResult),
    Failed {
        kind: String,
        message: String,
        metadata: BTreeMap<String, String>,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Record {
    fingerprint: String,
    created_ms: i64,
    outcome: Option<Stored>,
}

/// `(account_id, key)`.
type KeyId = (String, String);

/// The outcome of a running request, once known.
type Running = Option<Result<SendResult>>;

/// What claiming a key found.
#[derive(Debug)]
pub enum Claim {
    /// The key is ours: send, then [`Idempotency::finish`] or
    /// [`Idempotency::release`].
    Claimed,
    /// The first request's outcome, to replay.
    Replay(Result<SendResult>),
}

/// The idempotency keys of every account.
#[derive(Debug)]
pub struct Idempotency {
    store: Arc<dyn IdempotencyStore>,
    live: Mutex<HashMap<KeyId, watch::Receiver<Running>>>,
    senders: Mutex<HashMap<KeyId, watch::Sender<Running>>>,
}

fn to_stored(outcome: &Result<SendResult>) -> Stored {
    match outcome {
        Ok(r) => Stored::Sent(r.clone()),
        Err(e) => Stored::Failed {
            kind: format!("{:?}", e.kind),
            message: e.message.clone(),
            metadata: e.metadata.clone(),
        },
    }
}

fn from_stored(stored: Stored) -> Result<SendResult> {
    match stored {
        Stored::Sent(mut r) => {
            r.replayed = true;
            Ok(r)
        }
        Stored::Failed {
            kind,
            message,
            metadata,
        } => {
            let kind = Kind::ALL
                .iter()
                .copied()
                .find(|k| format!("{k:?}") == kind)
                .unwrap_or(Kind::SendOutcomeUnknown);
            let mut e = Error::new(kind, message);
            e.metadata = metadata;
            Err(e.with("replayed", true))
        }
    }
}

fn replayed(r: Result<SendResult>) -> Result<SendResult> {
    match r {
        Ok(mut r) => {
            r.replayed = true;
            Ok(r)
        }
        Err(e) => Err(e.with("replayed", true)),
    }
}

fn reused(key: &str) -> Error {
    Error::new(
        Kind::IdempotencyKeyReused,
        "the idempotency key was used with a different request",
    )
    .with("idempotency_key", key)
    .field("idempotency_key")
}

impl Idempotency {
    /// The keys in `store`.
    pub fn new(store: Arc<dyn IdempotencyStore>) -> Self {
        Self {
            store,
            live: Mutex::new(HashMap::new()),
            senders: Mutex::new(HashMap::new()),
        }
    }

    /// Claims `key` of `account` for a request with `fingerprint`.
    pub async fn claim(
        &self,
        account: &str,
        key: &str,
        fingerprint: &str,
        now_ms: i64,
    ) -> Result<Claim> {
        let id = (account.to_string(), key.to_string());
        loop {
            // A duplicate of a request running here waits for its outcome;
            // otherwise this request registers as running before it looks
            // at the store, so a concurrent duplicate waits for it.
            let live = {
                let mut live = self.live.lock();
                match live.get(&id) {
                    Some(rx) => Some(rx.clone()),
                    None => {
                        let (tx, rx) = watch::channel(None);
                        live.insert(id.clone(), rx);
                        self.senders.lock().insert(id.clone(), tx);
                        None
                    }
                }
            };
            if let Some(mut rx) = live {
                let outcome = rx
                    .wait_for(Option::is_some)
                    .await
                    .map(|v| v.clone())
                    .ok()
                    .flatten();
                if let Some(outcome) = outcome {
                    // Still check the fingerprint against the stored record.
                    return match self.read(&id).await? {
                        Some(r) if r.fingerprint != fingerprint => Err(reused(key)),
                        _ => Ok(Claim::Replay(replayed(outcome))),
                    };
                }
                // The first request sent nothing and released the key: claim
                // it again.
                continue;
            }
            let (account_o, key_o, fp) = (id.0.clone(), id.1.clone(), fingerprint.to_string());
            let window_ms = i64::try_from(WINDOW.as_millis()).unwrap_or(i64::MAX);
            let store = self.store.clone();
            let found = blocking(move || {
                let mut found = None;
                store.update(&account_o, &key_o, &mut |existing| {
                    let existing: Option<Record> = existing.map(decode).transpose()?;
                    match existing {
                        Some(r) if r.created_ms.saturating_add(window_ms) > now_ms => {
                            found = Some(r);
                            Ok(None)
                        }
                        _ => {
                            let rec = Record {
                                fingerprint: fp.clone(),
                                created_ms: now_ms,
                                outcome: None,
                            };
                            Ok(Some(encode(&rec)?))
                        }
                    }
                })?;
                Ok(found)
            })
            .await;
            let found = match found {
                Ok(f) => f,
                Err(e) => {
                    self.wake(&id, None);
                    return Err(e);
                }
            };
            if found.is_some() {
                // Not ours after all: let waiters look at the store.
                self.wake(&id, None);
            }
            return match found {
                None => Ok(Claim::Claimed),
                Some(r) if r.fingerprint != fingerprint => Err(reused(key)),
                Some(Record {
                    outcome: Some(stored),
                    ..
                }) => Ok(Claim::Replay(from_stored(stored))),
                Some(_) => Ok(Claim::Replay(Err(Error::new(
                    Kind::SendOutcomeUnknown,
                    "an earlier request with this idempotency key was interrupted by a gateway restart; it may have been delivered",
                )
                .with("idempotency_key", key)
                .with("replayed", true)))),
            };
        }
    }

    async fn read(&self, id: &(String, String)) -> Result<Option<Record>> {
        let (a, k) = id.clone();
        let store = self.store.clone();
        blocking(move || store.get(&a, &k)?.map(|v| decode(&v)).transpose()).await
    }

    /// Stores the outcome of a claimed key (durably) and wakes duplicates.
    pub async fn finish(
        &self,
        account: &str,
        key: &str,
        outcome: &Result<SendResult>,
    ) -> Result<()> {
        let id = (account.to_string(), key.to_string());
        let stored = to_stored(outcome);
        let (a, k) = id.clone();
        let store = self.store.clone();
        let result = blocking(move || {
            store.update(&a, &k, &mut |existing| {
                let Some(mut rec) = existing.map(decode::<Record>).transpose()? else {
                    return Ok(None);
                };
                rec.outcome = Some(stored.clone());
                Ok(Some(encode(&rec)?))
            })
        })
        .await;
        self.wake(&id, Some(outcome.clone()));
        result
    }

    /// Forgets a claimed key whose request sent nothing.
    pub async fn release(&self, account: &str, key: &str) -> Result<()> {
        let id = (account.to_string(), key.to_string());
        let (a, k) = id.clone();
        let store = self.store.clone();
        let result = blocking(move || store.remove(&a, &k)).await;
        self.wake(&id, None);
        result
    }

    fn wake(&self, id: &(String, String), outcome: Option<Result<SendResult>>) {
        self.live.lock().remove(id);
        if let Some(tx) = self.senders.lock().remove(id) {
            match outcome {
                Some(o) => {
                    let _ = tx.send(Some(o));
                }
                // Dropping the sender tells waiters to claim again.
                None => drop(tx),
            }
        }
    }

    /// Removes records older than the window (as of `now_ms`).
    pub async fn purge(&self, now_ms: i64) -> Result<usize> {
        let window_ms = i64::try_from(WINDOW.as_millis()).unwrap_or(i64::MAX);
        let store = self.store.clone();
        blocking(move || {
            store.retain(&mut |v| {
                decode::<Record>(v).is_ok_and(|r| r.created_ms.saturating_add(window_ms) > now_ms)
            })
        })
        .await
    }
}
