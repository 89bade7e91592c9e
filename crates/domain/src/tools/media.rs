//! `qq_get_media`: one received media item ([`Gateway::download_media`]):
//! an image as image content, any other kind as a line naming it; and the
//! images `qq_get_history` adds with `includeImages`.

use schemars::JsonSchema;
use std::io::Read as _;

use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{AccountId, Integer, MessageId, account_rule, message_id_rule};
use super::output::{ToolOutput, domain_failure};
use super::texts::Failure;
use crate::call::CallCtx;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::{Message, ReceivedKind, Segment};
use crate::read::download::{Download, DownloadRequest, DownloadTarget};
use crate::render;
use onebot_gateway_config::Locale;

/// Most images `qq_get_history` returns with `includeImages`.
pub const MAX_HISTORY_IMAGES: usize = 4;
/// Largest image `qq_get_history` returns, in bytes.
pub const MAX_HISTORY_IMAGE_BYTES: u64 = 2 * 1024 * 1024;

/// The `properties` and `required` of the details' ok shape (the registry
/// adds `status`).
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "mediaId": {"type": "string", "minLength": 1},
            "kind": {"enum": ["image", "record", "video", "file"]},
            "mimeType": {"type": "string", "minLength": 1},
            "size": {"type": "integer", "minimum": 0},
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "fileName": {"type": "string"}
        }),
        json!([
            "status", "mediaId", "kind", "mimeType", "size", "sha256", "fileName"
        ]),
    )
}

/// The arguments object of `qq_get_media` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct MediaInput {
    /// The mediaId of a received segment (or an UploadMedia id).
    #[schemars(length(min = 1))]
    pub media_id: Option<String>,
    #[doc = concat!("The message, with segmentIndex, instead of mediaId. ", message_id_rule!())]
    pub message_id: Option<MessageId>,
    /// 0-based index of the segment in the message.
    #[schemars(range(min = 0), extend("default" = 0))]
    pub segment_index: Option<Integer>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_get_media`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaArgs {
    /// Account id.
    pub account_id: String,
    /// What to get.
    pub target: DownloadTarget,
}

impl MediaArgs {
    /// `mediaId`, or `messageId` (with `segmentIndex`, default 0).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        let account_id = args.account_id()?;
        if let Some(id) = args
            .optional_string("mediaId")?
            .filter(|s| !s.trim().is_empty())
        {
            return Ok(Self {
                account_id,
                target: DownloadTarget::MediaId(id.trim().to_string()),
            });
        }
        let message_id = args
            .message_id("messageId")?
            .ok_or(ArgError::Missing("mediaId"))?;
        let index = args.signed_int("segmentIndex")?.unwrap_or(0);
        let segment_index = i32::try_from(index).map_err(|_| ArgError::WrongType {
            field: "segmentIndex",
            expected: super::arg_error::Expected::NumberOrNumericString,
        })?;
        Ok(Self {
            account_id,
            target: DownloadTarget::Message {
                message_id,
                segment_index,
            },
        })
    }
}

/// The bytes of a download, read whole (at most `max` bytes).
async fn read_all(download: Download, max: u64) -> Result<bytes::Bytes> {
    if download.header.size > max {
        return Err(Error::new(
            Kind::MediaTooLarge,
            format!("the image is larger than {max} bytes"),
        )
        .with("limit_bytes", max));
    }
    let file = download.file;
    tokio::task::spawn_blocking(move || {
        let mut buf = Vec::new();
        file.take(max)
            .read_to_end(&mut buf)
            .map_err(|e| Error::internal(format!("reading the media: {e}")))?;
        Ok(bytes::Bytes::from(buf))
    })
    .await
    .map_err(|e| Error::internal(format!("reading the media failed: {e}")))?
}

fn kind_label(kind: ReceivedKind) -> &'static str {
    match kind {
        ReceivedKind::Image => "图片",
        ReceivedKind::Record => "语音",
        ReceivedKind::Video => "视频",
        ReceivedKind::File => "文件",
    }
}

/// Runs the tool.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = MediaArgs::parse(args).map_err(Failure::Args)?;
    let download = gw
        .download_media(
            DownloadRequest {
                account_id: args.account_id.clone(),
                target: Some(args.target),
            },
            ctx,
        )
        .await
        .map_err(domain_failure(&args.account_id))?;
    let h = download.header.clone();
    let name = if h.file_name.is_empty() {
        String::new()
    } else {
        format!("，文件名 {}", render::sanitize_name(&h.file_name))
    };
    let text = format!(
        "[{}] 媒体 {}：{}，{}，{} 字节{name}",
        kind_label(h.kind),
        h.media_id,
        h.kind.name(),
        h.mime,
        h.size
    );
    let details = json!({
        "status": "ok",
        "mediaId": h.media_id,
        "kind": h.kind.name(),
        "mimeType": h.mime,
        "size": h.size,
        "sha256": h.sha256,
        "fileName": h.file_name,
    });
    let output = ToolOutput::ok(text, details);
    if h.kind != ReceivedKind::Image || !h.mime.starts_with("image/") {
        return Ok(output);
    }
    let max = gw.received().limit(ReceivedKind::Image);
    let data = read_all(download, max)
        .await
        .map_err(domain_failure(&args.account_id))?;
    Ok(output.with_images([(h.mime, data)]))
}

/// One image `qq_get_history` returns.
#[derive(Debug, Clone)]
pub struct HistoryImage {
    /// Its number in the content (1 = the newest).
    pub n: usize,
    /// The message.
    pub message_id: i64,
    /// The segment.
    pub index: usize,
    /// The details entry.
    pub details: Value,
    /// MIME type and bytes.
    pub image: (String, bytes::Bytes),
}

/// The images of `messages` (oldest first), newest first: at most
/// [`MAX_HISTORY_IMAGES`], each at most [`MAX_HISTORY_IMAGE_BYTES`]; an image
/// that cannot be fetched or is larger is left out.
pub(super) async fn history_images(
    gw: &Gateway,
    account_id: &str,
    messages: &[Message],
    ctx: &CallCtx,
) -> Vec<HistoryImage> {
    let mut out = Vec::new();
    'messages: for m in messages.iter().rev() {
        for (index, seg) in m.segments.iter().enumerate().rev() {
            if !matches!(seg, Segment::Image { .. }) {
                continue;
            }
            if out.len() >= MAX_HISTORY_IMAGES {
                break 'messages;
            }
            let req = DownloadRequest {
                account_id: account_id.to_string(),
                target: Some(DownloadTarget::Message {
                    message_id: m.message_id,
                    segment_index: i32::try_from(index).unwrap_or(i32::MAX),
                }),
            };
            let got = match gw.download_media(req, ctx.clone()).await {
                Ok(d) => {
                    let h = d.header.clone();
                    read_all(d, MAX_HISTORY_IMAGE_BYTES).await.map(|b| (h, b))
                }
                Err(e) => Err(e),
            };
            match got {
                Ok((h, data)) if h.mime.starts_with("image/") => {
                    let n = out.len() + 1;
                    out.push(HistoryImage {
                        n,
                        message_id: m.message_id,
                        index,
                        details: json!({
                            "n": n,
                            "messageId": m.message_id,
                            "segmentIndex": index,
                            "mediaId": h.media_id,
                            "mimeType": h.mime,
                            "size": h.size,
                        }),
                        image: (h.mime, data),
                    });
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::debug!(message_id = m.message_id, index, error = %e, "history image left out");
                }
            }
        }
    }
    out
}

/// The history text with each returned image's `[图片]` marked `[图片#<n>]`;
/// quotes as the history renders them in `locale` (`[回复 名字: 文本]`).
pub fn marked_history(
    messages: &[Message],
    images: &[HistoryImage],
    tz: &jiff::tz::TimeZone,
    locale: Locale,
) -> String {
    if messages.is_empty() {
        return render::NO_HISTORY.to_owned();
    }
    messages
        .iter()
        .map(|m| {
            let text: String = m
                .segments
                .iter()
                .enumerate()
                .filter_map(|(i, seg)| {
                    match (
                        images
                            .iter()
                            .find(|img| img.message_id == m.message_id && img.index == i),
                        seg,
                    ) {
                        (Some(img), _) => Some(format!("[图片#{}]", img.n)),
                        (None, Segment::Reply { quoted, .. }) => {
                            Some(render::reply(quoted.as_deref(), locale))
                        }
                        (None, _) => render::segment(seg),
                    }
                })
                .collect();
            format!(
                "[{}] {}({}): {}",
                render::clock(m.time, tz),
                render::sender_name(&m.sender),
                m.sender.user_id,
                render::single_line(&text)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
