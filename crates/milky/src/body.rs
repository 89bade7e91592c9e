//! Request bodies: JSON written once, with each media item's `uri` as the
//! request's [`MediaUris`] name it: a one-time `http://` URL, or a
//! `base64://` URI encoded block by block while the body is sent, so a
//! large file is never held whole in memory (neither its bytes nor their
//! base64 text).

use bytes::Bytes;
use futures_util::StreamExt;
use onebot_gateway_domain::model::MediaPayload;
use onebot_gateway_domain::model::media::PayloadSource;
use serde_json::Value;

use crate::media::MediaUris;

/// Bytes of media read (and encoded) per block: a multiple of 3, so the
/// blocks' base64 texts join without padding in between.
const BLOCK: usize = 3 * 64 * 1024;

/// One piece of a request body.
enum Part {
    /// JSON text.
    Text(Bytes),
    /// `size` bytes of media, written as base64.
    Media(PayloadSource, u64),
}

/// A request body: JSON text with media spliced in.
pub struct Body {
    parts: Vec<Part>,
}

impl Body {
    /// A body of plain JSON.
    pub fn json(value: &Value) -> Body {
        Body {
            parts: vec![Part::Text(Bytes::from(value.to_string()))],
        }
    }

    /// An empty body to add to.
    pub fn builder() -> Body {
        Body { parts: Vec::new() }
    }

    /// Appends JSON text (the caller keeps the whole valid).
    pub fn raw(mut self, text: impl Into<String>) -> Body {
        self.parts.push(Part::Text(Bytes::from(text.into())));
        self
    }

    /// Appends a JSON value.
    pub fn value(self, value: &Value) -> Body {
        self.raw(value.to_string())
    }

    /// Appends the JSON string `"base64://<the payload's bytes>"`.
    pub fn base64_uri(mut self, media: &MediaPayload) -> Body {
        self.parts
            .push(Part::Text(Bytes::from_static(b"\"base64://")));
        self.parts.push(Part::Media(media.source(), media.size));
        self.parts.push(Part::Text(Bytes::from_static(b"\"")));
        self
    }

    /// Appends the JSON string of `media`'s `uri`: a one-time URL when
    /// `uris` serves them, else `base64://` of its bytes.
    pub fn media_uri(self, media: &MediaPayload, uris: &mut MediaUris) -> Body {
        match uris {
            MediaUris::Base64 => self.base64_uri(media),
            MediaUris::Http(lease) => self.value(&Value::from(lease.url(media))),
        }
    }

    /// The body's length in bytes.
    pub fn len(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.len() as u64,
                Part::Media(_, size) => size.div_ceil(3) * 4,
            })
            .sum()
    }

    /// Whether the body has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether any media are spliced in.
    fn has_media(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Media(..)))
    }

    /// The body for reqwest: the text at once, or a stream encoding media
    /// as it is sent.
    pub fn into_reqwest(self) -> reqwest::Body {
        if !self.has_media() {
            let mut all = Vec::with_capacity(usize::try_from(self.len()).unwrap_or(0));
            for p in &self.parts {
                if let Part::Text(t) = p {
                    all.extend_from_slice(t);
                }
            }
            return reqwest::Body::from(all);
        }
        let chunks = futures_util::stream::iter(self.parts).flat_map(|p| match p {
            Part::Text(t) => futures_util::stream::once(std::future::ready(Ok(t))).left_stream(),
            Part::Media(source, size) => source.blocks(size, BLOCK as u64, encode).right_stream(),
        });
        reqwest::Body::wrap_stream(chunks)
    }

    /// The whole body in memory (tests and recordings).
    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.extend_from_slice(t),
                Part::Media(source, size) => {
                    let mut offset = 0;
                    while offset < *size {
                        let n = (size - offset).min(BLOCK as u64);
                        let mut raw = vec![0u8; usize::try_from(n).unwrap_or_default()];
                        source.read_exact_at(&mut raw, offset).unwrap_or_default();
                        out.extend_from_slice(&encode(raw));
                        offset += n;
                    }
                }
            }
        }
        out
    }
}

/// The base64 of a block of media.
fn encode(raw: Vec<u8>) -> Bytes {
    Bytes::from(base64_simd::STANDARD.encode_to_string(&raw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use onebot_gateway_domain::model::MediaKind;

    #[test]
    fn media_are_spliced_as_base64_and_the_length_is_exact() {
        let bytes: Vec<u8> = (0..(BLOCK * 2 + 5)).map(|i| (i % 251) as u8).collect();
        let media = MediaPayload::inline(
            MediaKind::Image,
            "image/png".into(),
            "a.png".into(),
            Bytes::from(bytes.clone()),
        );
        let body = Body::builder().raw("{\"uri\":").base64_uri(&media).raw("}");
        let text = body.to_vec();
        assert_eq!(text.len() as u64, body.len());
        let v: Value = serde_json::from_slice(&text).unwrap();
        let uri = v["uri"].as_str().unwrap();
        let decoded = base64_simd::STANDARD
            .decode_to_vec(uri.strip_prefix("base64://").unwrap())
            .unwrap();
        assert_eq!(decoded, bytes);
    }
}
