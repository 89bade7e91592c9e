//! `qq_react`: [`Gateway::react_to_message`] (the ReactToMessage use case)
//! with the tool's arguments and details.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::{ArgError, Expected};
use super::args::Args;
use super::input::{
    AccountId, MessageId, OnBehalfOfArg, account_rule, message_id_rule, on_behalf_of_rule,
};
use super::output::{ToolOutput, domain_failure};
use super::props::{held_rule, strict_rules};
use super::texts::Failure;
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::policy::OnBehalfOf;
use onebot_gateway_config::Locale;

/// The tool's description, for a model.
pub const DESCRIPTION: &str = concat!(
    "\
Add (or remove) an emoji reaction (表情回应) on a message of a whitelisted QQ group. Never throws.

Arguments:
- messageId (required): the group message to react to (a non-zero integer; may be negative; a string of digits works too).
- emojiId (required): the reaction: a QQ face id (e.g. \"76\" 赞, \"66\" 爱心) or a Unicode emoji's code point in decimal (e.g. \"128077\" for 👍); a string or an integer, 1 to 32 characters.
- remove: true removes the bot's reaction instead of adding it. Default false.
- onBehalfOf: the QQ user you act for: {\"messageId\": <id>} of the message that asked you (preferred), or {\"userId\": <QQ number>}; the operator's policy (action react) decides by their role.
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

The gateway first reads the message: one of a private chat, or of a group outside the account's whitelist, is refused. QQ shows reactions only in groups. Some implementations have no reactions (go-cqhttp): that is an error saying so, and nothing was done.
details on success: {\"status\":\"ok\",\"messageId\":<id>,\"groupId\":<number>,\"emojiId\":\"<id>\",\"removed\":<bool>}.
On failure (bad messageId or emojiId, unknown message, a private message, group not whitelisted, read-only token, offline, the implementation cannot react, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}.
",
    held_rule!()
);

/// The properties of the details object on success.
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "messageId": {"type": "integer"},
            "groupId": {"type": "integer", "minimum": 1},
            "emojiId": {"type": "string", "minLength": 1},
            "removed": {"type": "boolean"}
        }),
        json!(["status", "messageId", "groupId", "emojiId", "removed"]),
    )
}

/// An emoji id: a QQ face id or a code point, as a string or an integer.
pub struct EmojiId;

impl JsonSchema for EmojiId {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EmojiId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": ["string", "integer"],
            "minLength": 1,
            "maxLength": 32,
            "minimum": 0,
            "examples": ["76", "128077", 66]
        })
    }
}

/// The arguments object of `qq_react` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReactInput {
    #[doc = concat!("The group message to react to. ", message_id_rule!())]
    pub message_id: MessageId,
    /// The reaction: a QQ face id (\"76\") or a Unicode emoji's decimal code point (\"128077\").
    pub emoji_id: EmojiId,
    /// true: remove the bot's reaction instead of adding it.
    #[schemars(extend("default" = false))]
    pub remove: Option<bool>,
    #[doc = on_behalf_of_rule!()]
    pub on_behalf_of: Option<OnBehalfOfArg>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_react`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReactArgs {
    /// Account id.
    pub account_id: String,
    /// The message.
    pub message_id: i64,
    /// The reaction, as text.
    pub emoji_id: String,
    /// Remove instead of add.
    pub remove: bool,
    /// Who the reaction is for.
    pub on_behalf_of: Option<OnBehalfOf>,
}

/// `emojiId`: a non-empty string, or a non-negative integer as its
/// decimal text.
fn emoji_id(args: &Args) -> Result<String, ArgError> {
    let wrong = ArgError::WrongType {
        field: "emojiId",
        expected: Expected::String,
    };
    let text = match args.optional_string("emojiId") {
        Ok(s) => s,
        Err(_) => args
            .signed_int("emojiId")
            .map_err(|_| wrong.clone())?
            .filter(|n| *n >= 0)
            .map(|n| n.to_string())
            .map(Some)
            .ok_or(wrong)?,
    };
    text.filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_owned())
        .ok_or(ArgError::Missing("emojiId"))
}

impl ReactArgs {
    /// `messageId` and `emojiId` required; `remove` a boolean (anything
    /// else counts as false).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            message_id: args
                .message_id("messageId")?
                .ok_or(ArgError::Missing("messageId"))?,
            emoji_id: emoji_id(args)?,
            remove: args.flag("remove").unwrap_or(false),
            account_id: args.account_id()?,
            on_behalf_of: args.on_behalf_of()?,
        })
    }
}

/// Runs the tool.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = ReactArgs::parse(args).map_err(Failure::Args)?;
    let group_id = gw
        .react_to_message(
            &args.account_id,
            args.message_id,
            &args.emoji_id,
            args.remove,
            args.on_behalf_of,
            ctx,
        )
        .await
        .map_err(domain_failure(&args.account_id))?;
    let (id, emoji) = (args.message_id, &args.emoji_id);
    let text = match (gw.config.tools.locale, args.remove) {
        (Locale::Zh, false) => format!("已对群 {group_id} 的消息 {id} 添加表情回应 {emoji}。"),
        (Locale::Zh, true) => format!("已撤下群 {group_id} 消息 {id} 上的表情回应 {emoji}。"),
        (Locale::En, false) => format!("reacted {emoji} to message {id} in group {group_id}."),
        (Locale::En, true) => {
            format!("removed reaction {emoji} from message {id} in group {group_id}.")
        }
    };
    Ok(ToolOutput::ok(
        text,
        json!({
            "status": "ok",
            "messageId": id,
            "groupId": group_id,
            "emojiId": emoji,
            "removed": args.remove,
        }),
    ))
}
