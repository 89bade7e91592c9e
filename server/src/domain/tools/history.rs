//! `qq_get_history` (alias `snowluma_get_history`): [`Gateway::get_history`]
//! with seed 000's arguments and details.

use serde_json::{Value, json};

use super::args::{Args, HistoryArgs};
use super::texts::Failure;
use super::{ToolOutput, domain_failure};
use crate::domain::Gateway;
use crate::domain::history::HistoryRequest;
use crate::onebot::api::CallCtx;

/// Runs the tool: the page as the typed RPC reads and renders it; details
/// carry the peer's own message objects in the page's (time) order.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = HistoryArgs::parse(args).map_err(Failure::Args)?;
    let request = HistoryRequest {
        account_id: args.account_id.clone(),
        chat: Some(args.chat),
        // Already in [1, 100], which the domain keeps as it is.
        count: args.count as i32,
        anchor_message_id: args.message_seq,
    };
    let page = gw
        .get_history(request, ctx)
        .await
        .map_err(domain_failure(&args.account_id))?;
    let messages: Vec<Value> = page.messages.iter().map(|m| m.raw.value()).collect();
    let details = json!({
        "status": "ok",
        "target": page.target,
        "count": messages.len(),
        "messages": messages,
    });
    Ok(ToolOutput::ok(page.rendered, details))
}
