//! onebot-gateway: a gRPC and MCP front for QQ bots.
//!
//! This crate is the binary's wiring and command line; the layers are
//! crates of their own, and Cargo keeps their imports in one direction:
//! - leaves: `onebot-gateway-config` (typed, layered, validated
//!   configuration), `onebot-gateway-telemetry` (metrics and span fields),
//!   `onebot-gateway-tls` (the listener's reloadable TLS, the peers' CAs);
//! - `onebot-gateway-domain`: the model, the ports and the use cases
//!   (history, members, groups, send, poke, media, events, archive search,
//!   agent tools), the domain error and bearer tokens to callers;
//! - adapters of the ports: `onebot-gateway-onebot` (the OneBot v11 peer:
//!   protocol, flavors, transports), `onebot-gateway-fetch` (the
//!   SSRF-guarded URL fetcher), `onebot-gateway-store` (the journal and the
//!   archive: SQLite, PostgreSQL);
//! - edges: `onebot-gateway-grpc` (tonic services, the one error→`Status`
//!   mapping, router, health and reflection) and `onebot-gateway-mcp` (the
//!   same tools and events for MCP clients, over Streamable HTTP and
//!   stdio);
//! - here: [`app`], the wiring in phases (prepare, start, serve, drain);
//!   [`proto_json`], API messages as proto3 JSON (the CLI, the event sinks);
//!   [`telemetry`], the log and trace subscriber; [`shutdown`], signals.

#![warn(missing_docs)]

pub mod app;
pub mod proto_json;
pub mod shutdown;
pub mod telemetry;
