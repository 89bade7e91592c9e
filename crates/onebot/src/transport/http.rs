//! The HTTP action client: `POST <http_url>/<action>` with a JSON body and
//! `Authorization: Bearer <token>`.

use std::time::Duration;

use serde_json::Value;

use super::body::ParamsJson;
use crate::frame::Frame;

/// Why an HTTP call failed before yielding an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// Nothing reached the peer (connection refused, DNS, ...).
    NotSent(String),
    /// No answer within the timeout (the peer may have acted).
    Timeout,
    /// The exchange broke after the request was sent.
    Lost(String),
    /// HTTP 401/403 with no OneBot answer in the body.
    Auth(u16),
    /// A non-2xx status with no OneBot answer in the body.
    Status(u16, String),
}

/// An HTTP transport to one peer.
#[derive(Debug, Clone)]
pub struct HttpTransport {
    client: reqwest::Client,
    base: url::Url,
    token: Option<String>,
}

impl HttpTransport {
    /// A client for `http_url`; `connect_timeout` bounds each TCP connect.
    pub fn new(
        http_url: &str,
        token: Option<&str>,
        connect_timeout: Duration,
        tls: &onebot_gateway_tls::PeerTls,
    ) -> Result<Self, String> {
        let mut base = url::Url::parse(http_url).map_err(|e| format!("bad http_url: {e}"))?;
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let client = tls
            .http_builder(reqwest::Client::builder())
            .connect_timeout(connect_timeout)
            .build()
            .map_err(|e| format!("HTTP client: {e}"))?;
        Ok(Self {
            client,
            base,
            token: token.filter(|t| !t.is_empty()).map(str::to_string),
        })
    }

    /// Calls `action`; returns the HTTP status and the OneBot answer object.
    pub async fn call(
        &self,
        action: &str,
        params: &Value,
        timeout: Duration,
    ) -> Result<(u16, Frame), HttpError> {
        self.call_json(action, &ParamsJson::new(params.clone()), timeout)
            .await
    }

    /// [`call`](Self::call) with parameters serialized beforehand.
    pub async fn call_json(
        &self,
        action: &str,
        params: &ParamsJson,
        timeout: Duration,
    ) -> Result<(u16, Frame), HttpError> {
        let url = self
            .base
            .join(action)
            .map_err(|e| HttpError::NotSent(format!("bad action name {action:?}: {e}")))?;
        let mut request = self
            .client
            .post(url)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::CONTENT_LENGTH, params.len())
            .body(body(params))
            .timeout(timeout);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.map_err(|e| classify(&e))?;
        let status = response.status().as_u16();
        let body = response.bytes().await.map_err(|e| classify(&e))?;
        match Frame::from_slice(&body) {
            Ok(answer)
                if answer.head().get("retcode").is_some()
                    || answer.head().get("status").is_some() =>
            {
                Ok((status, answer))
            }
            _ if status == 401 || status == 403 => Err(HttpError::Auth(status)),
            _ => {
                let text = String::from_utf8_lossy(&body);
                let text: String = text.chars().take(200).collect();
                Err(HttpError::Status(status, text))
            }
        }
    }
}

impl HttpTransport {
    /// Calls a stream action: NapCat writes its frames into one response,
    /// separated by a blank line (`\r\n\r\n`; compact JSON has none
    /// inside). Reads at most `max_body` bytes; returns the HTTP status and
    /// the frames in order.
    pub async fn call_frames(
        &self,
        action: &str,
        params: &ParamsJson,
        timeout: Duration,
        max_body: usize,
    ) -> Result<(u16, Vec<Frame>), HttpError> {
        let url = self
            .base
            .join(action)
            .map_err(|e| HttpError::NotSent(format!("bad action name {action:?}: {e}")))?;
        let mut request = self
            .client
            .post(url)
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(params.to_vec())
            .timeout(timeout);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let mut response = request.send().await.map_err(|e| classify(&e))?;
        let status = response.status().as_u16();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| classify(&e))? {
            if body.len() + chunk.len() > max_body {
                return Err(HttpError::Status(
                    status,
                    format!("the stream answer is larger than {max_body} bytes"),
                ));
            }
            body.extend_from_slice(&chunk);
        }
        let mut frames = Vec::new();
        for piece in split_frames(&body) {
            match Frame::from_slice(piece) {
                Ok(frame) => frames.push(frame),
                Err(_) if status == 401 || status == 403 => return Err(HttpError::Auth(status)),
                Err(_) => {
                    let text: String = String::from_utf8_lossy(piece).chars().take(200).collect();
                    return Err(HttpError::Status(status, text));
                }
            }
        }
        Ok((status, frames))
    }
}

/// The non-blank pieces of a body of frames separated by `\r\n\r\n`.
fn split_frames(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = body;
    std::iter::from_fn(move || {
        loop {
            if rest.is_empty() {
                return None;
            }
            let (piece, next) = match rest.windows(4).position(|w| w == b"\r\n\r\n") {
                Some(i) => (&rest[..i], &rest[i + 4..]),
                None => (rest, &rest[rest.len()..]),
            };
            rest = next;
            if !piece.iter().all(u8::is_ascii_whitespace) {
                return Some(piece);
            }
        }
    })
}

/// The request body: the JSON text, or with media a stream that encodes
/// them block by block as the body is sent (with its length, so the peer
/// sees a plain body, not a chunked one).
fn body(params: &ParamsJson) -> reqwest::Body {
    if !params.has_media() {
        return reqwest::Body::from(params.to_vec());
    }
    let blocks = futures_util::stream::try_unfold(params.blocks(), |mut blocks| async move {
        Ok::<_, std::io::Error>(blocks.next().await?.map(|b| (b, blocks)))
    });
    reqwest::Body::wrap_stream(blocks)
}

fn classify(e: &reqwest::Error) -> HttpError {
    // reqwest's message names the URL; show it without credentials.
    let text = match e.url() {
        Some(url) => e.to_string().replace(
            url.as_str(),
            &onebot_gateway_config::redact_url(url.as_str()),
        ),
        None => e.to_string(),
    };
    if e.is_connect() || e.is_builder() {
        HttpError::NotSent(text)
    } else if e.is_timeout() {
        HttpError::Timeout
    } else {
        HttpError::Lost(text)
    }
}

#[cfg(test)]
mod tests {
    use super::split_frames;

    #[test]
    fn stream_bodies_split_on_blank_lines() {
        let body = b"{\"a\":1}\r\n\r\n{\"b\":\"x\\r\\ny\"}\r\n\r\n\r\n\r\n{\"c\":3}\r\n";
        let parts: Vec<&[u8]> = split_frames(body).collect();
        assert_eq!(
            parts,
            [
                &b"{\"a\":1}"[..],
                &b"{\"b\":\"x\\r\\ny\"}"[..],
                &b"{\"c\":3}\r\n"[..]
            ]
        );
        assert_eq!(split_frames(b"").count(), 0);
        assert_eq!(split_frames(b" \r\n\r\n ").count(), 0);
    }
}
