//! The write use cases: SendMessage and PokeMember (see
//! [`crate::domain::delivery`] for what they stand on).

pub mod chunk;
pub mod poke;
pub mod send;
