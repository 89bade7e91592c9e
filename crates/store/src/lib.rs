//! The gateway's stores: the adapters behind the domain's archive port
//! ([`onebot_gateway_domain::archive::store::ArchiveStore`]), its journal
//! ([`onebot_gateway_domain::journal::EventJournal`]) and its durable state
//! ([`onebot_gateway_domain::store`]), its governance records, and the
//! OneBot adapter's id store.
//!
//! - [`journal`]: the journal in `journal.sqlite3` (always embedded: events
//!   are delivered only once it has committed them).
//! - [`sqlite`]: the archive in `archive.sqlite3` (the default).
//! - [`postgres`]: the archive in PostgreSQL (`archive.url`), over
//!   [`pg_tls`] when the URL's `sslmode` asks for TLS.
//! - [`codec`]: the stored form of messages and events, shared by all three.
//! - `query` and `row`: what both archive engines share: a search's filters
//!   and order, and a stored row read back as an archived message.
//! - [`open`]: opening what the configuration asks for.
//! - [`state`]: the offline queue, idempotency records and media indexes
//!   in `gateway.sqlite3`.
//! - [`ids`]: the OneBot adapter's mapped message ids in
//!   `message-ids.sqlite3`.
//! - [`db`]: how every SQLite file is opened, checked, locked and how its
//!   errors map.
//! - [`lease`]: the leases of `[ha]` in PostgreSQL.
//! - [`governance`]: the approvals and the audit trail (the domain's
//!   [`onebot_gateway_domain::policy::store::GovernanceStore`]): in
//!   PostgreSQL at `archive.url`, else in `governance.sqlite3`.
//! - `pg`: what both PostgreSQL stores share: connecting, error mapping,
//!   migrations.
//! - [`migrate`]: the import of an older gateway's redb files.

pub mod codec;
pub mod db;
pub mod governance;
pub mod ids;
pub mod journal;
pub mod lease;
pub mod migrate;
pub mod open;
pub(crate) mod pg;
pub mod pg_tls;
pub mod postgres;
mod query;
mod row;
pub mod shared;
pub mod sqlite;
pub mod state;

#[cfg(test)]
mod tests;
