//! The one table that turns a peer's answer into data or a domain error.
//!
//! Success is `status == "ok"` (or no `status` and `retcode` 0); `async` is
//! accepted with no data. Failures are classified per flavor and transport:
//!
//! | answer                                              | kind                       |
//! |-----------------------------------------------------|----------------------------|
//! | retcode 1401 / 1403, HTTP 401 / 403                  | `OnebotAuthFailed`         |
//! | 1400 (WS); 400 (NapCat/LLOneBot/generic HTTP)        | `OnebotBadRequest`         |
//! | 1404; 404 (go-cqhttp, generic); NapCat HTTP 200 `不支持的API` | `OnebotActionUnsupported` |
//! | NapCat `EventRet` `result` 1 / 110 / -1              | `BotMuted` / `RemovedFromGroup` / `MediaTransferFailed` |
//! | NapCat `Timeout: NTEvent … sendMsg` with no `result` or `result` 0 | `SendOutcomeUnknown` |
//! | go-cqhttp `SEND_MSG_API_ERROR`, any `风控` text      | `RiskControlled`           |
//! | poke refused for want of NapCat's packet backend, or poke action unknown | `PokeUnsupported` |
//! | `get_msg` / `get_forward_msg` "not found" (by text, since NapCat answers every failure with 1200; go-cqhttp `MSG_NOT_FOUND`; Lagrange's bare `get_msg` 200) | `MessageNotFound` |
//! | the flavor's documented failure retcode (NapCat/LLOneBot 1200 WS, 200 HTTP; go-cqhttp/SnowLuma 100; Lagrange 1) | `OnebotActionFailed` |
//! | retcode -1 (any flavor: mocks and forks)           | `OnebotActionFailed`       |
//! | any other retcode, or a `status` other than ok/failed/async | `OnebotActionUnknown` |
//!
//! A `delete_msg` refusal is never read as a send failure: NapCat's
//! `Timeout: NTEvent … recallMsg` with its kernel result is the server's
//! refusal, `OnebotActionFailed`.
//!
//! Every family's conventions go through this one table: `status` in any
//! case, or missing (then `retcode` 0 is success, and with neither field
//! the `data` is the answer); retcodes as numbers or numeric strings; the
//! text in `message`, `wording`, `msg`, or a string `data`.
//!
//! Every error carries the peer's text (`message` ‖ `wording` ‖ `msg`)
//! verbatim in its message and in metadata `peer_message`, plus `retcode`,
//! `action` and `flavor`.

use serde_json::Value;

use super::flavor::Flavor;
use super::frame::{Data, Frame};
use super::model::int_of;
use onebot_gateway_domain::error::{Error, Kind, Result};

/// Which transport carried the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A WebSocket frame (forward or reverse).
    Ws,
    /// An HTTP response with this status code.
    Http(u16),
}

/// The peer's error text: `message` ‖ `wording` ‖ `msg`, first non-empty.
pub fn peer_text(frame: &Value) -> String {
    ["message", "wording", "msg"]
        .iter()
        .filter_map(|k| frame.get(*k).and_then(Value::as_str))
        .find(|s| !s.trim().is_empty())
        .unwrap_or_default()
        .to_string()
}

/// The `retcode` of an answer, if it has a numeric one.
pub fn retcode_of(frame: &Value) -> Option<i64> {
    frame.get("retcode").and_then(int_of)
}

/// The action name without the `_async` / `_rate_limited` suffixes.
pub fn base_action(action: &str) -> &str {
    action
        .strip_suffix("_async")
        .or_else(|| action.strip_suffix("_rate_limited"))
        .unwrap_or(action)
}

/// True for actions that send a message: an answer lost in flight means the
/// message may or may not have been delivered.
pub fn is_send_action(action: &str) -> bool {
    matches!(
        base_action(action),
        "send_msg"
            | "send_group_msg"
            | "send_private_msg"
            | "send_group_forward_msg"
            | "send_private_forward_msg"
            | "send_forward_msg"
    )
}

/// True for actions that look a message or a forward bundle up.
fn is_lookup_action(action: &str) -> bool {
    matches!(base_action(action), "get_msg" | "get_forward_msg")
}

/// True for the texts peers answer an unknown message or bundle with:
/// `消息不存在`, `消息不存在或已被撤回`, `消息<id>不存在` (NapCat, LLOneBot,
/// go-cqhttp), `message not found`, `msg not found` (SnowLuma, LLOneBot),
/// `ResId无效: 找不到相关的聊天记录`, `消息已过期或者为内层消息…` (NapCat),
/// `无法获取该消息` (LLOneBot).
pub fn is_not_found_text(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    text.contains("不存在")
        || text.contains("找不到")
        || text.contains("已过期")
        || text.contains("无法获取该消息")
        || text.contains("ResId无效")
        || lower.contains("not found")
}

fn is_poke_action(action: &str) -> bool {
    matches!(
        base_action(action),
        "group_poke" | "friend_poke" | "send_poke"
    )
}

/// What an answer says, apart from its `data`.
enum Outcome {
    /// `status` `ok`, or no status and retcode 0: `data` is the answer.
    Ok,
    /// `status` `async`: accepted, no data.
    Async,
    /// Anything else.
    Failed(Error),
}

/// The answer's `status`, trimmed and in lower case.
fn status_of(head: &Value) -> Option<String> {
    head.get("status")
        .and_then(Value::as_str)
        .map(|s| s.trim().to_ascii_lowercase())
}

/// True when the top-level fields alone make the answer a success (`status`
/// `ok`, or no status and retcode 0), whatever `data` holds.
pub fn is_ok(head: &Value) -> bool {
    let status = status_of(head);
    matches!(
        (status.as_deref(), retcode_of(head)),
        (Some("ok"), _) | (None, Some(0))
    )
}

/// The error of a reply that is not a JSON object.
pub fn unreadable_reply(action: &str, err: &serde_json::Error) -> Error {
    Error::new(
        Kind::OnebotProtocolError,
        format!("{action}: the OneBot implementation's reply is not a JSON object ({err})"),
    )
    .with("action", action)
}

fn outcome(flavor: Flavor, via: Via, action: &str, head: &Value, data: &Data) -> Outcome {
    let status = status_of(head);
    let status = status.as_deref();
    let retcode = retcode_of(head);
    match (status, retcode) {
        (Some("ok"), _) | (None, Some(0)) => return Outcome::Ok,
        (Some("async"), _) => return Outcome::Async,
        // Neither field: the data is the answer.
        (None, None) if data.raw().is_some() => return Outcome::Ok,
        _ => {}
    }
    let mut text = peer_text(head);
    if text.is_empty()
        && let Value::String(s) = data.clone().into_value()
    {
        // Some peers put the error text in `data`.
        text = s;
    }
    let kind = match status {
        Some("failed") | None => failure_kind(flavor, via, action, retcode, head, &text),
        Some(_) => Kind::OnebotActionUnknown,
    };
    Outcome::Failed(peer_error(kind, flavor, action, retcode, status, &text))
}

/// Turns an answer into its `data` (success) or the classified error. On
/// success `data` is handed over as the text it came in (a history or
/// member list answer is a large tree; the caller decodes it straight into
/// what it needs).
pub fn classify_frame(flavor: Flavor, via: Via, action: &str, frame: Frame) -> Result<Data> {
    match outcome(flavor, via, action, frame.head(), frame.data()) {
        Outcome::Ok => Ok(frame.into_data()),
        Outcome::Async => Ok(Data::none()),
        Outcome::Failed(e) => Err(e),
    }
}

/// Builds the error of a failed answer, with the peer's text verbatim.
pub fn peer_error(
    kind: Kind,
    flavor: Flavor,
    action: &str,
    retcode: Option<i64>,
    status: Option<&str>,
    text: &str,
) -> Error {
    let code = retcode.map_or_else(|| "none".to_string(), |r| r.to_string());
    let what = match kind {
        Kind::OnebotAuthFailed => "the OneBot implementation refused the access token",
        Kind::OnebotBadRequest => "the OneBot implementation rejected the parameters",
        Kind::OnebotActionUnsupported => "the OneBot implementation does not support the action",
        Kind::BotMuted => "the bot is muted in this group",
        Kind::RemovedFromGroup => "the bot is no longer a member of this group",
        Kind::MediaTransferFailed => "the OneBot implementation failed to transfer the media",
        Kind::SendOutcomeUnknown => {
            "the send timed out at the OneBot implementation; the message may have been delivered, do not retry blindly"
        }
        Kind::RiskControlled => "the platform refused the send (risk control)",
        Kind::PokeUnsupported => "the OneBot implementation cannot poke",
        Kind::OnebotActionUnknown => {
            "the OneBot implementation answered with an unexpected outcome"
        }
        Kind::MessageNotFound => "the OneBot implementation does not know this message",
        _ => "the OneBot implementation reported a failure",
    };
    let mut message = format!("{action}: {what} (retcode {code})");
    if !text.is_empty() {
        message.push_str(": ");
        message.push_str(text);
    }
    let mut err = Error::new(kind, message)
        .with("action", action)
        .with("retcode", code)
        .with("peer_message", text)
        .with("flavor", flavor.name());
    if let Some(status) = status.filter(|s| *s != "failed") {
        err = err.with("peer_status", status);
    }
    if let Some(result) = event_ret(text).and_then(|r| r.result) {
        err = err.with("event_result", result);
    }
    err
}

fn failure_kind(
    flavor: Flavor,
    via: Via,
    action: &str,
    retcode: Option<i64>,
    frame: &Value,
    text: &str,
) -> Kind {
    if matches!(via, Via::Http(401 | 403)) || matches!(retcode, Some(1401 | 1403)) {
        return Kind::OnebotAuthFailed;
    }
    let msg_code = frame.get("msg").and_then(Value::as_str).unwrap_or_default();
    if is_lookup_action(action)
        && retcode != Some(1400)
        && (is_not_found_text(text)
            || matches!(msg_code, "MSG_NOT_FOUND" | "MESSAGE_NOT_FOUND")
            // Lagrange answers every failed look-up with a bare failure
            // (200, or 1): it reads only its local database.
            || (flavor == Flavor::Lagrange && matches!(retcode, Some(1 | 200)) && text.is_empty()))
    {
        return Kind::MessageNotFound;
    }
    let recall = base_action(action) == "delete_msg";
    if let Some(ret) = event_ret(text).filter(|_| !recall) {
        match (ret.timeout, ret.result) {
            (_, Some(1)) => return Kind::BotMuted,
            (_, Some(110)) => return Kind::RemovedFromGroup,
            (_, Some(-1)) => return Kind::MediaTransferFailed,
            (true, None | Some(0)) => return Kind::SendOutcomeUnknown,
            _ => {}
        }
    }
    if text.contains("风控") || (flavor == Flavor::GoCqhttp && msg_code == "SEND_MSG_API_ERROR") {
        return Kind::RiskControlled;
    }
    let class = retcode_class(flavor, via, retcode, text);
    if is_poke_action(action) && (text.contains("packetBackend") || class == Class::Unsupported) {
        return Kind::PokeUnsupported;
    }
    match class {
        Class::BadRequest => Kind::OnebotBadRequest,
        Class::Unsupported => Kind::OnebotActionUnsupported,
        Class::Failed => Kind::OnebotActionFailed,
        Class::Undocumented => Kind::OnebotActionUnknown,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    BadRequest,
    Unsupported,
    Failed,
    Undocumented,
}

/// Each flavor's retcode conventions: 1400 (bad request) and 1404
/// (unsupported) everywhere; NapCat and LLOneBot fail with 1200 (over HTTP
/// also 400, and 200 with `不支持的API` for an unknown action); go-cqhttp
/// answers 404 for an unknown action and 100 for a failure, SnowLuma 100,
/// Lagrange 1; the generic profile accepts all of these.
fn retcode_class(flavor: Flavor, via: Via, retcode: Option<i64>, text: &str) -> Class {
    let http = matches!(via, Via::Http(_));
    let Some(code) = retcode else {
        return Class::Undocumented;
    };
    match (flavor, code) {
        (_, 1400) => Class::BadRequest,
        (_, 1404) => Class::Unsupported,
        (Flavor::NapCat | Flavor::LlOneBot | Flavor::Generic, 400) if http => Class::BadRequest,
        (Flavor::NapCat | Flavor::LlOneBot, 200) if http => {
            // NapCat answers an unknown action over HTTP with 200 `不支持的API`.
            if text.contains("不支持的API") || text.contains("API 不存在") {
                Class::Unsupported
            } else {
                Class::Failed
            }
        }
        (Flavor::NapCat | Flavor::LlOneBot | Flavor::Generic, 1200) => Class::Failed,
        (Flavor::GoCqhttp | Flavor::Generic, 404) => Class::Unsupported,
        (Flavor::GoCqhttp | Flavor::SnowLuma | Flavor::Generic, 100) => Class::Failed,
        (Flavor::Lagrange | Flavor::Generic, 1) => Class::Failed,
        // Mocks and some forks fail everything with -1 (text in `msg`).
        (_, -1) => Class::Failed,
        _ => Class::Undocumented,
    }
}

/// NapCat's send-failure detail: its failure texts carry the NT kernel's
/// `EventRet` (`Timeout: NTEvent …` when no confirmation came in time,
/// `EventChecker Failed: …` with the kernel's `result` code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventRet {
    /// The text is the `Timeout: NTEvent …` form (no confirmation).
    pub timeout: bool,
    /// The kernel's `result`, when the `EventRet` JSON carries one.
    pub result: Option<i64>,
}

/// Parses `Timeout: NTEvent … EventRet:\n{…}` and `EventChecker Failed: …
/// EventRet:\n{…}`; `None` for any other text.
pub fn event_ret(text: &str) -> Option<EventRet> {
    let timeout = text.trim_start().starts_with("Timeout:");
    if !timeout && !text.contains("EventChecker Failed") {
        return None;
    }
    if !text.contains("NTEvent") {
        return None;
    }
    let result = text
        .split_once("EventRet:")
        .and_then(|(_, json)| serde_json::from_str::<Value>(json.trim()).ok())
        .and_then(|v| v.get("result").and_then(int_of));
    Some(EventRet { timeout, result })
}

#[cfg(test)]
#[path = "retcode_tests.rs"]
mod tests;
