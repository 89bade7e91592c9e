//! The SendMessage use case.
//!
//! Order of checks, all before the first part: the account; the idempotency
//! key's length; the target (not both a group and a user); content
//! (something to send, text length, image and video counts, the quote and
//! mentions, each media source's form); the chat (a private chat's user in
//! the `users` whitelist; a group explicit and whitelisted, or the one
//! whitelisted group: a group outside the whitelist is `GroupNotAllowed`
//! whether the bot is in it or not); the caller's write access and chat
//! scope; the idempotency key (replay, reuse). Then the peer's view: a
//! group the bot is not in is `GroupNotFound` ([`crate::joined`]);
//! a quoted message (`reply_to`) must be one the peer knows
//! (`MessageNotFound`) and of the same chat (`InvalidRequest`), looked up in
//! the quote cache, else with `get_message` within the deadline. Offline,
//! both are decided from what the gateway holds; what it does not hold
//! cannot be checked, and a text request goes to the queue unchecked (the
//! peer decides when it is flushed). Then, offline, a request without media
//! is queued whole and one with media refused; online, a flavor that cannot
//! take the media is refused, every media source is resolved (fetched,
//! opened, checked), and the whole request goes to the account's sender as
//! one job: text chunks, images, the video, the file, the quote and the
//! mentions leading the first message.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::chunk::split_text;
use super::send_checks::{Content, fingerprint, resolve_chat, validate_content};
use crate::account::Account;
use crate::call::{CallCtx, Deadline};
use crate::caller::Caller;
use crate::clock::now_ms;
use crate::delivery::idempotency::{Claim, MAX_KEY_BYTES};
use crate::delivery::lead::Lead;
use crate::delivery::outbound::{Outcome, Part};
use crate::delivery::queue::NewEntry;
pub use crate::delivery::receipt::{MediaSummary, SendResult};
use crate::delivery::side::WriteSide;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::joined::JoinedGroups;
use crate::media::kind::sanitize_file_name;
use crate::media::resolve::MediaSource;
use crate::media::staging::MediaOwner;
use crate::model::{ChatRef, MediaKind};
use crate::policy::audit::{Note, cut};
use crate::policy::held::{Held, HeldSend};
use crate::policy::{Action, OnBehalfOf};
use crate::quotes::{Known, Quotes};
use onebot_gateway_telemetry::metrics::{QueueOutcome, queue_entries};

/// Longest text, in Unicode scalar values.
pub const MAX_TEXT_CHARS: usize = 20_000;
/// Most images in one request.
pub const MAX_IMAGES: usize = 4;
/// Most videos in one request.
pub const MAX_VIDEOS: usize = 1;
/// Most voice messages in one request.
pub const MAX_VOICES: usize = 1;

/// Time kept back from the caller's deadline for the answer to travel.
const DEADLINE_MARGIN: Duration = Duration::from_millis(100);

/// A SendMessage request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SendRequest {
    /// Account id (`""` = `default`).
    pub account_id: String,
    /// Target group; `None` (and no `user_id`) = the only whitelisted
    /// group.
    pub group_id: Option<i64>,
    /// Target private chat: the other side's QQ number.
    pub user_id: Option<i64>,
    /// Quote (reply to) this message in the first message.
    pub reply_to: Option<i64>,
    /// Mention these users in the first message.
    pub mentions: Vec<i64>,
    /// Mention everyone in the first message.
    pub mention_all: bool,
    /// Text (may be empty).
    pub text: String,
    /// Image sources; `None` is a source with nothing set.
    pub images: Vec<Option<MediaSource>>,
    /// Video sources.
    pub videos: Vec<Option<MediaSource>>,
    /// Voice sources.
    pub voices: Vec<Option<MediaSource>>,
    /// The group file, if any (`Some(None)`: a file with nothing set).
    pub file: Option<Option<MediaSource>>,
    /// Display name of the file.
    pub file_name: String,
    /// Idempotency key (`""` = none).
    pub idempotency_key: String,
    /// The QQ user the message is sent for (`[policy]` decides by their
    /// role); `None` = nobody.
    pub on_behalf_of: Option<OnBehalfOf>,
}

impl SendRequest {
    /// The governed actions this request is in `chat` (`None`: its chat is
    /// not resolved yet): `send` or `send_private`, and `send_media`,
    /// `send_file`, `mention_all` when it carries them.
    pub fn actions(&self, chat: Option<ChatRef>) -> Vec<Action> {
        let private = match chat {
            Some(c) => matches!(c, ChatRef::Private(_)),
            None => self.user_id.is_some(),
        };
        let mut actions = vec![if private {
            Action::SendPrivate
        } else {
            Action::Send
        }];
        if !self.images.is_empty() || !self.videos.is_empty() {
            actions.push(Action::SendMedia);
        }
        if self.file.is_some() {
            actions.push(Action::SendFile);
        }
        if !self.voices.is_empty() {
            actions.push(Action::SendVoice);
        }
        if self.mention_all {
            actions.push(Action::MentionAll);
        }
        actions
    }

    /// What it sends, in short: the text's start, then its media and
    /// mentions.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.mention_all {
            parts.push("@全体成员".to_owned());
        }
        if !self.mentions.is_empty() {
            let ids: Vec<String> = self.mentions.iter().map(|m| format!("@{m}")).collect();
            parts.push(ids.join(" "));
        }
        if !self.text.is_empty() {
            parts.push(cut(&self.text));
        }
        if !self.images.is_empty() {
            parts.push(format!("[{} image(s)]", self.images.len()));
        }
        if !self.videos.is_empty() {
            parts.push(format!("[{} video(s)]", self.videos.len()));
        }
        if self.file.is_some() {
            parts.push(format!("[file {}]", self.file_name));
        }
        if !self.voices.is_empty() {
            parts.push("[voice]".to_owned());
        }
        parts.join(" ")
    }
}

impl Gateway {
    /// Sends (or queues) a message; see the module docs for the order of
    /// checks. The `[policy]` rules decide after the chat and the caller's
    /// scope; the outcome goes to the audit trail.
    pub async fn send_message(&self, req: SendRequest, ctx: CallCtx) -> Result<SendResult> {
        let mut note = Note::new(&req.account_id, req.actions(None), req.summary());
        let outcome = self.send_checked(req, ctx.clone(), None, &mut note).await;
        self.audit_outcome(&note, &ctx, &outcome, |r| {
            if r.queued {
                "queued".to_owned()
            } else if r.message_ids.is_empty() {
                String::new()
            } else {
                format!(
                    "message_ids {}",
                    r.message_ids
                        .iter()
                        .map(i64::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                )
            }
        })
        .await;
        outcome
    }

    /// Sends a message an owner approved (approval `approval_id`): the same
    /// checks but the policy's.
    pub(crate) async fn send_approved(
        &self,
        req: SendRequest,
        ctx: CallCtx,
        approval_id: &str,
    ) -> Result<SendResult> {
        let mut note = Note::new(&req.account_id, req.actions(None), req.summary());
        self.send_checked(req, ctx, Some(approval_id), &mut note)
            .await
    }

    async fn send_checked(
        &self,
        req: SendRequest,
        ctx: CallCtx,
        approved: Option<&str>,
        note: &mut Note,
    ) -> Result<SendResult> {
        let account = self.account(&req.account_id, &ctx)?;
        note.account_id = account.id.clone();
        if req.idempotency_key.len() > MAX_KEY_BYTES {
            return Err(Error::invalid(
                "idempotency_key",
                format!("idempotency_key is at most {MAX_KEY_BYTES} bytes"),
            ));
        }
        if let (Some(g), Some(u)) = (req.group_id, req.user_id) {
            return Err(Error::invalid(
                "user_id",
                "give group_id or user_id, not both: a message goes to one chat",
            )
            .with("group_id", g)
            .with("user_id", u));
        }
        let content = validate_content(&req)?;
        let chat = resolve_chat(&account, req.group_id, req.user_id)?;
        note.chat = Some(chat);
        note.actions = req.actions(Some(chat));
        let caller = &ctx.caller;
        caller.check_write()?;
        caller.check_chat(chat)?;
        onebot_gateway_telemetry::record_chat(&chat.target());
        if approved.is_none() {
            let (group_id, user_id) = match chat {
                ChatRef::Group(g) => (Some(g), None),
                ChatRef::Private(u) => (None, Some(u)),
            };
            self.govern(&account, note, req.on_behalf_of, &ctx, || {
                Held::Send(Box::new(HeldSend::of(&req, &account.id, group_id, user_id)))
            })
            .await?;
        }
        let write = self.write();
        let key = req.idempotency_key.clone();
        if !key.is_empty() {
            let fp = fingerprint(&account.id, &req);
            match write
                .idempotency()
                .claim(&account.id, &key, &fp, now_ms())
                .await?
            {
                Claim::Replay(outcome) => return outcome,
                Claim::Claimed => {}
            }
        }
        let plan = Plan {
            joined: self.joined.clone(),
            quotes: self.quotes.clone(),
            owner: MediaOwner::of(&account.id, caller),
            caller: caller.clone(),
            account,
            chat,
            content,
            file_name: sanitize_file_name(&req.file_name),
            deadline: ctx.deadline.instant().map(|d| {
                d.checked_sub(DEADLINE_MARGIN)
                    .unwrap_or(d)
                    .max(Instant::now())
            }),
            write: write.clone(),
        };
        // The rest runs on its own task: a caller that goes away neither
        // cuts a send in half nor leaves its idempotency key claimed.
        let task = tokio::spawn(async move {
            let account_id = plan.account.id.clone();
            let write = plan.write.clone();
            let (outcome, anything_sent) = plan.execute().await;
            if !key.is_empty() {
                let stored = if anything_sent || outcome.is_ok() {
                    write.idempotency.finish(&account_id, &key, &outcome).await
                } else {
                    write.idempotency.release(&account_id, &key).await
                };
                if let Err(e) = stored {
                    tracing::error!(account_id, error = %e, "storing an idempotency outcome failed");
                }
            }
            outcome
        });
        task.await
            .map_err(|e| Error::internal(format!("send task failed: {e}")))?
    }
}

/// A validated request on its way out.
struct Plan {
    /// The groups each bot is in.
    joined: Arc<JoinedGroups>,
    /// The quote cache (messages seen, ids the peer does not know).
    quotes: Arc<Quotes>,
    /// Who may use staged media here: the account and the caller's token
    /// (captured before the plan leaves the request's task).
    owner: MediaOwner,
    /// The caller: its chat scope holds for the chats quoted messages and
    /// received media come from.
    caller: Caller,
    account: Arc<Account>,
    chat: ChatRef,
    content: Content,
    file_name: String,
    deadline: Option<Instant>,
    write: WriteSide,
}

impl Plan {
    /// Runs the request; returns its outcome and whether anything may have
    /// reached the peer.
    async fn execute(self) -> (Result<SendResult>, bool) {
        let status = self.account.peer.status();
        if let Err(e) = self.check_chat().await {
            return (Err(e), false);
        }
        if let Err(e) = self.check_quote(status.online).await {
            return (Err(e), false);
        }
        let chunks = split_text(&self.content.text, self.account.config.reply_chunk_size);
        if !status.online {
            if self.content.has_media() {
                let e = Error::new(
                    Kind::AccountOffline,
                    format!(
                        "account {:?} is offline; messages with media are not queued",
                        self.account.id
                    ),
                )
                .with("account_id", &self.account.id)
                .with("state", status.state.name())
                .retry_after(Duration::from_secs(5));
                return (Err(e), false);
            }
            return (self.enqueue(chunks, Vec::new()).await, false);
        }
        // A peer that cannot take a kind at all refuses before anything is
        // resolved (videos first, then the file).
        let kinds = [
            (!self.content.videos.is_empty(), MediaKind::Video),
            (self.content.file.is_some(), MediaKind::File),
            (!self.content.voices.is_empty(), MediaKind::Voice),
        ];
        for (_, kind) in kinds.iter().filter(|(present, _)| *present) {
            if let Err(e) = self.account.peer.check_media(*kind) {
                return (Err(e), false);
            }
        }
        let parts = match self.parts(&chunks).await {
            Ok(f) => f,
            Err(e) => return (Err(e), false),
        };
        let summary = self.summary(&parts);
        let text_only = !self.content.has_media();
        let outcome = match self.write.outbound(&self.account.id) {
            Ok(o) => {
                o.send(self.chat, self.content.lead.clone(), parts, self.deadline)
                    .await
            }
            Err(e) => Err(e),
        };
        let Outcome { delivery, error } = match outcome {
            Ok(o) => o,
            Err(e) => return (Err(e), false),
        };
        let result = |message_ids: Vec<i64>, rate_limit_wait| SendResult {
            chunks: u32::try_from(chunks.len()).unwrap_or(u32::MAX),
            queued: false,
            message_ids,
            media: summary.clone(),
            replayed: false,
            rate_limit_wait,
            ..self.target()
        };
        match error {
            None => (
                Ok(result(delivery.message_ids, delivery.rate_limit_wait)),
                true,
            ),
            // The connection went away before a part left: a text-only
            // request keeps its place in line in the durable queue.
            Some(e) if e.kind == Kind::AccountOffline && text_only => {
                let rest = chunks.get(delivery.sent..).unwrap_or_default().to_vec();
                let sent = delivery.sent > 0;
                // The lead stays with the rest until the first message is out.
                let lead = if sent {
                    Lead::default()
                } else {
                    self.content.lead.clone()
                };
                (
                    self.enqueue_rest(chunks.len(), rest, lead, delivery.message_ids)
                        .await,
                    sent,
                )
            }
            Some(e) => {
                let sent = delivery.sent > 0 || e.kind == Kind::SendOutcomeUnknown;
                let e = if delivery.sent > 0 {
                    e.with("delivered", delivery.sent)
                        .with("message_ids", join_ids(&delivery.message_ids))
                } else {
                    e
                };
                (Err(e), sent)
            }
        }
    }

    fn peer_deadline(&self) -> Deadline {
        self.deadline.map_or(Deadline::NONE, Deadline::at)
    }

    /// A group send needs the bot in the group.
    async fn check_chat(&self) -> Result<()> {
        let ChatRef::Group(group_id) = self.chat else {
            return Ok(());
        };
        let peer = self.account.peer.as_ref();
        self.joined
            .require(&self.account.id, peer, group_id, self.peer_deadline())
            .await
    }

    /// The quoted message must be one the peer knows, in the send's chat
    /// (see the module docs).
    async fn check_quote(&self, online: bool) -> Result<()> {
        let Some(id) = self.content.lead.reply_to else {
            return Ok(());
        };
        let account = &self.account.id;
        let quoted = match self.quotes.known(account, id) {
            Some(Known::Message(m)) => m,
            Some(Known::Missing) => return Err(quote_not_found(id)),
            // Nothing held and no peer to ask: the quote goes unchecked.
            None if !online => return Ok(()),
            None => match self
                .account
                .peer
                .get_message(id, Some(self.chat), self.peer_deadline())
                .await
            {
                Ok(m) => {
                    self.quotes.remember(account, &m);
                    Arc::new(m)
                }
                Err(e) if e.kind == Kind::MessageNotFound => {
                    self.quotes.remember_missing(account, id);
                    return Err(quote_not_found(id));
                }
                // The connection went: the send goes on as an offline one.
                Err(e)
                    if matches!(
                        e.kind,
                        Kind::AccountOffline
                            | Kind::OnebotConnectionLost
                            | Kind::OnebotActionUnsupported
                    ) =>
                {
                    return Ok(());
                }
                Err(e) => return Err(e.with("message_id", id).field("reply_to_message_id")),
            },
        };
        if quoted.chat != self.chat {
            // A message of a chat outside the caller's scope is refused
            // without naming that chat.
            self.caller
                .check_source_chat(quoted.chat, &format!("reply_to_message_id {id}"))
                .map_err(|e| e.field("reply_to_message_id"))?;
            let (theirs, ours) = (quoted.chat.target(), self.chat.target());
            return Err(Error::invalid(
                "reply_to_message_id",
                format!(
                    "reply_to_message_id {id} is a message of {theirs}, but this send goes to {ours}: quote a message of the chat you send to"
                ),
            )
            .with("message_id", id)
            .with("message_chat", theirs)
            .with("target", ours));
        }
        Ok(())
    }

    fn summary(&self, parts: &[Part]) -> Option<MediaSummary> {
        if !self.content.has_media() {
            return None;
        }
        let mut s = MediaSummary {
            images: 0,
            videos: 0,
            file: String::new(),
            voices: 0,
        };
        for f in parts {
            match f {
                Part::Image(_) => s.images += 1,
                Part::Video(_) => s.videos += 1,
                Part::Voice(_) => s.voices += 1,
                Part::File(_, name) => s.file = name.clone(),
                Part::Text(_) | Part::Lead => {}
            }
        }
        Some(s)
    }

    /// Resolves every source and lays out the parts in sending order.
    async fn parts(&self, chunks: &[String]) -> Result<Vec<Part>> {
        let owner = self.owner.clone();
        let resolver = &self.write.resolver;
        let mut parts: Vec<Part> = chunks.iter().cloned().map(Part::Text).collect();
        for (i, s) in self.content.images.iter().enumerate() {
            let m = resolver
                .resolve(
                    &owner,
                    &self.caller,
                    MediaKind::Image,
                    s,
                    &format!("images[{i}]"),
                )
                .await?;
            parts.push(Part::Image(m));
        }
        for (i, s) in self.content.videos.iter().enumerate() {
            let m = resolver
                .resolve(
                    &owner,
                    &self.caller,
                    MediaKind::Video,
                    s,
                    &format!("videos[{i}]"),
                )
                .await?;
            parts.push(Part::Video(m));
        }
        if let Some(s) = &self.content.file {
            let m = resolver
                .resolve(&owner, &self.caller, MediaKind::File, s, "file")
                .await?;
            let name = if !self.file_name.is_empty() {
                self.file_name.clone()
            } else if !m.source_name.is_empty() {
                m.source_name.clone()
            } else {
                "file".to_string()
            };
            parts.push(Part::File(m, name));
        }
        for (i, s) in self.content.voices.iter().enumerate() {
            let m = resolver
                .resolve(
                    &owner,
                    &self.caller,
                    MediaKind::Voice,
                    s,
                    &format!("voices[{i}]"),
                )
                .await?;
            parts.push(Part::Voice(m));
        }
        // The quote and mentions lead the first message: a text chunk, an
        // image or a video; before a file (or alone) a message of their own.
        let carried = matches!(
            parts.first(),
            Some(Part::Text(_) | Part::Image(_) | Part::Video(_))
        );
        if !self.content.lead.is_empty() && !carried {
            parts.insert(0, Part::Lead);
        }
        Ok(parts)
    }

    /// The target fields of a result.
    fn target(&self) -> SendResult {
        let (group_id, user_id) = match self.chat {
            ChatRef::Group(g) => (g, 0),
            ChatRef::Private(u) => (0, u),
        };
        SendResult {
            group_id,
            user_id,
            chunks: 0,
            queued: false,
            message_ids: Vec::new(),
            media: None,
            replayed: false,
            rate_limit_wait: Duration::ZERO,
        }
    }

    async fn enqueue(&self, chunks: Vec<String>, message_ids: Vec<i64>) -> Result<SendResult> {
        let total = chunks.len();
        self.enqueue_rest(total, chunks, self.content.lead.clone(), message_ids)
            .await
    }

    async fn enqueue_rest(
        &self,
        total: usize,
        rest: Vec<String>,
        lead: Lead,
        message_ids: Vec<i64>,
    ) -> Result<SendResult> {
        let c = &self.account.config;
        let (entry, expired) = self
            .write
            .queue
            .push(
                &self.account.id,
                NewEntry {
                    chat: self.chat,
                    lead,
                    chunks: rest,
                },
                c.queue_max_entries,
                Duration::from_secs(c.queue_ttl_secs),
                now_ms(),
            )
            .await?;
        for e in &expired {
            queue_entries(&self.account.id, QueueOutcome::Expired, 1);
            tracing::warn!(
                account_id = %self.account.id,
                chat = %e.chat().target(),
                seq = e.seq,
                chunks = e.chunks.len(),
                "queued message expired before the account came back online; it was not sent"
            );
        }
        queue_entries(&self.account.id, QueueOutcome::Queued, 1);
        tracing::info!(account_id = %self.account.id, chat = %self.chat.target(), seq = entry.seq, "account offline; message queued");
        if let Ok(o) = self.write.outbound(&self.account.id) {
            o.kick();
        }
        Ok(SendResult {
            chunks: u32::try_from(total).unwrap_or(u32::MAX),
            queued: true,
            message_ids,
            ..self.target()
        })
    }
}

/// The `MessageNotFound` error of a quote the peer does not know.
fn quote_not_found(id: i64) -> Error {
    Error::new(
        Kind::MessageNotFound,
        format!(
            "reply_to_message_id {id} is a message the peer does not know (recalled, too old or never seen): nothing was sent"
        ),
    )
    .with("message_id", id)
    .field("reply_to_message_id")
}

fn join_ids(ids: &[i64]) -> String {
    ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
}
