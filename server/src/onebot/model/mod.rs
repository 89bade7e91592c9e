//! The peer's message, member and group objects, decoded into the domain's
//! types: from JSON trees ([`value`]), history pages ([`json`]) and member
//! lists ([`members`]) straight from their text ([`scalar`]: how a field is
//! read there), and forward bundles' nodes ([`forward`]).

pub mod forward;
pub mod json;
pub mod members;
pub mod scalar;
pub mod value;

pub use forward::decode_forward;
pub use json::{Entries, decode_message_json, history_entries, history_entries_of_frame};
pub use members::{MemberList, member_list, member_list_of_frame};
pub use value::{
    decode_group, decode_member, decode_members, decode_message, decode_segment, int_of,
    raw_of_text, raw_of_value, segments_of, str_of,
};
