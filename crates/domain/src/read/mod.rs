//! The read use cases: history pages (by anchor, or before a time from the
//! archive and the peer), single messages and forward bundles, member
//! lists, group lists, archive search, media downloads, and a group's
//! essence messages and files (quotes are resolved by [`crate::quotes`]).

pub mod download;
pub mod forward;
pub mod group_content;
pub mod groups;
pub mod history;
pub mod history_until;
pub mod members;
pub mod message;
pub mod search;
