//! The OneBot v11 adapter: knows the protocol and every implementation's
//! quirks, implements the domain's [`PeerApi`](onebot_gateway_domain::ports::PeerApi)
//! port, knows nothing of gRPC.
//!
//! # Layout
//! - [`client`]: one account's adapter ([`client::AccountClient`]): the
//!   connection state machine, routing, identification, error mapping and
//!   the typed actions.
//! - [`frame`]: a peer frame as read: top-level fields decoded, `data` kept
//!   as validated text.
//! - [`transport`]: forward WebSocket, HTTP, reverse WebSocket listener,
//!   pending calls.
//! - [`retcode`]: the one table classifying peer answers into domain errors.
//! - [`history`]: history requests and pages, the learned paging profile
//!   and the evidence it is learned from.
//! - [`answer`]: "ok" that is not ok: empty data of actions that must
//!   return some.
//! - [`outgoing`]: what the gateway sends, as OneBot JSON per flavor.
//! - [`events`]: inbound event frames → domain events.
//! - [`model`]: the peer's message, member and group objects → domain types.
//! - [`ids`]: message ids of every shape in an `int64`, and back.
//! - [`cq`]: the CQ-code parser and escaper.
//! - [`flavor`]: implementation profiles (history anchors, poke path, ...).

pub mod answer;
pub mod client;
pub mod cq;
pub mod events;
pub mod flavor;
pub mod frame;
pub mod history;
pub mod ids;
pub mod model;
pub mod outgoing;
pub mod retcode;
pub mod transport;

pub use flavor::Flavor;
