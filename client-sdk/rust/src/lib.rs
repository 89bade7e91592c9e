//! Rust bindings and client for onebot-gateway.
//!
//! `pb` holds the code generated from `proto/onebot/gateway/v1` by
//! `cargo xtask codegen` (checked in; CI fails when it drifts).
//! The `client` feature (default) enables the tonic clients, `server` the
//! service traits the gateway implements.

/// Generated messages, enums, clients and servers of `onebot.gateway.v1`.
#[allow(clippy::all, missing_docs, rust_2018_idioms)]
#[rustfmt::skip]
pub mod pb {
    include!("gen/onebot.gateway.v1.rs");

    /// Encoded `FileDescriptorSet` of the API, for server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!("gen/onebot_gateway_v1_descriptor.bin");
}
