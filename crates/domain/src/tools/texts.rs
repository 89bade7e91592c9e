//! The texts a model reads when a tool call fails, in Chinese (the default)
//! or English (`tools.locale`).
//!
//! Every domain [`Kind`](crate::error::Kind) has a text
//! ([`super::error_texts`], [`super::media_texts`]); every argument error
//! has one here.

use crate::error::Error;
use onebot_gateway_config::Locale;

use super::arg_error::{ArgError, Expected};
pub use super::error_texts::error_text;

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
pub(super) fn pick(locale: Locale, zh: String, en: String) -> String {
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
        ArgError::BadJson(_)
        | ArgError::NotObject
        | ArgError::Missing(_)
        | ArgError::Unknown { .. }
        | ArgError::Exclusive(..)
        | ArgError::Conflict { .. } => object_text(err, locale),
        ArgError::BadTarget(_)
        | ArgError::BadChat { .. }
        | ArgError::EmptyChat(_)
        | ArgError::GroupOnly { .. }
        | ArgError::MissingChat { .. } => chat_arg_text(err, locale),
        ArgError::WrongType { .. }
        | ArgError::NotFinite { .. }
        | ArgError::NotPositiveInteger { .. }
        | ArgError::BadSequence { .. }
        | ArgError::BadTime { .. }
        | ArgError::BadMessageId { .. }
        | ArgError::BadIdList { .. }
        | ArgError::BadOnBehalfOf { .. }
        | ArgError::BadMedia { .. } => value_text(err, locale),
    }
}

/// The arguments object as a whole: not JSON, not an object, a key missing,
/// unknown or combined with another it excludes.
fn object_text(err: &ArgError, locale: Locale) -> String {
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
        ArgError::Exclusive(a, b) => pick(
            locale,
            format!("参数不合法：{a} 和 {b} 只能给一个。"),
            format!("invalid arguments: give {a} or {b}, not both."),
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
        other => unreachable!("{other:?} is not routed to object_text"),
    }
}

/// The chat arguments: targets, chat lists, empty chats, a private chat where a
/// group is needed.
fn chat_arg_text(err: &ArgError, locale: Locale) -> String {
    match err {
        ArgError::BadTarget(target) => pick(
            locale,
            format!(
                "参数不合法：target「{target}」无法解析，应为 group:<群号>、private:<QQ号> 或纯数字 QQ 号（私聊）。"
            ),
            format!(
                "invalid arguments: cannot parse target {target:?}; use group:<group id>, private:<QQ number> or bare digits (a private chat)."
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
        ArgError::EmptyChat(field) => pick(
            locale,
            format!(
                "参数不合法：{field} 不能为 null 或空字符串；请给出会话（group:<群号> 或 private:<QQ号>），或完全不给该参数。"
            ),
            format!(
                "invalid arguments: {field} may not be null or empty; name the chat (group:<group id> or private:<QQ number>) or leave the argument out."
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
        other => unreachable!("{other:?} is not routed to chat_arg_text"),
    }
}

/// One argument's value: its JSON type, a number, id, sequence, time or media
/// string it is not.
fn value_text(err: &ArgError, locale: Locale) -> String {
    match err {
        ArgError::WrongType { field, expected } => {
            let (zh, en) = match expected {
                Expected::String => ("字符串", "a string"),
                Expected::StringArray => ("字符串数组", "an array of strings"),
                Expected::NumberOrNumericString => {
                    ("数字或数字字符串", "a number or a numeric string")
                }
                Expected::Boolean => ("布尔值（true 或 false）", "a boolean (true or false)"),
            };
            pick(
                locale,
                format!("参数不合法：{field} 必须是{zh}。"),
                format!("invalid arguments: {field} must be {en}."),
            )
        }
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
        ArgError::BadIdList { field, value } => pick(
            locale,
            format!(
                "参数不合法：{field} 必须是由正整数 QQ 号（数字或数字字符串）组成的数组，{value} 不是。"
            ),
            format!(
                "invalid arguments: {field} must be an array of positive QQ numbers (numbers or numeric strings); {value} is not one."
            ),
        ),
        ArgError::BadOnBehalfOf { value } => pick(
            locale,
            format!(
                "参数不合法：onBehalfOf 必须是 {{\"messageId\": <消息 id>}}（请求者发的那条消息）或 {{\"userId\": <QQ 号>}} 之一，{value} 不是。"
            ),
            format!(
                "invalid arguments: onBehalfOf must be {{\"messageId\": <id>}} (the requester's message) or {{\"userId\": <QQ number>}}, exactly one; {value} is not."
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
        other => unreachable!("{other:?} is not routed to value_text"),
    }
}
