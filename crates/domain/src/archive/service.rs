//! [`Archive`]: the archive as the use cases see it: which chats are
//! archived, the store, the journal, the intake of history pages, and how
//! far the ingest has come (so a search sees everything delivered before
//! it).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use super::store::{ArchiveOp, ArchiveStore, Source, parse_target};
use crate::account::Account;
use crate::journal::Journal;
use crate::model::{ChatRef, Message};
use onebot_gateway_config::ArchiveConfig;
use onebot_gateway_telemetry::metrics;

/// History pages waiting for the archive before new ones are dropped.
const INTAKE_BOUND: usize = 256;

/// Longest a search waits for the archive to take what was delivered
/// before it.
pub const CATCH_UP_WAIT: Duration = Duration::from_secs(2);

/// The chats archived per account: its whitelisted groups and the
/// configured extra chats.
#[derive(Debug, Clone, Default)]
pub struct ArchivedChats {
    by_account: HashMap<String, BTreeSet<ChatRef>>,
}

impl ArchivedChats {
    /// The chats of every account in `accounts` (its `groups` and `users`),
    /// plus `extra` for each.
    pub fn new(accounts: &[Arc<Account>], extra: &[ChatRef]) -> Self {
        let by_account = accounts
            .iter()
            .map(|a| {
                let mut chats: BTreeSet<ChatRef> = a
                    .config
                    .groups
                    .iter()
                    .copied()
                    .map(ChatRef::Group)
                    .collect();
                // The private chats the account may use (`users`).
                chats.extend(a.config.users.iter().copied().map(ChatRef::Private));
                chats.extend(extra.iter().copied());
                (a.id.clone(), chats)
            })
            .collect();
        Self { by_account }
    }

    /// True when `chat` of `account_id` is archived.
    pub fn contains(&self, account_id: &str, chat: ChatRef) -> bool {
        self.by_account
            .get(account_id)
            .is_some_and(|c| c.contains(&chat))
    }

    /// The archived chats of `account_id`.
    pub fn of(&self, account_id: &str) -> Vec<ChatRef> {
        self.by_account
            .get(account_id)
            .map(|c| c.iter().copied().collect())
            .unwrap_or_default()
    }
}

/// What an [`Archive`] is built from.
pub struct ArchiveParts {
    /// `[archive]`.
    pub config: ArchiveConfig,
    /// The store.
    pub store: Arc<dyn ArchiveStore>,
    /// The journal the event hub writes (its entries are ingested).
    pub journal: Journal,
    /// Every configured account.
    pub accounts: Vec<Arc<Account>>,
    /// The journal's checkpoint when it was opened.
    pub checkpoint: u64,
}

/// The receiving ends the ingest task runs on.
pub struct IngestInputs {
    /// History pages to store.
    pub intake: mpsc::Receiver<Vec<ArchiveOp>>,
    /// Where the ingest reports the journal id it has taken.
    pub journal_done: watch::Sender<u64>,
    /// Where it reports the intake batches it has taken (by count).
    pub intake_done: watch::Sender<u64>,
}

/// The archive: shared by the use cases and the background tasks.
pub struct Archive {
    config: ArchiveConfig,
    store: Arc<dyn ArchiveStore>,
    journal: Journal,
    chats: ArchivedChats,
    intake: mpsc::Sender<Vec<ArchiveOp>>,
    intake_submitted: AtomicU64,
    journal_done: watch::Receiver<u64>,
    intake_done: watch::Receiver<u64>,
    backfills: HashMap<String, watch::Sender<u64>>,
    /// Messages of history pages handed over lately (a hash of account,
    /// chat and message id): a page read again hands over only what is new.
    handed: parking_lot::Mutex<lru::LruCache<u64, ()>>,
}

/// How many handed-over history messages are remembered.
const HANDED_REMEMBERED: usize = 16 * 1024;

fn handed_key(account_id: &str, chat: ChatRef, message_id: i64) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    (account_id, chat, message_id).hash(&mut h);
    h.finish()
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("store", &self.store.describe())
            .finish_non_exhaustive()
    }
}

impl Archive {
    /// The archive over `parts`, and the inputs of its ingest task.
    pub fn new(parts: ArchiveParts) -> (Arc<Archive>, IngestInputs) {
        let ArchiveParts {
            config,
            store,
            journal,
            accounts,
            checkpoint,
        } = parts;
        let extra: Vec<ChatRef> = config
            .chats
            .iter()
            .filter_map(|c| parse_target(c))
            .collect();
        let chats = ArchivedChats::new(&accounts, &extra);
        let (intake, intake_rx) = mpsc::channel(INTAKE_BOUND);
        let (journal_tx, journal_done) = watch::channel(checkpoint);
        let (intake_tx, intake_done) = watch::channel(0);
        let backfills = accounts
            .iter()
            .map(|a| (a.id.clone(), watch::channel(0).0))
            .collect();
        let archive = Arc::new(Archive {
            config,
            store,
            journal,
            chats,
            intake,
            intake_submitted: AtomicU64::new(0),
            journal_done,
            intake_done,
            backfills,
            handed: parking_lot::Mutex::new(lru::LruCache::new(
                std::num::NonZeroUsize::new(HANDED_REMEMBERED)
                    .unwrap_or(std::num::NonZeroUsize::MIN),
            )),
        });
        let inputs = IngestInputs {
            intake: intake_rx,
            journal_done: journal_tx,
            intake_done: intake_tx,
        };
        (archive, inputs)
    }

    /// `[archive]`.
    pub fn config(&self) -> &ArchiveConfig {
        &self.config
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn ArchiveStore> {
        &self.store
    }

    /// Applies `ops` to the store, each message's text first cut to
    /// `archive.max_text_bytes` ([`super::fit`]).
    pub async fn apply(
        &self,
        mut ops: Vec<ArchiveOp>,
    ) -> crate::error::Result<super::store::Applied> {
        super::fit::fit_ops(&mut ops, self.config.max_text_bytes);
        self.store.apply(ops).await
    }

    /// The journal.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// The archived chats.
    pub fn chats(&self) -> &ArchivedChats {
        &self.chats
    }

    /// True when `chat` of `account_id` is archived.
    pub fn is_archived(&self, account_id: &str, chat: ChatRef) -> bool {
        self.chats.contains(account_id, chat)
    }

    /// Hands a history page the gateway read to the archive, without
    /// waiting; a page that finds the intake full is dropped (counted), the
    /// peer still has it.
    pub fn saw_page(&self, account_id: &str, chat: ChatRef, messages: &[Message]) {
        if messages.is_empty() || !self.is_archived(account_id, chat) {
            return;
        }
        // The page's messages not handed over lately, each with its key.
        let fresh: Vec<(u64, &Message)> = {
            let handed = self.handed.lock();
            messages
                .iter()
                .map(|m| (handed_key(account_id, chat, m.message_id), m))
                .filter(|(k, _)| !handed.contains(k))
                .collect()
        };
        if fresh.is_empty() {
            return;
        }
        let ops = fresh
            .iter()
            .map(|(_, m)| ArchiveOp::Put {
                account_id: account_id.to_string(),
                message: (*m).clone(),
                source: Source::History,
                media_ids: Vec::new(),
            })
            .collect();
        // Counted before it is sent, so a search started after this call
        // waits for it.
        self.intake_submitted.fetch_add(1, Ordering::AcqRel);
        if self.intake.try_send(ops).is_err() {
            self.intake_submitted.fetch_sub(1, Ordering::AcqRel);
            metrics::archive_dropped("intake_full", fresh.len() as u64);
            return;
        }
        let mut handed = self.handed.lock();
        for (k, _) in fresh {
            handed.put(k, ());
        }
    }

    /// How many batches of history pages were handed over so far.
    pub fn handed_over(&self) -> u64 {
        self.intake_submitted.load(Ordering::Acquire)
    }

    /// Waits (at most `wait`) until the archive holds everything the
    /// journal had committed and every history page handed over before this
    /// call, so a search sees every message delivered before it.
    pub async fn caught_up(&self, wait: Duration) {
        let journal_target = self.journal.last_committed();
        let intake_target = self.intake_submitted.load(Ordering::Acquire);
        let mut journal = self.journal_done.clone();
        let mut intake = self.intake_done.clone();
        let _ = tokio::time::timeout(wait, async {
            let _ = journal.wait_for(|done| *done >= journal_target).await;
            let _ = intake.wait_for(|done| *done >= intake_target).await;
        })
        .await;
    }

    /// Counts a finished backfill run of `account_id` (every chat tried).
    pub fn backfill_finished(&self, account_id: &str) {
        if let Some(tx) = self.backfills.get(account_id) {
            tx.send_modify(|n| *n += 1);
        }
    }

    /// The number of finished backfill runs of `account_id`, watched.
    pub fn backfill_runs(&self, account_id: &str) -> Option<watch::Receiver<u64>> {
        self.backfills.get(account_id).map(watch::Sender::subscribe)
    }
}
