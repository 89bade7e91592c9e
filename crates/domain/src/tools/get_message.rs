//! `qq_get_message`: [`Gateway::get_message`] (the GetMessage use case)
//! with the tool's arguments and details.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{AccountId, MessageId, account_rule, message_id_rule};
use super::output::{ToolOutput, domain_failure};
use super::props::{message_model, strict_rules};
use super::texts::Failure;
use super::view::View;
use crate::call::CallCtx;
use crate::gateway::Gateway;

/// The tool's description, for a model.
pub const DESCRIPTION: &str = concat!(
    "\
Read one QQ message by its message id, with what it quotes. Never throws.

Arguments:
- messageId (required): the message id, as history, events or qq_send report it (a non-zero integer; may be negative; a string of digits works for ids beyond 2^53).
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

Result text: the message as one history line, `[HH:mm:ss] name(QQ number): text`; a reply shows what it quotes as `[回复 name: text]` (the quoted text cut to 30 characters), `[回复]` when the quoted message cannot be read.
details on success: {\"status\":\"ok\",\"target\":\"group:<id>\"|\"private:<id>\",\"senders\":[...],\"message\":<the message; a quote is its reply segment's quoted message>}. ",
    message_model!(),
    "
On failure (bad messageId, the message is unknown to QQ — too old, recalled or never seen —, its chat is outside the token's scope, account not configured, offline, timeout, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

/// The properties of the details object on success.
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "target": {"type": "string", "pattern": "^(group|private):[1-9][0-9]*$"},
            "senders": super::props::senders(),
            "message": {"$ref": "#/$defs/message"}
        }),
        json!(["status", "target", "senders", "message"]),
    )
}

/// The arguments object of `qq_get_message` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetMessageInput {
    #[doc = concat!("The message to read. ", message_id_rule!())]
    pub message_id: MessageId,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_get_message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetMessageArgs {
    /// Account id.
    pub account_id: String,
    /// The message.
    pub message_id: i64,
}

impl GetMessageArgs {
    /// `messageId` required, a non-zero integer.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            message_id: args
                .message_id("messageId")?
                .ok_or(ArgError::Missing("messageId"))?,
            account_id: args.account_id()?,
        })
    }
}

/// Runs the tool.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = GetMessageArgs::parse(args).map_err(Failure::Args)?;
    let view = gw
        .get_message(&args.account_id, args.message_id, ctx)
        .await
        .map_err(domain_failure(&args.account_id))?;
    let mut v = View::new(gw, &args.account_id);
    let message = v.message(&view.message);
    let details = json!({
        "status": "ok",
        "target": view.message.chat.target(),
        "senders": v.senders(),
        "message": message,
    });
    Ok(ToolOutput::ok(view.rendered, details))
}
