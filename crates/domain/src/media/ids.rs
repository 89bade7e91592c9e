//! Media ids of received segments: derived from the account, the message
//! and the segment's index (never from the bytes), so an event carries its
//! ids before any byte is fetched, and the same segment always has the same
//! id, across restarts.
//!
//! Form: `r_<tag>_<message_id>_<index>`, where `tag` is the first 16 hex
//! digits of HMAC-SHA256 over `account_id`, the message id and the index,
//! keyed by a random secret kept in the store. The id names its message and
//! segment (a download of an id never captured fetches it from the peer),
//! and cannot be made up: an id is known only to whoever saw the message
//! (in an event or in history), and ids of other accounts do not check.

use sha2::{Digest, Sha256};

/// Prefix of received media ids.
pub const RECEIVED_PREFIX: &str = "r_";

/// Hex digits of the tag.
const TAG_HEX: usize = 16;

/// Derives and checks received media ids. Cheap to clone.
#[derive(Clone)]
pub struct MediaIds {
    /// SHA-256 with the key's inner and outer pad blocks absorbed: each
    /// tag clones them instead of hashing the pads again.
    inner: Sha256,
    outer: Sha256,
}

impl std::fmt::Debug for MediaIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MediaIds")
    }
}

/// What a received media id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentRef {
    /// The message id.
    pub message_id: i64,
    /// The segment's index in the message.
    pub index: usize,
}

impl MediaIds {
    /// Ids keyed by `key` (the store's secret).
    pub fn new(key: [u8; 32]) -> Self {
        let (inner, outer) = hmac_sha256_keyed(&key);
        Self { inner, outer }
    }

    fn tag(&self, account_id: &str, message_id: i64, index: usize) -> String {
        use std::io::Write as _;
        let mut numbers = [0u8; 48];
        let mut w = &mut numbers[..];
        // Two NULs and two decimal numbers of at most 20 characters each fit
        // in 48 bytes: the write cannot fail.
        let _ = write!(w, "\0{message_id}\0{index}");
        let written = 48 - w.len();
        let mac = hmac_sha256_with(
            &self.inner,
            &self.outer,
            &[account_id.as_bytes(), &numbers[..written]],
        );
        hex::encode(&mac[..TAG_HEX / 2])
    }

    /// The media id of segment `index` of message `message_id` of
    /// `account_id`.
    pub fn id(&self, account_id: &str, message_id: i64, index: usize) -> String {
        format!(
            "{RECEIVED_PREFIX}{}_{message_id}_{index}",
            self.tag(account_id, message_id, index)
        )
    }

    /// The segment a received media id of `account_id` names; `None` for
    /// anything else (another account's id, a made-up or staged id).
    pub fn parse(&self, account_id: &str, id: &str) -> Option<SegmentRef> {
        let rest = id.strip_prefix(RECEIVED_PREFIX)?;
        let mut parts = rest.splitn(3, '_');
        let (tag, message_id, index) = (parts.next()?, parts.next()?, parts.next()?);
        let message_id: i64 = message_id.parse().ok()?;
        let index: usize = index.parse().ok()?;
        // Canonical numbers only, so one segment has exactly one id.
        if message_id.to_string() != parts_text(rest, 1) || index.to_string() != parts_text(rest, 2)
        {
            return None;
        }
        let expected = self.tag(account_id, message_id, index);
        // Constant time: the tag is what makes an id unguessable.
        let same = tag.len() == expected.len()
            && subtle::ConstantTimeEq::ct_eq(tag.as_bytes(), expected.as_bytes()).into();
        same.then_some(SegmentRef { message_id, index })
    }

    /// True when `id` has the form of a received media id (checked or not).
    pub fn is_received(id: &str) -> bool {
        id.starts_with(RECEIVED_PREFIX)
    }
}

/// Part `n` of `tag_msg_index` split on `_` at most 3 ways.
fn parts_text(rest: &str, n: usize) -> &str {
    rest.splitn(3, '_').nth(n).unwrap_or_default()
}

/// The SHA-256 states of HMAC-SHA256 (RFC 2104) keyed by `key` (at most
/// one block long): the inner pad absorbed, the outer pad absorbed.
fn hmac_sha256_keyed(key: &[u8; 32]) -> (Sha256, Sha256) {
    const BLOCK: usize = 64;
    let mut ipad = [0x36u8; BLOCK];
    let mut opad = [0x5cu8; BLOCK];
    for (i, k) in key.iter().enumerate() {
        ipad[i] ^= k;
        opad[i] ^= k;
    }
    (
        Sha256::new().chain_update(ipad),
        Sha256::new().chain_update(opad),
    )
}

/// HMAC-SHA256 over the concatenation of `parts`, from the keyed states of
/// [`hmac_sha256_keyed`].
fn hmac_sha256_with(inner: &Sha256, outer: &Sha256, parts: &[&[u8]]) -> [u8; 32] {
    let mut inner = inner.clone();
    for part in parts {
        inner.update(part);
    }
    outer
        .clone()
        .chain_update(inner.finalize())
        .finalize()
        .into()
}

/// HMAC-SHA256 over `msg` with `key`.
#[cfg(test)]
fn hmac_sha256(key: &[u8; 32], msg: &[u8]) -> [u8; 32] {
    let (inner, outer) = hmac_sha256_keyed(key);
    hmac_sha256_with(&inner, &outer, &[msg])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_refuse_other_accounts_and_forgeries() {
        let ids = MediaIds::new([7; 32]);
        let id = ids.id("default", -123, 2);
        assert!(id.starts_with("r_"), "{id}");
        assert_eq!(
            ids.parse("default", &id),
            Some(SegmentRef {
                message_id: -123,
                index: 2
            })
        );
        assert_eq!(ids.id("default", -123, 2), id, "stable");
        assert_eq!(ids.parse("other", &id), None);
        assert_eq!(MediaIds::new([8; 32]).parse("default", &id), None);
        let forged = id.replace("_2", "_3");
        assert_eq!(ids.parse("default", &forged), None);
        for bad in ["", "r_", "r_x_1_2", "m0123", "r_00_1_02"] {
            assert_eq!(ids.parse("default", bad), None, "{bad}");
        }
    }

    #[test]
    fn hmac_matches_the_rfc_4231_vector() {
        // RFC 4231 test case 2 uses a 4-byte key; zero-padding to a block is
        // the same key in HMAC.
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        let mac = hmac_sha256(&key, b"what do ya want for nothing?");
        assert_eq!(
            hex::encode(mac),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_tag_is_the_hmac_of_account_nul_message_id_nul_index() {
        // Ids handed out before stay valid: the tag's message is fixed.
        let key = [9u8; 32];
        let ids = MediaIds::new(key);
        for (account, message_id, index) in [
            ("default", -123i64, 2usize),
            ("备用", i64::MIN, usize::MAX),
            ("", 0, 0),
        ] {
            let msg = format!("{account}\0{message_id}\0{index}");
            let tag = hex::encode(&hmac_sha256(&key, msg.as_bytes())[..TAG_HEX / 2]);
            assert_eq!(
                ids.id(account, message_id, index),
                format!("r_{tag}_{message_id}_{index}")
            );
        }
    }
}
