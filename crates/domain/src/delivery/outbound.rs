//! One outbound sender per account: every send of the account goes through
//! its queue, in order, under the account's rate limits.
//!
//! A [`Job`] is one whole request to one chat, a group or a private chat
//! (text chunks, images, video, file, and the [`Lead`] of its first
//! message). The sender admits it when its first message can go: it checks
//! the risk-control back-off, reserves the first cells of the chat's and the
//! account's limits, and refuses with `RateLimited` (and a retry delay) when
//! the wait plus the pacing of the messages beyond the bursts would pass the
//! caller's deadline.
//! Once admitted, a job is sent to the end even if the caller goes away, so
//! a request is never cut in half by the gateway. Just before each part the
//! chat is checked against the whitelist (`groups`, `users`) again.
//!
//! The sender also owns the flush of the account's offline queue: when the
//! account comes online (and on a periodic tick), queued entries are sent
//! oldest first, before any newer job, with their progress saved after
//! every chunk.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use tokio::sync::{Mutex, mpsc, oneshot};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::lead::Lead;
use super::queue::{OfflineQueue, QueuedEntry};
use super::ratelimit::SendLimits;
use crate::account::Account;
use crate::archive::recorder::SentRecorder;
use crate::call::Deadline;
use crate::clock::now_ms;
use crate::error::{Error, Kind, Result};
use crate::model::{ChatRef, MediaPayload, Segment};
use crate::ports::OutSegment;
use onebot_gateway_telemetry::metrics::{self as m, QueueOutcome};

/// Interval of the sender's housekeeping tick (queue expiry, retry of a
/// stalled flush).
pub const TICK: Duration = Duration::from_secs(15);

/// One message (or file upload) of a request.
#[derive(Debug)]
pub enum Part {
    /// A text chunk.
    Text(String),
    /// An image (one per message).
    Image(MediaPayload),
    /// A video.
    Video(MediaPayload),
    /// A group (or private) file with its display name.
    File(MediaPayload, String),
    /// A voice message (its own message).
    Voice(MediaPayload),
    /// A message of only the request's lead (its quote and mentions), when
    /// no text, image or video can carry it.
    Lead,
}

/// What went out of a job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivery {
    /// Parts delivered (acknowledged by the peer).
    pub sent: usize,
    /// Message ids of the delivered messages, in order (file uploads have
    /// none).
    pub message_ids: Vec<i64>,
    /// How long the job waited for the chat's and the account's send rate
    /// limits before its first message.
    pub rate_limit_wait: Duration,
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
    chat: ChatRef,
    /// True for the gateway's own notices to a bot owner (approvals): the
    /// chat need not be whitelisted.
    to_owner: bool,
    lead: Lead,
    parts: Vec<Part>,
    deadline: Option<Instant>,
    state: Arc<AtomicU8>,
    reply: oneshot::Sender<Outcome>,
}

enum Command {
    Job(Job),
    /// Something was queued: flush if online.
    Kick,
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
    /// Records every acknowledged message for the archive (`None`: no
    /// archive).
    pub recorder: Option<SentRecorder>,
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
            recorder: parts.recorder,
        };
        let task = tokio::spawn(sender.run(rx, parts.shutdown));
        (Self { tx }, task)
    }

    /// Hands a request to `chat` to the sender and waits for its outcome;
    /// `lead` goes in front of the first part's message. When the request
    /// is still waiting for its turn at `deadline`, it is withdrawn and
    /// refused with `RateLimited`; once started it runs to its end.
    pub async fn send(
        &self,
        chat: ChatRef,
        lead: Lead,
        parts: Vec<Part>,
        deadline: Option<Instant>,
    ) -> Result<Outcome> {
        self.submit(chat, false, lead, parts, deadline).await
    }

    /// Sends the gateway's own text to bot owner `user_id` privately (an
    /// approval's question or outcome), in line with the account's other
    /// sends and under the same rate limits, whether or not the `users`
    /// whitelist names the owner.
    pub async fn send_to_owner(
        &self,
        user_id: i64,
        text: String,
        deadline: Option<Instant>,
    ) -> Result<Outcome> {
        self.submit(
            ChatRef::Private(user_id),
            true,
            Lead::default(),
            vec![Part::Text(text)],
            deadline,
        )
        .await
    }

    async fn submit(
        &self,
        chat: ChatRef,
        to_owner: bool,
        lead: Lead,
        parts: Vec<Part>,
        deadline: Option<Instant>,
    ) -> Result<Outcome> {
        let (reply, rx) = oneshot::channel();
        let state = Arc::new(AtomicU8::new(PENDING));
        let job = Job {
            chat,
            to_owner,
            lead,
            parts,
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
    recorder: Option<SentRecorder>,
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
        let mut status = self.account.peer.watch_status();
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

    fn whitelisted(&self, chat: ChatRef) -> bool {
        let c = &self.account.config;
        match chat {
            ChatRef::Group(g) => c.groups.contains(&g),
            ChatRef::Private(u) => c.users.contains(&u),
        }
    }

    async fn risk_wait(&self) -> Option<Duration> {
        let risk = self.risk.lock().await;
        risk.until
            .and_then(|u| u.checked_duration_since(Instant::now()))
            .filter(|d| !d.is_zero())
    }

    async fn on_risk(&self, chat: ChatRef) -> Duration {
        let c = &self.account.config;
        let mut risk = self.risk.lock().await;
        let base = Duration::from_secs(c.risk_backoff_min_secs);
        let max = Duration::from_secs(c.risk_backoff_max_secs);
        let pause = base
            .saturating_mul(1u32.checked_shl(risk.level.min(16)).unwrap_or(u32::MAX))
            .min(max);
        risk.level = risk.level.saturating_add(1);
        risk.until = Some(Instant::now() + pause);
        m::risk_controlled(&self.account.id);
        tracing::warn!(
            account_id = %self.account.id,
            chat = %chat.target(),
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
            chat,
            to_owner,
            lead,
            parts,
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
            .retry_after(wait);
            return refuse(reply, with_chat(e, chat));
        }
        let n = u32::try_from(parts.len()).unwrap_or(u32::MAX);
        let (pacing, pacing_scope) = self.limits.pacing(chat, n);
        let mut waited = Duration::ZERO;
        loop {
            let rate_limited = |wait: Duration, scope: &str| {
                m::rate_limited(&self.account.id, scope, true);
                let e = Error::new(
                    Kind::RateLimited,
                    format!(
                        "the {scope} send rate limit is reached; waiting would pass the deadline"
                    ),
                )
                .with("scope", scope)
                .retry_after(wait.max(Duration::from_millis(1)));
                with_chat(e, chat)
            };
            if let Some(d) = deadline
                && Instant::now() + pacing > d
            {
                return refuse(reply, rate_limited(pacing, pacing_scope.name()));
            }
            match self.limits.try_reserve(chat, n) {
                Ok(()) => break,
                Err((wait, scope)) => {
                    if deadline.is_some_and(|d| Instant::now() + wait + pacing > d) {
                        return refuse(reply, rate_limited(wait, scope.name()));
                    }
                    m::rate_limited(&self.account.id, scope.name(), false);
                    // The caller drops its receiver when it withdraws.
                    let slept = Instant::now();
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = reply.closed() => return,
                    }
                    waited += slept.elapsed();
                }
            }
        }
        if state
            .compare_exchange(PENDING, STARTED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
        }
        let mut delivery = Delivery {
            rate_limit_wait: waited,
            ..Delivery::default()
        };
        let mut error = None;
        for (i, part) in parts.iter().enumerate() {
            if !to_owner && !self.whitelisted(chat) {
                error = Some(not_allowed_chat(chat));
                break;
            }
            self.limits
                .pace(chat, u32::try_from(i).unwrap_or(u32::MAX))
                .await;
            let first = (i == 0).then_some(&lead);
            match self.send_part(chat, part, first).await {
                Ok(id) => {
                    delivery.sent += 1;
                    delivery.message_ids.extend(id);
                    m::sent_messages(&self.account.id, 1);
                    self.on_delivered().await;
                }
                Err(e) => {
                    let e = match e.kind {
                        Kind::RiskControlled => {
                            let pause = self.on_risk(chat).await;
                            e.retry_after(pause)
                        }
                        Kind::SendOutcomeUnknown => {
                            m::send_outcome_unknown(&self.account.id);
                            e
                        }
                        _ => e,
                    };
                    error = Some(with_chat(e, chat));
                    break;
                }
            }
        }
        let _ = reply.send(Outcome { delivery, error });
    }

    /// Sends one part, led by `lead` when given (the request's first
    /// part); returns the message id (none for file uploads). Parts carry
    /// no caller deadline: once admitted, a job runs to its end. An
    /// acknowledged message is recorded for the archive before this returns.
    async fn send_part(
        &self,
        chat: ChatRef,
        part: &Part,
        lead: Option<&Lead>,
    ) -> Result<Option<i64>> {
        let id = self.send_part_to(chat, part, lead).await?;
        if let (Some(recorder), Some(id)) = (&self.recorder, id) {
            recorder
                .record(&self.account, chat, id, sent_segments(part, lead))
                .await;
        }
        Ok(id)
    }

    async fn send_part_to(
        &self,
        chat: ChatRef,
        part: &Part,
        lead: Option<&Lead>,
    ) -> Result<Option<i64>> {
        let result = match part {
            Part::Text(text) => {
                self.send_one(chat, lead, Some(OutSegment::Text(text)))
                    .await
            }
            Part::Image(media) => {
                self.send_one(chat, lead, Some(OutSegment::Image(media)))
                    .await
            }
            Part::Video(media) => {
                self.send_one(chat, lead, Some(OutSegment::Video(media)))
                    .await
            }
            Part::Voice(media) => {
                self.send_one(chat, None, Some(OutSegment::Voice(media)))
                    .await
            }
            Part::Lead => self.send_one(chat, lead, None).await,
            Part::File(media, name) => self
                .account
                .peer
                .upload_file(chat, media, name, Deadline::NONE)
                .await
                .map(|()| None),
        };
        result.map_err(classify_send_error)
    }

    /// Sends one message: the lead's segments (if any), then `body`;
    /// returns its message id.
    async fn send_one(
        &self,
        chat: ChatRef,
        lead: Option<&Lead>,
        body: Option<OutSegment<'_>>,
    ) -> Result<Option<i64>> {
        let mut segments = lead.map(Lead::segments).unwrap_or_default();
        segments.extend(body);
        self.account
            .peer
            .send_message(chat, &segments, Deadline::NONE)
            .await
            .map(Some)
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
            m::queue_entries(&self.account.id, QueueOutcome::Expired, 1);
            tracing::warn!(
                account_id = %self.account.id,
                chat = %entry.chat().target(),
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
        if self.queue.depth(&self.account.id) == 0 || !self.account.peer.status().online {
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
            m::queue_entries(id, QueueOutcome::Dropped, 1);
            tracing::error!(
                account_id = %id,
                chat = %entry.chat().target(),
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
        let chat = entry.chat();
        if !self.whitelisted(chat) {
            drop_entry(entry, "the chat is no longer whitelisted", None);
            return self.queue.remove(id, entry.seq).await.is_ok();
        }
        while entry.sent < entry.messages() {
            loop {
                match self.limits.try_reserve(chat, 1) {
                    Ok(()) => break,
                    Err((wait, _)) => tokio::time::sleep(wait).await,
                }
            }
            let part = match entry.chunks.get(entry.sent) {
                Some(text) => Part::Text(text.clone()),
                None => Part::Lead,
            };
            let first = (entry.sent == 0).then_some(&entry.lead);
            match self.send_part(chat, &part, first).await {
                Ok(_) => {
                    entry.sent += 1;
                    m::sent_messages(id, 1);
                    self.on_delivered().await;
                    if let Err(e) = self.queue.update(id, entry).await {
                        tracing::warn!(account_id = %id, error = %e, "saving queue progress failed");
                        return false;
                    }
                }
                Err(e) if nothing_sent(e.kind) => return false,
                Err(e) if e.kind == Kind::RiskControlled => {
                    self.on_risk(chat).await;
                    return false;
                }
                Err(e) => {
                    if e.kind == Kind::SendOutcomeUnknown {
                        m::send_outcome_unknown(id);
                    }
                    drop_entry(entry, "the send failed", Some(&e));
                    return self.queue.remove(id, entry.seq).await.is_ok();
                }
            }
        }
        m::queue_entries(id, QueueOutcome::Flushed, 1);
        tracing::info!(account_id = %id, chat = %chat.target(), seq = entry.seq, "queued message sent");
        self.queue.remove(id, entry.seq).await.is_ok()
    }
}

/// The segments a part sent (its lead first), as the archive keeps them.
fn sent_segments(part: &Part, lead: Option<&Lead>) -> Vec<Segment> {
    let mut out = Vec::new();
    if let Some(lead) = lead {
        out.extend(lead.reply_to.map(|id| Segment::Reply {
            id: id.to_string(),
            quoted: None,
        }));
        out.extend(lead.mentions.iter().map(|&user_id| Segment::At {
            user_id: Some(user_id),
            all: false,
            name: None,
        }));
        if lead.mention_all {
            out.push(Segment::At {
                user_id: None,
                all: true,
                name: None,
            });
        }
    }
    out.extend(match part {
        Part::Lead => None,
        Part::Text(text) => Some(Segment::Text(text.clone())),
        Part::Image(m) => Some(Segment::Image {
            file: m.source_name.clone(),
            url: String::new(),
            file_size: i64::try_from(m.size).unwrap_or(i64::MAX),
            summary: String::new(),
        }),
        Part::Video(m) => Some(Segment::Video {
            file: m.source_name.clone(),
            url: String::new(),
        }),
        Part::Voice(m) => Some(Segment::Record {
            file: m.source_name.clone(),
            url: String::new(),
        }),
        Part::File(m, name) => Some(Segment::File {
            file: m.source_name.clone(),
            name: name.clone(),
            file_size: i64::try_from(m.size).unwrap_or(i64::MAX),
            url: String::new(),
        }),
    });
    out
}

/// The error for a group that is not (or no longer) in the whitelist.
pub fn not_allowed(group_id: i64) -> Error {
    Error::new(
        Kind::GroupNotAllowed,
        format!("group {group_id} is not in this account's whitelist"),
    )
    .with("group_id", group_id)
    .field("group_id")
}

/// The error for a private chat whose user is not (or no longer) in the
/// `users` whitelist.
pub fn user_not_allowed(user_id: i64) -> Error {
    Error::new(
        Kind::UserNotAllowed,
        format!(
            "user {user_id} is not in this account's private whitelist (users); private sends go only to listed users"
        ),
    )
    .with("user_id", user_id)
    .field("user_id")
}

/// The whitelist error of `chat`.
pub fn not_allowed_chat(chat: ChatRef) -> Error {
    match chat {
        ChatRef::Group(g) => not_allowed(g),
        ChatRef::Private(u) => user_not_allowed(u),
    }
}

/// `e` with the chat it concerns: `group_id` or `user_id` metadata.
pub fn with_chat(e: Error, chat: ChatRef) -> Error {
    match chat {
        ChatRef::Group(g) => e.with("group_id", g),
        ChatRef::Private(u) => e.with("user_id", u),
    }
}
