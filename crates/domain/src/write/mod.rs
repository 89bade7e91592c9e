//! The write use cases: SendMessage, PokeMember and RecallMessage (see
//! [`crate::delivery`] for what they stand on).

pub mod chunk;
pub mod poke;
pub mod recall;
pub mod send;
pub mod send_checks;
