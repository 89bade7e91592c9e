//! The API transport: `POST <milky_url>/api/<api>` with a JSON body and
//! `Authorization: Bearer <token>`; the answer's envelope
//! `{status, retcode, data|message}` read from a body of bounded size.

use std::sync::Arc;
use std::time::Duration;

use serde::de::MapAccess;

use crate::body::Body;
pub use crate::model::Data;
use crate::model::DataIn;
use crate::model::wire::{Fields, Int, Obj, Str, skip};

/// Why a call yielded no envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// Nothing reached the peer (connection refused, DNS, ...).
    NotSent(String),
    /// No answer within the timeout (the peer may have acted).
    Timeout,
    /// The exchange broke after the request was sent.
    Lost(String),
    /// An HTTP status other than 200 (401: token refused; 404: unknown
    /// API; 415: not JSON), with the start of the body.
    Status(u16, String),
    /// The answer is larger than the limit.
    TooLarge(usize),
    /// The answer is not an envelope.
    Undecodable(String),
}

/// A Milky answer.
#[derive(Debug, PartialEq)]
pub struct Envelope {
    /// `ok` or `failed` (anything else is kept as sent).
    pub status: String,
    /// 0 on success.
    pub retcode: i64,
    /// The output (`{}` for APIs without one; `null` on failure).
    pub data: Data,
    /// The failure's text.
    pub message: String,
}

/// One account's API client (one connection pool).
#[derive(Debug, Clone)]
pub struct Api {
    client: reqwest::Client,
    base: url::Url,
    token: Option<String>,
    max_reply_bytes: usize,
}

impl Api {
    /// A client for `milky_url`; `connect_timeout` bounds each TCP
    /// connect, `keepalive` is the TCP keepalive of its connections (a
    /// silent event stream of a vanished peer ends), answers above
    /// `max_reply_bytes` fail.
    pub fn new(
        milky_url: &str,
        token: Option<&str>,
        connect_timeout: Duration,
        keepalive: Duration,
        max_reply_bytes: usize,
        tls: &onebot_gateway_tls::PeerTls,
    ) -> Result<Api, String> {
        let base = join_base(milky_url, "api/")?;
        let client = tls
            .http_builder(reqwest::Client::builder())
            .connect_timeout(connect_timeout)
            .tcp_keepalive(keepalive)
            .build()
            .map_err(|e| format!("HTTP client: {e}"))?;
        Ok(Api {
            client,
            base,
            token: token.filter(|t| !t.is_empty()).map(str::to_string),
            max_reply_bytes,
        })
    }

    /// The account's HTTP client (the event stream shares its pool).
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// Calls `api` with `body` within `timeout`.
    pub async fn call(
        &self,
        api: &str,
        body: Body,
        timeout: Duration,
    ) -> Result<Envelope, CallError> {
        let url = self
            .base
            .join(api)
            .map_err(|e| CallError::NotSent(format!("bad API name {api:?}: {e}")))?;
        let mut request = self
            .client
            .post(url)
            .header(http::header::CONTENT_TYPE, "application/json")
            .header(http::header::CONTENT_LENGTH, body.len())
            .body(body.into_reqwest())
            .timeout(timeout);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let mut response = request.send().await.map_err(|e| classify(&e))?;
        let status = response.status().as_u16();
        let mut text = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| classify(&e))? {
            if text.len() + chunk.len() > self.max_reply_bytes {
                return Err(CallError::TooLarge(self.max_reply_bytes));
            }
            text.extend_from_slice(&chunk);
        }
        if status != 200 {
            let shown: String = String::from_utf8_lossy(&text).chars().take(200).collect();
            return Err(CallError::Status(status, shown.trim().to_string()));
        }
        envelope(&text)
    }
}

/// Reads an envelope.
pub fn envelope(text: &[u8]) -> Result<Envelope, CallError> {
    let shown = || {
        String::from_utf8_lossy(text)
            .chars()
            .take(200)
            .collect::<String>()
    };
    let text: Arc<str> = match std::str::from_utf8(text) {
        Ok(t) => Arc::from(t),
        Err(e) => return Err(CallError::Undecodable(format!("{e}: {}", shown()))),
    };
    let head: Head = serde_json::from_str::<Obj<Head>>(&text)
        .map(|o| o.0)
        .map_err(|e| CallError::Undecodable(format!("{e}: {}", shown())))?;
    let (Some(status), Some(retcode)) = (head.status, head.retcode.0) else {
        return Err(CallError::Undecodable(format!(
            "no status and retcode: {}",
            shown()
        )));
    };
    Ok(Envelope {
        status,
        retcode,
        data: Data::new(text, head.data),
        message: head.message.0,
    })
}

/// An envelope's fields, its `data` decoded in the same pass.
#[derive(Default)]
struct Head {
    status: Option<String>,
    retcode: Int,
    message: Str,
    data: DataIn,
}

impl<'de> Fields<'de> for Head {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            // A status that is not a string is no envelope.
            "status" => {
                self.status = map
                    .next_value::<serde_json::Value>()?
                    .as_str()
                    .map(str::to_string)
            }
            "retcode" => self.retcode = map.next_value()?,
            "message" => self.message = map.next_value()?,
            "data" => self.data = map.next_value::<Obj<DataIn>>()?.0,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// `milky_url` with `path` appended under it (the base's own path kept).
pub fn join_base(milky_url: &str, path: &str) -> Result<url::Url, String> {
    let mut base = url::Url::parse(milky_url).map_err(|e| format!("bad milky_url: {e}"))?;
    if !matches!(base.scheme(), "http" | "https") || base.host_str().is_none() {
        return Err(format!(
            "milky_url {:?} is not an http:// or https:// URL with a host",
            onebot_gateway_config::redact_url(milky_url)
        ));
    }
    if !base.path().ends_with('/') {
        let p = format!("{}/", base.path());
        base.set_path(&p);
    }
    base.join(path).map_err(|e| format!("bad milky_url: {e}"))
}

fn classify(e: &reqwest::Error) -> CallError {
    // reqwest's message names the URL; show it without credentials.
    let text = match e.url() {
        Some(url) => e.to_string().replace(
            url.as_str(),
            &onebot_gateway_config::redact_url(url.as_str()),
        ),
        None => e.to_string(),
    };
    if e.is_connect() || e.is_builder() {
        CallError::NotSent(text)
    } else if e.is_timeout() {
        CallError::Timeout
    } else {
        CallError::Lost(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_are_read() {
        let ok = envelope(br#"{"status":"ok","retcode":0,"data":{"uin":10001}}"#).unwrap();
        assert_eq!((ok.status.as_str(), ok.retcode), ("ok", 0));
        assert_eq!(ok.data.value()["uin"], 10001);
        assert_eq!(ok.data.text(), r#"{"uin":10001}"#);
        let failed =
            envelope(br#"{"status":"failed","retcode":-403,"message":"not logged in"}"#).unwrap();
        assert_eq!(failed.retcode, -403);
        assert_eq!(failed.message, "not logged in");
        assert_eq!(failed.data.text(), "null");
        assert!(matches!(
            envelope(b"<html>"),
            Err(CallError::Undecodable(_))
        ));
        assert!(matches!(envelope(b"{}"), Err(CallError::Undecodable(_))));
    }

    #[test]
    fn bases_keep_their_path() {
        assert_eq!(
            join_base("http://h:3010", "api/")
                .unwrap()
                .join("get_login_info")
                .unwrap()
                .as_str(),
            "http://h:3010/api/get_login_info"
        );
        assert_eq!(
            join_base("https://h/milky", "event").unwrap().as_str(),
            "https://h/milky/event"
        );
        assert!(join_base("ws://h", "api/").is_err());
    }
}
