//! The seam between the domain and the adapter.
//!
//! The domain holds an `Arc<dyn OneBotApi>` per account. The real
//! implementation speaks forward WebSocket, HTTP and reverse WebSocket to a
//! OneBot peer and translates each flavor's quirks, so every method here has
//! one meaning whatever the implementation behind it. Tests may plug in
//! their own implementation.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::watch;
use tokio::time::Instant;

use super::flavor::Flavor;
use super::model::Message;
use crate::error::Result;

/// A chat: a group or a private peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChatRef {
    /// A QQ group.
    Group(i64),
    /// A private chat with a QQ user.
    Private(i64),
}

impl ChatRef {
    /// `group:<id>` / `private:<id>`.
    pub fn target(self) -> String {
        match self {
            ChatRef::Group(id) => format!("group:{id}"),
            ChatRef::Private(id) => format!("private:{id}"),
        }
    }
}

/// Per-call context: the caller's deadline (from `grpc-timeout`).
///
/// The adapter uses the shorter of this deadline and the account's
/// `request_timeout_ms`; a call whose deadline has already passed sends
/// nothing. Cancellation is by dropping the future: the pending entry is
/// removed.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallCtx {
    /// When the caller stops waiting; `None` means no caller deadline.
    pub deadline: Option<Instant>,
}

impl CallCtx {
    /// A context with a deadline `timeout` from now.
    pub fn with_timeout(timeout: Duration) -> Self {
        Self {
            deadline: Some(Instant::now() + timeout),
        }
    }

    /// Time left until the deadline, if any.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// True when the deadline has passed.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Connection state of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ConnState {
    /// Connecting, or connected and not yet identified.
    #[default]
    Connecting,
    /// `get_login_info` and `get_version_info` have answered.
    Connected,
    /// Waiting before reconnecting.
    Backoff,
    /// The peer refused the token.
    AuthFailed,
    /// No transport configured.
    NotConfigured,
}

impl ConnState {
    /// Lower-case name for logs and metadata.
    pub fn name(self) -> &'static str {
        match self {
            ConnState::Connecting => "connecting",
            ConnState::Connected => "connected",
            ConnState::Backoff => "backoff",
            ConnState::AuthFailed => "auth_failed",
            ConnState::NotConfigured => "not_configured",
        }
    }
}

/// Which transport currently carries actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TransportKind {
    /// None usable.
    #[default]
    None,
    /// Forward WebSocket.
    ForwardWs,
    /// HTTP.
    Http,
    /// Reverse WebSocket.
    ReverseWs,
}

/// A snapshot of an account's connection, published on a watch channel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AccountStatus {
    /// Connection state.
    pub state: ConnState,
    /// Transport actions go through now.
    pub transport: TransportKind,
    /// True when some transport can carry an action right now (the account is
    /// "online"; with the WebSocket down and HTTP up it is online via HTTP).
    pub online: bool,
    /// Bot QQ number (0 until known).
    pub self_id: i64,
    /// Bot nickname.
    pub nickname: String,
    /// `app_name` as reported.
    pub implementation: String,
    /// `app_version` as reported.
    pub implementation_version: String,
    /// Profile in use (`None` until detected).
    pub flavor: Option<Flavor>,
    /// Time of the last frame or heartbeat, as Unix milliseconds.
    pub last_heartbeat_ms: Option<i64>,
    /// Last connection error.
    pub last_error: String,
}

/// One page of history as the adapter fetched it.
#[derive(Debug, Clone, Default)]
pub struct HistoryPage {
    /// Messages strictly older than the anchor (or the newest when no
    /// anchor), decoded; undecodable entries (no numeric sender or message id)
    /// already dropped. Any order: the domain sorts.
    pub messages: Vec<Message>,
    /// True when the peer may have messages older than the oldest returned.
    pub has_more: bool,
}

/// An inbound event from the peer, decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum InboundEvent {
    /// A group or private message (`self_sent` for `message_sent`).
    Message {
        /// The decoded message.
        message: Message,
        /// True for the bot's own messages.
        self_sent: bool,
    },
    /// A poke notice.
    Poke {
        /// Group, 0 for private.
        group_id: i64,
        /// Poker.
        user_id: i64,
        /// Poked.
        target_id: i64,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// `group_increase`.
    MemberJoined {
        /// Group.
        group_id: i64,
        /// New member.
        user_id: i64,
        /// Operator.
        operator_id: i64,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// `group_decrease`.
    MemberLeft {
        /// Group.
        group_id: i64,
        /// Member.
        user_id: i64,
        /// Operator.
        operator_id: i64,
        /// `leave`, `kick`, `kick_me`.
        sub_type: String,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// `group_card`.
    CardChanged {
        /// Group.
        group_id: i64,
        /// Member.
        user_id: i64,
        /// New card.
        card_new: String,
        /// Old card.
        card_old: String,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// Lifecycle meta event or `bot_offline` notice.
    Lifecycle {
        /// `connect`, `enable`, `disable` or `offline`.
        sub_type: String,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// The gateway's connection changed state.
    Connection {
        /// New state.
        state: ConnState,
        /// Why.
        detail: String,
    },
    /// Anything else, raw.
    Unknown {
        /// `post_type`.
        post_type: String,
        /// The whole event.
        raw: Value,
    },
}

/// Where the adapter delivers inbound events. Must not block.
pub trait EventSink: Send + Sync + 'static {
    /// Delivers one event of `account_id`.
    fn publish(&self, account_id: &str, event: InboundEvent);
}

/// What the domain needs from one OneBot account.
///
/// Every method fails with the domain [`crate::error::Error`] kinds:
/// `AccountOffline` (no transport can carry the call; with a retry hint),
/// `OnebotAuthFailed`, `OnebotTimeout`, `OnebotConnectionLost`,
/// `DeadlineExceeded` (the caller's deadline passed before anything was
/// sent), `Overloaded` (`max_pending_calls` reached), and the peer's own
/// failures classified per flavor (`OnebotBadRequest`,
/// `OnebotActionUnsupported`, `OnebotActionFailed`, `BotMuted`, ...; see
/// [`super::retcode`]).
///
/// Message sends (`send_group_msg`, and `send_*msg` actions through
/// [`OneBotApi::call`]) whose frame may have reached the peer but got no
/// answer (connection lost, timeout) fail with `SendOutcomeUnknown`
/// (metadata `cause` = `connection_lost` | `timeout`): the message may have
/// been delivered. Failures before anything was sent keep their own kinds
/// (`AccountOffline`, `Overloaded`, `DeadlineExceeded`), so those are safe to
/// queue or retry.
#[async_trait::async_trait]
pub trait OneBotApi: Send + Sync + 'static {
    /// The current connection snapshot.
    fn status(&self) -> AccountStatus;

    /// A watch on the connection snapshot.
    fn watch_status(&self) -> watch::Receiver<AccountStatus>;

    /// Calls a raw action and returns its `data` on success. The escape
    /// hatch under the typed methods below.
    async fn call(&self, action: &str, params: Value, ctx: CallCtx) -> Result<Value>;

    /// Reads up to `count` messages of `chat` strictly older than the message
    /// `anchor` (a `message_id`), or the newest `count` when `anchor` is
    /// `None`. Translates the anchor per flavor (NapCat short id in
    /// `message_seq`, Lagrange/SnowLuma `message_id`, LLOneBot/go-cqhttp real
    /// seq), drops the anchor row where the flavor includes it, and turns
    /// "empty" errors (NapCat) into an empty page. go-cqhttp private chats
    /// fail with `HistoryUnsupported`.
    async fn get_history(
        &self,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        ctx: CallCtx,
    ) -> Result<HistoryPage>;

    /// `get_group_member_list`: the peer's member objects in its order.
    /// `no_cache` is passed only when `Some`.
    async fn get_group_member_list(
        &self,
        group_id: i64,
        no_cache: Option<bool>,
        ctx: CallCtx,
    ) -> Result<Vec<Value>>;

    /// `get_group_list`: the peer's group objects.
    async fn get_group_list(&self, ctx: CallCtx) -> Result<Vec<Value>>;

    /// `send_group_msg` with a segment array; returns the `message_id`.
    /// Send failures are classified (NapCat `EventRet` results, risk control,
    /// unknown outcomes).
    async fn send_group_msg(&self, group_id: i64, message: Value, ctx: CallCtx) -> Result<i64>;

    /// `upload_group_file` with a `file` URI (`base64://`, a path the peer
    /// can see, ...) and a display `name`.
    async fn upload_group_file(
        &self,
        group_id: i64,
        file: String,
        name: String,
        ctx: CallCtx,
    ) -> Result<()>;

    /// Pokes `user_id` in `group_id` by the flavor's path (`group_poke`, or
    /// a `poke` segment on go-cqhttp). Fails with `PokeUnsupported` when the
    /// peer cannot poke.
    async fn poke(&self, group_id: i64, user_id: i64, ctx: CallCtx) -> Result<()>;
}

/// Shared handle to an account's adapter.
pub type SharedApi = Arc<dyn OneBotApi>;
