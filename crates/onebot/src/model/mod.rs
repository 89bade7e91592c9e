//! The peer's objects (message, segment, member, group, forward node)
//! decoded into the domain's types: one [`serde::Deserialize`] per object,
//! which reads whole text (`serde_json::from_str`, the hot path) and trees
//! (`T::deserialize(&value)`, where a tree already exists) alike.
//!
//! Every field is read through the one lenient reader of [`scalar`]: ids as
//! numbers or numeric strings, texts as strings or numbers, whatever the
//! implementation sends. A peer's quirk is handled once, in the object's
//! decoder: [`message`], [`segment`], [`member`] (members and groups),
//! [`forward`]. [`page`] reads an answer's list from its text in one pass,
//! each entry through its object's decoder, and the `decode_*` functions
//! are the same decoders given a tree.

pub mod forward;
pub mod group_content;
pub mod member;
pub mod message;
pub mod page;
pub mod scalar;
pub mod segment;

pub use forward::{PeerNode, decode_forward};
pub use group_content::{decode_essence_entry, decode_group_files, essence_page};
pub use member::{
    MemberList, PeerGroup, PeerMember, decode_group, decode_member, decode_members, member_list,
    member_list_of_frame,
};
pub use message::{PeerMessage, decode_message, raw_of_value};
pub use page::{Entries, history_entries, history_entries_of_frame};
pub use scalar::{Scalar, int_of, str_of};
pub use segment::{Content, PeerSegment, decode_segment, segments_of};
