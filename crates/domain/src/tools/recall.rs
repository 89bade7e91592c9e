//! `qq_recall`: [`Gateway::recall_message`] (the RecallMessage use case)
//! with the tool's arguments and details.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{
    AccountId, MessageId, OnBehalfOfArg, account_rule, message_id_rule, on_behalf_of_rule,
};
use super::output::{ToolOutput, domain_failure};
use super::props::strict_rules;
use super::texts::Failure;
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::model::ChatRef;
use crate::policy::OnBehalfOf;
use onebot_gateway_config::Locale;

/// The tool's description, for a model.
pub const DESCRIPTION: &str = concat!(
    "\
Recall (撤回) a QQ message. Destructive: everyone in the chat sees it disappear. Never throws.

Arguments:
- messageId (required): the message id to recall (a non-zero integer; may be negative; a string of digits works too), e.g. one of the messageIds qq_send returned.
- onBehalfOf: the QQ user you act for: {\"messageId\": <id>} of the message that asked you (preferred), or {\"userId\": <QQ number>}; the operator's policy decides by their role.
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

The gateway first reads the message and refuses one whose chat is not whitelisted for this account. QQ itself allows the bot to recall its own messages only within 2 minutes, and others' messages only when the bot is a group admin (never the owner's or another admin's); its refusal comes back with QQ's own words. Off when the operator disabled the write tools.
details on success: {\"status\":\"ok\",\"messageId\":<id>,\"target\":\"group:<id>\"|\"private:<id>\"}.
On failure (bad messageId, unknown message, chat not whitelisted, too old / not the sender / no admin rights, read-only token, offline, timeout, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}.
An action the operator's policy holds for the bot owner's approval is not an error: details = {\"status\":\"pending_approval\",\"approvalId\":\"<id>\",\"actions\":[...]}; nothing was done yet (an MCP client that asked its user answers with \"status\":\"approval_decided\" and the approval's state). Tell the user it awaits approval and follow it with qq_get_approval; never send it again. A refusal by the policy is an error naming the rule and the roles it allows."
);

/// The properties of the details object on success.
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "messageId": {"type": "integer"},
            "target": {"type": "string", "pattern": "^(group|private):[1-9][0-9]*$"}
        }),
        json!(["status", "messageId", "target"]),
    )
}

/// The arguments object of `qq_recall` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecallInput {
    #[doc = concat!("The message to recall. ", message_id_rule!())]
    pub message_id: MessageId,
    #[doc = on_behalf_of_rule!()]
    pub on_behalf_of: Option<OnBehalfOfArg>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_recall`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecallArgs {
    /// Account id.
    pub account_id: String,
    /// The message.
    pub message_id: i64,
    /// Who the recall is done for.
    pub on_behalf_of: Option<OnBehalfOf>,
}

impl RecallArgs {
    /// `messageId` required, a non-zero integer.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            message_id: args
                .message_id("messageId")?
                .ok_or(ArgError::Missing("messageId"))?,
            account_id: args.account_id()?,
            on_behalf_of: args.on_behalf_of()?,
        })
    }
}

/// Runs the tool.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = RecallArgs::parse(args).map_err(Failure::Args)?;
    let chat = gw
        .recall_message(&args.account_id, args.message_id, args.on_behalf_of, ctx)
        .await
        .map_err(domain_failure(&args.account_id))?;
    let id = args.message_id;
    let text = match (gw.config.tools.locale, chat) {
        (Locale::Zh, ChatRef::Group(g)) => format!("已撤回群 {g} 中的消息 {id}。"),
        (Locale::Zh, ChatRef::Private(u)) => format!("已撤回与 {u} 私聊中的消息 {id}。"),
        (Locale::En, ChatRef::Group(g)) => format!("recalled message {id} in group {g}."),
        (Locale::En, ChatRef::Private(u)) => {
            format!("recalled message {id} in the private chat with {u}.")
        }
    };
    let details = json!({"status": "ok", "messageId": id, "target": chat.target()});
    Ok(ToolOutput::ok(text, details))
}
