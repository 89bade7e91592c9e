//! Media kinds as the gateway checks them: the content types each kind
//! accepts (sniffed from the bytes, never taken from a name or a header),
//! size errors, and display names.

use crate::error::{Error, Kind, Result};
use crate::model::MediaKind;

/// Leading bytes kept for content sniffing.
pub const SNIFF_BYTES: usize = 8 * 1024;

/// MIME type of files whose type is not recognised.
pub const OCTET_STREAM: &str = "application/octet-stream";

/// MIME types accepted as images: JPEG, PNG, GIF, BMP, WEBP.
pub const IMAGE_MIMES: [&str; 5] = [
    "image/jpeg",
    "image/png",
    "image/gif",
    "image/bmp",
    "image/webp",
];

/// MIME types accepted as videos: MP4 (and M4V), MOV, WEBM, FLV, AVI, MKV.
pub const VIDEO_MIMES: [&str; 7] = [
    "video/mp4",
    "video/x-m4v",
    "video/quicktime",
    "video/webm",
    "video/x-flv",
    "video/x-msvideo",
    "video/x-matroska",
];

/// MIME types accepted as voice messages: MP3, WAV, OGG, AMR and SILK v3
/// (what every implementation converts or sends as-is).
pub const VOICE_MIMES: [&str; 5] = [
    "audio/mpeg",
    "audio/x-wav",
    "audio/ogg",
    "audio/amr",
    SILK_MIME,
];

/// MIME type of SILK v3 audio (QQ voice records as received).
pub const SILK_MIME: &str = "audio/silk";

/// The MIME type of content by its leading bytes, if recognised (SILK v3
/// voice, with or without QQ's leading 0x02 byte, included).
pub fn sniff(prefix: &[u8]) -> Option<&'static str> {
    const SILK: &[u8] = b"#!SILK_V3";
    if prefix.starts_with(SILK) || prefix.get(1..).is_some_and(|p| p.starts_with(SILK)) {
        return Some(SILK_MIME);
    }
    infer::get(prefix).map(|t| t.mime_type())
}

/// Checks sniffed content against the kind it is used as and returns the
/// MIME type to report. Files accept anything.
pub fn check_kind(kind: MediaKind, detected: Option<&str>) -> Result<String> {
    let ok = match kind {
        MediaKind::Image => detected.is_some_and(|m| IMAGE_MIMES.contains(&m)),
        MediaKind::Video => detected.is_some_and(|m| VIDEO_MIMES.contains(&m)),
        MediaKind::Voice => detected.is_some_and(|m| VOICE_MIMES.contains(&m)),
        // A file staged without a recognised type is reported as octet-stream.
        MediaKind::File => true,
    };
    if ok {
        return Ok(detected.unwrap_or(OCTET_STREAM).to_string());
    }
    let detected = detected.filter(|m| *m != OCTET_STREAM).unwrap_or("unknown");
    let expected = match kind {
        MediaKind::Image => "JPEG, PNG, GIF, BMP or WEBP",
        MediaKind::Voice => "MP3, WAV, OGG, AMR or SILK",
        _ => "MP4, MOV, WEBM, FLV, AVI or MKV",
    };
    Err(Error::new(
        Kind::MediaTypeMismatch,
        format!(
            "the content is not a supported {} ({expected}); detected {detected}",
            kind.name()
        ),
    )
    .with("detected", detected)
    .with("kind", kind.name()))
}

/// The MediaTooLarge error of a kind.
pub fn too_large(kind: MediaKind, limit: u64) -> Error {
    Error::new(
        Kind::MediaTooLarge,
        format!("the {} is larger than {limit} bytes", kind.name()),
    )
    .with("limit_bytes", limit)
    .with("kind", kind.name())
}

/// Keeps a display name to its last path component without control
/// characters, at most 255 bytes.
pub fn sanitize_file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let mut out = String::new();
    for c in base.chars().filter(|c| !c.is_control()) {
        if out.len() + c.len_utf8() > 255 {
            break;
        }
        out.push(c);
    }
    let trimmed = out.trim();
    if trimmed == "." || trimmed == ".." {
        return String::new();
    }
    trimmed.to_string()
}
