//! The domain's vocabulary: the types every use case, every adapter and
//! every edge speaks. Pure data: nothing here does I/O or knows a wire
//! format.
//!
//! - [`chat`]: [`ChatRef`], a group or a private chat.
//! - [`message`]: [`Message`], its [`Sender`] and [`Segment`]s.
//! - [`member`]: [`GroupMember`], [`GroupInfo`].
//! - [`event`]: [`InboundEvent`], what a peer pushes.
//! - [`status`]: an account's connection: [`AccountStatus`], [`ConnState`],
//!   [`TransportKind`].
//! - [`media`]: [`MediaKind`] and [`MediaPayload`], the bytes of a send.
//! - [`raw`]: [`RawJson`], the peer's own object kept verbatim.
//! - [`group_content`]: a group's essence messages and files.
//! - [`received`]: [`ReceivedMedia`], a media segment of a received
//!   message.

pub mod chat;
pub mod event;
pub mod group_content;
pub mod media;
pub mod member;
pub mod message;
pub mod raw;
pub mod received;
pub mod status;

pub use chat::ChatRef;
pub use event::{InboundEvent, MuteTarget};
pub use group_content::{EssenceEntry, EssencePage, GroupFile, GroupFiles, GroupFolder};
pub use media::{MediaKind, MediaPayload};
pub use member::{GroupInfo, GroupMember};
pub use message::{Message, Segment, Sender};
pub use raw::{RawEntries, RawJson};
pub use received::{ReceivedKind, ReceivedMedia};
pub use status::{AccountStatus, ConnState, HistoryPaging, TransportKind};
