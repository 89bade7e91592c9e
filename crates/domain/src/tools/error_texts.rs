//! The texts of domain errors ([`error_text`]), one function per family
//! of kinds.
//!
//! [`error_text`] routes every [`Kind`] to its family in one exhaustive
//! match (no wildcard), so a new kind does not build until someone decides
//! what the model reads. The dynamic values come from the error's
//! metadata; a peer's own failure text (`peer_message`) is passed on
//! verbatim.

use onebot_gateway_config::Locale;

use super::media_texts::{content_text, source_text};
use super::texts::pick;
use crate::error::{Error, Kind};

/// The text of a domain error in `locale`.
pub fn error_text(err: &Error, locale: Locale) -> String {
    let c = Context::of(err);
    match err.kind {
        Kind::InvalidRequest
        | Kind::AccountNotConfigured
        | Kind::AccountOffline
        | Kind::GroupNotAllowed
        | Kind::GroupRequired
        | Kind::UserNotAllowed
        | Kind::QueueFull
        | Kind::RateLimited => account_text(err, &c, locale),
        Kind::GroupNotFound | Kind::ChatNotArchived | Kind::MessageNotFound => {
            chat_text(err, locale)
        }
        Kind::OnebotAuthFailed
        | Kind::OnebotTimeout
        | Kind::OnebotBadRequest
        | Kind::OnebotActionUnsupported
        | Kind::OnebotActionFailed
        | Kind::OnebotActionUnknown
        | Kind::OnebotProtocolError
        | Kind::OnebotConnectionLost
        | Kind::BotMuted
        | Kind::RemovedFromGroup
        | Kind::MediaTransferFailed
        | Kind::SendOutcomeUnknown
        | Kind::RiskControlled
        | Kind::PokeUnsupported
        | Kind::UnsupportedByPeer
        | Kind::HistoryUnsupported => peer_text(err, &c, locale),
        Kind::EmptyMessage
        | Kind::TextTooLong
        | Kind::TooManyImages
        | Kind::TooManyVideos
        | Kind::MediaTooLarge
        | Kind::MediaTypeMismatch
        | Kind::MediaNotFound
        | Kind::MediaChecksumMismatch
        | Kind::MediaSizeMismatch
        | Kind::UploadHeaderMissing
        | Kind::UploadHeaderRepeated
        | Kind::StagingQuotaExceeded
        | Kind::MediaDownloadFailed => content_text(err, &c, locale),
        Kind::UrlForbidden
        | Kind::UrlFetchFailed
        | Kind::PathForbidden
        | Kind::PathNotFound
        | Kind::MediaSourceDisabled => source_text(err, locale),
        Kind::IdempotencyKeyReused
        | Kind::EventStreamLagged
        | Kind::EventGapTooOld
        | Kind::ToolsDisabled
        | Kind::Unauthenticated
        | Kind::TokenScope
        | Kind::ShuttingDown
        | Kind::Overloaded
        | Kind::Internal
        | Kind::Cancelled
        | Kind::DeadlineExceeded
        | Kind::RequestTooLarge
        | Kind::ArchiveDisabled
        | Kind::StorageFailed => gateway_text(err, &c, locale),
        Kind::PolicyDenied
        | Kind::ApprovalPending
        | Kind::ApprovalNotFound
        | Kind::ApprovalDecided => policy_text(err, locale),
        Kind::NotSupportedByImplementation | Kind::BotNotAdmin | Kind::ProtectedMember => {
            group_action_text(err, locale)
        }
        Kind::NotLeader => {
            let (account, leader) = (
                err.meta("account_id").unwrap_or_default(),
                err.meta("leader").unwrap_or("another gateway"),
            );
            pick(
                locale,
                format!(
                    "账号「{account}」此刻由另一个网关（{leader}）负责，这里未执行任何操作。请稍后重试。"
                ),
                format!(
                    "account {account:?} is served by another gateway ({leader}) right now; nothing was done here. Try again shortly."
                ),
            )
        }
    }
}

/// The texts of group actions the implementation or the bot's role rules
/// out.
fn group_action_text(err: &Error, locale: Locale) -> String {
    let meta = |key: &str| err.meta(key).unwrap_or_default().to_owned();
    match err.kind {
        Kind::NotSupportedByImplementation => {
            let (implementation, action) = (meta("implementation"), meta("action"));
            pick(
                locale,
                format!(
                    "{implementation} 不支持 {action}，未执行任何操作。请换一种方式（例如回复文字）。"
                ),
                format!(
                    "{implementation} cannot do {action}; nothing was done. Do it another way (for example, reply in text)."
                ),
            )
        }
        Kind::BotNotAdmin => {
            let (group, role, needed) = (meta("group_id"), meta("bot_role"), meta("needed_role"));
            pick(
                locale,
                format!(
                    "机器人在群 {group} 的身份是 {role}，此操作需要 {needed}，未执行。请让群主给机器人相应权限，或请群管理员自己操作。"
                ),
                format!(
                    "the bot is {role} in group {group} and this needs {needed}; nothing was done. Ask the group owner to give the bot that role, or ask an admin to do it."
                ),
            )
        }
        _ => {
            let (user, why) = (meta("user_id"), meta("why"));
            pick(
                locale,
                format!("不能对 {user} 执行此操作（{why}），未执行。"),
                format!("this cannot be done to {user} ({why}); nothing was done."),
            )
        }
    }
}

/// The texts of `[policy]` refusals and approvals.
fn policy_text(err: &Error, locale: Locale) -> String {
    let meta = |key: &str| err.meta(key).unwrap_or_default().to_owned();
    let (action, rule, id) = (meta("action"), meta("rule"), meta("approval_id"));
    match err.kind {
        Kind::PolicyDenied if rule == "none" => pick(
            locale,
            format!(
                "{action} 属于群管理操作，没有任何策略规则允许它，未执行。需要运营者在 [[policy.rules]] 中加入 actions = [\"{action}\"] 的规则。"
            ),
            format!(
                "{action} is moderation and no policy rule allows it; nothing was done. The operator must add a [[policy.rules]] entry with actions = [\"{action}\"]."
            ),
        ),
        Kind::PolicyDenied => {
            let (role, allowed) = (meta("role"), meta("allowed_roles"));
            pick(
                locale,
                format!(
                    "策略拒绝：规则 policy.rules[{rule}] 不允许角色为 {role} 的请求者执行 {action}（允许的角色：{allowed}），未执行任何操作。请代表有权限的用户操作（onBehalfOf），或告诉用户需要管理员来做。"
                ),
                format!(
                    "refused by policy: rule policy.rules[{rule}] does not let a requester with role {role} do {action} (allowed roles: {allowed}); nothing was done. Act on behalf of a user who may (onBehalfOf), or tell the user an admin must ask."
                ),
            )
        }
        Kind::ApprovalPending => pick(
            locale,
            format!(
                "{action} 需要机器人主人批准（审批号 {id}），已私聊通知主人，尚未执行。请用 qq_get_approval 查看或等待结果，不要重复发送。"
            ),
            format!(
                "{action} needs a bot owner's approval (approval {id}); the owners were asked in a private message and nothing was done yet. Check or wait with qq_get_approval; do not send it again."
            ),
        ),
        Kind::ApprovalNotFound => pick(
            locale,
            format!("没有审批号为 {id} 的审批：请检查审批号。"),
            format!("there is no approval {id}: check the approval id."),
        ),
        _ => {
            let state = meta("state");
            pick(
                locale,
                format!("审批 {id} 已不在待批状态（当前：{state}），无法再决定。"),
                format!(
                    "approval {id} is no longer pending (it is {state}); it cannot be decided again."
                ),
            )
        }
    }
}

/// What many texts share, read from the error once.
pub(super) struct Context {
    /// The account (`default` when the error names none).
    pub(super) account: String,
    /// ` (retcode N)` / `（retcode N）` when the peer sent one.
    pub(super) rc_zh: String,
    pub(super) rc_en: String,
    /// The peer's own words, verbatim, when it sent any (else the end of
    /// the sentence).
    pub(super) said_zh: String,
    pub(super) said_en: String,
    /// When to retry: the error's `retry_after`, else "later".
    pub(super) retry_zh: String,
    pub(super) retry_en: String,
}

impl Context {
    fn of(err: &Error) -> Self {
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
        let (rc_zh, rc_en) = if retcode.is_empty() {
            (String::new(), String::new())
        } else {
            (
                format!("（retcode {retcode}）"),
                format!(" (retcode {retcode})"),
            )
        };
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
        Context {
            account,
            rc_zh,
            rc_en,
            said_zh,
            said_en,
            retry_zh,
            retry_en,
        }
    }
}

/// Requests and accounts: bad requests, accounts not configured or
/// offline, their whitelists, the offline queue and the rate limits.
fn account_text(err: &Error, c: &Context, locale: Locale) -> String {
    let meta = |key: &str| err.meta(key).unwrap_or_default().to_owned();
    let Context {
        account,
        retry_zh,
        retry_en,
        ..
    } = c;
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
        other => unreachable!("{other:?} is not routed to account_text"),
    }
}

/// The chats and messages a call names that the bot or QQ does not have:
/// unknown groups, chats the archive does not keep, unknown messages.
fn chat_text(err: &Error, locale: Locale) -> String {
    let meta = |key: &str| err.meta(key).unwrap_or_default().to_owned();
    match err.kind {
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
        other => unreachable!("{other:?} is not routed to chat_text"),
    }
}

/// What the OneBot implementation (or QQ behind it) answered or failed to
/// answer; its own words passed on verbatim.
fn peer_text(err: &Error, c: &Context, locale: Locale) -> String {
    let meta = |key: &str| err.meta(key).unwrap_or_default().to_owned();
    let Context {
        account,
        rc_zh,
        rc_en,
        said_zh,
        said_en,
        retry_zh,
        retry_en,
        ..
    } = c;
    let msg = &err.message;
    match err.kind {
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
        other => unreachable!("{other:?} is not routed to peer_text"),
    }
}

/// The gateway itself: its tokens, limits, event buffer, archive, storage and
/// lifecycle.
fn gateway_text(err: &Error, c: &Context, locale: Locale) -> String {
    let meta = |key: &str| err.meta(key).unwrap_or_default().to_owned();
    let Context {
        retry_zh, retry_en, ..
    } = c;
    let msg = &err.message;
    match err.kind {
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
        Kind::ArchiveDisabled => pick(
            locale,
            "消息存档未开启（archive.enabled = false），无法搜索消息。".to_owned(),
            "the message archive is off (archive.enabled = false): messages cannot be searched."
                .to_owned(),
        ),
        Kind::StorageFailed => pick(
            locale,
            format!(
                "网关无法写入数据目录（磁盘满或不可写），本次请求未保存也未发送，稍后重试：{msg}"
            ),
            format!(
                "the gateway cannot write its data directory (disk full or read-only); nothing of this call was stored or sent, retry later: {msg}"
            ),
        ),
        other => unreachable!("{other:?} is not routed to gateway_text"),
    }
}
