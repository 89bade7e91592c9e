//! The read use cases: history pages, member lists, group lists, media
//! downloads.

pub mod groups;
pub mod history;
pub mod members;

pub mod download;

#[cfg(test)]
mod tests;
