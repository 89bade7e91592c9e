//! The Milky direct hop: the Milky API calls the gateway's adapter makes,
//! `POST <milky_url>/api/<api>` with a JSON body, sent straight to the
//! Milky sandbox by one reqwest client (one connection pool, HTTP/1.1
//! keep-alive, as the adapter's), the answer's envelope checked.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::procs::{BENCH_GROUP, cpu_time};
use crate::upload::DirectUpload;
use crate::workload::{MILKY_HISTORY_LIMIT, milky_history, milky_members};

/// A Milky API client.
#[derive(Clone)]
pub struct MilkyDirect {
    client: reqwest::Client,
    /// `<milky_url>/api/`.
    api: String,
}

impl MilkyDirect {
    /// A client of the implementation at `milky_url`.
    pub fn new(milky_url: &str) -> Result<MilkyDirect> {
        let client = reqwest::Client::builder()
            .build()
            .context("building the HTTP client")?;
        Ok(MilkyDirect {
            client,
            api: format!("{}/api/", milky_url.trim_end_matches('/')),
        })
    }

    /// Posts `body` (JSON text) to `api`; fails unless HTTP 200 with
    /// `status` `ok`. Returns the answer's `data`.
    pub async fn post(&self, api: &str, body: impl Into<reqwest::Body>) -> Result<Value> {
        let response = self
            .client
            .post(format!("{}{api}", self.api))
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .with_context(|| format!("{api}: sending"))?;
        let status = response.status();
        let text = response
            .bytes()
            .await
            .with_context(|| format!("{api}: reading"))?;
        if status != http::StatusCode::OK {
            bail!("{api}: HTTP {status}");
        }
        let mut envelope: Value = serde_json::from_slice(&text)?;
        if envelope.get("status").and_then(Value::as_str) != Some("ok") {
            let shown: String = String::from_utf8_lossy(&text).chars().take(200).collect();
            bail!("{api} failed: {shown}");
        }
        Ok(envelope
            .get_mut("data")
            .map(Value::take)
            .unwrap_or(Value::Null))
    }

    /// Calls `api` with `params`.
    pub async fn call(&self, api: &str, params: &Value) -> Result<Value> {
        self.post(api, params.to_string()).await
    }

    /// The calls the adapter makes for the newest `count` messages of the
    /// benchmark group: `get_history_messages` of at most 30 each, one
    /// after the other, each from the previous answer's
    /// `next_message_seq`, until `count` or the oldest. Returns the
    /// messages received.
    pub async fn history(&self, count: u32) -> Result<usize> {
        let (mut got, mut start) = (0usize, None);
        while got < count as usize {
            let limit = (count as usize - got).min(MILKY_HISTORY_LIMIT as usize) as u32;
            let (api, params) = milky_history(start, limit);
            let data = self.call(api, &params).await?;
            got += data
                .get("messages")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            match data.get("next_message_seq").and_then(Value::as_i64) {
                Some(n) if start.is_none_or(|s| n < s) => start = Some(n),
                _ => break,
            }
        }
        Ok(got)
    }

    /// The call the adapter makes for ListGroupMembers; returns the
    /// members received.
    pub async fn members(&self) -> Result<usize> {
        let (api, params) = milky_members();
        let data = self.call(api, &params).await?;
        Ok(data
            .get("members")
            .and_then(Value::as_array)
            .map_or(0, Vec::len))
    }

    /// The direct counterpart of an upload: `send_group_message` to the
    /// benchmark group with one `video` segment whose `uri` is a one-time
    /// `http://` URL, as the gateway's account on loopback sends it
    /// (`milky_media = "auto"` picks `http`): the URL served by a media
    /// listener of the adapter's own type
    /// ([`MediaServer`](onebot_gateway_milky::media::MediaServer) on
    /// `127.0.0.1:0`) from the payload in memory. The listener, the URL,
    /// the body and the connection (one `get_login_info`) are ready before
    /// the clock starts; timed until the answer, which the sandbox gives
    /// once it has fetched the bytes. `peer_pid` is the sandbox's.
    pub async fn upload(&self, peer_pid: u32, payload: &[u8]) -> Result<DirectUpload> {
        use onebot_gateway_domain::model::{MediaKind, MediaPayload};
        use onebot_gateway_milky::media::{MediaServer, MediaUris};
        let stop = tokio_util::sync::CancellationToken::new();
        let _stop = stop.clone().drop_guard();
        let server =
            MediaServer::start(std::net::SocketAddr::from(([127, 0, 0, 1], 0)), None, stop)
                .context("binding the direct upload's media listener")?;
        let MediaUris::Http(mut lease) = server.uris() else {
            bail!("a media listener hands out no URLs");
        };
        let media = MediaPayload::inline(
            MediaKind::Video,
            "video/mp4".into(),
            "bench.mp4".into(),
            bytes::Bytes::copy_from_slice(payload),
        );
        let uri = lease.url(&media);
        let body = serde_json::json!({
            "group_id": BENCH_GROUP,
            "message": [{"type": "video", "data": {"uri": uri}}],
        })
        .to_string();
        let body = bytes::Bytes::from(body);
        self.call("get_login_info", &serde_json::json!({})).await?;
        let peer_before = cpu_time(peer_pid)?;
        let started = Instant::now();
        let data = self.post("send_group_message", body).await?;
        let elapsed = started.elapsed();
        if data.get("message_seq").and_then(Value::as_i64).is_none() {
            bail!("send_group_message answered no message_seq: {data}");
        }
        Ok(DirectUpload {
            concurrency: 1,
            elapsed,
            peer_cpu: cpu_time(peer_pid)?.saturating_sub(peer_before),
        })
    }
}
