//! `qq_get_forward`: [`Gateway::get_forward`] (the GetForwardMessages use
//! case) with the tool's arguments and details.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{AccountId, account_rule};
use super::output::{ToolOutput, domain_failure};
use super::props::{message_model, strict_rules};
use super::texts::Failure;
use super::view::View;
use crate::call::CallCtx;
use crate::gateway::Gateway;

/// The tool's description, for a model.
pub const DESCRIPTION: &str = concat!(
    "\
Open a merged-forward bundle (合并转发, shown as [合并转发] in history) and read its messages. Never throws.

Arguments:
- forwardId (required): the bundle's id: the `forward.id` of a forward segment in the messages of qq_get_history's, qq_get_message's or another qq_get_forward's details.
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

Result text: one line per forwarded message, in order, `[HH:mm:ss] name(QQ number): text`; a bundle nested inside shows as [合并转发]: open it with another call using its own id. `（无历史消息）` for an empty bundle.
details on success: {\"status\":\"ok\",\"forwardId\":\"...\",\"count\":<messages>,\"senders\":[...],\"messages\":[...]} (forwarded messages mostly have no messageId). ",
    message_model!(),
    "
On failure (empty forwardId, unknown or expired bundle, account not configured, offline, the implementation cannot open bundles, timeout) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

/// The properties of the details object on success.
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "forwardId": {"type": "string", "minLength": 1},
            "count": {"type": "integer", "minimum": 0},
            "senders": super::props::senders(),
            "messages": {"type": "array", "items": {"$ref": "#/$defs/message"}}
        }),
        json!(["status", "forwardId", "count", "senders", "messages"]),
    )
}

/// The arguments object of `qq_get_forward` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForwardInput {
    /// The forward segment's id.
    #[schemars(length(min = 1, max = 256))]
    pub forward_id: String,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_get_forward`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardArgs {
    /// Account id.
    pub account_id: String,
    /// The bundle.
    pub forward_id: String,
}

impl ForwardArgs {
    /// `forwardId` required, a string (its length is the use case's check).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            forward_id: args
                .optional_string("forwardId")?
                .filter(|s| !s.trim().is_empty())
                .ok_or(ArgError::Missing("forwardId"))?,
            account_id: args.account_id()?,
        })
    }
}

/// Runs the tool.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = ForwardArgs::parse(args).map_err(Failure::Args)?;
    let forward = gw
        .get_forward(&args.account_id, &args.forward_id, ctx)
        .await
        .map_err(domain_failure(&args.account_id))?;
    let mut view = View::new(gw, &args.account_id);
    let messages = view.messages(&forward.messages);
    let details = json!({
        "status": "ok",
        "forwardId": args.forward_id.trim(),
        "count": forward.messages.len(),
        "senders": view.senders(),
        "messages": messages,
    });
    Ok(ToolOutput::ok(forward.rendered, details))
}
