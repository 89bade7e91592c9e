//! The media strings of `qq_send` (`images`, `videos`, `file`).

use crate::model::media::is_http_url;

/// A media string of `qq_send`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaArg {
    /// `media:<id>`: an upload from `MediaService.UploadMedia`.
    MediaId(String),
    /// An `http://` or `https://` URL.
    Url(String),
    /// An absolute path on the gateway host (only under the media roots).
    Path(String),
}

/// Classifies a media string: `media:<id>`, an http(s) URL (scheme case
/// ignored), or an absolute path; `None` for anything else (relative paths,
/// other schemes, empty ids).
pub fn parse_media(s: &str) -> Option<MediaArg> {
    if let Some(id) = s.strip_prefix("media:") {
        return (!id.trim().is_empty()).then(|| MediaArg::MediaId(id.to_owned()));
    }
    if is_http_url(s) {
        return Some(MediaArg::Url(s.to_owned()));
    }
    std::path::Path::new(s)
        .is_absolute()
        .then(|| MediaArg::Path(s.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_strings() {
        use MediaArg::*;
        let cases: &[(&str, Option<MediaArg>)] = &[
            ("media:abc123", Some(MediaId("abc123".into()))),
            ("media:", None),
            ("media:  ", None),
            (
                "http://example.com/a.png",
                Some(Url("http://example.com/a.png".into())),
            ),
            (
                "HTTPS://example.com/a.png",
                Some(Url("HTTPS://example.com/a.png".into())),
            ),
            ("https://", Some(Url("https://".into()))),
            ("/abs/path/a.png", Some(Path("/abs/path/a.png".into()))),
            ("a.png", None),
            ("./a.png", None),
            ("../a.png", None),
            ("ftp://example.com/a.png", None),
            ("file:///etc/passwd", None),
            ("base64://AAAA", None),
            ("", None),
            ("Media:abc", None),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_media(input), *expected, "{input:?}");
        }
    }
}
