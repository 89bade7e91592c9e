//! What a peer pushes: messages, notices, lifecycle changes, and the
//! gateway's own connection changes.

use super::chat::ChatRef;
use super::message::Message;
use super::raw::RawJson;
use super::status::ConnState;

/// Who a mute concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MuteTarget {
    /// One member.
    Member(i64),
    /// The whole group (全员禁言).
    WholeGroup,
}

/// An inbound event from the peer, decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum InboundEvent {
    /// A group or private message (`self_sent` for the bot's own messages
    /// the peer echoes).
    Message {
        /// The decoded message.
        message: Message,
        /// True for the bot's own messages.
        self_sent: bool,
        /// True when the gateway did not receive it as an event but read it
        /// back from the peer's history after the account's event
        /// connection came back (a message sent while it was down).
        backfilled: bool,
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
    /// A member joined a group.
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
    /// A member left a group.
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
    /// A member's group card changed.
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
    /// The peer's lifecycle changed, or the bot went offline.
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
    /// A message was recalled (by its sender, an admin, or the gateway).
    MessageRecalled {
        /// The chat the message was in.
        chat: ChatRef,
        /// The recalled message's id.
        message_id: i64,
        /// Who recalled it (in private chats, the sender).
        operator_id: i64,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// An emoji reaction on a group message was added or removed.
    Reaction {
        /// Group.
        group_id: i64,
        /// The message reacted to (0 when the peer did not say).
        message_id: i64,
        /// Who reacted.
        user_id: i64,
        /// The emoji: a QQ face id, or a Unicode emoji's code point, as text.
        emoji_id: String,
        /// True when added, false when removed.
        added: bool,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// A group message was marked (or unmarked) as essence (精华).
    Essence {
        /// Group.
        group_id: i64,
        /// The message (0 when the peer did not say).
        message_id: i64,
        /// The message's sender, when reported (else 0).
        sender_id: i64,
        /// Who marked it.
        operator_id: i64,
        /// True when set, false when removed.
        set: bool,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// A member, or the whole group, was muted or unmuted.
    Mute {
        /// Group.
        group_id: i64,
        /// One member, or the whole group.
        target: MuteTarget,
        /// Who did it (0 when not reported).
        operator_id: i64,
        /// Seconds muted for; 0 = lifted. A whole-group mute has no end:
        /// its duration is 0 and `muted` says on or off.
        duration_secs: i64,
        /// True when muted, false when lifted.
        muted: bool,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// A member was made, or stopped being, a group admin.
    AdminChanged {
        /// Group.
        group_id: i64,
        /// The member.
        user_id: i64,
        /// Who did it (0: the OneBot implementations never report it).
        operator_id: i64,
        /// True when made admin.
        set: bool,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// A file was uploaded to a group's files.
    GroupFileUploaded {
        /// Group.
        group_id: i64,
        /// The uploader.
        user_id: i64,
        /// The peer's id of the file.
        file_id: String,
        /// Its name.
        name: String,
        /// Its size in bytes.
        size: u64,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// A group's name changed.
    GroupNameChanged {
        /// Group.
        group_id: i64,
        /// The new name.
        name: String,
        /// Who changed it (0 when not reported).
        operator_id: i64,
        /// Event time (Unix seconds).
        time: i64,
    },
    /// An approval of a held action changed state (the gateway's own
    /// event; the payload, in memory and in the journal, without the held
    /// action's stored payload).
    Approval(Box<crate::policy::store::ApprovalRecord>),
    /// Anything else, raw.
    Unknown {
        /// The peer's name of the event's kind.
        post_type: String,
        /// The group it concerns, when it names one.
        group_id: Option<i64>,
        /// Event time (Unix seconds), 0 when it carries none.
        time: i64,
        /// The whole event.
        raw: RawJson,
    },
}

impl InboundEvent {
    /// A message event as the peer pushed it (not backfilled).
    pub fn message(message: Message, self_sent: bool) -> InboundEvent {
        InboundEvent::Message {
            message,
            self_sent,
            backfilled: false,
        }
    }

    /// About how many bytes of memory the event holds (see
    /// [`Message::approx_bytes`]).
    pub fn approx_bytes(&self) -> usize {
        const OVERHEAD: usize = 96;
        OVERHEAD
            + match self {
                InboundEvent::Message { message, .. } => message.approx_bytes(),
                InboundEvent::MemberLeft { sub_type, .. }
                | InboundEvent::Lifecycle { sub_type, .. } => sub_type.len(),
                InboundEvent::CardChanged {
                    card_new, card_old, ..
                } => card_new.len() + card_old.len(),
                InboundEvent::Connection { detail, .. } => detail.len(),
                InboundEvent::Unknown { post_type, raw, .. } => {
                    post_type.len() + raw.approx_bytes()
                }
                InboundEvent::Approval(r) => {
                    r.summary.len() + r.action.len() + r.payload.len() + r.id.len()
                }
                InboundEvent::Reaction { emoji_id, .. } => emoji_id.len(),
                InboundEvent::GroupFileUploaded { file_id, name, .. } => file_id.len() + name.len(),
                InboundEvent::GroupNameChanged { name, .. } => name.len(),
                InboundEvent::Poke { .. }
                | InboundEvent::Essence { .. }
                | InboundEvent::Mute { .. }
                | InboundEvent::AdminChanged { .. }
                | InboundEvent::MemberJoined { .. }
                | InboundEvent::MessageRecalled { .. } => 0,
            }
    }
}
