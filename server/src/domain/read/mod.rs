//! The read use cases: history pages, single messages and forward bundles,
//! member lists, group lists, media downloads (quotes are resolved by
//! [`crate::domain::quotes`]).

pub mod forward;
pub mod groups;
pub mod history;
pub mod members;
pub mod message;

pub mod download;

#[cfg(test)]
mod tests;
