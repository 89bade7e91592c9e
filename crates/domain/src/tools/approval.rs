//! `qq_get_approval`: an action held for a bot owner's approval
//! ([`Gateway::wait_approval`]), checked or waited for.

use std::time::Duration;

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::Number;
use super::output::ToolOutput;
use super::props::strict_rules;
use super::texts::Failure;
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::policy::approvals::{Executed, actions_of};
use crate::policy::store::ApprovalState;
use onebot_gateway_config::Locale;

/// Longest wait one call may ask for, in seconds.
pub const MAX_WAIT_SECS: u32 = 120;

/// The tool's description, for a model.
pub const DESCRIPTION: &str = concat!(
    "\
Check an action the operator's policy held for the bot owner's approval (the approvalId a write tool returned with status pending_approval), or wait for the owner's answer. Never throws.

Arguments:
- approvalId (required): the id, six letters and digits.
- waitSecs: wait up to this many seconds (at most 120) for the owner to decide; 0 or absent answers at once.
",
    strict_rules!(),
    "

Result text: where the approval stands: pending (the owner has not answered), executed (approved and done; messageIds are the messages sent), rejected or expired (never done: tell the user), failed (approved but the action failed; error says why).
details on success: {\"status\":\"ok\",\"approvalId\",\"state\":\"pending\"|\"approved\"|\"rejected\"|\"expired\"|\"executed\"|\"failed\",\"actions\":[...],\"target\",\"messageIds\":[...],\"error\" (only when failed),\"decidedBy\" (once decided)}.
On failure (unknown approvalId, a token that may not use its account) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

/// The properties of the details object on success.
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "approvalId": {"type": "string"},
            "state": {"enum": ApprovalState::ALL.map(ApprovalState::name)},
            "actions": {"type": "array", "items": {"type": "string"}},
            "target": {"type": "string"},
            "messageIds": {"type": "array", "items": {"type": "integer"}},
            "error": {"type": "string"},
            "decidedBy": {"type": "string"}
        }),
        json!([
            "status",
            "approvalId",
            "state",
            "actions",
            "target",
            "messageIds"
        ]),
    )
}

/// The arguments object of `qq_get_approval` as a model sends it: the
/// source of its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApprovalInput {
    /// The approval id a write tool returned (six letters and digits).
    pub approval_id: String,
    /// Seconds to wait for the owner's answer (0 to 120; default 0).
    pub wait_secs: Option<Number>,
}

/// Parsed arguments of `qq_get_approval`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalArgs {
    /// The approval.
    pub approval_id: String,
    /// How long to wait.
    pub wait: Duration,
}

impl ApprovalArgs {
    /// `approvalId` required (a non-empty string); `waitSecs` as counts
    /// are read ([`Args::clamped`]), at most 120.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        let approval_id = args
            .optional_string("approvalId")?
            .filter(|s| !s.trim().is_empty())
            .ok_or(ArgError::Missing("approvalId"))?;
        let secs = args.clamped("waitSecs", 0, MAX_WAIT_SECS);
        Ok(Self {
            approval_id,
            wait: Duration::from_secs(u64::from(secs)),
        })
    }
}

/// Runs the tool.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = ApprovalArgs::parse(args).map_err(Failure::Args)?;
    let record = gw
        .wait_approval(&args.approval_id, args.wait, &ctx)
        .await
        .map_err(Failure::Domain)?;
    let executed = Executed::parse(record.result.as_deref());
    let id = &record.id;
    let state = record.state.name();
    let text = match (gw.config.tools.locale, record.state) {
        (Locale::Zh, ApprovalState::Pending) => {
            format!("审批 {id} 仍在等待机器人主人处理（{}）。", record.action)
        }
        (Locale::Zh, ApprovalState::Approved) => format!("审批 {id} 已同意，正在执行。"),
        (Locale::Zh, ApprovalState::Executed) => format!("审批 {id} 已同意并执行。"),
        (Locale::Zh, ApprovalState::Rejected) => {
            format!("审批 {id} 被拒绝，未执行：请告诉用户。")
        }
        (Locale::Zh, ApprovalState::Expired) => {
            format!("审批 {id} 无人处理已过期，未执行：请告诉用户。")
        }
        (Locale::Zh, ApprovalState::Failed) => {
            format!("审批 {id} 已同意，但执行失败：{}", executed.error_message)
        }
        (Locale::En, ApprovalState::Failed) => format!(
            "approval {id} was approved but the action failed: {}",
            executed.error_message
        ),
        (Locale::En, ApprovalState::Pending) => format!(
            "approval {id} is still waiting for the bot owner ({}).",
            record.action
        ),
        (Locale::En, _) => format!("approval {id} is {state}."),
    };
    let mut details = json!({
        "status": "ok",
        "approvalId": id,
        "state": state,
        "actions": actions_of(&record),
        "target": record.chat,
        "messageIds": executed.message_ids,
    });
    if !executed.error_message.is_empty() {
        details["error"] = json!(executed.error_message);
    }
    if let Some(by) = &record.decided_by {
        details["decidedBy"] = json!(by);
    }
    Ok(ToolOutput::ok(text, details))
}
