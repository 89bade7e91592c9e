//! Test helpers of the domain: media samples recognised by their magic
//! numbers.

use sha2::{Digest, Sha256};

/// Lowercase hex SHA-256.
pub(crate) fn sha_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `len` bytes of `kind` (`jpeg`, `png`, `gif`, `bmp`, `webp`, `mp4`, `mov`,
/// `webm`, `mkv`, `flv`, `avi`, `text`): the magic header, then
/// deterministic noise.
pub(crate) fn sample(kind: &str, len: usize) -> Vec<u8> {
    let mut head: Vec<u8> = match kind {
        "jpeg" => vec![
            0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, b'J', b'F', b'I', b'F', 0,
        ],
        "png" => b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
        "gif" => b"GIF89a".to_vec(),
        "bmp" => b"BM\x36\x00\x0c\x00\x00\x00\x00\x00\x36\x00\x00\x00".to_vec(),
        "webp" => b"RIFF\x24\x00\x00\x00WEBPVP8 ".to_vec(),
        "mp4" => b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2".to_vec(),
        "mov" => b"\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  ".to_vec(),
        "webm" => {
            let mut v = vec![
                0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84,
            ];
            v.extend_from_slice(b"webm");
            v
        }
        "mkv" => {
            let mut v = vec![
                0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88,
            ];
            v.extend_from_slice(b"matroska");
            v
        }
        "flv" => b"FLV\x01\x05\x00\x00\x00\x09".to_vec(),
        "avi" => b"RIFF\x24\x00\x00\x00AVI LIST".to_vec(),
        "text" => Vec::new(),
        other => panic!("no sample of kind {other}"),
    };
    if kind == "text" {
        let line = b"plain words, no magic number here.\n";
        while head.len() < len {
            head.extend_from_slice(line);
        }
        head.truncate(len);
        return head;
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ len as u64;
    while head.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        head.extend_from_slice(&state.to_le_bytes());
    }
    head.truncate(len);
    head
}

/// A PNG sample of `len` bytes.
pub(crate) fn png(len: usize) -> Vec<u8> {
    sample("png", len)
}
