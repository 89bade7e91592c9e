//! The ingest task: moves what the journal committed (message events,
//! recalls, the gateway's sends) and the history pages handed over into
//! the archive's store, off every request path.
//!
//! It takes what the journal just committed from memory and, when it fell
//! behind that (or at start), reads the journal after its checkpoint, so
//! entries the store could not take yet (a slow or unreachable database, a
//! crash before the ingest ran) are taken later, never lost: the journal
//! keeps them until the checkpoint passes them. A failing store is retried
//! with a growing pause and logged once per failing stretch.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::service::{Archive, IngestInputs};
use super::store::{ArchiveOp, Source};
use crate::journal::{JournalEntry, JournalPage};
use crate::model::{InboundEvent, Message};
use onebot_gateway_telemetry::metrics;

/// Journal entries read per store transaction.
const BATCH: usize = 1024;
/// Shortest time between two store transactions of journal entries.
/// Entries committed within it wait and are stored together, so a busy
/// chat costs one transaction (and one full-text index segment) per gap
/// instead of one per journal commit, each of a few entries. A search made
/// by whoever saw an entry waits for the archive to take it, so this is
/// also the most such a search waits beyond the store's own time. A full
/// batch does not wait.
pub const INGEST_GAP: Duration = Duration::from_millis(20);
/// Pause after the first failure; doubles up to [`MAX_RETRY`].
const FIRST_RETRY: Duration = Duration::from_millis(200);
const MAX_RETRY: Duration = Duration::from_secs(30);

/// The captured media a message references, by media id: the hook that
/// ties an archived message to the received media stored for it, so a purge
/// releases what only purged messages used. No segment carries a captured
/// media id in this build (received media are not captured), so the list is
/// empty; media capture fills it from the segments.
pub fn captured_media(_message: &Message) -> Vec<String> {
    Vec::new()
}

/// The archive changes a journal entry makes, if any: messages and recalls
/// of archived chats, and the gateway's own sends.
pub fn ops_of(archive: &Archive, entry: &JournalEntry) -> Option<ArchiveOp> {
    let account_id = entry.account_id();
    match entry {
        JournalEntry::Event(stored) => match &*stored.event {
            InboundEvent::Message { message, .. }
                if archive.is_archived(account_id, message.chat) =>
            {
                Some(ArchiveOp::Put {
                    account_id: account_id.to_string(),
                    message: message.clone(),
                    source: Source::Event,
                    media_ids: captured_media(message),
                })
            }
            InboundEvent::MessageRecalled {
                chat,
                message_id,
                time,
                ..
            } if archive.is_archived(account_id, *chat) => Some(ArchiveOp::Recall {
                account_id: account_id.to_string(),
                chat: *chat,
                message_id: *message_id,
                time: *time,
            }),
            _ => None,
        },
        JournalEntry::Sent { message, .. } if archive.is_archived(account_id, message.chat) => {
            Some(ArchiveOp::Put {
                account_id: account_id.to_string(),
                message: (**message).clone(),
                source: Source::Sent,
                media_ids: captured_media(message),
            })
        }
        JournalEntry::Sent { .. } => None,
    }
}

/// Runs the ingest until `shutdown`.
pub async fn run(archive: Arc<Archive>, inputs: IngestInputs, shutdown: CancellationToken) {
    let IngestInputs {
        mut intake,
        journal_done,
        intake_done,
    } = inputs;
    let mut checkpoint = *journal_done.borrow();
    let mut failing = Failing::default();
    // When the last transaction of journal entries began.
    let mut last_journal_apply: Option<Instant> = None;
    loop {
        // History pages first, so a steady stream of events never starves
        // them.
        if let Ok(first) = intake.try_recv() {
            let (ops, batches) = more_intake(first, &mut intake);
            if !apply(&archive, ops, &mut failing, &shutdown).await {
                return;
            }
            intake_done.send_modify(|n| *n += batches);
        }
        // Wake-ups are counted as permits: a commit during the read below
        // makes the next wait return at once.
        let committed = archive.journal().committed().clone();
        let pending = archive
            .journal()
            .last_committed()
            .saturating_sub(checkpoint);
        if pending > 0
            && pending < BATCH as u64
            && let Some(wait) = last_journal_apply.and_then(|t| INGEST_GAP.checked_sub(t.elapsed()))
            && sleep_or_stop(&shutdown, wait).await
        {
            return;
        }
        let read = match archive.journal().take_committed(checkpoint, BATCH) {
            Some(page) => Ok(Ok(page)),
            None => {
                let store = archive.journal().store().clone();
                tokio::task::spawn_blocking(move || store.read_after(checkpoint, BATCH)).await
            }
        };
        let page: JournalPage = match read {
            Ok(Ok(page)) => page,
            Ok(Err(e)) => {
                failing.failed("reading the journal", &e.to_string());
                if sleep_or_stop(&shutdown, failing.pause()).await {
                    return;
                }
                continue;
            }
            Err(e) => {
                tracing::error!(error = %e, "the journal reader failed");
                return;
            }
        };
        if let Some(last) = page.last_id {
            let ops: Vec<ArchiveOp> = page
                .entries
                .iter()
                .filter_map(|j| ops_of(&archive, &j.entry))
                .collect();
            if !ops.is_empty() {
                last_journal_apply = Some(Instant::now());
            }
            if !apply(&archive, ops, &mut failing, &shutdown).await {
                return;
            }
            checkpoint = last;
            archive.journal().checkpoint(checkpoint);
            metrics::archive_lag(
                archive
                    .journal()
                    .last_committed()
                    .saturating_sub(checkpoint),
            );
            let _ = journal_done.send(checkpoint);
            continue;
        }
        tokio::select! {
            biased;
            _ = shutdown.cancelled() => return,
            _ = committed.notified() => {}
            page = intake.recv() => {
                let Some(first) = page else { return };
                let (ops, batches) = more_intake(first, &mut intake);
                if !apply(&archive, ops, &mut failing, &shutdown).await {
                    return;
                }
                intake_done.send_modify(|n| *n += batches);
            }
        }
    }
}

/// `first` and the pages waiting behind it (up to a batch), with the
/// number of pages taken.
fn more_intake(
    first: Vec<ArchiveOp>,
    intake: &mut tokio::sync::mpsc::Receiver<Vec<ArchiveOp>>,
) -> (Vec<ArchiveOp>, u64) {
    let mut ops = first;
    let mut batches = 1;
    while ops.len() < BATCH {
        match intake.try_recv() {
            Ok(more) => {
                ops.extend(more);
                batches += 1;
            }
            Err(_) => break,
        }
    }
    (ops, batches)
}

/// Applies `ops`, retrying until it works; false when the gateway stops
/// first.
async fn apply(
    archive: &Archive,
    ops: Vec<ArchiveOp>,
    failing: &mut Failing,
    shutdown: &CancellationToken,
) -> bool {
    if ops.is_empty() {
        return true;
    }
    loop {
        match archive.apply(ops.clone()).await {
            Ok(applied) => {
                failing.recovered(&archive.store().describe());
                for (account, source, n) in &applied.stored {
                    metrics::archived(account, source.name(), *n);
                }
                return true;
            }
            Err(e) => {
                failing.failed(&archive.store().describe(), &e.to_string());
                if sleep_or_stop(shutdown, failing.pause()).await {
                    return false;
                }
            }
        }
    }
}

/// True when `shutdown` fired before `pause` passed.
async fn sleep_or_stop(shutdown: &CancellationToken, pause: Duration) -> bool {
    tokio::select! {
        _ = shutdown.cancelled() => true,
        _ = tokio::time::sleep(pause) => false,
    }
}

/// A stretch of failures: logged once, with a growing pause.
#[derive(Debug, Default)]
struct Failing {
    pause: Option<Duration>,
}

impl Failing {
    fn failed(&mut self, what: &str, error: &str) {
        if self.pause.is_none() {
            tracing::error!(
                archive = what,
                error,
                "the archive cannot store messages; retrying (the journal keeps them meanwhile)"
            );
        }
        self.pause = Some(self.pause.map_or(FIRST_RETRY, |p| (p * 2).min(MAX_RETRY)));
    }

    fn pause(&self) -> Duration {
        self.pause.unwrap_or(FIRST_RETRY)
    }

    fn recovered(&mut self, what: &str) {
        if self.pause.take().is_some() {
            tracing::info!(archive = what, "the archive stores messages again");
        }
    }
}
