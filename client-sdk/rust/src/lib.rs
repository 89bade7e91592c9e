//! Rust bindings and client for onebot-gateway.
//!
//! `pb` holds the code generated from `proto/onebot/gateway/v1` by
//! `cargo xtask codegen` (checked in; CI fails when it drifts).
//! The `client` feature (default) enables the tonic clients and the
//! [`Client`] helpers: a connection built from an address, an optional bearer
//! token and TLS settings; [`Client::upload`], which streams a file to the
//! gateway in 256 KiB chunks; [`Client::send`], which uploads local files
//! first and then sends; and [`RpcError`], which carries the gateway's
//! `ErrorInfo` reason, metadata and `RetryInfo` delay. The `tls` feature
//! (default) adds `https://` addresses; `server` enables the service traits
//! the gateway implements.
//!
//! ```no_run
//! # async fn demo() -> Result<(), onebot_gateway_client::Error> {
//! use onebot_gateway_client::{Client, Media, OutgoingMessage, pb};
//!
//! let client = Client::builder("http://127.0.0.1:50051").token("s3cret").connect().await?;
//! let page = client.history(pb::Chat::group(20000003), 20, None).await?;
//! println!("{}", page.rendered);
//! let sent = client
//!     .send(OutgoingMessage::to_group(20000003).text("hi").image(Media::path("cat.png")))
//!     .await?;
//! println!("{:?}", sent.message_ids);
//! # Ok(()) }
//! ```

/// Generated messages, enums, clients and servers of `onebot.gateway.v1`.
#[allow(clippy::all, missing_docs, rust_2018_idioms)]
#[rustfmt::skip]
pub mod pb {
    include!("gen/onebot.gateway.v1.rs");

    /// Encoded `FileDescriptorSet` of the API, for server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!("gen/onebot_gateway_v1_descriptor.bin");
}

#[cfg(feature = "client")]
mod client;
#[cfg(feature = "client")]
mod download;
#[cfg(feature = "client")]
mod error;
#[cfg(feature = "client")]
mod governance;
#[cfg(feature = "client")]
mod group_actions;
#[cfg(feature = "client")]
mod media;
#[cfg(feature = "client")]
mod retry;

#[cfg(feature = "client")]
pub use client::{
    Authed, BearerAuth, Client, ClientBuilder, DEFAULT_ADDRESS, EventStream, SearchPages,
    ServingStatus,
};
#[cfg(feature = "client")]
pub use download::{Downloaded, MediaRef};
#[cfg(feature = "client")]
pub use error::{Error, FieldViolation, RpcError};
#[cfg(feature = "client")]
pub use governance::AuditPages;
#[cfg(feature = "client")]
pub use group_actions::{EssencePages, GroupFilePages, MAX_MUTE};
#[cfg(feature = "client")]
pub use media::{CHUNK_SIZE, Media, MediaInput, OutgoingMessage, Uploaded};
#[cfg(feature = "client")]
pub use retry::{DEFAULT_NOT_LEADER_BUDGET, NotLeaderRetry};

/// Request metadata naming the account a call is for: every [`Client`] call
/// sends it (the client's account, `default` when empty), so a proxy in
/// front of many gateways can route each account to the gateway that holds
/// it. The gateway refuses a request whose non-empty `account_id` names
/// another account (INVALID_ARGUMENT) and uses it when `account_id` is
/// empty.
pub const ACCOUNT_METADATA_KEY: &str = "x-onebot-account";

/// Prefix of the per-account health service names: `client.health(&format!(
/// "{ACCOUNT_HEALTH_SERVICE_PREFIX}{id}"))` is the health of account `id`
/// (SERVING while its OneBot connection is up). The gateway registers these
/// names with its health service; they are not proto services. The API's
/// proto package (`<pb::Account as prost::Name>::PACKAGE`) plus `.account.`:
/// a const cannot concatenate the two, so a test holds them together.
pub const ACCOUNT_HEALTH_SERVICE_PREFIX: &str = "onebot.gateway.v1.account.";

impl pb::Chat {
    /// A group chat.
    pub fn group(group_id: i64) -> Self {
        Self {
            kind: Some(pb::chat::Kind::GroupId(group_id)),
        }
    }

    /// A private chat with a QQ user.
    pub fn private(user_id: i64) -> Self {
        Self {
            kind: Some(pb::chat::Kind::UserId(user_id)),
        }
    }
}

impl pb::OnBehalfOf {
    /// On behalf of the sender of `message_id`.
    pub fn message(message_id: i64) -> Self {
        Self {
            requester: Some(pb::on_behalf_of::Requester::MessageId(message_id)),
        }
    }

    /// On behalf of the QQ user `user_id`.
    pub fn user(user_id: i64) -> Self {
        Self {
            requester: Some(pb::on_behalf_of::Requester::UserId(user_id)),
        }
    }
}

impl pb::ErrorReason {
    /// The `ErrorInfo.reason` string of this value: its name without the
    /// `ERROR_REASON_` prefix (for example `ACCOUNT_NOT_CONFIGURED`).
    pub fn reason(self) -> &'static str {
        let name = self.as_str_name();
        name.strip_prefix("ERROR_REASON_").unwrap_or(name)
    }

    /// The value whose `ErrorInfo.reason` string is `reason`.
    pub fn from_reason(reason: &str) -> Option<Self> {
        Self::from_str_name(&format!("ERROR_REASON_{reason}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_account_health_prefix_is_the_proto_package_plus_account() {
        let package = <pb::Account as prost::Name>::PACKAGE;
        assert_eq!(ACCOUNT_HEALTH_SERVICE_PREFIX, format!("{package}.account."));
    }
}
