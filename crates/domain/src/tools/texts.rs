//! The texts a model reads when a tool call fails, in Chinese (the default)
//! or English (`tools.locale`).
//!
//! Every domain [`Kind`] has a text (one exhaustive match, no wildcard), so a
//! new kind does not build until someone decides what the model reads. The
//! dynamic values come from the error's metadata; a peer's own failure text
//! (`peer_message`) is passed on verbatim.

use crate::error::{Error, Kind};
use crate::media::ids::MediaIds;
use onebot_gateway_config::Locale;

use super::args::{ArgError, Expected};

/// How an agent sends a picture from its own machine, closing every text
/// that refuses a local path.
const LOCAL_MEDIA_ZH: &str = "若要发送本机图片：先用 UploadMedia 上传，传 media:<id>；或通过 stdio 桥（onebot-gateway mcp）传本地绝对路径。";
const LOCAL_MEDIA_EN: &str = "To send a picture from your own machine: upload it with UploadMedia and pass media:<id>, or pass its absolute path through the stdio bridge (onebot-gateway mcp).";

/// Why a call failed; rendered by [`failure_text`].
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// No tool has this name or alias.
    UnknownTool {
        /// The name asked for.
        name: String,
        /// The tools this deployment offers.
        available: Vec<&'static str>,
    },
    /// A write tool called while `tools.write_enabled` is false.
    WriteDisabled(&'static str),
    /// The arguments were refused before any peer call.
    Args(ArgError),
    /// The domain (or the peer behind it) failed.
    Domain(Error),
}

/// Picks the text of `locale`.
fn pick(locale: Locale, zh: String, en: String) -> String {
    match locale {
        Locale::Zh => zh,
        Locale::En => en,
    }
}

/// The text of a failure in `locale`.
pub fn failure_text(failure: &Failure, locale: Locale) -> String {
    match failure {
        Failure::UnknownTool { name, available } => pick(
            locale,
            format!("未知工具「{name}」。可用工具：{}。", available.join("、")),
            format!(
                "unknown tool {name:?}; available tools: {}.",
                available.join(", ")
            ),
        ),
        Failure::WriteDisabled(name) => pick(
            locale,
            format!("写操作工具 {name} 已被关闭（tools.write_enabled = false），本网关只读。"),
            format!(
                "the write tool {name} is disabled (tools.write_enabled = false); this gateway is read-only."
            ),
        ),
        Failure::Args(err) => arg_text(err, locale),
        Failure::Domain(err) => error_text(err, locale),
    }
}

/// The text of an argument error in `locale`.
pub fn arg_text(err: &ArgError, locale: Locale) -> String {
    match err {
        ArgError::BadJson(detail) => pick(
            locale,
            format!("参数不合法：不是有效的 JSON（{detail}）。"),
            format!("invalid arguments: not valid JSON ({detail})."),
        ),
        ArgError::NotObject => pick(
            locale,
            "参数不合法：参数必须是 JSON 对象。".to_owned(),
            "invalid arguments: the arguments must be a JSON object.".to_owned(),
        ),
        ArgError::Missing(field) => pick(
            locale,
            format!("参数不合法：缺少必填参数 {field}。"),
            format!("invalid arguments: {field} is required."),
        ),
        ArgError::WrongType { field, expected } => {
            let (zh, en) = match expected {
                Expected::String => ("字符串", "a string"),
                Expected::StringArray => ("字符串数组", "an array of strings"),
                Expected::NumberOrNumericString => {
                    ("数字或数字字符串", "a number or a numeric string")
                }
            };
            pick(
                locale,
                format!("参数不合法：{field} 必须是{zh}。"),
                format!("invalid arguments: {field} must be {en}."),
            )
        }
        ArgError::BadTarget(target) => pick(
            locale,
            format!(
                "参数不合法：target「{target}」无法解析，应为 group:<群号>、private:<QQ号> 或纯数字 QQ 号（私聊）。"
            ),
            format!(
                "invalid arguments: cannot parse target {target:?}; use group:<group id>, private:<QQ number> or bare digits (a private chat)."
            ),
        ),
        ArgError::NotFinite { field, value } => pick(
            locale,
            format!("参数不合法：{field} {value} 无法转换成有限数字。"),
            format!("invalid arguments: {field} {value} does not convert to a finite number."),
        ),
        ArgError::NotPositiveInteger { field, value } => pick(
            locale,
            format!("参数不合法：{field} 必须是正整数，收到 {value}。"),
            format!("invalid arguments: {field} must be a positive integer, got {value}."),
        ),
        ArgError::BadSequence { field, value } => pick(
            locale,
            format!("参数不合法：{field} 必须是非负整数（事件序号），收到 {value}。"),
            format!(
                "invalid arguments: {field} must be a non-negative integer (an event sequence), got {value}."
            ),
        ),
        ArgError::BadChat { field, value } => pick(
            locale,
            format!(
                "参数不合法：{field} {value} 应为 group:<群号>、private:<QQ号> 或纯数字 QQ 号（私聊）。"
            ),
            format!(
                "invalid arguments: {field} {value} must be group:<group id>, private:<QQ number> or bare digits (a private chat)."
            ),
        ),
        ArgError::BadTime { field, value } => pick(
            locale,
            format!(
                "参数不合法：{field}「{value}」不是 ISO 8601 时间，例如 2026-11-30T18:00:00+08:00、2026-11-30 18:00 或 2026-11-30。"
            ),
            format!(
                "invalid arguments: {field} {value:?} is not an ISO 8601 time, e.g. 2026-11-30T18:00:00+08:00, 2026-11-30 18:00 or 2026-11-30."
            ),
        ),
        ArgError::BadMessageId { field, value } => pick(
            locale,
            format!("参数不合法：{field} 必须是非 0 的整数消息 id（message_id），收到 {value}。"),
            format!(
                "invalid arguments: {field} must be a non-zero integer message id (message_id), got {value}."
            ),
        ),
        ArgError::Exclusive(a, b) => pick(
            locale,
            format!("参数不合法：{a} 和 {b} 只能给一个。"),
            format!("invalid arguments: give {a} or {b}, not both."),
        ),
        ArgError::BadIdList { field, value } => pick(
            locale,
            format!(
                "参数不合法：{field} 必须是由正整数 QQ 号（数字或数字字符串）组成的数组，{value} 不是。"
            ),
            format!(
                "invalid arguments: {field} must be an array of positive QQ numbers (numbers or numeric strings); {value} is not one."
            ),
        ),
        ArgError::Unknown {
            tool,
            keys,
            accepted,
        } => pick(
            locale,
            format!(
                "参数不合法：{tool} 不接受参数 {}。它接受的参数：{}。",
                keys.join("、"),
                accepted.join("、")
            ),
            format!(
                "invalid arguments: {tool} takes no argument {}; it takes: {}.",
                keys.join(", "),
                accepted.join(", ")
            ),
        ),
        ArgError::EmptyChat(field) => pick(
            locale,
            format!(
                "参数不合法：{field} 不能为 null 或空字符串；请给出会话（group:<群号> 或 private:<QQ号>），或完全不给该参数。"
            ),
            format!(
                "invalid arguments: {field} may not be null or empty; name the chat (group:<group id> or private:<QQ number>) or leave the argument out."
            ),
        ),
        ArgError::Conflict {
            first,
            first_value,
            second,
            second_value,
        } => pick(
            locale,
            format!(
                "参数不合法：{first} {first_value} 与 {second} {second_value} 指向不同的目标，请只给一个。"
            ),
            format!(
                "invalid arguments: {first} {first_value} and {second} {second_value} disagree; give one of them."
            ),
        ),
        ArgError::GroupOnly { tool, target } => pick(
            locale,
            format!("参数不合法：{target} 是私聊，{tool} 只适用于群，请用 group:<群号>。"),
            format!(
                "invalid arguments: {target} is a private chat; {tool} works on groups only: use group:<group id>."
            ),
        ),
        ArgError::MissingChat { aliases } => pick(
            locale,
            format!(
                "参数不合法：缺少必填参数 target（group:<群号> 或 private:<QQ号>；别名 {aliases}）。"
            ),
            format!(
                "invalid arguments: target is required (group:<group id> or private:<QQ number>; aliases {aliases})."
            ),
        ),
        ArgError::BadMedia { field, value } => pick(
            locale,
            format!(
                "参数不合法：{field}「{value}」不是 media:<id>（UploadMedia 返回的 id）、http(s) URL 或绝对路径。"
            ),
            format!(
                "invalid arguments: {field} {value:?} is neither media:<id> (an UploadMedia id), an http(s) URL nor an absolute path."
            ),
        ),
    }
}

/// The text of a domain error in `locale`.
pub fn error_text(err: &Error, locale: Locale) -> String {
    let meta = |key: &str| err.meta(key).unwrap_or_default().to_owned();
    let account = {
        let id = meta("account_id");
        if id.is_empty() {
            "default".to_owned()
        } else {
            id
        }
    };
    let peer = meta("peer_message");
    let retcode = meta("retcode");
    // ` (retcode N)` / `（retcode N）` when the peer sent one.
    let (rc_zh, rc_en) = if retcode.is_empty() {
        (String::new(), String::new())
    } else {
        (
            format!("（retcode {retcode}）"),
            format!(" (retcode {retcode})"),
        )
    };
    // The peer's own words, verbatim, when it sent any.
    let (said_zh, said_en) = if peer.is_empty() {
        ("。".to_owned(), ".".to_owned())
    } else {
        (format!("：{peer}"), format!(": {peer}"))
    };
    let retry = err
        .retry_after
        .map(|d| d.as_secs_f64().ceil().max(1.0) as u64);
    let (retry_zh, retry_en) = match retry {
        Some(s) => (
            format!("请约 {s} 秒后重试。"),
            format!(" Retry in about {s} s."),
        ),
        None => ("请稍后重试。".to_owned(), " Retry later.".to_owned()),
    };
    let group = meta("group_id");
    let msg = &err.message;
    match err.kind {
        Kind::InvalidRequest if err.meta("message_chat").is_some() => {
            let (id, theirs, ours) = (meta("message_id"), meta("message_chat"), meta("target"));
            pick(
                locale,
                format!(
                    "要回复的消息 {id} 属于 {theirs}，而这条消息发往 {ours}：只能回复同一会话里的消息。消息未发送。"
                ),
                format!(
                    "the message to reply to, {id}, is in {theirs}, but this send goes to {ours}: quote a message of the same chat. Nothing was sent."
                ),
            )
        }
        Kind::InvalidRequest => {
            let field = err.field.clone().unwrap_or_default();
            pick(
                locale,
                format!("参数不合法（{field}）：{msg}"),
                format!("invalid arguments ({field}): {msg}"),
            )
        }
        Kind::AccountNotConfigured => pick(
            locale,
            format!("账号「{account}」未配置 ws_url/http_url，无法执行该操作。"),
            format!("account {account:?} has no ws_url/http_url configured; cannot do that."),
        ),
        Kind::AccountOffline => pick(
            locale,
            format!("账号「{account}」当前离线，{retry_zh}"),
            format!("account {account:?} is offline right now.{retry_en}"),
        ),
        Kind::OnebotAuthFailed => pick(
            locale,
            format!(
                "账号「{account}」鉴权失败：OneBot 实现拒绝了 access_token，请检查配置{said_zh}"
            ),
            format!(
                "account {account:?}: the OneBot implementation refused the access token; check the configuration{said_en}"
            ),
        ),
        Kind::OnebotTimeout => {
            let ms = meta("timeout_ms");
            let (zh, en) = if ms.is_empty() {
                (String::new(), String::new())
            } else {
                (format!("在 {ms} 毫秒内"), format!(" within {ms} ms"))
            };
            pick(
                locale,
                format!("请求超时：OneBot 实现{zh}没有响应。"),
                format!("request timed out: the OneBot implementation did not answer{en}."),
            )
        }
        Kind::OnebotBadRequest => pick(
            locale,
            format!("OneBot 实现拒绝了请求参数{rc_zh}{said_zh}"),
            format!("the OneBot implementation rejected the parameters{rc_en}{said_en}"),
        ),
        Kind::OnebotActionUnsupported => pick(
            locale,
            format!("OneBot 实现不支持该操作{rc_zh}{said_zh}"),
            format!("the OneBot implementation does not support this action{rc_en}{said_en}"),
        ),
        Kind::OnebotActionFailed => pick(
            locale,
            format!("OneBot 实现返回失败{rc_zh}{said_zh}"),
            format!("the OneBot implementation failed{rc_en}{said_en}"),
        ),
        Kind::OnebotActionUnknown => pick(
            locale,
            format!("OneBot 实现返回了无法识别的结果{rc_zh}{said_zh}"),
            format!(
                "the OneBot implementation answered with an unexpected outcome{rc_en}{said_en}"
            ),
        ),
        Kind::OnebotProtocolError => pick(
            locale,
            format!("OneBot 实现的响应无法解析：{msg}"),
            format!("the OneBot implementation's answer could not be decoded: {msg}"),
        ),
        Kind::OnebotConnectionLost => pick(
            locale,
            format!("与 OneBot 实现的连接在请求过程中断开，{retry_zh}"),
            format!(
                "the connection to the OneBot implementation dropped during the call.{retry_en}"
            ),
        ),
        Kind::BotMuted => pick(
            locale,
            format!("机器人在该群被禁言，无法发送{said_zh}"),
            format!("the bot is muted in this group{said_en}"),
        ),
        Kind::RemovedFromGroup => pick(
            locale,
            format!("机器人已不在该群中{said_zh}"),
            format!("the bot is no longer a member of this group{said_en}"),
        ),
        Kind::MediaTransferFailed => pick(
            locale,
            format!("OneBot 实现传输媒体失败{said_zh}"),
            format!("the OneBot implementation failed to transfer the media{said_en}"),
        ),
        Kind::SendOutcomeUnknown => pick(
            locale,
            "发送结果未知：消息可能已经送达，请勿盲目重试。".to_owned(),
            "send outcome unknown: the message may have been delivered; do not retry blindly."
                .to_owned(),
        ),
        Kind::RiskControlled => pick(
            locale,
            format!("发送被平台风控拦截{said_zh}"),
            format!("the platform refused the send (risk control){said_en}"),
        ),
        Kind::PokeUnsupported => pick(
            locale,
            format!("协议端不支持戳一戳（group_poke）{said_zh}"),
            format!("the OneBot implementation cannot poke (group_poke){said_en}"),
        ),
        Kind::UnsupportedByPeer => pick(
            locale,
            format!("协议端不支持这种发送方式：{msg}"),
            format!("the OneBot implementation cannot take this: {msg}"),
        ),
        Kind::HistoryUnsupported => pick(
            locale,
            "该 OneBot 实现不支持读取这类会话的历史消息。".to_owned(),
            "this OneBot implementation cannot read the history of this kind of chat.".to_owned(),
        ),
        Kind::GroupNotAllowed => pick(
            locale,
            format!("群 {group} 不在账号「{account}」的白名单中。"),
            format!("group {group} is not in account {account:?}'s whitelist."),
        ),
        Kind::GroupRequired => match err.meta("whitelist") {
            Some("") => pick(
                locale,
                format!("账号「{account}」没有白名单群（groups），无法发送或戳一戳。"),
                format!(
                    "account {account:?} has no whitelisted group (groups); cannot send or poke."
                ),
            ),
            Some(list) => pick(
                locale,
                format!("账号「{account}」有多个白名单群（{list}），请用 groupId 指定一个。"),
                format!(
                    "account {account:?} whitelists several groups ({list}); pick one with groupId."
                ),
            ),
            None => pick(
                locale,
                format!("请用 groupId 指定群：账号「{account}」没有唯一的白名单群。"),
                format!(
                    "groupId is required: account {account:?} has no single whitelisted group."
                ),
            ),
        },
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
        Kind::QueueFull => pick(
            locale,
            format!("账号「{account}」当前离线且发送队列已满，{retry_zh}"),
            format!("account {account:?} is offline and its send queue is full.{retry_en}"),
        ),
        Kind::RateLimited => pick(
            locale,
            format!("发送过于频繁，{retry_zh}"),
            format!("rate limited.{retry_en}"),
        ),
        Kind::IdempotencyKeyReused => pick(
            locale,
            "幂等键已被另一个不同的请求使用。".to_owned(),
            "the idempotency key was used by a different request.".to_owned(),
        ),
        Kind::EventStreamLagged => pick(
            locale,
            "事件订阅落后太多，已被断开。".to_owned(),
            "the event subscriber fell behind and was dropped.".to_owned(),
        ),
        Kind::EventGapTooOld => {
            let (after, oldest) = (meta("after_sequence"), meta("oldest_sequence"));
            if after.is_empty() || oldest.is_empty() {
                pick(
                    locale,
                    "续传位置早于事件缓冲区。".to_owned(),
                    "the resume point is older than the event buffer.".to_owned(),
                )
            } else {
                pick(
                    locale,
                    format!(
                        "续传位置 {after} 早于事件缓冲区（最早保留的事件序号为 {oldest}），其后的部分事件已不在缓冲区中；请不带序号重新开始。"
                    ),
                    format!(
                        "the resume point {after} is older than the event buffer (the oldest buffered event is {oldest}); some events after it are gone. Start again without a sequence."
                    ),
                )
            }
        }
        Kind::ToolsDisabled => pick(
            locale,
            "工具已被运维关闭。".to_owned(),
            "the tools are disabled by the operator.".to_owned(),
        ),
        Kind::Unauthenticated => pick(
            locale,
            "网关鉴权失败：缺少或无效的令牌。".to_owned(),
            "gateway authentication failed: missing or invalid token.".to_owned(),
        ),
        Kind::TokenScope => pick(
            locale,
            "令牌权限不足，无法执行该操作。".to_owned(),
            "the token's scope does not cover this call.".to_owned(),
        ),
        Kind::ShuttingDown => pick(
            locale,
            format!("网关正在关闭，{retry_zh}"),
            format!("the gateway is shutting down.{retry_en}"),
        ),
        Kind::Overloaded => pick(
            locale,
            format!("网关繁忙，{retry_zh}"),
            format!("the gateway is overloaded.{retry_en}"),
        ),
        Kind::Internal => pick(
            locale,
            format!("网关内部错误：{msg}"),
            format!("internal gateway error: {msg}"),
        ),
        Kind::Cancelled => pick(
            locale,
            "请求已取消。".to_owned(),
            "the call was cancelled.".to_owned(),
        ),
        Kind::DeadlineExceeded => pick(
            locale,
            "已超过调用方的截止时间。".to_owned(),
            "the caller's deadline passed.".to_owned(),
        ),
        Kind::RequestTooLarge => pick(
            locale,
            format!("请求过大：{msg}"),
            format!("request too large: {msg}"),
        ),
        Kind::MediaDownloadFailed => pick(
            locale,
            format!("无法取得该媒体的内容：{msg}"),
            format!("the media's bytes could not be fetched: {msg}"),
        ),
        Kind::ArchiveDisabled => pick(
            locale,
            "消息存档未开启（archive.enabled = false），无法搜索消息。".to_owned(),
            "the message archive is off (archive.enabled = false): messages cannot be searched."
                .to_owned(),
        ),
        Kind::GroupNotFound => {
            let group = meta("group_id");
            pick(
                locale,
                format!(
                    "机器人不在群 {group} 中（协议端的群列表里没有这个群），未执行任何操作：请检查群号。"
                ),
                format!(
                    "the bot is not a member of group {group} (the peer's group list does not have it); nothing was done: check the group number."
                ),
            )
        }
        Kind::ChatNotArchived => {
            let target = meta("target");
            pick(
                locale,
                format!(
                    "{target} 不在消息存档范围内（只存档白名单中的群和用户，以及 [archive] chats 配置的会话），搜索它总是没有结果；请用 qq_get_history 读取它的历史消息。"
                ),
                format!(
                    "{target} is not a chat the archive keeps (whitelisted groups and users, and the chats of [archive] chats); searching it would always be empty. Read its history with qq_get_history instead."
                ),
            )
        }
        Kind::UserNotAllowed => {
            let user = meta("user_id");
            pick(
                locale,
                format!("QQ 用户 {user} 不在账号「{account}」的私聊白名单（users）中，不能私聊。"),
                format!(
                    "user {user} is not in account {account:?}'s private whitelist (users); no private chat."
                ),
            )
        }
        Kind::MessageNotFound => {
            let what = meta("forward_id");
            if err.field.as_deref() == Some("reply_to_message_id") {
                let id = meta("message_id");
                pick(
                    locale,
                    format!(
                        "要回复的消息 {id} 不存在：协议端找不到它（已撤回、太旧或从未见过），消息未发送。"
                    ),
                    format!(
                        "the message to reply to, {id}, is unknown to the implementation (recalled, too old or never seen); nothing was sent."
                    ),
                )
            } else if what.is_empty() {
                let id = meta("message_id");
                pick(
                    locale,
                    format!("消息 {id} 不存在：协议端找不到它（已撤回、太旧或从未见过）。"),
                    format!(
                        "message {id} not found: the implementation does not know it (recalled, too old or never seen)."
                    ),
                )
            } else {
                pick(
                    locale,
                    format!("合并转发「{what}」不存在或已过期。"),
                    format!("forward bundle {what:?} not found or expired."),
                )
            }
        }
        Kind::StorageFailed => pick(
            locale,
            format!(
                "网关无法写入数据目录（磁盘满或不可写），本次请求未保存也未发送，稍后重试：{msg}"
            ),
            format!(
                "the gateway cannot write its data directory (disk full or read-only); nothing of this call was stored or sent, retry later: {msg}"
            ),
        ),
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
