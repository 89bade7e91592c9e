//! `qq_wait_messages`: the next messages of an account, from the event
//! hub ([`EventHub::subscribe`](crate::events::EventHub::subscribe)),
//! so an agent that cannot hold an event stream open (an MCP client, a
//! request/response agent loop) still misses nothing: it calls again with
//! the `lastSequence` it got.
//!
//! The call returns at once when messages after `afterSequence` are already
//! buffered, else waits up to `timeoutSecs` for the next one. Once one
//! message is found, every further message already there is added (up to
//! [`MAX_MESSAGES`]) without waiting more. The bot's own messages never
//! count. A message the gateway read back from the peer's history after the
//! account's event connection came back (a backfilled message event) is
//! returned like any other, marked: `backfilled: true` in its details entry
//! and [`BACKFILLED_MARK`] after its line.

use schemars::JsonSchema;
use std::collections::HashSet;
use std::time::Duration;

use futures_util::FutureExt;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{AccountId, Chat, Number, Sequence, Target, account_rule, target_rule};
use super::output::{ToolOutput, domain_failure};
use super::props::{clamp_rule, message_model, strict_rules};
use super::texts::Failure;
use super::view::View;
use crate::call::CallCtx;
use crate::events::{EventFilter, EventKind, StoredEvent};
use crate::gateway::Gateway;
use crate::model::{ChatRef, InboundEvent, Message, Segment};
use crate::render;

/// `timeoutSecs` when absent or not a finite number.
pub const DEFAULT_TIMEOUT_SECS: u32 = 30;
/// Longest wait; larger `timeoutSecs` are clamped to it.
pub const MAX_TIMEOUT_SECS: u32 = 60;
/// Most messages one call returns; the rest come with the next call.
pub const MAX_MESSAGES: usize = 100;
/// The text when no message came.
pub const NO_MESSAGES: &str = "（无新消息）";
/// What follows the line of a backfilled message (one the gateway read back
/// from the peer's history after its event connection came back).
pub const BACKFILLED_MARK: &str = " （重连后补回）";

pub(super) const DESCRIPTION: &str = concat!(
    "\
Wait for new QQ messages of the account (group and private chats), and return them. Never throws.

Arguments:
- afterSequence: an event sequence number. Messages with a larger sequence are returned at once when any are buffered; otherwise the call waits for the next one. Absent: only messages that arrive after the call starts. Loop by passing back the lastSequence of the previous result: nothing is missed while it stays within the gateway's event buffer (events.buffer_size, default 1024 events per account).
- chats: only these chats, each a target: `group:<group number>`, `private:<QQ number>` or bare digits (= a private chat). Default: every chat the caller may read.
- target: one chat, as chats: [target]; give target or chats, not both.
- mentionedOnly: true keeps only messages that @ the bot, reply to one of the bot's recent messages, or are private. Default false.
- timeoutSecs: longest wait in seconds when nothing is buffered. Default 30. ",
    clamp_rule!(60, 30),
    "
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "
The bot's own messages are never returned. At most 100 messages per call; the rest come with the next call.

Result text: the messages in arrival order, in the history format `[HH:mm:ss] name(QQ number): text`, each chat's run of lines after a `group:<id>:` or `private:<id>:` line. A message the gateway missed while its connection to QQ was down, read back from the chat's history once it came back, arrives in order after the reconnect, its line followed by ` （重连后补回）` (its time is when it was sent). `（无新消息）` when none came before the timeout.
details on success: {\"status\":\"ok\",\"senders\":[...],\"messages\":[{\"sequence\":<event sequence>,\"target\":\"group:<id>\"|\"private:<id>\",\"backfilled\":true (only for such a message read back after a reconnect),\"message\":<the message>}],\"lastSequence\":<integer: the last event sequence this call looked at, also when no message came; pass it back as afterSequence>}. ",
    message_model!(),
    "
On failure (afterSequence older than the buffer, afterSequence ahead of the newest event (the gateway restarted: call again without it), bad arguments, account not configured) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

/// The `properties` and `required` of the details' ok shape (the registry
/// adds `status`).
pub(super) fn details_properties() -> (Value, Value) {
    (
        json!({
            "messages": {
                "type": "array",
                "maxItems": MAX_MESSAGES,
                "items": {
                    "type": "object",
                    "properties": {
                        "sequence": {"type": "integer", "minimum": 1},
                        "target": {"type": "string", "pattern": "^(group|private):[1-9][0-9]*$"},
                        "backfilled": {"type": "boolean", "const": true},
                        "message": {"$ref": "#/$defs/message"}
                    },
                    "required": ["sequence", "target", "message"],
                    "additionalProperties": false
                }
            },
            "lastSequence": {"type": "integer", "minimum": 0},
            "senders": super::props::senders()
        }),
        json!(["status", "senders", "messages", "lastSequence"]),
    )
}

/// The arguments object of `qq_wait_messages` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct WaitInput {
    /// Return messages after this event sequence (the lastSequence of the previous call). Absent: only messages arriving after the call starts.
    pub after_sequence: Option<Sequence>,
    /// Only these chats (`group:<id>`, `private:<id>`, bare digits = private); default every readable chat.
    #[schemars(extend("examples" = [["group:20000003"]]))]
    pub chats: Option<Vec<Chat>>,
    #[doc = concat!("One chat: the same as chats: [target]. ", target_rule!())]
    pub target: Option<Target>,
    /// Only messages that @ the bot, reply to it, or are private.
    #[schemars(extend("default" = false))]
    pub mentioned_only: Option<bool>,
    #[doc = concat!("Longest wait in seconds. ", clamp_rule!(60, 30))]
    #[schemars(extend("default" = DEFAULT_TIMEOUT_SECS))]
    pub timeout_secs: Option<Number>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_wait_messages`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitArgs {
    /// Account id.
    pub account_id: String,
    /// Resume point; `None` means "from now".
    pub after_sequence: Option<u64>,
    /// Only these chats; empty means every readable chat.
    pub chats: Vec<ChatRef>,
    /// Only messages for the bot.
    pub mentioned_only: bool,
    /// Longest wait, in `[1, 60]` seconds.
    pub timeout: Duration,
}

impl WaitArgs {
    /// `afterSequence` a non-negative integer; `chats` targets, or one chat
    /// as `target` (not both);
    /// `mentionedOnly` a boolean (anything else is false); `timeoutSecs`
    /// clamped to `[1, 60]` (30 when absent or not a finite number).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        let mut chats = args.chats("chats")?;
        if args.given("target") {
            if args.given("chats") {
                return Err(ArgError::Exclusive("target", "chats"));
            }
            chats.extend(args.chat(false)?);
        }
        Ok(Self {
            after_sequence: args.sequence("afterSequence")?,
            chats,
            mentioned_only: args.flag("mentionedOnly").unwrap_or(false),
            timeout: Duration::from_secs(u64::from(args.clamped(
                "timeoutSecs",
                DEFAULT_TIMEOUT_SECS,
                MAX_TIMEOUT_SECS,
            ))),
            account_id: args.account_id()?,
        })
    }
}

/// A message the call returns.
#[derive(Debug, Clone, Copy)]
pub struct Waited<'a> {
    /// The message.
    pub message: &'a Message,
    /// True when the gateway read it back from the peer's history after
    /// the account's event connection came back.
    pub backfilled: bool,
}

/// What the call keeps of the account's messages.
struct Wanted<'a> {
    gw: &'a Gateway,
    account_id: &'a str,
    self_id: i64,
    mentioned_only: bool,
}

impl Wanted<'_> {
    /// The event's message when the call returns it, with whether it was
    /// backfilled.
    fn message<'e>(&self, event: &'e StoredEvent) -> Option<Waited<'e>> {
        match &*event.event {
            InboundEvent::Message {
                message,
                self_sent: false,
                backfilled,
            } if !self.mentioned_only || self.mentions_bot(message) => Some(Waited {
                message,
                backfilled: *backfilled,
            }),
            _ => None,
        }
    }

    /// Private, an @ of the bot, or a reply to a message the bot sent (the
    /// resolved quote's sender, else a message of the bot's still in the
    /// event buffer).
    fn mentions_bot(&self, message: &Message) -> bool {
        if matches!(message.chat, ChatRef::Private(_)) {
            return true;
        }
        message.segments.iter().any(|segment| match segment {
            Segment::At {
                user_id: Some(id), ..
            } => self.self_id != 0 && *id == self.self_id,
            Segment::Reply {
                quoted: Some(quoted),
                ..
            } if self.self_id != 0 && quoted.sender.user_id == self.self_id => true,
            Segment::Reply { id, .. } => id
                .trim()
                .parse::<i64>()
                .is_ok_and(|replied| self.bot_sent(replied)),
            _ => false,
        })
    }

    fn bot_sent(&self, message_id: i64) -> bool {
        self.gw.events.any_buffered(self.account_id, |e| {
            matches!(
                &*e.event,
                InboundEvent::Message {
                    message,
                    self_sent: true,
                    ..
                } if message.message_id == message_id
            )
        })
    }
}

/// Runs the tool over the account's event subscription.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = WaitArgs::parse(args).map_err(Failure::Args)?;
    let account = gw
        .account(&args.account_id, &ctx)
        .map_err(domain_failure(&args.account_id))?;
    for chat in &args.chats {
        ctx.caller
            .check_chat(*chat)
            .map_err(domain_failure(&args.account_id))?;
    }
    let mut chats: HashSet<ChatRef> = args.chats.iter().copied().collect();
    // A token limited to some chats waits only on them.
    if chats.is_empty()
        && let Some(allowed) = ctx.caller.allowed_chats()
    {
        chats = allowed.into_iter().collect();
    }
    let filter = EventFilter {
        chats,
        kinds: [EventKind::Message].into_iter().collect(),
    };
    let mut sub = gw
        .events
        .subscribe(&account.id, args.after_sequence, filter)
        .map_err(domain_failure(&args.account_id))?;
    let wanted = Wanted {
        gw,
        account_id: &account.id,
        self_id: account.peer.self_id(),
        mentioned_only: args.mentioned_only,
    };
    let mut until = tokio::time::Instant::now() + args.timeout;
    if let Some(deadline) = ctx.deadline.instant() {
        until = until.min(deadline);
    }

    let mut found: Vec<StoredEvent> = Vec::new();
    // The first message: buffered, or the next to arrive before `until`.
    while found.is_empty() {
        match tokio::time::timeout_at(until, sub.next()).await {
            // Timed out, or the gateway is shutting down: no message.
            Err(_) | Ok(None) => break,
            Ok(Some(Err(err))) => return Err(domain_failure(&args.account_id)(err)),
            Ok(Some(Ok(event))) => {
                if wanted.message(&event).is_some() {
                    found.push(event);
                }
            }
        }
    }
    // Then everything already there, without waiting.
    while !found.is_empty() && found.len() < MAX_MESSAGES {
        match sub.next().now_or_never() {
            Some(Some(Ok(event))) => {
                if wanted.message(&event).is_some() {
                    found.push(event);
                }
            }
            _ => break,
        }
    }

    let messages: Vec<(&StoredEvent, Waited<'_>)> = found
        .iter()
        .filter_map(|e| wanted.message(e).map(|m| (e, m)))
        .collect();
    let mut view = View::new(gw, &account.id);
    let entries: Vec<Value> = messages
        .iter()
        .map(|(e, w)| {
            let mut entry = json!({
                "sequence": e.sequence,
                "target": w.message.chat.target(),
                "message": view.message(w.message),
            });
            if w.backfilled {
                entry["backfilled"] = json!(true);
            }
            entry
        })
        .collect();
    let details = json!({
        "status": "ok",
        "senders": view.senders(),
        "messages": entries,
        "lastSequence": sub.last_sequence(),
    });
    let text = render_messages(messages.iter().map(|(_, w)| *w), &gw.tz);
    Ok(ToolOutput::ok(text, details))
}

/// The messages in order, each chat's run of history lines after a
/// `group:<id>:` / `private:<id>:` line, a backfilled message's line
/// followed by [`BACKFILLED_MARK`]; [`NO_MESSAGES`] when empty.
pub fn render_messages<'a>(
    messages: impl IntoIterator<Item = Waited<'a>>,
    tz: &jiff::tz::TimeZone,
) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut current: Option<ChatRef> = None;
    for Waited {
        message,
        backfilled,
    } in messages
    {
        if current != Some(message.chat) {
            current = Some(message.chat);
            lines.push(format!("{}:", message.chat.target()));
        }
        let mut line = render::history_line(message, tz);
        if backfilled {
            line.push_str(BACKFILLED_MARK);
        }
        lines.push(line);
    }
    if lines.is_empty() {
        NO_MESSAGES.to_owned()
    } else {
        lines.join("\n")
    }
}
