//! The peer's message, member and group objects, decoded into the domain's
//! types: from JSON trees ([`value`]), history pages straight from their
//! text ([`json`]), and forward bundles' nodes ([`forward`]).

pub mod forward;
pub mod json;
pub mod value;

pub use forward::decode_forward;
pub use json::{Entries, decode_message_json, history_entries};
pub use value::{
    decode_group, decode_member, decode_members, decode_message, decode_segment, int_of,
    raw_of_text, raw_of_value, segments_of, str_of,
};
