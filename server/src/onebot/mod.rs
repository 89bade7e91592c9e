//! The OneBot v11 adapter: knows the protocol and every implementation's
//! quirks, knows nothing of gRPC.
//!
//! # Layout
//! - [`api`]: the [`OneBotApi`] trait the domain depends on, with its types.
//! - [`model`]: inbound messages and segments (array and CQ-code forms).
//! - [`flavor`]: implementation profiles (history anchors, poke path, ...).

pub mod api;
pub mod flavor;
pub mod model;

pub use api::{
    AccountStatus, CallCtx, ChatRef, ConnState, EventSink, HistoryPage, InboundEvent, OneBotApi,
    TransportKind,
};
pub use flavor::{Flavor, FlavorSetting};
