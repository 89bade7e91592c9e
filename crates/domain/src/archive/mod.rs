//! The durable message archive: what the gateway keeps of the
//! conversations it serves, and the use cases' side of it.
//!
//! # What is archived
//! Every message event of the chats in an account's whitelists and of
//! `archive.chats` (recalls included: a recalled message is marked, hidden
//! from search unless asked for), every message the gateway sends (with the
//! id the peer gave it), the history pages the gateway reads for those
//! chats, and what a backfill reads back after the gateway was away.
//! Messages are keyed by account, chat and the peer's message id.
//!
//! # How it flows
//! Events and sends go through the [`journal`](crate::journal)
//! first (durable before anyone sees them); the [`ingest`] task moves them,
//! and the history pages handed to it, into the [`store`] off every request
//! path; [`backfill`] heals gaps after reconnects; [`retention`] keeps the
//! limits; [`purge`] deletes on request.
//!
//! # Layout
//! - [`store`]: the port ([`store::ArchiveStore`]) and its vocabulary.
//! - [`text`]: the bigram index scheme both stores use.
//! - [`service`]: [`service::Archive`], shared by use cases and tasks.
//! - [`ingest`], [`backfill`], [`retention`]: the background tasks.
//! - [`purge`]: deletion on request, with the media hook.
//! - [`fit`]: texts above `archive.max_text_bytes` archived cut and marked.
//! - [`recorder`]: the sends, recorded as the peer acknowledges them.

pub mod backfill;
pub mod fit;
pub mod ingest;
pub mod purge;
pub mod recorder;
pub mod retention;
pub mod service;
pub mod store;
pub mod text;
