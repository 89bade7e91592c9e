//! `qq_set_essence` ([`Gateway::set_essence`]) and `qq_list_essence`
//! ([`Gateway::list_essence`]): a group's essence (精华) messages.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{
    AccountId, MessageId, Number, OnBehalfOfArg, QqNumber, Target, account_rule, group_alias,
    message_id_rule, on_behalf_of_rule, target_rule,
};
use super::output::{ToolOutput, domain_failure};
use super::props::{clamp_rule, group_rule, held_rule, message_model, strict_rules};
use super::texts::Failure;
use super::view::{View, time_text};
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::model::EssenceEntry;
use crate::policy::OnBehalfOf;
use crate::read::group_content::ESSENCE_PAGE;
use crate::render;
use onebot_gateway_config::Locale;

/// The description of `qq_set_essence`, for a model.
pub const SET_DESCRIPTION: &str = concat!(
    "\
Mark (or unmark) a message of a whitelisted QQ group as essence (设为精华). Never throws.

Arguments:
- messageId (required): the group message (a non-zero integer; may be negative; a string of digits works too).
- remove: true unmarks it (移出精华) instead. Default false.
- onBehalfOf: the QQ user you act for: {\"messageId\": <id>} of the message that asked you (preferred), or {\"userId\": <QQ number>}; the operator's policy (action essence) decides by their role.
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

The gateway reads the message first (a private message, or one of a group outside the whitelist, is refused), then checks that the bot is an admin or the owner of the group: QQ lets only them set essence, so a bot that is a plain member is refused before QQ is asked.
details on success: {\"status\":\"ok\",\"messageId\":<id>,\"groupId\":<number>,\"removed\":<bool>}.
On failure (bad messageId, unknown message, a private message, group not whitelisted, the bot is not an admin, read-only token, offline, the implementation cannot do it, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}.
",
    held_rule!()
);

/// The description of `qq_list_essence`, for a model.
pub const LIST_DESCRIPTION: &str = concat!(
    "\
List one page of a whitelisted QQ group's essence messages (精华消息), in QQ's order. Never throws. Read-only.

Arguments:
",
    group_rule!(),
    "\
- pageSize: entries per page. Default 20. ",
    clamp_rule!(50, 20),
    "
- pageToken: details.nextPageToken of the previous page, for the next one (it keeps the first page's size); leave it out for the first page. A token of another listing is refused.
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

Result text: one line per entry: `[HH:mm:ss] name(QQ number): text` (the time of the message; without the `[HH:mm:ss] ` when QQ does not report it; `（内容未提供）` when the implementation reports no content), then `（设精：name(QQ number)）` naming who marked it. `（该群暂无精华消息）` when there is none. When more entries exist, a last line gives the pageToken.
details on success: {\"status\":\"ok\",\"groupId\":<number>,\"count\":<entries returned>,\"entries\":[{\"message\":<message>,\"operatorId\",\"operatorName\",\"operationTime\" (RFC 3339; absent when unknown)}],\"senders\":[...],\"nextPageToken\" (only when more entries exist)}. A message's messageId is absent when the implementation reports none usable. ",
    message_model!(),
    "
On failure (bad target or groupId, group not whitelisted, no group given with several whitelisted groups, bad pageToken, offline, the implementation cannot list essence, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

/// The properties of `qq_set_essence`'s details on success.
pub fn set_details_properties() -> (Value, Value) {
    (
        json!({
            "messageId": {"type": "integer"},
            "groupId": {"type": "integer", "minimum": 1},
            "removed": {"type": "boolean"}
        }),
        json!(["status", "messageId", "groupId", "removed"]),
    )
}

/// The properties of `qq_list_essence`'s details on success.
pub fn list_details_properties() -> (Value, Value) {
    (
        json!({
            "groupId": {"type": "integer", "minimum": 1},
            "count": {"type": "integer", "minimum": 0, "maximum": ESSENCE_PAGE.1},
            "entries": {
                "type": "array",
                "maxItems": ESSENCE_PAGE.1,
                "items": {
                    "type": "object",
                    "properties": {
                        "message": {"$ref": "#/$defs/message"},
                        "operatorId": {"type": "integer"},
                        "operatorName": {"type": "string"},
                        "operationTime": {"type": "string", "minLength": 1}
                    },
                    "required": ["message", "operatorId", "operatorName"],
                    "additionalProperties": false
                }
            },
            "senders": super::props::senders(),
            "nextPageToken": {"type": "string", "minLength": 1}
        }),
        json!(["status", "groupId", "count", "entries", "senders"]),
    )
}

/// The arguments object of `qq_set_essence` as a model sends it: the
/// source of its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetEssenceInput {
    #[doc = concat!("The group message to mark. ", message_id_rule!())]
    pub message_id: MessageId,
    /// true: unmark it instead (移出精华).
    #[schemars(extend("default" = false))]
    pub remove: Option<bool>,
    #[doc = on_behalf_of_rule!()]
    pub on_behalf_of: Option<OnBehalfOfArg>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// The arguments object of `qq_list_essence` as a model sends it: the
/// source of its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListEssenceInput {
    #[doc = concat!("The group (`group:<id>`), whitelisted; a private chat is refused. Omit it and groupId for the account's only whitelisted group. ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    #[doc = concat!("Entries per page. ", clamp_rule!(50, 20))]
    #[schemars(extend("default" = ESSENCE_PAGE.0))]
    pub page_size: Option<Number>,
    /// details.nextPageToken of the previous page; absent for the first page.
    #[schemars(length(min = 1))]
    pub page_token: Option<String>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_set_essence`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetEssenceArgs {
    /// Account id.
    pub account_id: String,
    /// The message.
    pub message_id: i64,
    /// Unmark instead of mark.
    pub remove: bool,
    /// Who it is done for.
    pub on_behalf_of: Option<OnBehalfOf>,
}

impl SetEssenceArgs {
    /// `messageId` required; `remove` a boolean (anything else: false).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            message_id: args
                .message_id("messageId")?
                .ok_or(ArgError::Missing("messageId"))?,
            remove: args.flag("remove").unwrap_or(false),
            account_id: args.account_id()?,
            on_behalf_of: args.on_behalf_of()?,
        })
    }
}

/// Parsed arguments of `qq_list_essence`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListEssenceArgs {
    /// Account id.
    pub account_id: String,
    /// The group; `None`: the account's only whitelisted group.
    pub group_id: Option<i64>,
    /// Entries per page, in `[1, 50]`.
    pub page_size: u32,
    /// The page token (empty: the first page).
    pub page_token: String,
}

impl ListEssenceArgs {
    /// The group as [`Args::group`] reads it; `pageSize` clamped to
    /// `[1, 50]` (20 when absent or not a finite number).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            group_id: args.group("qq_list_essence")?,
            page_size: args.clamped("pageSize", ESSENCE_PAGE.0, ESSENCE_PAGE.1),
            page_token: args
                .optional_string("pageToken")?
                .unwrap_or_default()
                .trim()
                .to_owned(),
            account_id: args.account_id()?,
        })
    }
}

/// Runs `qq_set_essence`.
pub(super) async fn run_set(
    gw: &Gateway,
    args: &Args,
    ctx: CallCtx,
) -> Result<ToolOutput, Failure> {
    let args = SetEssenceArgs::parse(args).map_err(Failure::Args)?;
    let group_id = gw
        .set_essence(
            &args.account_id,
            args.message_id,
            args.remove,
            args.on_behalf_of,
            ctx,
        )
        .await
        .map_err(domain_failure(&args.account_id))?;
    let id = args.message_id;
    let text = match (gw.config.tools.locale, args.remove) {
        (Locale::Zh, false) => format!("已将群 {group_id} 的消息 {id} 设为精华。"),
        (Locale::Zh, true) => format!("已将群 {group_id} 的消息 {id} 移出精华。"),
        (Locale::En, false) => format!("marked message {id} in group {group_id} as essence."),
        (Locale::En, true) => {
            format!("removed message {id} in group {group_id} from the essence messages.")
        }
    };
    Ok(ToolOutput::ok(
        text,
        json!({"status": "ok", "messageId": id, "groupId": group_id, "removed": args.remove}),
    ))
}

/// What an essence list shows when it is empty.
pub const NO_ESSENCE: &str = "（该群暂无精华消息）";

/// One entry as the result text shows it: the history line of its message
/// (without the time when QQ does not report it), then who marked it.
pub fn essence_line(entry: &EssenceEntry, tz: &jiff::tz::TimeZone, locale: Locale) -> String {
    let m = &entry.message;
    let mut line = render::history_line_in(m, tz, locale);
    if m.time == 0
        && let Some(rest) = line.strip_prefix('[').and_then(|l| l.split_once("] "))
    {
        line = rest.1.to_owned();
    }
    if m.segments.is_empty() {
        line.push_str("（内容未提供）");
    }
    let operator = if entry.operator_name.trim().is_empty() {
        entry.operator_id.to_string()
    } else {
        format!(
            "{}({})",
            render::sanitize_name(&entry.operator_name),
            entry.operator_id
        )
    };
    if entry.operator_id != 0 || !entry.operator_name.is_empty() {
        line.push_str(&format!(" （设精：{operator}）"));
    }
    line
}

/// Runs `qq_list_essence`.
pub(super) async fn run_list(
    gw: &Gateway,
    args: &Args,
    ctx: CallCtx,
) -> Result<ToolOutput, Failure> {
    let args = ListEssenceArgs::parse(args).map_err(Failure::Args)?;
    let listing = gw
        .list_essence(
            &args.account_id,
            args.group_id,
            // In [1, 50], which the domain keeps as it is.
            args.page_size as i32,
            &args.page_token,
            ctx,
        )
        .await
        .map_err(domain_failure(&args.account_id))?;
    let locale = gw.config.tools.locale;
    let mut lines: Vec<String> = listing
        .entries
        .iter()
        .map(|e| essence_line(e, &gw.tz, locale))
        .collect();
    if lines.is_empty() {
        lines.push(NO_ESSENCE.to_owned());
    }
    if !listing.next_page_token.is_empty() {
        let token = &listing.next_page_token;
        lines.push(match locale {
            Locale::Zh => format!("（还有更多精华消息：pageToken = {token}）"),
            Locale::En => format!("(more essence messages: pageToken = {token})"),
        });
    }
    let mut view = View::new(gw, &args.account_id);
    let entries: Vec<Value> = listing
        .entries
        .iter()
        .map(|e| {
            let mut v = json!({
                "message": view.message(&e.message),
                "operatorId": e.operator_id,
                "operatorName": e.operator_name,
            });
            if e.operation_time != 0 {
                v["operationTime"] = json!(time_text(e.operation_time, &gw.tz));
            }
            v
        })
        .collect();
    let mut details = json!({
        "status": "ok",
        "groupId": listing.group_id,
        "count": entries.len(),
        "entries": entries,
        "senders": view.senders(),
    });
    if !listing.next_page_token.is_empty() {
        details["nextPageToken"] = json!(listing.next_page_token);
    }
    Ok(ToolOutput::ok(lines.join("\n"), details))
}
