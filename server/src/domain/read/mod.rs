//! The read use cases: history pages (by anchor, or before a time from the
//! archive and the peer), member lists, group lists, archive search.

pub mod groups;
pub mod history;
pub mod history_until;
pub mod members;
pub mod search;

#[cfg(test)]
mod tests;
