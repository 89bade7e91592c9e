//! `qq_get_group_members` (alias `snowluma_get_group_members`):
//! [`Gateway::list_group_members`] with the tool's arguments and details.

use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::output::{ToolOutput, domain_failure};
use super::texts::Failure;
use super::view;
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::model::ChatRef;
use crate::read::members::MembersRequest;

/// `limit` when absent or not a finite number.
pub const DEFAULT_LIMIT: u32 = 100;
/// Largest `limit`; larger numbers are clamped to it.
pub const MAX_LIMIT: u32 = 500;

/// Parsed arguments of `qq_get_group_members`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MembersArgs {
    /// Account id.
    pub account_id: String,
    /// The group.
    pub group_id: i64,
    /// Passed to the peer when a boolean.
    pub no_cache: Option<bool>,
    /// Members shown, in `[1, 500]`.
    pub limit: u32,
}

impl MembersArgs {
    /// A group required (`target` `group:<id>`, or its alias `groupId`, a
    /// number or a numeric string); `limit` clamped to `[1, 500]` (100 when
    /// absent or not a finite number); `noCache` passed on when a boolean.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        let group_id = match args.chat(false)? {
            Some(ChatRef::Group(id)) => id,
            Some(chat @ ChatRef::Private(_)) => {
                return Err(ArgError::GroupOnly {
                    tool: "qq_get_group_members",
                    target: chat.target(),
                });
            }
            None => return Err(ArgError::MissingChat { aliases: "groupId" }),
        };
        Ok(Self {
            group_id,
            no_cache: args.flag("noCache"),
            limit: args.clamped("limit", DEFAULT_LIMIT, MAX_LIMIT),
            account_id: args.account_id()?,
        })
    }
}

/// Runs the tool: the members as the typed RPC lists and renders them;
/// details carry the members shown in the gateway's model
/// ([`view::member`]).
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
    let members: Vec<Value> = list
        .members
        .iter()
        .map(|m| view::member(m, &gw.tz))
        .collect();
    let details = json!({
        "status": "ok",
        "groupId": list.group_id,
        "total": list.total,
        "shown": members.len(),
        "members": members,
    });
    Ok(ToolOutput::ok(list.rendered, details))
}
