//! The domain: use cases over ports, never tonic, tungstenite, reqwest or
//! a peer's wire format.
//!
//! # Layout
//! - [`model`]: the vocabulary (chats, messages, segments, members, events,
//!   media kinds, connection status).
//! - [`ports`]: the traits the domain needs ([`ports::PeerApi`],
//!   [`ports::EventSink`]; [`media::resolve::UrlSource`] beside the media
//!   it fetches). Adapters implement them.
//! - [`call`], [`caller`]: the context of every use case: deadline and
//!   authority.
//! - [`gateway`]: [`Gateway`], the root every edge holds; [`account`]: one
//!   configured account.
//! - [`read`]: GetHistory, GetMessage, GetForwardMessages, ListGroupMembers,
//!   ListGroups, SearchMessages; [`member_cache`]; [`joined`]: the groups
//!   each bot is in (a group it is not in is `GroupNotFound`); [`quotes`]:
//!   quoted messages resolved, [`mentions`]: mentions named (both for the
//!   read use cases and the event path).
//! - [`write`]: SendMessage, PokeMember and RecallMessage; [`delivery`]: what sending
//!   stands on (the per-account sender with its rate limits and risk
//!   back-off, the durable offline queue, idempotency keys, the write side
//!   that holds them); [`media`]: staging, uploads, media sources.
//! - [`events`]: the event hub (numbering, resume buffer, fan-out);
//!   [`journal`]: the durable log it writes before it delivers;
//!   [`inbound`]: the path from the adapters to it (quotes resolved,
//!   recalls published once).
//! - [`archive`]: the durable message archive (its port, ingest, gap
//!   healing, limits, purge); its use cases are in [`read`].
//! - [`tools`]: the agent tools over the same use cases.
//! - [`render`]: pure text rendering (history lines, member lines,
//!   placeholders).
//! - [`store`]: the embedded durable store; [`clock`]: wall-clock time;
//!   [`ids`]: minted message ids (an `int64` for a message id that is not
//!   one), shared by the adapters.
//! - [`error`]: the domain error every use case returns; [`auth`]: bearer
//!   tokens to [`Caller`]s.

#![warn(missing_docs)]

pub mod account;
pub mod archive;
pub mod auth;
pub mod backoff;
pub mod call;
pub mod caller;
pub mod clock;
pub mod delivery;
pub mod detached;
pub mod error;
pub mod events;
pub mod gateway;
pub mod ids;
pub mod inbound;
pub mod joined;
pub mod journal;
pub mod lease;
pub mod media;
pub mod member_cache;
pub mod mentions;
pub mod model;
pub mod policy;
pub mod ports;
pub mod quotes;
pub mod read;
pub mod render;
pub mod shares;
pub mod store;
pub mod tools;
pub mod write;

pub use account::Account;
pub use call::{CallCtx, Deadline};
pub use caller::Caller;
pub use gateway::{Gateway, GatewayParts};
pub use model::{ChatRef, MediaKind};
