//! The read use cases: history pages, member lists, group lists.

pub mod groups;
pub mod history;
pub mod members;

#[cfg(test)]
mod tests;
