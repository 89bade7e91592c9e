//! Milky media `uri`s: `base64://…` is decoded, `http(s)://…` fetched (30 s, at most
//! [`MAX_PAYLOAD`](crate::MAX_PAYLOAD) bytes), `file://…` read. The sandbox always ends up with
//! the bytes, so what it received is stored and served like the seed's media.

use std::time::Duration;

use bytes::Bytes;

use super::MilkyError;
use crate::media::{self, Loaded, MediaSource};
use crate::server::MAX_PAYLOAD;

/// How long a fetch of an `http(s)://` uri may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(30);

fn loaded(source: MediaSource, bytes: Bytes) -> Loaded {
    Loaded {
        source,
        digest: Some(media::digest(&bytes)),
        bytes: Some(bytes),
    }
}

async fn fetch(url: &str, field: &str) -> Result<Bytes, MilkyError> {
    let failed =
        |e: &dyn std::fmt::Display| MilkyError::media(format!("{field}: fetching {url}: {e}"));
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .build()
        .map_err(|e| failed(&e))?;
    let mut resp = client.get(url).send().await.map_err(|e| failed(&e))?;
    if !resp.status().is_success() {
        return Err(failed(&format!("HTTP {}", resp.status())));
    }
    let mut out = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| failed(&e))? {
        if out.len() + chunk.len() > MAX_PAYLOAD {
            return Err(failed(&"larger than the sandbox accepts"));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(out))
}

/// Resolves the `uri` found in `field` (named in errors).
pub(crate) async fn resolve(uri: &str, field: &str) -> Result<Loaded, MilkyError> {
    let uri = uri.trim();
    if let Some(payload) = uri.strip_prefix("base64://") {
        let bytes = media::decode_base64(payload)
            .ok_or_else(|| MilkyError::bad(format!("{field}: invalid base64")))?;
        return Ok(loaded(MediaSource::Base64, Bytes::from(bytes)));
    }
    let lower = uri.get(..8).unwrap_or(uri).to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        let bytes = fetch(uri, field).await?;
        return Ok(loaded(MediaSource::Url(uri.to_owned()), bytes));
    }
    if let Some(path) = uri.strip_prefix("file://") {
        let bytes = tokio::fs::read(path)
            .await
            .map_err(|e| MilkyError::media(format!("{field}: reading {path}: {e}")))?;
        return Ok(loaded(
            MediaSource::Path(path.to_owned()),
            Bytes::from(bytes),
        ));
    }
    Err(MilkyError::bad(format!(
        "{field}: expected a file://, http(s):// or base64:// uri"
    )))
}
