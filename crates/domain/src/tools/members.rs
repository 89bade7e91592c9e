//! `qq_get_group_members` (alias `snowluma_get_group_members`):
//! [`Gateway::list_group_members`] with the tool's arguments and details.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{AccountId, Number, NumberLikeId, Target, account_rule, target_rule};
use super::output::{ToolOutput, domain_failure};
use super::props::clamp_rule;
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

/// The `properties` and `required` of the details' ok shape (the registry
/// adds `status`).
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "groupId": {"type": "integer", "minimum": 1},
            "total": {"type": "integer", "minimum": 0},
            "shown": {"type": "integer", "minimum": 0, "maximum": 500},
            "members": {"type": "array", "items": {"$ref": "#/$defs/member"}, "maxItems": 500}
        }),
        json!(["status", "groupId", "total", "shown", "members"]),
    )
}

/// The arguments object of `qq_get_group_members` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct MembersInput {
    #[doc = concat!("The group (required, or its alias groupId); a private chat is refused. ", target_rule!())]
    pub target: Option<Target>,
    /// Alias of target: the group number `group:<groupId>`; a numeric string is converted like JavaScript Number().
    pub group_id: Option<NumberLikeId>,
    /// true: fetch fresh data, bypassing the member cache.
    pub no_cache: Option<bool>,
    #[doc = concat!("Most members shown. ", clamp_rule!(500, 100))]
    #[schemars(extend("default" = DEFAULT_LIMIT))]
    pub limit: Option<Number>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

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
