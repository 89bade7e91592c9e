//! The HTTP action client: `POST <http_url>/<action>` with a JSON body and
//! `Authorization: Bearer <token>`.

use std::time::Duration;

use serde_json::Value;

use super::body::ParamsJson;
use crate::onebot::frame::Frame;

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
        tls: &crate::tls::PeerTls,
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
        Some(url) => e
            .to_string()
            .replace(url.as_str(), &crate::config::redact_url(url.as_str())),
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
