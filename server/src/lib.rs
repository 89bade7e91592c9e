//! onebot-gateway: a gRPC front for OneBot v11 QQ bots.
//!
//! # Layout
//! The [`domain`] owns its vocabulary and its ports; adapters plug into
//! them from around it, and [`app`] alone wires them together:
//! - leaves, importing nothing above them: [`error`] (the domain error
//!   type), [`config`] (typed, layered, validated configuration),
//!   [`telemetry`] (logs, traces, Prometheus metrics), [`tls`] (the
//!   listener's reloadable TLS, the peers' CAs);
//! - [`domain`]: the use cases (history, members, groups, send, poke,
//!   media, events, archive search, agent tools) over its ports;
//! - adapters of the ports: [`onebot`] (the OneBot v11 peer: protocol,
//!   flavors, transports), [`fetch`] (the SSRF-guarded URL fetcher),
//!   [`archive`] (the journal and the archive's stores: SQLite,
//!   PostgreSQL);
//! - edges: [`grpc`] (tonic services, the one error→`Status` mapping,
//!   router, health and reflection; the only module that knows tonic),
//!   [`auth`] (bearer tokens to callers);
//! - [`app`]: the wiring, in phases (prepare, start, serve, drain);
//!   [`shutdown`]: signals.

#![warn(missing_docs)]

pub mod app;
pub mod archive;
pub mod auth;
pub mod config;
pub mod domain;
pub mod error;
pub mod fetch;
pub mod grpc;
pub mod onebot;
pub mod shutdown;
pub mod telemetry;
pub mod tls;
