//! Message ids per flavor.
//!
//! Every flavor keeps a per-chat "real" sequence (1, 2, 3, …) and derives the public
//! `message_id` from it with a hash, shaped like the real implementation's ids:
//!
//! | flavor    | `message_id`                         |
//! |-----------|--------------------------------------|
//! | NapCat    | positive int32 (MD5-style short id)  |
//! | LLOneBot  | positive int32 short id              |
//! | Lagrange  | signed int32 hash                    |
//! | SnowLuma  | signed int32 hash (often negative)   |
//! | go-cqhttp | signed int32 (CRC-style DB id)       |
//!
//! Ids are deterministic: the same seed produces the same ids on every start.

use sha2::{Digest, Sha256};

use crate::flavor::Flavor;
use crate::state::ChatRef;

/// The id candidate for `(chat, seq)`; `salt` is bumped by the caller on collision.
pub(crate) fn message_id(flavor: Flavor, chat: ChatRef, seq: i64, salt: u32) -> i64 {
    let mut h = Sha256::new();
    h.update(flavor.as_str().as_bytes());
    match chat {
        ChatRef::Group(id) => {
            h.update(b"g");
            h.update(id.to_le_bytes());
        }
        ChatRef::Private(id) => {
            h.update(b"p");
            h.update(id.to_le_bytes());
        }
    }
    h.update(seq.to_le_bytes());
    h.update(salt.to_le_bytes());
    let d = h.finalize();
    let raw = u32::from_le_bytes([d[0], d[1], d[2], d[3]]);
    match flavor {
        Flavor::NapCat | Flavor::LlOneBot => i64::from(raw & 0x7fff_ffff),
        Flavor::Lagrange | Flavor::SnowLuma | Flavor::GoCqhttp => i64::from(raw as i32),
    }
}
