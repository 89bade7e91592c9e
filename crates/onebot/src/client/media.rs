//! Received media per flavor: which steps get a segment's bytes, in which
//! order, and the actions behind them.
//!
//! | flavor | image | record | video | file |
//! |---|---|---|---|---|
//! | NapCat | URL, `get_image`, rkey, image stream, `get_msg` | `get_record` (mp3, always base64), URL, record stream | URL, `get_file`, stream, `get_msg` | URL, `download_file_stream`, `get_file` |
//! | SnowLuma | URL, `get_image` (a re-signed URL), rkey, image stream, `get_msg` | `get_record` (mp3, base64), URL, record stream | URL, stream, `get_msg` | URL, `download_file_stream` |
//! | LLOneBot | URL, `get_image`, `get_msg` | `get_record` (mp3), URL | URL, `get_file`, `get_msg` | URL, `get_file` |
//! | Lagrange | URL, `get_msg` (it has no media actions) | URL, `get_msg` | URL, `get_msg` | URL |
//! | go-cqhttp | URL, `get_image`, `get_msg` | URL, `get_msg` | URL, `get_msg` | URL |
//! | generic | URL, `get_image` / `get_record` / `get_file`, `get_msg` | | | |
//!
//! A lookup answer is used as `base64` when it has one, else as an http(s)
//! URL (`url`, or `file` when it is one), else as a path on the peer's host,
//! which is read only through the account's `shared_dir` (a path of another
//! host is useless across containers). Stream downloads keep their echo
//! registered until the last frame over the WebSocket link; over HTTP the
//! frames come in one response, separated by blank lines.

use base64::Engine as _;
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::inner::Inner;
use super::routing::Route;
use crate::flavor::Flavor;
use crate::retcode::{self, Via};
use crate::transport::body::ParamsJson;
use crate::transport::pending::Answer;
use crate::transport::ws::LinkError;
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::media::is_http_url;
use onebot_gateway_domain::model::{Message, ReceivedKind, ReceivedMedia};
use onebot_gateway_domain::ports::{MediaSink, MediaStep, PeerMedia};

/// Bytes of decoded base64 handed to the sink at once.
const WRITE_CHUNK: usize = 256 * 1024;

/// Chunk size asked of stream downloads.
const STREAM_CHUNK: u64 = 256 * 1024;

/// The steps for `media` on `flavor`, in order.
pub(super) fn steps(flavor: Flavor, media: &ReceivedMedia) -> Vec<MediaStep> {
    use MediaStep::{Lookup, Reread, Resign, SegmentUrl, Stream};
    match (flavor, media.kind) {
        (Flavor::NapCat | Flavor::SnowLuma, ReceivedKind::Image) => {
            vec![SegmentUrl, Lookup, Resign, Stream, Reread]
        }
        (Flavor::NapCat | Flavor::SnowLuma, ReceivedKind::Record) => {
            vec![Lookup, SegmentUrl, Stream]
        }
        (Flavor::NapCat, ReceivedKind::Video) => vec![SegmentUrl, Lookup, Stream, Reread],
        (Flavor::SnowLuma, ReceivedKind::Video) => vec![SegmentUrl, Stream, Reread],
        (Flavor::NapCat, ReceivedKind::File) => vec![SegmentUrl, Stream, Lookup],
        (Flavor::SnowLuma, ReceivedKind::File) => vec![SegmentUrl, Stream],
        (Flavor::LlOneBot | Flavor::Generic, ReceivedKind::Record) => vec![Lookup, SegmentUrl],
        (Flavor::LlOneBot | Flavor::Generic, ReceivedKind::File) => vec![SegmentUrl, Lookup],
        (Flavor::LlOneBot | Flavor::Generic, _) => vec![SegmentUrl, Lookup, Reread],
        (Flavor::GoCqhttp, ReceivedKind::Image) => vec![SegmentUrl, Lookup, Reread],
        (Flavor::GoCqhttp | Flavor::Lagrange, ReceivedKind::File) => vec![SegmentUrl],
        (Flavor::GoCqhttp | Flavor::Lagrange, _) => vec![SegmentUrl, Reread],
    }
}

/// The segment's own `data` object, from the message the peer sent (array
/// form), when it can be found.
fn segment_data(media: &ReceivedMedia) -> Option<Map<String, Value>> {
    let v: Value = serde_json::from_str(media.raw.text()).ok()?;
    let segs = v.get("message")?.as_array()?;
    let seg = segs
        .iter()
        .filter(|s| s.get("type").and_then(Value::as_str).is_some())
        .nth(media.index)?;
    (seg.get("type").and_then(Value::as_str) == Some(media.kind.name()))
        .then(|| seg.get("data").and_then(Value::as_object).cloned())
        .flatten()
}

/// The lookup parameters of `media`: `file` (the peer's key), plus
/// `file_id` when the segment has one.
fn key_params(media: &ReceivedMedia) -> Map<String, Value> {
    let data = segment_data(media).unwrap_or_default();
    let mut params = Map::new();
    params.insert("file".into(), json!(media.file));
    if let Some(id) = data
        .get("file_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
    {
        params.insert("file_id".into(), json!(id));
    }
    params
}

fn unsupported(detail: impl Into<String>) -> Error {
    Error::new(Kind::UnsupportedByPeer, detail.into())
}

async fn write_all(sink: &mut dyn MediaSink, bytes: &[u8]) -> Result<()> {
    if bytes.len() as u64 > sink.limit() {
        return Err(Error::new(
            Kind::MediaTooLarge,
            format!("the media is larger than {} bytes", sink.limit()),
        )
        .with("limit_bytes", sink.limit()));
    }
    for chunk in bytes.chunks(WRITE_CHUNK) {
        sink.write(chunk).await?;
    }
    Ok(())
}

fn decode_base64(text: &str) -> Result<Vec<u8>> {
    let text = text.strip_prefix("base64://").unwrap_or(text);
    base64::engine::general_purpose::STANDARD
        .decode(text.trim())
        .map_err(|e| {
            Error::new(
                Kind::OnebotProtocolError,
                format!("the peer's base64 does not decode: {e}"),
            )
        })
}

fn name_of(data: &Value) -> String {
    ["file_name", "filename", "name"]
        .iter()
        .find_map(|k| data.get(*k).and_then(Value::as_str))
        .unwrap_or_default()
        .to_string()
}

/// `rkey` of a signed URL replaced by `rkey` (given with or without its
/// `&rkey=` prefix).
fn resigned(url: &str, rkey: &str) -> Option<String> {
    let rkey = rkey
        .trim_start_matches('&')
        .trim_start_matches('?')
        .trim_start_matches("rkey=");
    let mut parsed = url::Url::parse(url).ok()?;
    let pairs: Vec<(String, String)> = parsed
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if !pairs.iter().any(|(k, _)| k == "rkey") {
        return None;
    }
    parsed
        .query_pairs_mut()
        .clear()
        .extend_pairs(pairs.iter().map(|(k, v)| {
            if k == "rkey" {
                (k.as_str(), rkey)
            } else {
                (k.as_str(), v.as_str())
            }
        }));
    Some(parsed.to_string())
}

impl Inner {
    /// Runs one peer step for `media`.
    pub(super) async fn fetch_media(
        &self,
        media: &ReceivedMedia,
        step: MediaStep,
        sink: &mut dyn MediaSink,
        deadline: Deadline,
    ) -> Result<PeerMedia> {
        match step {
            MediaStep::Lookup => self.lookup(media, sink, deadline).await,
            MediaStep::Stream => self.stream(media, sink, deadline).await,
            MediaStep::Resign => self.resign(media, deadline).await,
            MediaStep::SegmentUrl | MediaStep::Reread => Err(Error::internal(format!(
                "the {} step is not the peer's",
                step.name()
            ))),
        }
    }

    async fn lookup(
        &self,
        media: &ReceivedMedia,
        sink: &mut dyn MediaSink,
        deadline: Deadline,
    ) -> Result<PeerMedia> {
        let flavor = self.flavor();
        let mut params = key_params(media);
        let action = match media.kind {
            ReceivedKind::Image => "get_image",
            ReceivedKind::Record => {
                // NapCat's schema requires `out_format`; mp3 is what every
                // converting peer offers.
                params.insert("out_format".into(), json!("mp3"));
                "get_record"
            }
            ReceivedKind::Video | ReceivedKind::File => "get_file",
        };
        if matches!(flavor, Flavor::Lagrange)
            || (flavor == Flavor::GoCqhttp && media.kind != ReceivedKind::Image)
        {
            return Err(unsupported(format!("{flavor} has no {action}")));
        }
        let data = self
            .call_action(action, Value::Object(params), deadline)
            .await?;
        let mut name = name_of(&data);
        if let Some(b64) = data
            .get("base64")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            let bytes = decode_base64(b64)?;
            write_all(sink, &bytes).await?;
            if media.kind == ReceivedKind::Record {
                // The converted audio: name it by its format.
                let stem = name
                    .rsplit_once('.')
                    .map_or(name.as_str(), |(s, _)| s)
                    .to_string();
                let stem = if stem.is_empty() {
                    "voice".to_string()
                } else {
                    stem
                };
                name = format!("{stem}.mp3");
            }
            return Ok(PeerMedia::Written { file_name: name });
        }
        for key in ["url", "file"] {
            if let Some(u) = data
                .get(key)
                .and_then(Value::as_str)
                .filter(|u| is_http_url(u))
            {
                return Ok(PeerMedia::Url(u.to_string()));
            }
        }
        let path = data
            .get("file")
            .and_then(Value::as_str)
            .or_else(|| data.get("url").and_then(Value::as_str))
            .unwrap_or_default();
        let path = path.strip_prefix("file://").unwrap_or(path);
        if !path.is_empty()
            && let Some(bytes) = self.read_shared(path).await?
        {
            write_all(sink, &bytes).await?;
            return Ok(PeerMedia::Written { file_name: name });
        }
        Err(unsupported(format!(
            "{action} answered a path on the peer's own host ({path:?}), which the gateway cannot read: configure accounts.{}.shared_dir to share it",
            self.id
        ))
        .with("action", action))
    }

    /// The bytes of `path` on the peer's host, through the shared
    /// directory; `None` without one or outside it.
    async fn read_shared(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let Some(shared) = &self.cfg.shared_dir else {
            return Ok(None);
        };
        let Ok(rel) = std::path::Path::new(path).strip_prefix(&shared.peer) else {
            return Ok(None);
        };
        let local = shared.local.join(rel);
        let root = shared.local.clone();
        tokio::task::spawn_blocking(move || {
            let canonical = std::fs::canonicalize(&local).ok();
            let root = std::fs::canonicalize(&root).ok();
            match (canonical, root) {
                (Some(c), Some(r)) if c.starts_with(&r) => Ok(std::fs::read(&c).ok()),
                _ => Ok(None),
            }
        })
        .await
        .map_err(|e| Error::internal(format!("reading a shared file failed: {e}")))?
    }

    async fn resign(&self, media: &ReceivedMedia, deadline: Deadline) -> Result<PeerMedia> {
        let flavor = self.flavor();
        let action = match flavor {
            Flavor::NapCat => "nc_get_rkey",
            Flavor::SnowLuma => "get_rkey",
            _ => return Err(unsupported(format!("{flavor} cannot re-sign URLs"))),
        };
        if !is_http_url(&media.url) {
            return Err(unsupported("the segment has no URL to re-sign"));
        }
        let data = self.call_action(action, json!({}), deadline).await?;
        // Types 10 (private) and 20 (group) sign images; the URL's appid
        // says which (1406 private, 1407 group).
        let want = if media.url.contains("appid=1406") {
            10
        } else {
            20
        };
        let rkey = data
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|k| {
                let t = k.get("type").and_then(|t| {
                    t.as_i64()
                        .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
                })?;
                Some((t, k.get("rkey")?.as_str()?.to_string()))
            })
            .find(|(t, _)| *t == want)
            .map(|(_, r)| r)
            .ok_or_else(|| unsupported(format!("{action} gave no key of type {want}")))?;
        resigned(&media.url, &rkey)
            .map(PeerMedia::Url)
            .ok_or_else(|| unsupported("the segment's URL carries no rkey"))
    }

    async fn stream(
        &self,
        media: &ReceivedMedia,
        sink: &mut dyn MediaSink,
        deadline: Deadline,
    ) -> Result<PeerMedia> {
        let flavor = self.flavor();
        if !matches!(flavor, Flavor::NapCat | Flavor::SnowLuma) {
            return Err(unsupported(format!("{flavor} has no stream downloads")));
        }
        let mut params = key_params(media);
        let action = match media.kind {
            ReceivedKind::Image => "download_file_image_stream",
            ReceivedKind::Record => {
                if flavor == Flavor::NapCat {
                    params.insert("out_format".into(), json!("mp3"));
                }
                "download_file_record_stream"
            }
            ReceivedKind::Video | ReceivedKind::File => "download_file_stream",
        };
        params.insert("chunk_size".into(), json!(STREAM_CHUNK));
        let route = self.route(action, deadline).await?;
        let link = match route {
            Route::Ws(link) => link,
            Route::Http(http) => {
                return self
                    .stream_http(&http, action, params, sink, deadline)
                    .await;
            }
        };
        let per_frame = self.cfg.request_timeout();
        let overall = deadline.instant();
        let next_deadline = || {
            let at = Instant::now() + per_frame;
            overall.map_or(at, |o| o.min(at))
        };
        let params = ParamsJson::new(Value::Object(params));
        let mut call = link
            .call_stream(self.next_echo(), action, &params, next_deadline())
            .await
            .map_err(|e| self.link_error(action, e, per_frame))?;
        let mut name = String::new();
        loop {
            let frame = match tokio::time::timeout_at(next_deadline(), call.next()).await {
                Ok(Answer::Reply(reply)) => reply
                    .into_frame()
                    .map_err(|e| retcode::unreadable_reply(action, &e))?,
                Ok(Answer::Lost) => {
                    return Err(self.link_error(action, LinkError::Lost, per_frame));
                }
                Err(_) => {
                    return Err(self.link_error(
                        action,
                        LinkError::Timeout { sent: true },
                        per_frame,
                    ));
                }
            };
            let data = retcode::classify_frame(flavor, Via::Ws, action, frame)?.into_value();
            let kind = data.get("type").and_then(Value::as_str).unwrap_or_default();
            let data_type = data
                .get("data_type")
                .and_then(Value::as_str)
                .unwrap_or_default();
            match (kind, data_type) {
                ("stream", "file_info") => name = name_of(&data),
                ("stream", "file_chunk") => {
                    let chunk = data.get("data").and_then(Value::as_str).unwrap_or_default();
                    sink.write(&decode_base64(chunk)?).await?;
                }
                ("response", _) => {
                    if name.is_empty() {
                        name = name_of(&data);
                    }
                    return Ok(PeerMedia::Written { file_name: name });
                }
                _ => {
                    return Err(Error::new(
                        Kind::OnebotProtocolError,
                        format!("{action}: unexpected frame {kind:?}/{data_type:?}"),
                    )
                    .with("action", action));
                }
            }
        }
    }

    /// A stream action over HTTP: the frames come in one response.
    async fn stream_http(
        &self,
        http: &crate::transport::http::HttpTransport,
        action: &str,
        params: Map<String, Value>,
        sink: &mut dyn MediaSink,
        deadline: Deadline,
    ) -> Result<PeerMedia> {
        let flavor = self.flavor();
        let limit = self.cfg.request_timeout();
        let timeout = deadline.remaining().map_or(limit, |r| r.min(limit));
        // Base64 takes 4/3, each frame's envelope a little more.
        let max_body =
            usize::try_from(sink.limit().saturating_mul(3) / 2 + (1 << 20)).unwrap_or(usize::MAX);
        let params = ParamsJson::new(Value::Object(params));
        let (status, frames) = http
            .call_frames(action, &params, timeout, max_body)
            .await
            .map_err(|e| self.http_error(action, e, timeout))?;
        let mut name = String::new();
        for frame in frames {
            let data =
                retcode::classify_frame(flavor, Via::Http(status), action, frame)?.into_value();
            match (
                data.get("type").and_then(Value::as_str).unwrap_or_default(),
                data.get("data_type")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ) {
                ("stream", "file_info") => name = name_of(&data),
                ("stream", "file_chunk") => {
                    let chunk = data.get("data").and_then(Value::as_str).unwrap_or_default();
                    sink.write(&decode_base64(chunk)?).await?;
                }
                ("response", _) => {
                    if name.is_empty() {
                        name = name_of(&data);
                    }
                    return Ok(PeerMedia::Written { file_name: name });
                }
                (kind, data_type) => {
                    return Err(Error::new(
                        Kind::OnebotProtocolError,
                        format!("{action}: unexpected frame {kind:?}/{data_type:?}"),
                    )
                    .with("action", action));
                }
            }
        }
        Err(Error::new(
            Kind::OnebotProtocolError,
            format!("{action}: the answer ended before the download completed"),
        )
        .with("action", action))
    }

    /// The message `message_id` by `get_msg`; a peer that does not know it
    /// fails with `MediaNotFound` carrying its text.
    pub(super) async fn media_message(
        &self,
        message_id: i64,
        deadline: Deadline,
    ) -> Result<Message> {
        // Read afresh (never from a cache): the answer's URLs are signed now.
        self.read_message(message_id, None, deadline)
            .await
            .map_err(|e| match e.kind {
                Kind::OnebotActionFailed
                | Kind::OnebotBadRequest
                | Kind::OnebotActionUnknown
                | Kind::MessageNotFound => {
                    let peer = e.meta("peer_message").unwrap_or_default().to_string();
                    let mut err = Error::new(
                        Kind::MediaNotFound,
                        format!("the peer does not know message {message_id}: {}", e.message),
                    )
                    .with("message_id", message_id);
                    if !peer.is_empty() {
                        err = err.with("peer_message", peer);
                    }
                    err
                }
                _ => e,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rkeys_replace_the_url_s_own() {
        let url = "https://multimedia.nt.qq.com.cn/download?appid=1407&fileid=abc&rkey=OLD";
        assert_eq!(
            resigned(url, "&rkey=NEW").as_deref(),
            Some("https://multimedia.nt.qq.com.cn/download?appid=1407&fileid=abc&rkey=NEW")
        );
        assert_eq!(resigned("https://x.qq.com/a.jpg", "k"), None);
    }
}
