//! `qq_get_forward`: [`Gateway::get_forward`] (the GetForwardMessages use
//! case) with the tool's arguments and details.

use serde_json::{Value, json};

use super::args::{ArgError, Args};
use super::output::{ToolOutput, domain_failure, raw_value};
use super::texts::Failure;
use crate::domain::call::CallCtx;
use crate::domain::gateway::Gateway;

/// The tool's description, for a model.
pub const DESCRIPTION: &str = "\
Open a merged-forward bundle (合并转发, shown as [合并转发] in history) and read its messages. Never throws.

Arguments:
- forwardId (required): the bundle's id: `data.id` of the forward segment in a message object of qq_get_history's or qq_get_message's details.
- accountId: gateway account, default \"default\".

Result text: one line per forwarded message, in order, `[HH:mm:ss] name(QQ number): text`; a bundle nested inside shows as [合并转发]: open it with another call using its own id. `（无历史消息）` for an empty bundle.
details on success: {\"status\":\"ok\",\"forwardId\":\"...\",\"count\":<messages>,\"messages\":[the implementation's own node objects]}.
On failure (empty forwardId, unknown or expired bundle, account not configured, offline, the implementation cannot open bundles, timeout) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}.";

/// The properties of the arguments object.
pub fn input_properties() -> (Value, Value) {
    (
        json!({
            "forwardId": {
                "type": "string",
                "minLength": 1,
                "maxLength": 256,
                "description": "The forward segment's id."
            },
            "accountId": super::props::account_id()
        }),
        json!(["forwardId"]),
    )
}

/// The properties of the details object on success.
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "forwardId": {"type": "string", "minLength": 1},
            "count": {"type": "integer", "minimum": 0},
            "messages": {"type": "array", "items": {"type": "object"}}
        }),
        json!(["status", "forwardId", "count", "messages"]),
    )
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
    let messages: Vec<Value> = forward.messages.iter().map(|m| raw_value(&m.raw)).collect();
    let details = json!({
        "status": "ok",
        "forwardId": args.forward_id.trim(),
        "count": messages.len(),
        "messages": messages,
    });
    Ok(ToolOutput::ok(forward.rendered, details))
}
