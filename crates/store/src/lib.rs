//! The archive's adapters: the stores behind the domain's archive port
//! ([`onebot_gateway_domain::archive::store::ArchiveStore`]) and its journal
//! ([`onebot_gateway_domain::journal::EventJournal`]).
//!
//! - [`journal`]: the journal in `journal.sqlite3` (always embedded: events
//!   are delivered only once it has committed them).
//! - [`sqlite`]: the archive in `archive.sqlite3` (the default).
//! - [`postgres`]: the archive in PostgreSQL (`archive.url`), over
//!   [`pg_tls`] when the URL's `sslmode` asks for TLS.
//! - [`codec`]: the stored form of messages and events, shared by all three.
//! - [`open`]: opening what the configuration asks for.

pub mod codec;
pub mod journal;
pub mod open;
pub mod pg_tls;
pub mod postgres;
mod query;
pub mod sqlite;

#[cfg(test)]
mod tests;
