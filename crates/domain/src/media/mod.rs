//! Media: what a send carries, from the client's bytes to the peer.
//!
//! - [`kind`]: the content types each kind accepts (sniffed), size errors,
//!   display names.
//! - [`staging`]: the staging area on disk, its index, quota and sweep.
//! - [`upload`]: streamed uploads into the staging area.
//! - [`resolve`]: a send's media sources ([`resolve::MediaSource`]) to
//!   payloads, and the [`resolve::UrlSource`] port that fetches URLs.
//! - [`ids`]: the media ids of received segments.
//! - [`received`]: the content-addressed store of received media;
//!   `received_index`: its index in memory (records, blob users, quota
//!   use); [`blob`]: new bytes on their way into it.
//! - [`download`]: DownloadMedia, getting a received item's bytes.
//! - [`capture`]: capture of received media on receipt.
//! - `sweeper`: the periodic sweep of the staging area and the received
//!   store.
//! - [`shared`]: the [`shared::SharedBlobs`] port, where both stores keep
//!   their bytes for every gateway of a deployment (`[ha]`).

pub mod kind;
pub mod resolve;
pub mod staging;
pub mod upload;

pub mod blob;
pub mod capture;
pub mod download;
pub mod ids;
pub mod received;
mod received_index;
pub mod shared;
mod sweeper;

#[cfg(test)]
mod shared_tests;
