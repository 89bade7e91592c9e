//! `qq_get_group_members` (alias `snowluma_get_group_members`):
//! [`Gateway::list_group_members`] with seed 000's arguments and details.

use serde_json::{Value, json};

use super::args::{Args, MembersArgs};
use super::texts::Failure;
use super::{ToolOutput, domain_failure};
use crate::domain::Gateway;
use crate::domain::members::MembersRequest;
use crate::onebot::api::CallCtx;

/// Runs the tool: the members as the typed RPC lists and renders them;
/// details carry the peer's own member objects of the members shown.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = MembersArgs::parse(args).map_err(Failure::Args)?;
    let request = MembersRequest {
        account_id: args.account_id.clone(),
        group_id: args.group_id,
        no_cache: args.no_cache,
        // Already in [1, 500], which the domain keeps as it is.
        limit: args.limit as i32,
    };
    let list = gw
        .list_group_members(request, ctx)
        .await
        .map_err(domain_failure(&args.account_id))?;
    let members: Vec<Value> = list.members.iter().map(|m| Value::clone(&m.raw)).collect();
    let details = json!({
        "status": "ok",
        "groupId": list.group_id,
        "total": list.total,
        "shown": members.len(),
        "members": members,
    });
    Ok(ToolOutput::ok(list.rendered, details))
}
