//! `qq_poke`: [`Gateway::poke_member`] (the PokeMember use case) with the
//! tool's arguments and details.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{
    AccountId, OnBehalfOfArg, QqNumber, Target, account_rule, group_alias, on_behalf_of_rule,
    qq_rule, target_rule,
};
use super::output::{ToolOutput, domain_failure};
use super::texts::Failure;
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::model::ChatRef;
use crate::policy::OnBehalfOf;
use onebot_gateway_config::Locale;

/// The `properties` and `required` of the details' ok shape (the registry
/// adds `status`).
pub fn details_properties() -> (Value, Value) {
    (
        json!({"groupId": {"type": "integer", "minimum": 1}, "userId": {"type": "integer", "minimum": 1}}),
        json!(["status", "groupId", "userId"]),
    )
}

/// The arguments object of `qq_poke` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct PokeInput {
    #[doc = concat!("QQ number of the member to poke (not a chat). ", qq_rule!())]
    pub user_id: QqNumber,
    #[doc = concat!("The group (`group:<id>`), whitelisted; a private chat is refused. Omit it and groupId to poke in the account's only whitelisted group. ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    #[doc = on_behalf_of_rule!()]
    pub on_behalf_of: Option<OnBehalfOfArg>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_poke`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PokeArgs {
    /// Account id.
    pub account_id: String,
    /// The group (`target` `group:<id>`, or its alias `groupId`); `None`
    /// only when neither was given: the account's only whitelisted group.
    pub group_id: Option<i64>,
    /// Member to poke.
    pub user_id: i64,
    /// Who the poke is done for.
    pub on_behalf_of: Option<OnBehalfOf>,
}

impl PokeArgs {
    /// `userId` required, a QQ number ([`Args::qq_id`]); the group
    /// optional (`target` or `groupId`, never a private chat).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        let group_id = match args.chat(false)? {
            Some(ChatRef::Group(id)) => Some(id),
            Some(chat @ ChatRef::Private(_)) => {
                return Err(ArgError::GroupOnly {
                    tool: "qq_poke",
                    target: chat.target(),
                });
            }
            None => None,
        };
        Ok(Self {
            user_id: args.qq_id("userId")?.ok_or(ArgError::Missing("userId"))?,
            group_id,
            account_id: args.account_id()?,
            on_behalf_of: args.on_behalf_of()?,
        })
    }
}

/// Runs the tool: one PokeMember call.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = PokeArgs::parse(args).map_err(Failure::Args)?;
    let group_id = gw
        .poke_member(
            &args.account_id,
            args.group_id,
            args.user_id,
            args.on_behalf_of,
            ctx,
        )
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
