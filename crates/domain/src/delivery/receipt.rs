//! What a send delivered: the result SendMessage returns, which the
//! idempotency keys also keep for replays.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::model::ChatRef;

/// What media a send carried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MediaSummary {
    /// Images sent.
    pub images: u32,
    /// Videos sent.
    pub videos: u32,
    /// Name of the group file; empty when none.
    pub file: String,
    /// Voice messages sent (absent in records stored before voices).
    #[serde(default)]
    pub voices: u32,
}

/// The result of SendMessage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendResult {
    /// The group; 0 for a private send.
    pub group_id: i64,
    /// The user of a private send; 0 for a group send (absent in records
    /// stored before private sends existed).
    #[serde(default)]
    pub user_id: i64,
    /// Text chunks sent or queued.
    pub chunks: u32,
    /// True when queued for later delivery.
    pub queued: bool,
    /// Ids of the messages the peer acknowledged, in order.
    pub message_ids: Vec<i64>,
    /// Set when media were sent.
    pub media: Option<MediaSummary>,
    /// True when replayed from an earlier request with the same key.
    pub replayed: bool,
    /// How long this request waited for the send rate limits before its first
    /// message went out (zero for a queued or replayed request: the stored result does not keep it).
    #[serde(skip)]
    pub rate_limit_wait: Duration,
}

impl SendResult {
    /// The chat it went (or is queued) to.
    pub fn chat(&self) -> ChatRef {
        if self.user_id != 0 {
            ChatRef::Private(self.user_id)
        } else {
            ChatRef::Group(self.group_id)
        }
    }
}
