//! One outbound sender per account: every send of the account goes through
//! its queue, in order, under the account's rate limits.
//!
//! A [`Job`] is one whole request (text chunks, images, video, file). The
//! sender admits it when its first message can go: it checks the risk-control
//! back-off, reserves the first cells of the group and account limits, and
//! refuses with `RateLimited` (and a retry delay) when the wait plus the
//! pacing of the messages beyond the bursts would pass the caller's deadline.
//! Once admitted, a job is sent to the end even if the caller goes away, so
//! a request is never cut in half by the gateway. Just before each frame the
//! group is checked against the whitelist again.
//!
//! The sender also owns the flush of the account's offline queue: when the
//! account comes online (and on a periodic tick), queued entries are sent
//! oldest first, before any newer job, with their progress saved after
//! every chunk.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

use rand::Rng as _;
use serde_json::json;
use tokio::sync::{Mutex, mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::Account;
use super::media::{kind_name, now_ms};
use super::queue::{OfflineQueue, QueuedEntry};
use super::ratelimit::SendLimits;
use super::resolve::ResolvedMedia;
use crate::error::{Error, Kind, Result};
use crate::onebot::{CallCtx, Flavor};

/// Interval of the sender's housekeeping tick (queue expiry, retry of a
/// stalled flush).
pub const TICK: Duration = Duration::from_secs(15);

/// One message (or file upload) of a request.
#[derive(Debug)]
pub enum Frame {
    /// A text chunk.
    Text(String),
    /// An image (one per message).
    Image(ResolvedMedia),
    /// A video.
    Video(ResolvedMedia),
    /// A group file with its display name.
    File(ResolvedMedia, String),
}

/// What went out of a job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivery {
    /// Frames delivered (acknowledged by the peer).
    pub sent: usize,
    /// Message ids of the delivered messages, in order (file uploads have
    /// none).
    pub message_ids: Vec<i64>,
}

/// A job's end: the delivery so far and the error that stopped it, if any.
#[derive(Debug)]
pub struct Outcome {
    /// What was delivered.
    pub delivery: Delivery,
    /// Why it stopped early.
    pub error: Option<Error>,
}

const PENDING: u8 = 0;
const STARTED: u8 = 1;
const ABANDONED: u8 = 2;

/// A request for the sender.
#[derive(Debug)]
pub struct Job {
    group_id: i64,
    frames: Vec<Frame>,
    deadline: Option<Instant>,
    state: Arc<AtomicU8>,
    reply: oneshot::Sender<Outcome>,
}

enum Command {
    Job(Job),
    /// Something was queued: flush if online.
    Kick,
}

/// Counters of the write side, for metrics.
#[derive(Debug, Default)]
pub struct WriteMetrics {
    /// Messages (and file uploads) delivered.
    pub frames_sent: AtomicU64,
    /// Sends whose outcome is unknown.
    pub outcome_unknown: AtomicU64,
    /// Requests refused by the rate limits.
    pub rate_limited: AtomicU64,
    /// Risk-control refusals (each starts or extends a back-off).
    pub risk_controlled: AtomicU64,
    /// Requests queued while offline.
    pub queued: AtomicU64,
    /// Queued requests delivered.
    pub queue_flushed: AtomicU64,
    /// Queued requests that expired before they could be sent.
    pub queue_expired: AtomicU64,
    /// Queued requests dropped after a definite failure (or an unknown
    /// outcome, or a group no longer whitelisted).
    pub queue_failed: AtomicU64,
}

impl WriteMetrics {
    fn bump(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

/// Risk-control back-off state.
#[derive(Debug, Default)]
struct Risk {
    until: Option<Instant>,
    level: u32,
}

/// Handle to an account's sender.
#[derive(Debug, Clone)]
pub struct Outbound {
    tx: mpsc::UnboundedSender<Command>,
}

/// Everything a sender needs.
pub struct SenderParts {
    /// The account.
    pub account: Arc<Account>,
    /// The offline queues.
    pub queue: Arc<OfflineQueue>,
    /// Counters.
    pub metrics: Arc<WriteMetrics>,
    /// Stops the sender.
    pub shutdown: CancellationToken,
}

impl Outbound {
    /// Starts the sender task of `parts.account`; the handle ends after
    /// `parts.shutdown`.
    pub fn start(parts: SenderParts) -> (Self, tokio::task::JoinHandle<()>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let c = &parts.account.config;
        let limits = SendLimits::new(
            c.rate_group_per_minute,
            c.rate_group_burst,
            c.rate_account_per_minute,
            c.rate_account_burst,
        );
        let sender = Sender {
            limits,
            risk: Mutex::new(Risk::default()),
            account: parts.account,
            queue: parts.queue,
            metrics: parts.metrics,
        };
        let task = tokio::spawn(sender.run(rx, parts.shutdown));
        (Self { tx }, task)
    }

    /// Hands a request to the sender and waits for its outcome. When the
    /// request is still waiting for its turn at `deadline`, it is withdrawn
    /// and refused with `RateLimited`; once started it runs to its end.
    pub async fn send(
        &self,
        group_id: i64,
        frames: Vec<Frame>,
        deadline: Option<Instant>,
    ) -> Result<Outcome> {
        let (reply, rx) = oneshot::channel();
        let state = Arc::new(AtomicU8::new(PENDING));
        let job = Job {
            group_id,
            frames,
            deadline,
            state: state.clone(),
            reply,
        };
        self.tx
            .send(Command::Job(job))
            .map_err(|_| Error::new(Kind::ShuttingDown, "the gateway is shutting down"))?;
        let gone = || Error::new(Kind::ShuttingDown, "the gateway is shutting down");
        let mut rx = rx;
        match deadline {
            None => rx.await.map_err(|_| gone()),
            Some(d) => match tokio::time::timeout_at(d, &mut rx).await {
                Ok(r) => r.map_err(|_| gone()),
                Err(_) => {
                    if state
                        .compare_exchange(PENDING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                    {
                        Err(Error::new(
                            Kind::RateLimited,
                            "the account's send queue is busy; the request would pass its deadline",
                        )
                        .with("scope", "queue")
                        .retry_after(Duration::from_secs(1)))
                    } else {
                        rx.await.map_err(|_| gone())
                    }
                }
            },
        }
    }

    /// Tells the sender something was queued.
    pub fn kick(&self) {
        let _ = self.tx.send(Command::Kick);
    }
}

struct Sender {
    account: Arc<Account>,
    limits: SendLimits,
    risk: Mutex<Risk>,
    queue: Arc<OfflineQueue>,
    metrics: Arc<WriteMetrics>,
}

/// Kinds that mean "nothing left the gateway": safe to keep queued.
fn nothing_sent(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::AccountOffline | Kind::Overloaded | Kind::DeadlineExceeded | Kind::ShuttingDown
    )
}

/// A lost answer to a send is an unknown outcome, whatever the adapter
/// called it.
fn classify_send_error(e: Error) -> Error {
    match e.kind {
        Kind::OnebotTimeout | Kind::OnebotConnectionLost => {
            let cause = if e.kind == Kind::OnebotTimeout {
                "timeout"
            } else {
                "connection_lost"
            };
            let mut unknown = Error::new(
                Kind::SendOutcomeUnknown,
                "the peer did not confirm the send; it may have been delivered",
            );
            unknown.metadata = e.metadata;
            unknown.with("cause", cause)
        }
        _ => e,
    }
}

impl Sender {
    async fn run(self, mut rx: mpsc::UnboundedReceiver<Command>, shutdown: CancellationToken) {
        let mut status = self.account.api.watch_status();
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                changed = status.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    let online = status.borrow_and_update().online;
                    if online {
                        self.flush().await;
                    }
                }
                _ = tick.tick() => {
                    self.expire().await;
                    self.flush().await;
                }
                cmd = rx.recv() => match cmd {
                    None => return,
                    Some(Command::Kick) => self.flush().await,
                    Some(Command::Job(job)) => {
                        // Older queued entries go first.
                        self.flush().await;
                        self.run_job(job).await;
                    }
                },
            }
        }
    }

    fn whitelisted(&self, group_id: i64) -> bool {
        self.account.config.groups.contains(&group_id)
    }

    async fn risk_wait(&self) -> Option<Duration> {
        let risk = self.risk.lock().await;
        risk.until
            .and_then(|u| u.checked_duration_since(Instant::now()))
            .filter(|d| !d.is_zero())
    }

    async fn on_risk(&self, group_id: i64) -> Duration {
        let c = &self.account.config;
        let mut risk = self.risk.lock().await;
        let base = Duration::from_secs(c.risk_backoff_min_secs);
        let max = Duration::from_secs(c.risk_backoff_max_secs);
        let pause = base
            .saturating_mul(1u32.checked_shl(risk.level.min(16)).unwrap_or(u32::MAX))
            .min(max);
        risk.level = risk.level.saturating_add(1);
        risk.until = Some(Instant::now() + pause);
        WriteMetrics::bump(&self.metrics.risk_controlled, 1);
        tracing::warn!(
            account_id = %self.account.id,
            group_id,
            pause_secs = pause.as_secs(),
            "risk control refused a send; pausing this account's sends"
        );
        pause
    }

    async fn on_delivered(&self) {
        let mut risk = self.risk.lock().await;
        risk.level = 0;
        risk.until = None;
    }

    async fn run_job(&self, job: Job) {
        let Job {
            group_id,
            frames,
            deadline,
            state,
            mut reply,
        } = job;
        if state.load(Ordering::Acquire) == ABANDONED {
            return;
        }
        let refuse = |reply: oneshot::Sender<Outcome>, e: Error| {
            let _ = reply.send(Outcome {
                delivery: Delivery::default(),
                error: Some(e),
            });
        };
        if let Some(wait) = self.risk_wait().await {
            let e = Error::new(
                Kind::RiskControlled,
                "sends of this account are paused after the platform's risk control refused one",
            )
            .with("account_id", &self.account.id)
            .with("group_id", group_id)
            .retry_after(wait);
            return refuse(reply, e);
        }
        let n = u32::try_from(frames.len()).unwrap_or(u32::MAX);
        let (pacing, pacing_scope) = self.limits.pacing(n);
        loop {
            let rate_limited = |wait: Duration, scope: &str| {
                crate::telemetry::metrics::rate_limited(&self.account.id, scope, true);
                WriteMetrics::bump(&self.metrics.rate_limited, 1);
                Error::new(
                    Kind::RateLimited,
                    format!(
                        "the {scope} send rate limit is reached; waiting would pass the deadline"
                    ),
                )
                .with("scope", scope)
                .with("group_id", group_id)
                .retry_after(wait.max(Duration::from_millis(1)))
            };
            if let Some(d) = deadline
                && Instant::now() + pacing > d
            {
                return refuse(reply, rate_limited(pacing, pacing_scope.name()));
            }
            match self.limits.try_reserve(group_id, n) {
                Ok(()) => break,
                Err((wait, scope)) => {
                    if deadline.is_some_and(|d| Instant::now() + wait + pacing > d) {
                        return refuse(reply, rate_limited(wait, scope.name()));
                    }
                    crate::telemetry::metrics::rate_limited(&self.account.id, scope.name(), false);
                    // The caller drops its receiver when it withdraws.
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = reply.closed() => return,
                    }
                }
            }
        }
        if state
            .compare_exchange(PENDING, STARTED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
        }
        let mut delivery = Delivery::default();
        let mut error = None;
        for (i, frame) in frames.iter().enumerate() {
            if !self.whitelisted(group_id) {
                error = Some(not_allowed(group_id));
                break;
            }
            self.limits
                .pace(group_id, u32::try_from(i).unwrap_or(u32::MAX))
                .await;
            match self.send_frame(group_id, frame).await {
                Ok(id) => {
                    delivery.sent += 1;
                    delivery.message_ids.extend(id);
                    WriteMetrics::bump(&self.metrics.frames_sent, 1);
                    self.on_delivered().await;
                }
                Err(e) => {
                    let e = match e.kind {
                        Kind::RiskControlled => {
                            let pause = self.on_risk(group_id).await;
                            e.retry_after(pause).with("group_id", group_id)
                        }
                        Kind::SendOutcomeUnknown => {
                            WriteMetrics::bump(&self.metrics.outcome_unknown, 1);
                            e.with("group_id", group_id)
                        }
                        _ => e.with("group_id", group_id),
                    };
                    error = Some(e);
                    break;
                }
            }
        }
        let _ = reply.send(Outcome { delivery, error });
    }

    /// Sends one frame; returns the message id (none for file uploads).
    async fn send_frame(&self, group_id: i64, frame: &Frame) -> Result<Option<i64>> {
        let api = &self.account.api;
        let ctx = CallCtx::default();
        let flavor = api.status().flavor.unwrap_or_default();
        let result = match frame {
            Frame::Text(text) => api
                .send_group_msg(
                    group_id,
                    json!([{ "type": "text", "data": { "text": text } }]),
                    ctx,
                )
                .await
                .map(Some),
            Frame::Image(media) => {
                let file = media.to_base64_uri().await?;
                api.send_group_msg(group_id, media_segment("image", file), ctx)
                    .await
                    .map(Some)
            }
            Frame::Video(media) => {
                let (file, _shared) = self.peer_file(flavor, media, "video.mp4", true).await?;
                api.send_group_msg(group_id, media_segment("video", file), ctx)
                    .await
                    .map(Some)
            }
            Frame::File(media, name) => {
                let (file, _shared) = self.peer_file(flavor, media, name, false).await?;
                api.upload_group_file(group_id, file, name.clone(), ctx)
                    .await
                    .map(|()| None)
            }
        };
        result.map_err(classify_send_error)
    }

    /// How the peer gets a video or file: `base64://`, or on go-cqhttp (which
    /// cannot take base64 there) a copy in the shared directory, removed
    /// when the returned guard drops.
    async fn peer_file(
        &self,
        flavor: Flavor,
        media: &ResolvedMedia,
        name: &str,
        as_uri: bool,
    ) -> Result<(String, Option<SharedCopy>)> {
        if flavor != Flavor::GoCqhttp {
            return Ok((media.to_base64_uri().await?, None));
        }
        let Some(shared) = &self.account.config.shared_dir else {
            return Err(unsupported_by_peer(media));
        };
        let file_name = format!("ogw-{}-{}", random_hex(8), safe_component(name));
        let local = shared.local.join(&file_name);
        media.copy_to(&local).await?;
        let guard = SharedCopy(local);
        let peer = shared.peer.join(&file_name);
        let peer = peer.to_string_lossy().into_owned();
        let file = if as_uri {
            format!("file://{peer}")
        } else {
            peer
        };
        Ok((file, Some(guard)))
    }

    async fn expire(&self) {
        if self.queue.depth(&self.account.id) == 0 {
            return;
        }
        match self.queue.take_expired(&self.account.id, now_ms()).await {
            Ok(expired) => self.report_expired(&expired),
            Err(e) => {
                tracing::warn!(account_id = %self.account.id, error = %e, "queue expiry failed")
            }
        }
    }

    fn report_expired(&self, expired: &[QueuedEntry]) {
        for entry in expired {
            crate::telemetry::metrics::queue_entries(
                &self.account.id,
                crate::telemetry::metrics::QueueOutcome::Expired,
                1,
            );
            WriteMetrics::bump(&self.metrics.queue_expired, 1);
            tracing::warn!(
                account_id = %self.account.id,
                group_id = entry.group_id,
                seq = entry.seq,
                chunks = entry.chunks.len(),
                sent = entry.sent,
                enqueued_ms = entry.enqueued_ms,
                "queued message expired before the account came back online; it was not sent"
            );
        }
    }

    /// Sends queued entries oldest first while the account is online.
    async fn flush(&self) {
        if self.queue.depth(&self.account.id) == 0 || !self.account.api.status().online {
            return;
        }
        self.expire().await;
        if self.risk_wait().await.is_some() {
            return;
        }
        let entries = match self.queue.list(&self.account.id).await {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(account_id = %self.account.id, error = %e, "reading the offline queue failed");
                return;
            }
        };
        for mut entry in entries {
            if !self.flush_entry(&mut entry).await {
                return;
            }
        }
    }

    /// Sends one entry; false when the flush must stop (offline, risk
    /// control, store failure) with the entry kept.
    async fn flush_entry(&self, entry: &mut QueuedEntry) -> bool {
        let id = &self.account.id;
        let drop_entry = |entry: &QueuedEntry, reason: &str, error: Option<&Error>| {
            WriteMetrics::bump(&self.metrics.queue_failed, 1);
            tracing::error!(
                account_id = %id,
                group_id = entry.group_id,
                seq = entry.seq,
                sent = entry.sent,
                chunks = entry.chunks.len(),
                reason,
                error = ?error,
                "queued message dropped"
            );
        };
        if entry.expires_ms <= now_ms() {
            self.report_expired(std::slice::from_ref(entry));
            return self.queue.remove(id, entry.seq).await.is_ok();
        }
        if !self.whitelisted(entry.group_id) {
            drop_entry(entry, "the group is no longer whitelisted", None);
            return self.queue.remove(id, entry.seq).await.is_ok();
        }
        while entry.sent < entry.chunks.len() {
            loop {
                match self.limits.try_reserve(entry.group_id, 1) {
                    Ok(()) => break,
                    Err((wait, _)) => tokio::time::sleep(wait).await,
                }
            }
            let text = entry.chunks[entry.sent].clone();
            match self.send_frame(entry.group_id, &Frame::Text(text)).await {
                Ok(_) => {
                    entry.sent += 1;
                    WriteMetrics::bump(&self.metrics.frames_sent, 1);
                    self.on_delivered().await;
                    if let Err(e) = self.queue.update(id, entry).await {
                        tracing::warn!(account_id = %id, error = %e, "saving queue progress failed");
                        return false;
                    }
                }
                Err(e) if nothing_sent(e.kind) => return false,
                Err(e) if e.kind == Kind::RiskControlled => {
                    self.on_risk(entry.group_id).await;
                    return false;
                }
                Err(e) => {
                    if e.kind == Kind::SendOutcomeUnknown {
                        WriteMetrics::bump(&self.metrics.outcome_unknown, 1);
                    }
                    drop_entry(entry, "the send failed", Some(&e));
                    return self.queue.remove(id, entry.seq).await.is_ok();
                }
            }
        }
        crate::telemetry::metrics::queue_entries(
            id,
            crate::telemetry::metrics::QueueOutcome::Flushed,
            1,
        );
        WriteMetrics::bump(&self.metrics.queue_flushed, 1);
        tracing::info!(account_id = %id, group_id = entry.group_id, seq = entry.seq, "queued message sent");
        self.queue.remove(id, entry.seq).await.is_ok()
    }
}

/// A one-segment message carrying `file`, moved in (`json!` would copy the
/// base64 of the media).
fn media_segment(kind: &str, file: String) -> serde_json::Value {
    use crate::onebot::client::object;
    serde_json::Value::Array(vec![object([
        ("type", serde_json::Value::String(kind.to_string())),
        ("data", object([("file", serde_json::Value::String(file))])),
    ])])
}

/// The error for a group that left the whitelist.
pub fn not_allowed(group_id: i64) -> Error {
    Error::new(
        Kind::GroupNotAllowed,
        format!("group {group_id} is not in this account's whitelist"),
    )
    .with("group_id", group_id)
    .field("group_id")
}

fn unsupported_by_peer(media: &ResolvedMedia) -> Error {
    Error::new(
        Kind::UnsupportedByPeer,
        format!(
            "go-cqhttp cannot take a {} as base64 and no shared_dir is configured for this account",
            kind_name(media.kind)
        ),
    )
    .with("flavor", "go-cqhttp")
    .with("kind", kind_name(media.kind))
}

/// A copy in the shared directory, removed when dropped.
struct SharedCopy(PathBuf);

impl Drop for SharedCopy {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_file(&self.0)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %self.0.display(), error = %e, "cannot remove a shared copy");
        }
    }
}

fn safe_component(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if cleaned.is_empty() {
        "file".into()
    } else {
        cleaned
    }
}

fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill(buf.as_mut_slice());
    hex::encode(buf)
}
