//! onebot-gateway: a gRPC front for OneBot v11 QQ bots.
//!
//! # Layout
//! Dependencies run one way: [`grpc`] → [`domain`] → [`onebot`], with the
//! pure [`render`] code beside them.
//! - [`config`]: typed, layered, validated configuration.
//! - [`error`]: the domain error type (no tonic).
//! - [`grpc`]: tonic services, the one error→`Status` mapping, router,
//!   health and reflection. The only module that knows tonic.
//! - [`domain`]: use cases (history, members, send, poke, media, tools,
//!   events) over the [`onebot::OneBotApi`] trait.
//! - [`onebot`]: the adapter: protocol model, flavors, transports.
//! - [`fetch`]: the SSRF-guarded HTTP fetcher of `MediaSource.url` (used by
//!   the domain; keeps reqwest out of it).
//! - [`render`]: pure text rendering of the seeds' formats.
//! - [`server`]: process wiring and graceful shutdown; [`shutdown`]: signals.
//! - [`auth`]: bearer tokens and their scopes; [`tls`]: the listener's
//!   reloadable TLS and the peers' CAs; [`telemetry`]: logs, traces and
//!   Prometheus metrics.

#![warn(missing_docs)]

pub mod auth;
pub mod config;
pub mod domain;
pub mod error;
pub mod fetch;
pub mod grpc;
pub mod onebot;
pub mod render;
pub mod server;
pub mod shutdown;
pub mod telemetry;
pub mod tls;
