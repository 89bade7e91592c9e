//! The ports: what the domain needs from the world, as traits it owns.
//!
//! - [`PeerApi`]: one account's upstream bot (a OneBot implementation
//!   today, any protocol that can read history, list members and send
//!   tomorrow). Typed and protocol-neutral: nothing here names a wire
//!   format or an implementation; each adapter translates its own quirks.
//! - [`EventSink`]: where an adapter delivers what its peer pushes.
//!
//! The third port, the source of media named by URL, sits with the media
//! it fetches: [`crate::media::resolve::UrlSource`].

use std::sync::Arc;

use tokio::sync::watch;

use super::call::Deadline;
use super::model::{
    AccountStatus, ChatRef, ConnState, EssencePage, GroupFiles, GroupInfo, GroupMember,
    InboundEvent, MediaKind, MediaPayload, Message, ReceivedMedia,
};
use crate::error::Error;
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
    /// A voice message (`record`): mp3, wav, ogg, amr or silk.
    Voice(&'a MediaPayload),
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

    /// The bot's QQ number (0 until known), as [`status`](Self::status)
    /// reports it, without copying the rest of the snapshot (read once per
    /// delivered event).
    fn self_id(&self) -> i64 {
        self.status().self_id
    }

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

    /// Where the bytes of a received media segment can come from, in the
    /// order that works for this peer.
    fn media_steps(&self, media: &ReceivedMedia) -> Vec<MediaStep>;

    /// Runs one peer step ([`MediaStep::Lookup`], [`MediaStep::Stream`] or
    /// [`MediaStep::Resign`]) for `media`: bytes are written to `sink`
    /// (bounded by its limit), or a URL to fetch is returned. Fails with
    /// `UnsupportedByPeer` when the step gives nothing usable here (a path
    /// on the peer's own host without a shared directory), and with the
    /// peer's own failures.
    async fn fetch_media(
        &self,
        media: &ReceivedMedia,
        step: MediaStep,
        sink: &mut dyn MediaSink,
        deadline: Deadline,
    ) -> Result<PeerMedia>;

    /// The message `message_id` as the peer has it now (its media URLs
    /// signed afresh where the peer signs them), for downloading its media.
    /// An id the peer does not know fails with `MediaNotFound`.
    async fn media_message(&self, message_id: i64, deadline: Deadline) -> Result<Message>;

    /// The name this peer's implementation goes by in errors (its flavor,
    /// or its protocol), for `NotSupportedByImplementation`.
    fn implementation(&self) -> String {
        "the implementation".to_string()
    }

    /// Adds (`add`) or removes an emoji reaction to `message_id` in the
    /// group `group_id`; `emoji_id` is a QQ face id or a Unicode emoji's
    /// code point, as text. An implementation without reactions fails with
    /// `NotSupportedByImplementation` before sending anything.
    async fn react(
        &self,
        group_id: i64,
        message_id: i64,
        emoji_id: &str,
        add: bool,
        deadline: Deadline,
    ) -> Result<()> {
        let _ = (group_id, message_id, emoji_id, add, deadline);
        Err(Error::not_supported(&self.implementation(), "react"))
    }

    /// Marks (`set`) or unmarks `message_id` of `group_id` as essence.
    async fn set_essence(
        &self,
        group_id: i64,
        message_id: i64,
        set: bool,
        deadline: Deadline,
    ) -> Result<()> {
        let _ = (group_id, message_id, set, deadline);
        Err(Error::not_supported(&self.implementation(), "essence"))
    }

    /// One page (`page` from 0, `page_size` entries) of the group's essence
    /// messages; a peer that only lists them whole is paged by the adapter.
    async fn list_essence(
        &self,
        group_id: i64,
        page: u32,
        page_size: u32,
        deadline: Deadline,
    ) -> Result<EssencePage> {
        let _ = (group_id, page, page_size, deadline);
        Err(Error::not_supported(&self.implementation(), "list_essence"))
    }

    /// Shows "正在输入" (typing) in the private chat with `user_id`.
    async fn set_typing(&self, user_id: i64, deadline: Deadline) -> Result<()> {
        let _ = (user_id, deadline);
        Err(Error::not_supported(&self.implementation(), "typing"))
    }

    /// The content of one folder of the group's files: the root when
    /// `folder_id` is `None`.
    async fn list_group_files(
        &self,
        group_id: i64,
        folder_id: Option<&str>,
        deadline: Deadline,
    ) -> Result<GroupFiles> {
        let _ = (group_id, folder_id, deadline);
        Err(Error::not_supported(
            &self.implementation(),
            "list_group_files",
        ))
    }

    /// A URL the file's bytes can be fetched from (through the domain's
    /// guard, as a peer's media URL). An unknown file fails with
    /// `MediaNotFound`.
    async fn group_file_url(
        &self,
        group_id: i64,
        file_id: &str,
        deadline: Deadline,
    ) -> Result<String> {
        let _ = (group_id, file_id, deadline);
        Err(Error::not_supported(
            &self.implementation(),
            "download_group_file",
        ))
    }

    /// Mutes `user_id` in `group_id` for `duration_secs` (0 lifts the
    /// mute). The duration is always sent: implementations' defaults differ.
    async fn mute_member(
        &self,
        group_id: i64,
        user_id: i64,
        duration_secs: u32,
        deadline: Deadline,
    ) -> Result<()> {
        let _ = (group_id, user_id, duration_secs, deadline);
        Err(Error::not_supported(&self.implementation(), "mute"))
    }

    /// Turns the whole-group mute on or off (always sent explicitly).
    async fn mute_all(&self, group_id: i64, enable: bool, deadline: Deadline) -> Result<()> {
        let _ = (group_id, enable, deadline);
        Err(Error::not_supported(&self.implementation(), "mute_all"))
    }

    /// Removes `user_id` from `group_id`; `reject_rejoin` refuses their
    /// later join requests.
    async fn kick_member(
        &self,
        group_id: i64,
        user_id: i64,
        reject_rejoin: bool,
        deadline: Deadline,
    ) -> Result<()> {
        let _ = (group_id, user_id, reject_rejoin, deadline);
        Err(Error::not_supported(&self.implementation(), "kick"))
    }

    /// Sets `user_id`'s card in `group_id` (empty clears it).
    async fn set_member_card(
        &self,
        group_id: i64,
        user_id: i64,
        card: &str,
        deadline: Deadline,
    ) -> Result<()> {
        let _ = (group_id, user_id, card, deadline);
        Err(Error::not_supported(&self.implementation(), "set_card"))
    }
}

/// One way of getting a received media item's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MediaStep {
    /// The segment's own URL (fetched by the domain through its guard).
    SegmentUrl,
    /// The peer's lookup of the item (`get_image`, `get_record` with
    /// conversion, `get_file`): bytes, or a fresh URL.
    Lookup,
    /// The peer streams the bytes (large files).
    Stream,
    /// The segment's URL signed again with the peer's current key.
    Resign,
    /// The message read again, for its freshly signed URL (done by the
    /// domain through [`PeerApi::media_message`]).
    Reread,
}

impl MediaStep {
    /// Lower-case name, for logs and metrics.
    pub fn name(self) -> &'static str {
        match self {
            MediaStep::SegmentUrl => "segment_url",
            MediaStep::Lookup => "lookup",
            MediaStep::Stream => "stream",
            MediaStep::Resign => "resign",
            MediaStep::Reread => "reread",
        }
    }
}

/// What a peer step gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerMedia {
    /// The bytes were written to the sink; `file_name` is the peer's name
    /// of them (a converted voice record's names its format), may be empty.
    Written {
        /// The peer's file name.
        file_name: String,
    },
    /// A URL to fetch (through the domain's guard).
    Url(String),
}

/// Where a peer step writes bytes: bounded, hashed on the way.
#[async_trait::async_trait]
pub trait MediaSink: Send {
    /// Appends `chunk`; fails (the step is abandoned) past the sink's limit.
    async fn write(&mut self, chunk: &[u8]) -> Result<()>;

    /// The largest number of bytes the sink takes.
    fn limit(&self) -> u64;
}

/// Shared handle to an account's peer.
pub type SharedPeer = Arc<dyn PeerApi>;

/// Where an adapter delivers inbound events. Must not block.
pub trait EventSink: Send + Sync + 'static {
    /// Delivers one event of `account_id`.
    fn publish(&self, account_id: &str, event: InboundEvent);

    /// What every adapter does when an account's connection state changes:
    /// logs it (`peer` names the implementation's protocol) and publishes
    /// it as a `Connection` event.
    fn connection_changed(&self, account_id: &str, state: ConnState, detail: &str, peer: &str) {
        match state {
            ConnState::Connected => {
                tracing::info!(account_id, "connected to the {peer} implementation")
            }
            ConnState::Backoff | ConnState::AuthFailed => {
                tracing::warn!(account_id, state = state.name(), %detail, "connection state")
            }
            _ => tracing::debug!(account_id, state = state.name(), %detail, "connection state"),
        }
        self.publish(
            account_id,
            InboundEvent::Connection {
                state,
                detail: detail.to_string(),
            },
        );
    }
}
