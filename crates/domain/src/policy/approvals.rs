//! Approvals: actions a rule holds until a bot owner says yes.
//!
//! - [`Gateway::hold`] stores the action (state `pending`), records it in
//!   the audit trail, asks every owner in a private message through the
//!   action's account (whatever the `users` whitelist says) and returns the
//!   `ApprovalPending` error naming the approval.
//! - An owner answers in that private chat: `同意 <id>` / `拒绝 <id>`,
//!   `approve <id>` / `reject <id>`, or 同意 / 拒绝 (approve / reject)
//!   quoting the bot's message. Answers from anyone else are ignored.
//!   [`Gateway::decide_approval`] does the same for a UI or an MCP client.
//! - Approving moves `pending` to `approved` in one compare-and-set, so only
//!   one decision wins; the action then runs once (the whitelist, scopes,
//!   rate limits and the outcome-unknown rule as for any call) and ends
//!   `executed` or `failed`. Rejected and expired approvals never run.
//! - An approval still `approved` when the gateway starts was cut off
//!   mid-run: it becomes `failed` (outcome unknown), never run twice. A
//!   `pending` one past its time becomes `expired`, checked every few
//!   seconds and before any decision.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Action;
use super::audit::{Note, reason_of};
use super::check::Verdict;
use super::held::{Held, Payload};
use super::store::{ApprovalRecord, ApprovalState, ApprovalUpdate, AuditDecision, GovernanceStore};
use crate::account::Account;
use crate::call::{CallCtx, Deadline};
use crate::caller::Caller;
use crate::clock::now_ms;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::lease::Role;
use crate::model::{ChatRef, InboundEvent, Message, Segment};
use crate::ports::EventSink;

/// Letters of approval ids: no 0/O, 1/I/L, so an owner types them right.
const ID_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
/// Length of an approval id.
const ID_LEN: usize = 6;
/// Longest wait of one GetApproval.
pub const MAX_WAIT: Duration = Duration::from_secs(600);
/// How long an approved action may run.
const EXECUTION_TIMEOUT: Duration = Duration::from_secs(120);
/// Most questions and answers waiting for the approvals task.
const WORK_QUEUE: usize = 1024;
/// How often records older than `archive.retention_days` are deleted.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);
/// Approvals listed when a query asks for 0.
pub const DEFAULT_APPROVAL_LIMIT: u32 = 50;

/// What an approved action did.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Executed {
    /// The messages it sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub message_ids: Vec<i64>,
    /// True when a text was queued (the account was offline).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub queued: bool,
    /// The error reason of a failed run.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error_reason: String,
    /// Its text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error_message: String,
}

impl Executed {
    /// The result stored with an approval.
    pub fn parse(result: Option<&str>) -> Executed {
        result
            .and_then(|r| serde_json::from_str(r).ok())
            .unwrap_or_default()
    }
}

/// An owner's answer found in a private message.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answer {
    approve: bool,
    /// The id typed, or `None` when the message quotes the approval.
    id: Option<String>,
    /// The quoted message, if any.
    quoted: Option<i64>,
}

/// Reads `同意 <id>`, `拒绝 <id>`, `approve <id>`, `reject <id>` (any
/// case, with or without a space), or the bare word with a quote.
fn answer_of(message: &Message) -> Option<Answer> {
    let mut text = String::new();
    let mut quoted = None;
    for s in &message.segments {
        match s {
            Segment::Text(t) => text.push_str(t),
            Segment::Reply { id, .. } => quoted = id.trim().parse::<i64>().ok(),
            _ => {}
        }
    }
    let text = text.trim();
    let words: [(&str, bool); 4] = [
        ("同意", true),
        ("拒绝", false),
        ("approve", true),
        ("reject", false),
    ];
    for (word, approve) in words {
        let Some(head) = text.get(..word.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(word) {
            continue;
        }
        let rest = text[word.len()..].trim();
        if rest.is_empty() {
            return quoted.map(|q| Answer {
                approve,
                id: None,
                quoted: Some(q),
            });
        }
        let id = rest.to_ascii_uppercase();
        if id.len() == ID_LEN && id.bytes().all(|b| ID_ALPHABET.contains(&b)) {
            return Some(Answer {
                approve,
                id: Some(id),
                quoted,
            });
        }
        return None;
    }
    None
}

/// A fresh approval id.
fn new_id() -> String {
    let mut rng = rand::rng();
    (0..ID_LEN)
        .map(|_| ID_ALPHABET[rng.random_range(0..ID_ALPHABET.len())] as char)
        .collect()
}

/// Work for the approvals task ([`Gateway::run_approvals`]): owners to
/// ask, and their answers from the event observer.
enum Work {
    Ask(Arc<Account>, ApprovalRecord),
    Answer(String, Message),
}

/// The queue of the approvals task.
pub struct ApprovalWork {
    tx: mpsc::Sender<Work>,
    rx: parking_lot::Mutex<Option<mpsc::Receiver<Work>>>,
}

impl Default for ApprovalWork {
    fn default() -> Self {
        let (tx, rx) = mpsc::channel(WORK_QUEUE);
        ApprovalWork {
            tx,
            rx: parking_lot::Mutex::new(Some(rx)),
        }
    }
}

impl ApprovalWork {
    /// Passes on a private message from a bot owner that reads as an
    /// answer (see the module docs).
    pub fn observe(&self, owners: &[i64], account_id: &str, event: &InboundEvent) {
        let InboundEvent::Message {
            message,
            self_sent: false,
            ..
        } = event
        else {
            return;
        };
        if !matches!(message.chat, ChatRef::Private(u) if u == message.sender.user_id)
            || !owners.contains(&message.sender.user_id)
            || answer_of(message).is_none()
        {
            return;
        }
        self.push(Work::Answer(account_id.to_owned(), message.clone()));
    }

    /// Queues `work`; a full queue drops it with a warning (an owner can
    /// answer again, an approval can be decided with ApprovalService).
    fn push(&self, work: Work) {
        if self.tx.try_send(work).is_err() {
            tracing::warn!(
                "the approvals task is {WORK_QUEUE} items behind; an owner's question or answer was dropped"
            );
        }
    }
}

/// The `ApprovalPending` error of a held action.
fn pending(record: &ApprovalRecord) -> Error {
    Error::new(
        Kind::ApprovalPending,
        format!(
            "{} needs a bot owner's approval: approval {} is pending and the owners were asked in QQ; nothing was done yet",
            record.action, record.id
        ),
    )
    .with("approval_id", &record.id)
    .with("rule", record.rule)
    .with("action", &record.action)
}

fn not_found(id: &str) -> Error {
    Error::new(
        Kind::ApprovalNotFound,
        format!("there is no approval {id:?}"),
    )
    .with("approval_id", id)
    .field("approval_id")
}

fn decided(record: &ApprovalRecord) -> Error {
    Error::new(
        Kind::ApprovalDecided,
        format!(
            "approval {} is {}, no longer pending",
            record.id,
            record.state.name()
        ),
    )
    .with("approval_id", &record.id)
    .with("state", record.state.name())
}

/// The words of a chat in an owner's message.
fn chat_words(chat: &str) -> String {
    match chat.split_once(':') {
        Some(("group", id)) => format!("群 {id}"),
        Some(("private", id)) => format!("私聊 {id}"),
        _ => chat.to_owned(),
    }
}

impl Gateway {
    /// Holds an action for approval (see the module docs); returns the
    /// `ApprovalPending` error the call answers with (or the error that
    /// kept it from being stored).
    pub(crate) async fn hold(
        &self,
        account: &Arc<Account>,
        verdict: &Verdict,
        note: &Note,
        held: Held,
        ctx: &CallCtx,
        on_behalf_of: Option<super::OnBehalfOf>,
    ) -> Error {
        self.store_held(account, verdict, note, held, ctx, on_behalf_of)
            .await
            .unwrap_or_else(|e| e)
    }

    async fn store_held(
        &self,
        account: &Arc<Account>,
        verdict: &Verdict,
        note: &Note,
        held: Held,
        ctx: &CallCtx,
        on_behalf_of: Option<super::OnBehalfOf>,
    ) -> Result<Error> {
        let store = self.governance_store()?;
        let now = now_ms();
        let timeout = self
            .config
            .policy
            .approval_timeout_secs
            .saturating_mul(1000);
        let mut record = ApprovalRecord {
            id: String::new(),
            account_id: account.id.clone(),
            created_ms: now,
            expires_ms: now.saturating_add(i64::try_from(timeout).unwrap_or(i64::MAX)),
            state: ApprovalState::Pending,
            action: note.action_names(),
            chat: note.chat.map(|c| c.target()).unwrap_or_default(),
            requester_id: verdict.requester.user_id,
            role: verdict.requester.role.name().to_owned(),
            token: ctx.caller.token_name().map(str::to_owned),
            rule: verdict.decision.rule().map_or(-1, |r| r as i64),
            summary: note.summary.clone(),
            payload: Payload::new(held, &ctx.caller, on_behalf_of).to_json(),
            decided_by: None,
            decided_ms: None,
            result: None,
            owner_message_ids: Vec::new(),
        };
        let mut stored = false;
        for _ in 0..8 {
            record.id = new_id();
            if store.insert_approval(&record).await? {
                stored = true;
                break;
            }
        }
        if !stored {
            return Err(Error::internal("no free approval id after 8 tries"));
        }
        onebot_gateway_telemetry::metrics::approval(&account.id, "pending");
        let mut audit = note.record(ctx.caller.token_name(), AuditDecision::Pending);
        audit.approval_id = Some(record.id.clone());
        self.audit(audit).await;
        self.announce(&record.id).await;
        // The owners are asked by the approvals task: the call answers at
        // once, and a slow or offline account only delays the question.
        self.approval_work()
            .push(Work::Ask(account.clone(), record.clone()));
        Ok(pending(&record))
    }

    /// Publishes the approval's state as an `Approval` event of its
    /// account (without the stored payload) and wakes waiters.
    async fn announce(&self, id: &str) {
        if let Ok(store) = self.governance_store()
            && let Ok(Some(mut record)) = store.get_approval(id).await
        {
            record.payload.clear();
            let account_id = record.account_id.clone();
            self.events
                .publish(&account_id, InboundEvent::Approval(Box::new(record)));
        }
        self.approval_changed();
    }

    /// Sends each owner the question of `record` and stores the message
    /// ids (an owner may answer by quoting one).
    async fn ask_owners(&self, account: &Account, record: &ApprovalRecord) {
        let requester = match record.requester_id {
            Some(u) => format!("{u}（{}）", record.role),
            None => "未指明（none）".to_owned(),
        };
        let minutes = self.config.policy.approval_timeout_secs.div_ceil(60);
        let text = format!(
            "[审批 {id}] 代理请求执行：{action}\n会话：{chat}\n请求者：{requester}\n内容：{summary}\n回复「同意 {id}」或「拒绝 {id}」（也可引用本消息回复 同意/拒绝）；{minutes} 分钟内无人处理将自动过期。",
            id = record.id,
            action = record.action,
            chat = chat_words(&record.chat),
            summary = record.summary,
        );
        let mut ids = Vec::new();
        for owner in self.policy().owners() {
            match self.tell(account, *owner, &text).await {
                Ok(mut sent) => ids.append(&mut sent),
                Err(e) => tracing::warn!(
                    account_id = %account.id,
                    approval_id = %record.id,
                    owner,
                    error = %e,
                    "asking a bot owner for an approval failed; it can still be decided with ApprovalService"
                ),
            }
        }
        if let Ok(store) = self.governance_store()
            && let Err(e) = store.set_owner_messages(&record.id, &ids).await
        {
            tracing::error!(approval_id = %record.id, error = %e, "storing the approval's messages failed");
        }
        self.approval_changed();
    }

    /// Sends `text` to `user_id` privately through `account`'s sender.
    async fn tell(&self, account: &Account, user_id: i64, text: &str) -> Result<Vec<i64>> {
        let outbound = self.write().outbound(&account.id)?;
        let outcome = outbound
            .send_to_owner(
                user_id,
                text.to_owned(),
                Deadline::after(Duration::from_secs(30)).instant(),
            )
            .await?;
        match outcome.error {
            Some(e) => Err(e),
            None => Ok(outcome.delivery.message_ids),
        }
    }

    /// One approval, for `ctx`'s caller.
    pub async fn get_approval(&self, id: &str, ctx: &CallCtx) -> Result<ApprovalRecord> {
        let store = self.governance_store()?;
        let id = id.trim().to_ascii_uppercase();
        let record = store
            .get_approval(&id)
            .await?
            .ok_or_else(|| not_found(&id))?;
        ctx.caller.check_account(&record.account_id)?;
        Ok(record)
    }

    /// One approval; waits up to `wait` (and the call's deadline) for it to
    /// leave `pending` and `approved`.
    pub async fn wait_approval(
        &self,
        id: &str,
        wait: Duration,
        ctx: &CallCtx,
    ) -> Result<ApprovalRecord> {
        let until = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        let until = ctx.deadline.instant().map_or(until, |d| d.min(until));
        let mut changed = self.approval_changes();
        loop {
            changed.borrow_and_update();
            let record = self.get_approval(id, ctx).await?;
            let open = matches!(
                record.state,
                ApprovalState::Pending | ApprovalState::Approved
            );
            if !open {
                return Ok(record);
            }
            let sleep = if record.state == ApprovalState::Pending {
                // Expiry is decided here too, without waiting for the sweep.
                let left = record.expires_ms.saturating_sub(now_ms()).max(0);
                until.min(tokio::time::Instant::now() + Duration::from_millis(left as u64 + 1))
            } else {
                until
            };
            if record.state == ApprovalState::Pending && record.expires_ms <= now_ms() {
                self.expire(&record).await?;
                continue;
            }
            if tokio::time::Instant::now() >= until {
                return Ok(record);
            }
            tokio::select! {
                _ = changed.changed() => {}
                () = tokio::time::sleep_until(sleep) => {}
            }
        }
    }

    /// Approvals in `state` of `account_id`, newest first, for `ctx`'s
    /// caller.
    pub async fn list_approvals(
        &self,
        state: Option<ApprovalState>,
        account_id: Option<&str>,
        limit: u32,
        ctx: &CallCtx,
    ) -> Result<Vec<ApprovalRecord>> {
        let store = self.governance_store()?;
        if let Some(a) = account_id {
            ctx.caller.check_account(a)?;
        }
        let limit = match limit {
            0 => DEFAULT_APPROVAL_LIMIT,
            n => n.min(500),
        };
        let mut list = store.list_approvals(state, account_id, limit).await?;
        list.retain(|r| ctx.caller.allows_account(&r.account_id));
        Ok(list)
    }

    /// Decides a pending approval for `decided_by` (`token:<name>`,
    /// `qq:<id>`, `mcp:<client>`); approving runs it. Returns the approval
    /// as it ends.
    pub async fn decide_approval(
        &self,
        id: &str,
        approve: bool,
        decided_by: &str,
    ) -> Result<ApprovalRecord> {
        let store = self.governance_store()?;
        let id = id.trim().to_ascii_uppercase();
        let record = store
            .get_approval(&id)
            .await?
            .ok_or_else(|| not_found(&id))?;
        if record.state == ApprovalState::Pending && record.expires_ms <= now_ms() {
            self.expire(&record).await?;
            let now = store
                .get_approval(&id)
                .await?
                .ok_or_else(|| not_found(&id))?;
            return Err(decided(&now));
        }
        let state = if approve {
            ApprovalState::Approved
        } else {
            ApprovalState::Rejected
        };
        let moved = store
            .transition(
                &id,
                ApprovalState::Pending,
                ApprovalUpdate {
                    state,
                    decided_by: Some(decided_by.to_owned()),
                    decided_ms: Some(now_ms()),
                    result: None,
                },
            )
            .await?;
        if !moved {
            let now = store
                .get_approval(&id)
                .await?
                .ok_or_else(|| not_found(&id))?;
            return Err(decided(&now));
        }
        onebot_gateway_telemetry::metrics::approval(&record.account_id, state.name());
        let decision = if approve {
            AuditDecision::Approved
        } else {
            AuditDecision::Rejected
        };
        self.audit_approval(&record, decision, decided_by, None)
            .await;
        self.announce(&record.id).await;
        if approve {
            self.execute(&record, decided_by).await?;
        }
        store.get_approval(&id).await?.ok_or_else(|| not_found(&id))
    }

    /// Runs an approved action once and records how it ended.
    async fn execute(&self, record: &ApprovalRecord, decided_by: &str) -> Result<()> {
        let store = self.governance_store()?;
        let outcome = match Payload::parse(&record.payload) {
            Ok(payload) => {
                let ctx = CallCtx::new(payload.caller(), Deadline::after(EXECUTION_TIMEOUT));
                self.run_held(&record.account_id, payload, ctx, &record.id)
                    .await
            }
            Err(e) => Err(e),
        };
        let (state, executed) = match outcome {
            Ok(done) => (ApprovalState::Executed, done),
            Err(e) => (
                ApprovalState::Failed,
                Executed {
                    error_reason: reason_of(e.kind),
                    error_message: e.message,
                    ..Executed::default()
                },
            ),
        };
        store
            .transition(
                &record.id,
                ApprovalState::Approved,
                ApprovalUpdate {
                    state,
                    decided_by: None,
                    decided_ms: None,
                    result: Some(serde_json::to_string(&executed).unwrap_or_default()),
                },
            )
            .await?;
        onebot_gateway_telemetry::metrics::approval(&record.account_id, state.name());
        let decision = if state == ApprovalState::Executed {
            AuditDecision::Executed
        } else {
            AuditDecision::Failed
        };
        let error = (!executed.error_reason.is_empty()).then(|| executed.error_reason.clone());
        self.audit_approval(record, decision, decided_by, error)
            .await;
        self.announce(&record.id).await;
        Ok(())
    }

    /// Runs the held action as the caller that asked for it.
    async fn run_held(
        &self,
        account_id: &str,
        payload: Payload,
        ctx: CallCtx,
        approval_id: &str,
    ) -> Result<Executed> {
        let on_behalf_of = payload.on_behalf_of();
        match payload.action {
            Held::Send(send) => {
                let req = send.request(on_behalf_of)?;
                let r = self.send_approved(req, ctx, approval_id).await?;
                Ok(Executed {
                    message_ids: r.message_ids,
                    queued: r.queued,
                    ..Executed::default()
                })
            }
            Held::Recall { message_id } => {
                self.recall_approved(account_id, message_id, on_behalf_of, ctx)
                    .await?;
                Ok(Executed::default())
            }
            Held::Poke { group_id, user_id } => {
                self.poke_approved(account_id, group_id, user_id, on_behalf_of, ctx)
                    .await?;
                Ok(Executed::default())
            }
            Held::React {
                message_id,
                emoji_id,
                remove,
            } => {
                let mut note = Note::new(account_id, vec![Action::React], String::new());
                self.react_checked(
                    account_id,
                    message_id,
                    &emoji_id,
                    remove,
                    on_behalf_of,
                    &ctx,
                    true,
                    &mut note,
                )
                .await?;
                Ok(Executed::default())
            }
            Held::Essence { message_id, remove } => {
                let mut note = Note::new(account_id, vec![Action::Essence], String::new());
                self.essence_checked(
                    account_id,
                    message_id,
                    remove,
                    on_behalf_of,
                    &ctx,
                    true,
                    &mut note,
                )
                .await?;
                Ok(Executed::default())
            }
            Held::Typing { user_id } => {
                let mut note = Note::new(account_id, vec![Action::Typing], String::new());
                self.typing_checked(account_id, user_id, on_behalf_of, &ctx, true, &mut note)
                    .await?;
                Ok(Executed::default())
            }
            Held::Moderate { group_id, op } => {
                let mut note = Note::new(account_id, vec![op.action()], String::new());
                self.moderate_checked(
                    account_id,
                    Some(group_id),
                    &op,
                    on_behalf_of,
                    &ctx,
                    true,
                    &mut note,
                )
                .await?;
                Ok(Executed::default())
            }
        }
    }

    /// Records an approval's change in the audit trail.
    async fn audit_approval(
        &self,
        record: &ApprovalRecord,
        decision: AuditDecision,
        decided_by: &str,
        error: Option<String>,
    ) {
        self.audit(super::store::AuditRecord {
            id: 0,
            time_ms: now_ms(),
            account_id: record.account_id.clone(),
            token: record.token.clone(),
            requester_id: record.requester_id,
            role: record.role.clone(),
            action: record.action.clone(),
            chat: record.chat.clone(),
            decision: Some(decision),
            rule: Some(record.rule),
            approval_id: Some(record.id.clone()),
            summary: record.summary.clone(),
            decided_by: Some(decided_by.to_owned()),
            error,
        })
        .await;
    }

    /// Moves a pending approval past its time to `expired`.
    async fn expire(&self, record: &ApprovalRecord) -> Result<()> {
        let store = self.governance_store()?;
        let moved = store
            .transition(
                &record.id,
                ApprovalState::Pending,
                ApprovalUpdate {
                    state: ApprovalState::Expired,
                    decided_by: Some("timeout".to_owned()),
                    decided_ms: Some(now_ms()),
                    result: None,
                },
            )
            .await?;
        if moved {
            onebot_gateway_telemetry::metrics::approval(&record.account_id, "expired");
            self.audit_approval(record, AuditDecision::Expired, "timeout", None)
                .await;
            self.announce(&record.id).await;
        }
        Ok(())
    }

    /// Acts on an owner's answer; tells the owner what came of it.
    async fn answered(&self, account_id: &str, message: Message) {
        let Some(answer) = answer_of(&message) else {
            return;
        };
        let owner = message.sender.user_id;
        let Ok(store) = self.governance_store() else {
            return;
        };
        let id = match (&answer.id, answer.quoted) {
            (Some(id), _) => Some(id.clone()),
            (None, Some(quoted)) => store
                .list_approvals(None, Some(account_id), 200)
                .await
                .ok()
                .and_then(|list| {
                    list.into_iter()
                        .find(|r| r.owner_message_ids.contains(&quoted))
                        .map(|r| r.id)
                }),
            (None, None) => None,
        };
        let Some(id) = id else {
            return;
        };
        let reply = match self
            .decide_approval(&id, answer.approve, &format!("qq:{owner}"))
            .await
        {
            Ok(r) => {
                let result = Executed::parse(r.result.as_deref());
                match r.state {
                    ApprovalState::Executed if result.queued => {
                        format!("[审批 {id}] 已同意：账号离线，消息已排队，上线后发送。")
                    }
                    ApprovalState::Executed => format!("[审批 {id}] 已同意并执行。"),
                    ApprovalState::Failed => format!(
                        "[审批 {id}] 已同意，但执行失败：{}（{}）",
                        result.error_message, result.error_reason
                    ),
                    _ => format!("[审批 {id}] 已拒绝，不会执行。"),
                }
            }
            Err(e) if e.kind == Kind::ApprovalNotFound => format!("没有审批 {id}。"),
            Err(e) if e.kind == Kind::ApprovalDecided => format!(
                "[审批 {id}] 已处理过（{}），不能再次决定。",
                e.meta("state").unwrap_or_default()
            ),
            Err(e) => format!("[审批 {id}] 处理失败：{}", e.message),
        };
        if let Some(account) = self.accounts().find(|a| a.id == account_id).cloned()
            && let Err(e) = self.tell(&account, owner, &reply).await
        {
            tracing::warn!(account_id, owner, error = %e, "telling a bot owner the approval's outcome failed");
        }
    }

    /// Marks the approvals of `accounts` that were being executed when a
    /// gateway stopped (state approved) failed, outcome unknown: they are not
    /// run again.
    async fn fail_cut_off(&self, store: &Arc<dyn GovernanceStore>, accounts: &[String]) {
        match store
            .list_approvals(Some(ApprovalState::Approved), None, 10_000)
            .await
        {
            Ok(cut) => {
                for record in cut.into_iter().filter(|r| accounts.contains(&r.account_id)) {
                    let executed = Executed {
                        error_reason: reason_of(Kind::SendOutcomeUnknown),
                        error_message: "the gateway stopped while executing it; the outcome is unknown and it is not run again".to_owned(),
                        ..Executed::default()
                    };
                    let moved = store
                        .transition(
                            &record.id,
                            ApprovalState::Approved,
                            ApprovalUpdate {
                                state: ApprovalState::Failed,
                                decided_by: None,
                                decided_ms: None,
                                result: serde_json::to_string(&executed).ok(),
                            },
                        )
                        .await;
                    if matches!(moved, Ok(true)) {
                        let by = record.decided_by.clone().unwrap_or_default();
                        self.audit_approval(
                            &record,
                            AuditDecision::Failed,
                            &by,
                            Some(executed.error_reason),
                        )
                        .await;
                        self.announce(&record.id).await;
                    }
                }
            }
            Err(e) => tracing::error!(error = %e, "reading approvals cut off by a stop failed"),
        }
    }

    /// The background work of approvals until `shutdown`: owners' answers,
    /// expiry, and (once, at start) approvals cut off mid-run.
    pub async fn run_approvals(self: Arc<Self>, shutdown: CancellationToken) {
        let Some(store) = self.governance().cloned() else {
            return;
        };
        let Some(mut work) = self.approval_work().rx.lock().take() else {
            return;
        };
        // Answers and questions in flight: waited for at shutdown, so the
        // task ends only once nothing of it still holds the gateway.
        let mut running = tokio::task::JoinSet::new();
        // Approvals cut off mid-run are this gateway's to settle only for
        // the accounts it serves: at start, or under [ha] each time it comes
        // to lead one (another gateway may be executing them until then).
        match self.leadership().cloned() {
            None => {
                let here: Vec<String> = self.accounts().map(|a| a.id.clone()).collect();
                self.fail_cut_off(&store, &here).await;
            }
            Some(leadership) => {
                for id in leadership.accounts() {
                    let Some(mut role) = leadership.watch(id) else {
                        continue;
                    };
                    let (gw, store, id, stop) = (
                        self.clone(),
                        store.clone(),
                        vec![id.to_owned()],
                        shutdown.clone(),
                    );
                    running.spawn(async move {
                        loop {
                            tokio::select! {
                                r = role.wait_for(|r| matches!(r, Role::Leading { .. })) => if r.is_err() { return },
                                () = stop.cancelled() => return,
                            }
                            gw.fail_cut_off(&store, &id).await;
                            tokio::select! {
                                r = role.wait_for(|r| !matches!(r, Role::Leading { .. })) => if r.is_err() { return },
                                () = stop.cancelled() => return,
                            }
                        }
                    });
                }
            }
        }
        let period =
            Duration::from_secs((self.config.policy.approval_timeout_secs / 10).clamp(1, 5));
        let mut tick = tokio::time::interval(period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // Records are kept as long as archived messages.
        let mut prune = tokio::time::interval(PRUNE_EVERY);
        prune.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let keep_ms = i64::from(self.config.archive.retention_days) * 86_400_000;
        loop {
            tokio::select! {
                () = shutdown.cancelled() => {
                    while running.join_next().await.is_some() {}
                    return;
                }
                Some(_) = running.join_next(), if !running.is_empty() => {}
                _ = prune.tick() => {
                    let before = now_ms().saturating_sub(keep_ms);
                    let audit = store.prune_audit(before).await;
                    let approvals = store.prune_approvals(before).await;
                    match (audit, approvals) {
                        (Ok(a), Ok(b)) if a + b > 0 => tracing::info!(audit_records = a, approvals = b, "old audit records and approvals deleted"),
                        (Err(e), _) | (_, Err(e)) => tracing::warn!(error = %e, "pruning audit records failed"),
                        _ => {}
                    }
                }
                Some(item) = work.recv() => {
                    // Each on its own task: an approved send may take a
                    // while, and other work need not wait.
                    let gw = self.clone();
                    running.spawn(async move {
                        match item {
                            Work::Ask(account, record) => gw.ask_owners(&account, &record).await,
                            Work::Answer(account_id, message) => {
                                gw.answered(&account_id, message).await;
                            }
                        }
                    });
                }
                _ = tick.tick() => {
                    if let Ok(list) = store.list_approvals(Some(ApprovalState::Pending), None, 10_000).await {
                        for record in list.iter().filter(|r| r.expires_ms <= now_ms()) {
                            if let Err(e) = self.expire(record).await {
                                tracing::warn!(approval_id = %record.id, error = %e, "expiring an approval failed");
                            }
                        }
                    }
                }
            }
        }
    }
}

impl Gateway {
    /// Fails with `TokenScope` unless the caller may decide approvals of
    /// `account_id`: a token with `approve = true` that may use the
    /// account, or any caller with authentication off.
    pub fn check_approver(&self, caller: &Caller, account_id: &str) -> Result<()> {
        caller.check_account(account_id)?;
        let Some(name) = caller.token_name() else {
            return Ok(());
        };
        let approver = self
            .config
            .auth
            .tokens
            .iter()
            .any(|t| t.name == name && t.approve);
        if approver {
            return Ok(());
        }
        Err(Error::new(
            Kind::TokenScope,
            format!("token {name:?} may not decide approvals: give it approve = true"),
        )
        .with("token", name)
        .with("needs", "approve"))
    }
}

/// The action names of a held record, as a list.
pub fn actions_of(record: &ApprovalRecord) -> Vec<String> {
    record
        .action
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Sender;

    fn private(from: i64, segments: Vec<Segment>) -> Message {
        Message {
            message_id: 1,
            message_seq: None,
            peer_seq: None,
            time: 0,
            sender: Sender {
                user_id: from,
                nickname: String::new(),
                card: String::new(),
                role: String::new(),
            },
            segments,
            chat: ChatRef::Private(from),
            raw: Default::default(),
        }
    }

    #[test]
    fn answers_read_the_id_or_the_quote() {
        let text = |t: &str| private(1, vec![Segment::Text(t.into())]);
        let a = answer_of(&text("同意 k7q2m9")).unwrap();
        assert!(a.approve);
        assert_eq!(a.id.as_deref(), Some("K7Q2M9"));
        assert!(!answer_of(&text("拒绝K7Q2M9")).unwrap().approve);
        assert!(answer_of(&text("Approve K7Q2M9")).unwrap().approve);
        assert!(!answer_of(&text("reject  K7Q2M9 ")).unwrap().approve);
        assert_eq!(answer_of(&text("同意")), None, "no id, no quote");
        assert_eq!(answer_of(&text("同意 你好")), None);
        assert_eq!(answer_of(&text("我同意 K7Q2M9")), None);
        let quoted = private(
            1,
            vec![
                Segment::Reply {
                    id: "42".into(),
                    quoted: None,
                },
                Segment::Text(" 同意".into()),
            ],
        );
        let a = answer_of(&quoted).unwrap();
        assert_eq!((a.approve, a.id, a.quoted), (true, None, Some(42)));
    }

    #[test]
    fn ids_use_the_unambiguous_alphabet() {
        for _ in 0..100 {
            let id = new_id();
            assert_eq!(id.len(), ID_LEN);
            assert!(id.bytes().all(|b| ID_ALPHABET.contains(&b)), "{id}");
        }
    }
}
