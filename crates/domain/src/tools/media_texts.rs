//! The texts of media failures: what a send or an upload carries, where a
//! media string points, and received media that is gone.

use onebot_gateway_config::Locale;

use super::error_texts::Context;
use super::texts::pick;
use crate::error::{Error, Kind};
use crate::media::ids::MediaIds;

/// How an agent sends a picture from its own machine, closing every text
/// that refuses a local path.
const LOCAL_MEDIA_ZH: &str = "若要发送本机图片：先用 UploadMedia 上传，传 media:<id>；或通过 stdio 桥（onebot-gateway mcp）传本地绝对路径。";
const LOCAL_MEDIA_EN: &str = "To send a picture from your own machine: upload it with UploadMedia and pass media:<id>, or pass its absolute path through the stdio bridge (onebot-gateway mcp).";

/// What a send or an upload carries: empty or oversized content, media of the
/// wrong type, size or checksum, media that is gone.
pub(super) fn content_text(err: &Error, c: &Context, locale: Locale) -> String {
    let Context {
        retry_zh, retry_en, ..
    } = c;
    let msg = &err.message;
    match err.kind {
        Kind::EmptyMessage => pick(
            locale,
            "内容为空：text、images、videos、file、replyTo、mentions 至少要提供一个。".to_owned(),
            "nothing to send: give at least one of text, images, videos, file, replyTo, mentions."
                .to_owned(),
        ),
        Kind::TextTooLong => pick(
            locale,
            "文本过长：单次最多 20000 个字符。".to_owned(),
            "text too long: at most 20000 characters per call.".to_owned(),
        ),
        Kind::TooManyImages => pick(
            locale,
            "图片过多：单次最多 4 张。".to_owned(),
            "too many images: at most 4 per call.".to_owned(),
        ),
        Kind::TooManyVideos => pick(
            locale,
            "视频过多：单次最多 1 个。".to_owned(),
            "too many videos: at most 1 per call.".to_owned(),
        ),
        Kind::MediaTooLarge => pick(
            locale,
            format!("媒体超过大小上限：{msg}"),
            format!("media too large: {msg}"),
        ),
        Kind::MediaTypeMismatch => pick(
            locale,
            format!("媒体格式不符：{msg}"),
            format!("media of the wrong type: {msg}"),
        ),
        Kind::MediaNotFound => media_not_found_text(err, locale),
        Kind::MediaChecksumMismatch => pick(
            locale,
            "上传内容的 SHA-256 与声明的不一致。".to_owned(),
            "the upload's SHA-256 differs from the declared one.".to_owned(),
        ),
        Kind::MediaSizeMismatch => pick(
            locale,
            "上传内容的大小与声明的不一致。".to_owned(),
            "the upload's size differs from the declared one.".to_owned(),
        ),
        Kind::UploadHeaderMissing => pick(
            locale,
            "上传流必须先发送头部。".to_owned(),
            "the upload stream must start with a header.".to_owned(),
        ),
        Kind::UploadHeaderRepeated => pick(
            locale,
            "上传流只能有一个头部。".to_owned(),
            "the upload stream may carry only one header.".to_owned(),
        ),
        Kind::StagingQuotaExceeded => pick(
            locale,
            format!("媒体暂存空间已满，{retry_zh}"),
            format!("the media staging area is full.{retry_en}"),
        ),
        Kind::MediaDownloadFailed => pick(
            locale,
            format!("无法取得该媒体的内容：{msg}"),
            format!("the media's bytes could not be fetched: {msg}"),
        ),
        other => unreachable!("{other:?} is not routed to content_text"),
    }
}

/// Where a media string points: URLs and paths on the gateway's machine.
pub(super) fn source_text(err: &Error, locale: Locale) -> String {
    let meta = |key: &str| err.meta(key).unwrap_or_default().to_owned();
    let msg = &err.message;
    match err.kind {
        Kind::UrlForbidden => pick(
            locale,
            format!("出于安全原因不允许访问该 URL（回环、内网、链路本地或元数据地址）：{msg}"),
            format!(
                "URL refused for safety (loopback, private, link-local or metadata address): {msg}"
            ),
        ),
        Kind::UrlFetchFailed => {
            let detail = meta("detail");
            pick(
                locale,
                format!("网关下载该 URL 失败，原因：「{detail}」。请检查 URL 是否可以公开访问。"),
                format!(
                    "the gateway could not fetch the URL: {detail}. Check that the URL is publicly reachable."
                ),
            )
        }
        Kind::PathForbidden => pick(
            locale,
            format!(
                "路径不在允许的媒体目录（media.media_roots）之下，或不存在：{}。{LOCAL_MEDIA_ZH}",
                meta("path")
            ),
            format!(
                "the path is outside the allowed media roots (media.media_roots) or does not exist: {}. {LOCAL_MEDIA_EN}",
                meta("path")
            ),
        ),
        Kind::PathNotFound => pick(
            locale,
            format!(
                "该路径在媒体目录之下，但不是可读的普通文件（目录、管道或设备文件）：{}。{LOCAL_MEDIA_ZH}",
                meta("path")
            ),
            format!(
                "the path under the media roots is not a readable regular file (a directory, FIFO or device): {}. {LOCAL_MEDIA_EN}",
                meta("path")
            ),
        ),
        Kind::MediaSourceDisabled => pick(
            locale,
            format!(
                "网关未开启服务器本地路径这种媒体来源（需要运维配置 media.media_roots）。{LOCAL_MEDIA_ZH}"
            ),
            format!(
                "paths on the gateway's machine are disabled (they need media.media_roots). {LOCAL_MEDIA_EN}"
            ),
        ),
        other => unreachable!("{other:?} is not routed to source_text"),
    }
}

/// The text of a `MediaNotFound`: an upload id that is gone is uploaded
/// again; media that was received never is (it is fetched from QQ again,
/// or QQ no longer has it), and the text says which by the error's
/// `cause`.
fn media_not_found_text(err: &Error, locale: Locale) -> String {
    let meta = |key: &str| err.meta(key).unwrap_or_default().to_owned();
    let media_id = meta("media_id");
    let message_id = meta("message_id");
    let cause = err
        .meta("cause")
        .or_else(|| err.meta("gone"))
        .unwrap_or_default();
    let received = MediaIds::is_received(&media_id) || !cause.is_empty();
    if !received && message_id.is_empty() {
        return pick(
            locale,
            "媒体不存在或已过期，请重新调用 UploadMedia 上传。".to_owned(),
            "media not found or expired; upload it again with UploadMedia.".to_owned(),
        );
    }
    let (subject_zh, subject_en) = if media_id.is_empty() {
        (
            format!("消息 {message_id} 中的媒体"),
            format!("the media of message {message_id}"),
        )
    } else {
        (
            format!("收到的媒体 {media_id}"),
            format!("the received media {media_id}"),
        )
    };
    let again_zh = "可以用 messageId 和 segmentIndex 让网关重新从 QQ 获取。";
    let again_en = "Ask for it by messageId and segmentIndex to fetch it from QQ again.";
    let sending = err.meta("field").is_some();
    let then_zh = if sending { "取得后再发送。" } else { "" };
    let then_en = if sending { " Then send it." } else { "" };
    match cause {
        "expired" => pick(
            locale,
            format!(
                "{subject_zh}已从网关的媒体存储中过期（media.capture.ttl_secs）。{again_zh}{then_zh}"
            ),
            format!(
                "{subject_en} expired from the gateway's media store (media.capture.ttl_secs). {again_en}{then_en}"
            ),
        ),
        "evicted" => pick(
            locale,
            format!(
                "{subject_zh}为腾出空间已被清出网关的媒体存储（media.capture.quota_bytes）。{again_zh}{then_zh}"
            ),
            format!(
                "{subject_en} was evicted from the gateway's media store to make room (media.capture.quota_bytes). {again_en}{then_en}"
            ),
        ),
        "file_gone" => pick(
            locale,
            format!("网关保存的{subject_zh}的文件已丢失。{again_zh}{then_zh}"),
            format!("the gateway's kept file of {subject_en} is gone. {again_en}{then_en}"),
        ),
        "never_captured" => pick(
            locale,
            format!(
                "{subject_zh}不是这个账号收到的消息里的媒体，网关从未取得过它：请用本账号消息里媒体段的 mediaId，或用 messageId 和 segmentIndex。"
            ),
            format!(
                "{subject_en} is not from a message this account received; the gateway never captured it. Use the mediaId of a media segment of this account's messages, or messageId and segmentIndex."
            ),
        ),
        "not_fetched" => pick(
            locale,
            format!(
                "{subject_zh}还没有被网关取得过，无法直接转发：先用 qq_get_media 获取一次，再发送。"
            ),
            format!(
                "the gateway has not fetched {subject_en} yet, so it cannot be forwarded: get it once with qq_get_media, then send it."
            ),
        ),
        "not_kept" => pick(
            locale,
            format!(
                "本网关不保存收到的媒体（媒体捕获未开启），无法按 id 转发{subject_zh}：请改用 URL 或本地文件发送。"
            ),
            format!(
                "this gateway keeps no received media (media capture is off), so {subject_en} cannot be forwarded by id: send it by URL or file instead."
            ),
        ),
        "peer_forgot" => pick(
            locale,
            format!(
                "QQ 已不再保留消息 {message_id}（已撤回、太旧，或协议端已找不到它），无法取得其中的媒体。"
            ),
            format!(
                "QQ no longer has message {message_id} (recalled, too old, or the implementation cannot find it); its media cannot be fetched."
            ),
        ),
        "no_segment" => {
            let (segments, index) = (meta("segments"), meta("segment_index"));
            pick(
                locale,
                format!(
                    "消息 {message_id} 只有 {segments} 个消息段，没有第 {index} 段（从 0 开始计）。"
                ),
                format!(
                    "message {message_id} has {segments} segments; there is no segment {index} (counted from 0)."
                ),
            )
        }
        _ => pick(
            locale,
            format!("{subject_zh}已不在网关中，QQ 也可能已不再保留它。{again_zh}"),
            format!(
                "{subject_en} is no longer in the gateway, and QQ may no longer have it. {again_en}"
            ),
        ),
    }
}
