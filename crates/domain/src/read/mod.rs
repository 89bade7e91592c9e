//! The read use cases: history pages, single messages and forward bundles,
//! member lists, group lists, media downloads (quotes are resolved by
//! The read use cases: history pages (by anchor, or before a time from the
//! archive and the peer), single messages and forward bundles, member
//! lists, group lists, archive search (quotes are resolved by
//! [`crate::quotes`]).

pub mod forward;
pub mod groups;
pub mod history;
pub mod history_until;
pub mod members;
pub mod message;
pub mod search;

pub mod download;
