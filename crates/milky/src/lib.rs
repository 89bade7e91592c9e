//! The Milky adapter: speaks Milky 1.2 (an HTTP API at `/api/:api`, events
//! over WebSocket or SSE at `/event`) to a QQ-bot implementation
//! (Lagrange.Milky, Yogurt, LuckyLilliaBot, ...) and implements the
//! domain's [`PeerApi`](onebot_gateway_domain::ports::PeerApi) port; knows
//! nothing of gRPC.
//!
//! # Layout
//! - [`client`]: one account's adapter ([`MilkyClient`]): shared state,
//!   status, the call path and the port's methods.
//! - [`api`]: the HTTP transport and the answer envelope.
//! - [`body`]: request bodies, media named by a one-time URL or spliced in
//!   as `base64://` while sent.
//! - [`media`]: the account's media listener: one-time `http://` URLs of
//!   the media of a request.
//! - [`requests`]: the request of every API the adapter calls.
//! - [`errors`]: the one table from answers and failed exchanges to domain
//!   errors.
//! - [`events`]: the supervised event connection and event decoding.
//! - [`model`]: the peer's messages, segments, members and groups →
//!   domain types, decoded from the answer's text in the pass that reads it.
//! - [`ids`]: (scene, peer, seq) ⇄ the gateway's `i64` message ids.

pub mod api;
pub mod body;
pub mod client;
pub mod errors;
pub mod events;
pub mod ids;
pub mod media;
pub mod model;
pub mod requests;

pub use client::MilkyClient;
