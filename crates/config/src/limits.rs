//! `[limits]`: request sizes, concurrency, streams and time limits.

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

/// The largest WebSocket message a OneBot peer may send (a media reply).
pub const MAX_PEER_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// Request size, concurrency, stream and time limits of the gRPC listener.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LimitsConfig {
    /// Largest request message of every RPC but UploadMedia, in bytes
    /// (inline media in SendMessage count against it).
    pub max_request_bytes: usize,
    /// Largest message of the UploadMedia stream (one chunk), in bytes.
    pub max_upload_message_bytes: usize,
    /// Largest response message, in bytes.
    pub max_response_bytes: usize,
    /// RPCs (other than event streams and health) handled at once; more are
    /// shed with RESOURCE_EXHAUSTED, reason OVERLOADED.
    pub max_concurrent_requests: usize,
    /// Open StreamEvents streams over all clients.
    pub max_event_streams: usize,
    /// Open StreamEvents streams per client (per token; per remote address
    /// without authentication).
    pub max_event_streams_per_client: usize,
    /// HTTP/2 streams one connection may have open at once.
    pub max_concurrent_streams_per_connection: u32,
    /// Longest unary RPC, in milliseconds (a shorter client deadline wins).
    pub request_timeout_ms: u64,
    /// Longest UploadMedia stream, in milliseconds.
    pub upload_timeout_ms: u64,
    /// Retry delay suggested to shed clients (RetryInfo), in milliseconds.
    pub overload_retry_after_ms: u64,
    /// The part of each shared budget one client may hold: of
    /// `max_concurrent_requests`, of `mcp.max_sessions` and of
    /// `media.staging_quota_bytes` (a client is its token, or its remote
    /// address without authentication). In (0, 1]; 1 turns the shares off.
    pub max_share_per_client: f64,
    /// Longest wait for the request message of a unary call (the header of
    /// an upload), in milliseconds; a call whose first message has not
    /// arrived by then is dropped and its slot freed.
    pub first_message_timeout_ms: u64,
    /// Open `grpc.health.v1.Health/Watch` streams without a token (every
    /// watch when authentication is off), over all clients.
    pub max_anonymous_health_watches: usize,
    /// The same per remote address.
    pub max_anonymous_health_watches_per_address: usize,
    /// Largest event frame from a OneBot peer, in bytes (forward and
    /// reverse WebSocket): a larger one is dropped before it is decoded,
    /// logged and counted, never journaled or archived; the connection
    /// stays up. Replies to the gateway's own actions keep the WebSocket
    /// message limit (64 MiB), which media replies need.
    pub max_event_frame_bytes: usize,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            max_request_bytes: 4 * 1024 * 1024,
            max_upload_message_bytes: 16 * 1024 * 1024,
            max_response_bytes: 16 * 1024 * 1024,
            max_concurrent_requests: 256,
            max_event_streams: 256,
            max_event_streams_per_client: 16,
            max_concurrent_streams_per_connection: 128,
            request_timeout_ms: 120_000,
            upload_timeout_ms: 600_000,
            overload_retry_after_ms: 1_000,
            max_share_per_client: 0.5,
            first_message_timeout_ms: 10_000,
            max_anonymous_health_watches: 128,
            max_anonymous_health_watches_per_address: 16,
            max_event_frame_bytes: 4 * 1024 * 1024,
        }
    }
}

impl LimitsConfig {
    /// Checks `[limits]`: every size, count and timeout but the retry delay
    /// is positive, no message limit reaches 4 GiB (gRPC frames carry a
    /// 32-bit length), and the share per client is in (0, 1].
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        let key = Key::new("limits");
        for (name, value) in [
            ("max_request_bytes", self.max_request_bytes as u64),
            (
                "max_upload_message_bytes",
                self.max_upload_message_bytes as u64,
            ),
            ("max_response_bytes", self.max_response_bytes as u64),
            (
                "max_concurrent_requests",
                self.max_concurrent_requests as u64,
            ),
            ("max_event_streams", self.max_event_streams as u64),
            (
                "max_event_streams_per_client",
                self.max_event_streams_per_client as u64,
            ),
            (
                "max_concurrent_streams_per_connection",
                u64::from(self.max_concurrent_streams_per_connection),
            ),
            ("request_timeout_ms", self.request_timeout_ms),
            ("upload_timeout_ms", self.upload_timeout_ms),
            ("first_message_timeout_ms", self.first_message_timeout_ms),
            (
                "max_anonymous_health_watches",
                self.max_anonymous_health_watches as u64,
            ),
            (
                "max_anonymous_health_watches_per_address",
                self.max_anonymous_health_watches_per_address as u64,
            ),
            ("max_event_frame_bytes", self.max_event_frame_bytes as u64),
        ] {
            key.field(name).positive(value)?;
        }
        key.field("max_anonymous_health_watches_per_address")
            .ensure(
                self.max_anonymous_health_watches_per_address <= self.max_anonymous_health_watches,
                "must be at most limits.max_anonymous_health_watches",
            )?;
        key.field("max_event_frame_bytes").ensure(
            self.max_event_frame_bytes <= MAX_PEER_MESSAGE_BYTES,
            "must be at most 64 MiB (the WebSocket message limit)",
        )?;
        for (name, value) in [
            ("max_request_bytes", self.max_request_bytes),
            ("max_upload_message_bytes", self.max_upload_message_bytes),
            ("max_response_bytes", self.max_response_bytes),
        ] {
            key.field(name)
                .ensure(value <= u32::MAX as usize, "must be below 4 GiB")?;
        }
        key.field("max_share_per_client").ensure(
            self.max_share_per_client > 0.0 && self.max_share_per_client <= 1.0,
            "must be above 0 and at most 1",
        )?;
        Ok(())
    }

    /// The part of a budget of `total` one client may hold: at least one
    /// unit, at most `total`.
    pub fn share_of(&self, total: u64) -> u64 {
        let share = (total as f64 * self.max_share_per_client).floor() as u64;
        share.clamp(1, total.max(1))
    }
}
