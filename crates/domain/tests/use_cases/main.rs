//! The domain's use cases against a fake peer, the real OneBot decoders, the
//! real media fetcher and a real archive store.

mod archive;
mod group_actions;
mod inbound;
mod joined;
mod media;
mod media_resolve;
mod mentions;
mod policy;
mod queue;
mod read;
mod received;
mod render;
mod send;
mod tools;
