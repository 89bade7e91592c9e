//! `qq_mute`, `qq_kick` and `qq_set_card`: [`Gateway::moderate`] (the
//! moderation use cases) with the tools' arguments and details.
//!
//! Moderation is off unless the operator's policy names it: every one of
//! these is refused (`PolicyDenied`, rule none) until a `[[policy.rules]]`
//! entry lists its action (`mute`, `mute_all`, `kick`, `set_card`).

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{
    AccountId, Integer, OnBehalfOfArg, QqNumber, Target, account_rule, group_alias,
    on_behalf_of_rule, qq_rule, target_rule,
};
use super::output::{ToolOutput, domain_failure};
use super::props::{group_rule, held_rule, strict_rules};
use super::texts::Failure;
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::policy::OnBehalfOf;
use crate::write::moderation::{MAX_MUTE_SECS, Moderation};
use onebot_gateway_config::Locale;

/// What every moderation description says about the checks.
macro_rules! moderation_rule {
    () => {
        "Moderation is off unless the operator's policy names it: without a [[policy.rules]] entry listing this action the call is refused (nothing done). Before QQ is asked the gateway checks that the bot is an admin or the owner of the group (acting on an admin needs the bot to be the owner), and it never acts on the group's owner or the bot itself."
    };
}

/// The description of `qq_mute`, for a model.
pub const MUTE_DESCRIPTION: &str = concat!(
    "\
Mute (禁言) a member of a whitelisted QQ group for some time, lift their mute, or turn the whole-group mute (全员禁言) on or off. Never throws.

Arguments (a member: userId and durationSecs; the whole group: all, alone):
- userId: QQ number of the member to mute (here userId is the member, not a chat).
- durationSecs: with userId, how long in seconds: 1 to 2592000 (30 days, QQ's limit); 0 lifts the member's mute.
- all: the whole-group mute instead of one member: true turns it on (everyone but admins is muted until it is turned off), false turns it off. Give it without userId and durationSecs.
",
    group_rule!(),
    "\
- onBehalfOf: the QQ user you act for: {\"messageId\": <id>} of the message that asked you (preferred), or {\"userId\": <QQ number>}; the operator's policy (action mute, or mute_all with all) decides by their role.
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

",
    moderation_rule!(),
    "
details on success: {\"status\":\"ok\",\"groupId\":<number>,\"userId\":<number>,\"durationSecs\":<seconds, 0 = lifted>} for a member, {\"status\":\"ok\",\"groupId\":<number>,\"all\":<bool>} for the whole group.
On failure (userId and all both or neither given, bad userId, durationSecs over 30 days or negative, group not whitelisted, no group given with several whitelisted groups, not a member, the bot is not an admin, a target that is the group's owner or the bot itself, no policy rule names the action, read-only token, offline, the implementation cannot do it, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}.
",
    held_rule!()
);

/// The description of `qq_kick`, for a model.
pub const KICK_DESCRIPTION: &str = concat!(
    "\
Remove (踢出) a member from a whitelisted QQ group. Destructive: they leave the group. Never throws.

Arguments:
- userId (required): QQ number of the member to remove (here userId is the member, not a chat).
- rejectRejoin: true also refuses their later requests to join again. Default false.
",
    group_rule!(),
    "\
- onBehalfOf: the QQ user you act for: {\"messageId\": <id>} of the message that asked you (preferred), or {\"userId\": <QQ number>}; the operator's policy (action kick) decides by their role.
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

",
    moderation_rule!(),
    "
details on success: {\"status\":\"ok\",\"groupId\":<number>,\"userId\":<number>,\"rejectRejoin\":<bool>}.
On failure (bad userId, group not whitelisted, no group given with several whitelisted groups, not a member, the bot is not an admin, a target that is the group's owner or the bot itself, no policy rule names kick, read-only token, offline, the implementation cannot do it, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}.
",
    held_rule!()
);

/// The description of `qq_set_card`, for a model.
pub const SET_CARD_DESCRIPTION: &str = concat!(
    "\
Set a member's group card (群名片, the name shown in that group) in a whitelisted QQ group, or clear it. Never throws.

Arguments:
- userId (required): QQ number of the member (here userId is the member, not a chat).
- card (required): the new card, at most 60 bytes of UTF-8 (about 20 Chinese characters); \"\" clears it (their nickname shows again).
",
    group_rule!(),
    "\
- onBehalfOf: the QQ user you act for: {\"messageId\": <id>} of the message that asked you (preferred), or {\"userId\": <QQ number>}; the operator's policy (action set_card) decides by their role.
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

",
    moderation_rule!(),
    "
details on success: {\"status\":\"ok\",\"groupId\":<number>,\"userId\":<number>,\"card\":\"<card>\"}.
On failure (bad userId, no card, a card over 60 bytes, group not whitelisted, no group given with several whitelisted groups, not a member, the bot is not an admin, a target that is the group's owner or the bot itself, no policy rule names set_card, read-only token, offline, the implementation cannot do it, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}.
",
    held_rule!()
);

/// The properties of `qq_mute`'s details on success (a member's mute or
/// the whole group's).
pub fn mute_details_properties() -> (Value, Value) {
    (
        json!({
            "groupId": {"type": "integer", "minimum": 1},
            "userId": {"type": "integer", "minimum": 1},
            "durationSecs": {"type": "integer", "minimum": 0, "maximum": MAX_MUTE_SECS},
            "all": {"type": "boolean"}
        }),
        json!(["status", "groupId"]),
    )
}

/// The properties of `qq_kick`'s details on success.
pub fn kick_details_properties() -> (Value, Value) {
    (
        json!({
            "groupId": {"type": "integer", "minimum": 1},
            "userId": {"type": "integer", "minimum": 1},
            "rejectRejoin": {"type": "boolean"}
        }),
        json!(["status", "groupId", "userId", "rejectRejoin"]),
    )
}

/// The properties of `qq_set_card`'s details on success.
pub fn set_card_details_properties() -> (Value, Value) {
    (
        json!({
            "groupId": {"type": "integer", "minimum": 1},
            "userId": {"type": "integer", "minimum": 1},
            "card": {"type": "string"}
        }),
        json!(["status", "groupId", "userId", "card"]),
    )
}

/// The arguments object of `qq_mute` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct MuteInput {
    #[doc = concat!("QQ number of the member to mute (not a chat); with durationSecs. Leave it out with all. ", qq_rule!())]
    pub user_id: Option<QqNumber>,
    /// With userId: seconds, 1 to 2592000 (30 days); 0 lifts the member's mute.
    #[schemars(range(min = 0, max = MAX_MUTE_SECS))]
    pub duration_secs: Option<Integer>,
    /// The whole-group mute instead of a member: true on, false off. Give it without userId and durationSecs.
    pub all: Option<bool>,
    #[doc = concat!("The group (`group:<id>`), whitelisted; a private chat is refused. Omit it and groupId for the account's only whitelisted group. ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    #[doc = on_behalf_of_rule!()]
    pub on_behalf_of: Option<OnBehalfOfArg>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// The arguments object of `qq_kick` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct KickInput {
    #[doc = concat!("QQ number of the member to remove (not a chat). ", qq_rule!())]
    pub user_id: QqNumber,
    /// true: also refuse their later join requests.
    #[schemars(extend("default" = false))]
    pub reject_rejoin: Option<bool>,
    #[doc = concat!("The group (`group:<id>`), whitelisted; a private chat is refused. Omit it and groupId for the account's only whitelisted group. ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    #[doc = on_behalf_of_rule!()]
    pub on_behalf_of: Option<OnBehalfOfArg>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// The arguments object of `qq_set_card` as a model sends it: the source
/// of its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetCardInput {
    #[doc = concat!("QQ number of the member (not a chat). ", qq_rule!())]
    pub user_id: QqNumber,
    /// The new group card, at most 60 bytes of UTF-8; "" clears it.
    pub card: String,
    #[doc = concat!("The group (`group:<id>`), whitelisted; a private chat is refused. Omit it and groupId for the account's only whitelisted group. ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    #[doc = on_behalf_of_rule!()]
    pub on_behalf_of: Option<OnBehalfOfArg>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of a moderation tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModerationArgs {
    /// Account id.
    pub account_id: String,
    /// The group; `None`: the account's only whitelisted group.
    pub group_id: Option<i64>,
    /// What to do.
    pub op: Moderation,
    /// Who it is done for.
    pub on_behalf_of: Option<OnBehalfOf>,
}

impl ModerationArgs {
    fn with(args: &Args, tool: &'static str, op: Moderation) -> Result<Self, ArgError> {
        Ok(Self {
            group_id: args.group(tool)?,
            op,
            account_id: args.account_id()?,
            on_behalf_of: args.on_behalf_of()?,
        })
    }

    /// `qq_mute`: `userId` with `durationSecs` (an integer; its range is
    /// the use case's), or `all` alone (a boolean).
    pub fn parse_mute(args: &Args) -> Result<Self, ArgError> {
        let user_id = args.qq_id("userId")?;
        let op = args.boolean("all")?;
        let op = match (user_id, op) {
            (Some(_), Some(_)) => return Err(ArgError::Exclusive("userId", "all")),
            (None, Some(enable)) => {
                if args.signed_int("durationSecs")?.is_some() {
                    return Err(ArgError::Exclusive("all", "durationSecs"));
                }
                Moderation::MuteAll { enable }
            }
            (Some(user_id), None) => Moderation::Mute {
                user_id,
                duration_secs: args
                    .signed_int("durationSecs")?
                    .ok_or(ArgError::Missing("durationSecs"))?,
            },
            (None, None) => return Err(ArgError::Missing("userId")),
        };
        Self::with(args, "qq_mute", op)
    }

    /// `qq_kick`: `userId` required; `rejectRejoin` a boolean (anything
    /// else: false).
    pub fn parse_kick(args: &Args) -> Result<Self, ArgError> {
        let op = Moderation::Kick {
            user_id: args.qq_id("userId")?.ok_or(ArgError::Missing("userId"))?,
            reject_rejoin: args.flag("rejectRejoin").unwrap_or(false),
        };
        Self::with(args, "qq_kick", op)
    }

    /// `qq_set_card`: `userId` and `card` (a string, `""` clears; its
    /// length is the use case's) required.
    pub fn parse_set_card(args: &Args) -> Result<Self, ArgError> {
        let op = Moderation::SetCard {
            user_id: args.qq_id("userId")?.ok_or(ArgError::Missing("userId"))?,
            card: args
                .optional_string("card")?
                .ok_or(ArgError::Missing("card"))?,
        };
        Self::with(args, "qq_set_card", op)
    }
}

/// Runs `qq_mute`, `qq_kick` or `qq_set_card` with their parsed arguments.
async fn run(gw: &Gateway, args: ModerationArgs, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let group_id = gw
        .moderate(
            &args.account_id,
            args.group_id,
            args.op.clone(),
            args.on_behalf_of,
            ctx,
        )
        .await
        .map_err(domain_failure(&args.account_id))?;
    let zh = gw.config.tools.locale == Locale::Zh;
    let (text, details) = match &args.op {
        Moderation::Mute {
            user_id,
            duration_secs: 0,
        } => (
            if zh {
                format!("已解除群 {group_id} 中 {user_id} 的禁言。")
            } else {
                format!("lifted {user_id}'s mute in group {group_id}.")
            },
            json!({"status": "ok", "groupId": group_id, "userId": user_id, "durationSecs": 0}),
        ),
        Moderation::Mute {
            user_id,
            duration_secs,
        } => (
            if zh {
                format!("已在群 {group_id} 禁言 {user_id} {duration_secs} 秒。")
            } else {
                format!("muted {user_id} in group {group_id} for {duration_secs} s.")
            },
            json!({"status": "ok", "groupId": group_id, "userId": user_id, "durationSecs": duration_secs}),
        ),
        Moderation::MuteAll { enable } => (
            match (zh, enable) {
                (true, true) => format!("已开启群 {group_id} 的全员禁言。"),
                (true, false) => format!("已关闭群 {group_id} 的全员禁言。"),
                (false, true) => format!("turned the whole-group mute of group {group_id} on."),
                (false, false) => format!("turned the whole-group mute of group {group_id} off."),
            },
            json!({"status": "ok", "groupId": group_id, "all": enable}),
        ),
        Moderation::Kick {
            user_id,
            reject_rejoin,
        } => (
            match (zh, reject_rejoin) {
                (true, false) => format!("已将 {user_id} 移出群 {group_id}。"),
                (true, true) => {
                    format!("已将 {user_id} 移出群 {group_id}，并拒绝其再次加群。")
                }
                (false, false) => format!("removed {user_id} from group {group_id}."),
                (false, true) => format!(
                    "removed {user_id} from group {group_id}; their later join requests are refused."
                ),
            },
            json!({"status": "ok", "groupId": group_id, "userId": user_id, "rejectRejoin": reject_rejoin}),
        ),
        Moderation::SetCard { user_id, card } => (
            match (zh, card.is_empty()) {
                (true, false) => format!("已将 {user_id} 在群 {group_id} 的群名片设为「{card}」。"),
                (true, true) => format!("已清除 {user_id} 在群 {group_id} 的群名片。"),
                (false, false) => {
                    format!("set {user_id}'s card in group {group_id} to {card:?}.")
                }
                (false, true) => format!("cleared {user_id}'s card in group {group_id}."),
            },
            json!({"status": "ok", "groupId": group_id, "userId": user_id, "card": card}),
        ),
    };
    Ok(ToolOutput::ok(text, details))
}

/// Runs `qq_mute`.
pub(super) async fn run_mute(
    gw: &Gateway,
    args: &Args,
    ctx: CallCtx,
) -> Result<ToolOutput, Failure> {
    let args = ModerationArgs::parse_mute(args).map_err(Failure::Args)?;
    run(gw, args, ctx).await
}

/// Runs `qq_kick`.
pub(super) async fn run_kick(
    gw: &Gateway,
    args: &Args,
    ctx: CallCtx,
) -> Result<ToolOutput, Failure> {
    let args = ModerationArgs::parse_kick(args).map_err(Failure::Args)?;
    run(gw, args, ctx).await
}

/// Runs `qq_set_card`.
pub(super) async fn run_set_card(
    gw: &Gateway,
    args: &Args,
    ctx: CallCtx,
) -> Result<ToolOutput, Failure> {
    let args = ModerationArgs::parse_set_card(args).map_err(Failure::Args)?;
    run(gw, args, ctx).await
}
