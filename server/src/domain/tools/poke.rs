//! `qq_poke`: [`Gateway::poke_member`] (the PokeMember use case) with seed
//! 004's arguments and details.

use serde_json::json;

use super::args::{Args, PokeArgs};
use super::texts::Failure;
use super::{ToolOutput, domain_failure};
use crate::config::Locale;
use crate::domain::Gateway;
use crate::onebot::api::CallCtx;

/// Runs the tool: one PokeMember call.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = PokeArgs::parse(args).map_err(Failure::Args)?;
    let group_id = gw
        .poke_member(&args.account_id, args.group_id, args.user_id, ctx)
        .await
        .map_err(domain_failure(&args.account_id))?;
    let user_id = args.user_id;
    let text = match gw.config.tools.locale {
        Locale::Zh => format!("已在群 {group_id} 戳了 {user_id}。"),
        Locale::En => format!("poked {user_id} in group {group_id}."),
    };
    Ok(ToolOutput::ok(
        text,
        json!({"status": "ok", "groupId": group_id, "userId": user_id}),
    ))
}
