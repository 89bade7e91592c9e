//! The ports: what the domain needs from the world, as traits it owns.
//!
//! - [`PeerApi`]: one account's upstream bot (a OneBot implementation
//!   today, any protocol that can read history, list members and send
//!   tomorrow). Typed and protocol-neutral: nothing here names a wire
//!   format or an implementation; each adapter translates its own quirks.
//! - [`EventSink`]: where an adapter delivers what its peer pushes.
//!
//! The third port, the source of media named by URL, sits with the media
//! it fetches: [`crate::domain::media::resolve::UrlSource`].

use std::sync::Arc;

use tokio::sync::watch;

use super::call::Deadline;
use super::model::{
    AccountStatus, ChatRef, GroupInfo, GroupMember, InboundEvent, MediaKind, MediaPayload, Message,
};
use crate::error::Result;

/// One page of history as the adapter fetched it.
#[derive(Debug, Clone, Default)]
pub struct HistoryPage {
    /// Messages strictly older than the anchor (or the newest when no
    /// anchor); entries the adapter could not decode already dropped. Any
    /// order: the domain sorts.
    pub messages: Vec<Message>,
    /// True when the peer may have messages older than the oldest returned.
    pub has_more: bool,
}

/// One part of a message the gateway sends.
#[derive(Debug, Clone, Copy)]
pub enum OutSegment<'a> {
    /// Plain text.
    Text(&'a str),
    /// An image.
    Image(&'a MediaPayload),
    /// A video.
    Video(&'a MediaPayload),
    /// A quote of the message with this id (leads the message).
    Reply(i64),
    /// A mention of this QQ number.
    At(i64),
    /// A mention of everyone (`@全体成员`).
    AtAll,
}

/// What the domain needs from one account's peer.
///
/// Every method fails with the domain [`crate::error::Error`] kinds:
/// `AccountOffline` (no transport can carry the call; with a retry hint),
/// `OnebotAuthFailed`, `OnebotTimeout`, `OnebotConnectionLost`,
/// `DeadlineExceeded` (the deadline passed before anything was sent),
/// `Overloaded` (too many calls waiting), and the peer's own failures
/// (`OnebotBadRequest`, `OnebotActionUnsupported`, `OnebotActionFailed`,
/// `BotMuted`, `RiskControlled`, ...).
///
/// Sends ([`PeerApi::send_message`], [`PeerApi::upload_file`]) whose request
/// may have reached the peer but got no answer (connection lost, timeout)
/// fail with `SendOutcomeUnknown` (metadata `cause` = `connection_lost` |
/// `timeout`): the message may have been delivered. Failures before
/// anything was sent keep their own kinds (`AccountOffline`, `Overloaded`,
/// `DeadlineExceeded`), so those are safe to queue or retry.
#[async_trait::async_trait]
pub trait PeerApi: Send + Sync + 'static {
    /// The current connection snapshot.
    fn status(&self) -> AccountStatus;

    /// A watch on the connection snapshot.
    fn watch_status(&self) -> watch::Receiver<AccountStatus>;

    /// Reads up to `count` messages of `chat` strictly older than the message
    /// `anchor` (a message id), or the newest `count` when `anchor` is
    /// `None`. An empty history is an empty page, not an error; a peer that
    /// cannot read this chat's history fails with `HistoryUnsupported`.
    async fn get_history(
        &self,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        deadline: Deadline,
    ) -> Result<HistoryPage>;

    /// A group's members in the peer's order. `no_cache` is passed on to
    /// the peer only when `Some`.
    async fn get_group_members(
        &self,
        group_id: i64,
        no_cache: Option<bool>,
        deadline: Deadline,
    ) -> Result<Vec<GroupMember>>;

    /// The groups the bot is in, in the peer's order (entries without a
    /// group number dropped).
    async fn get_groups(&self, deadline: Deadline) -> Result<Vec<GroupInfo>>;

    /// Sends one message of `segments` to `chat`; returns its message id
    /// (0 when the peer reports none).
    async fn send_message(
        &self,
        chat: ChatRef,
        segments: &[OutSegment<'_>],
        deadline: Deadline,
    ) -> Result<i64>;

    /// Uploads `file` to the files of `chat` under the display `name`.
    async fn upload_file(
        &self,
        chat: ChatRef,
        file: &MediaPayload,
        name: &str,
        deadline: Deadline,
    ) -> Result<()>;

    /// Pokes `user_id` in `group_id`. Fails with `OnebotActionUnsupported`
    /// when the peer cannot poke.
    async fn poke(&self, group_id: i64, user_id: i64, deadline: Deadline) -> Result<()>;

    /// Reads one message by id. `chat` is where the caller expects it (a
    /// quote's chat), for peers whose answer does not say; without it such
    /// a peer's answer needs a chat the adapter has seen the id in. An id
    /// the peer does not know (never seen, expired, recalled) fails with
    /// `MessageNotFound`.
    async fn get_message(
        &self,
        message_id: i64,
        chat: Option<ChatRef>,
        deadline: Deadline,
    ) -> Result<Message>;

    /// Recalls a message. The peer's refusal (too old, not the sender, no
    /// admin rights) fails with `OnebotActionFailed` carrying its text; an
    /// unknown id with `MessageNotFound`. Success means the peer accepted
    /// the recall (some peers cannot confirm it).
    async fn recall(&self, message_id: i64, deadline: Deadline) -> Result<()>;

    /// The nodes of a merged-forward bundle, in order; nested bundles stay
    /// `Forward` segments. A node's chat is the group it reports, else a
    /// private chat with its sender; ids the peer does not report are 0.
    /// An unknown or expired bundle fails with `MessageNotFound`.
    async fn get_forward(&self, forward_id: &str, deadline: Deadline) -> Result<Vec<Message>>;

    /// Fails with `UnsupportedByPeer` when this peer cannot take media of
    /// `kind` at all, so a send is refused before its media are resolved.
    fn check_media(&self, kind: MediaKind) -> Result<()>;
}

/// Shared handle to an account's peer.
pub type SharedPeer = Arc<dyn PeerApi>;

/// Where an adapter delivers inbound events. Must not block.
pub trait EventSink: Send + Sync + 'static {
    /// Delivers one event of `account_id`.
    fn publish(&self, account_id: &str, event: InboundEvent);
}
