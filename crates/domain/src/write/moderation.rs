//! MuteMember, MuteAll, KickMember and SetMemberCard: moderation.
//!
//! Checks, in order, before the peer is asked: the account, a positive
//! member, the platform's limits (a mute of at most 30 days, a card of at
//! most 60 bytes), a write-capable caller, the group resolved and
//! whitelisted as for sends and inside the caller's scope, a group the bot
//! is in; moderation no `[policy]` rule names refused (`PolicyDenied`);
//! then the bot's role from the member list (an admin or the owner; the
//! owner to act on an admin: `BotNotAdmin`), and the target (never the
//! group's owner or the bot itself: `ProtectedMember`; a member of the
//! group); then the policy's rules for the requester, so an action held for
//! approval is one the bot can do.

use serde::{Deserialize, Serialize};

use super::group_actions::require_bot_role;
use super::send_checks::resolve_group;
use crate::call::CallCtx;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::ChatRef;
use crate::policy::audit::Note;
use crate::policy::held::Held;
use crate::policy::{Action, OnBehalfOf, Role};

/// Longest mute the platform allows: 30 days.
pub const MAX_MUTE_SECS: i64 = 30 * 24 * 3600;

/// Longest group card the platform allows, in bytes of UTF-8.
pub const MAX_CARD_BYTES: usize = 60;

/// One moderation action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Moderation {
    /// Mute a member for `duration_secs` (0 lifts the mute).
    Mute {
        /// The member.
        user_id: i64,
        /// Seconds.
        duration_secs: i64,
    },
    /// The whole-group mute on or off.
    MuteAll {
        /// On or off.
        enable: bool,
    },
    /// Remove a member.
    Kick {
        /// The member.
        user_id: i64,
        /// Refuse their later join requests.
        reject_rejoin: bool,
    },
    /// Set a member's card (empty clears it).
    SetCard {
        /// The member.
        user_id: i64,
        /// The card.
        card: String,
    },
}

impl Moderation {
    /// The governed action.
    pub fn action(&self) -> Action {
        match self {
            Moderation::Mute { .. } => Action::Mute,
            Moderation::MuteAll { .. } => Action::MuteAll,
            Moderation::Kick { .. } => Action::Kick,
            Moderation::SetCard { .. } => Action::SetCard,
        }
    }

    /// The member it targets (none for the whole-group mute).
    pub fn target(&self) -> Option<i64> {
        match self {
            Moderation::Mute { user_id, .. }
            | Moderation::Kick { user_id, .. }
            | Moderation::SetCard { user_id, .. } => Some(*user_id),
            Moderation::MuteAll { .. } => None,
        }
    }

    fn summary(&self) -> String {
        match self {
            Moderation::Mute {
                user_id,
                duration_secs: 0,
            } => format!("unmute {user_id}"),
            Moderation::Mute {
                user_id,
                duration_secs,
            } => format!("mute {user_id} for {duration_secs}s"),
            Moderation::MuteAll { enable: true } => "mute the whole group".to_owned(),
            Moderation::MuteAll { enable: false } => "unmute the whole group".to_owned(),
            Moderation::Kick { user_id, .. } => format!("kick {user_id}"),
            Moderation::SetCard { user_id, card } => format!("set {user_id}'s card to {card:?}"),
        }
    }

    /// The request's own checks: a positive member, the limits.
    fn validate(&self) -> Result<()> {
        if let Some(user_id) = self.target()
            && user_id <= 0
        {
            return Err(
                Error::invalid("user_id", "user_id must be positive").with("user_id", user_id)
            );
        }
        match self {
            Moderation::Mute { duration_secs, .. }
                if !(0..=MAX_MUTE_SECS).contains(duration_secs) =>
            {
                Err(Error::invalid(
                    "duration_secs",
                    format!(
                        "duration_secs must be 0 (lift) to {MAX_MUTE_SECS} (30 days, the platform's limit), got {duration_secs}"
                    ),
                )
                .with("limit", MAX_MUTE_SECS))
            }
            Moderation::SetCard { card, .. } if card.len() > MAX_CARD_BYTES => {
                Err(Error::invalid(
                    "card",
                    format!(
                        "card is {} bytes; the platform allows at most {MAX_CARD_BYTES} bytes of UTF-8",
                        card.len()
                    ),
                )
                .with("limit", MAX_CARD_BYTES))
            }
            _ => Ok(()),
        }
    }
}

impl Gateway {
    /// Runs one moderation action in `group_id` (resolved as for sends);
    /// returns the group. See the module docs for the checks.
    pub async fn moderate(
        &self,
        account_id: &str,
        group_id: Option<i64>,
        op: Moderation,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: CallCtx,
    ) -> Result<i64> {
        let mut note = Note::new(account_id, vec![op.action()], op.summary());
        let outcome = self
            .moderate_checked(
                account_id,
                group_id,
                &op,
                on_behalf_of,
                &ctx,
                false,
                &mut note,
            )
            .await;
        self.audit_outcome(&note, &ctx, &outcome, |_| String::new())
            .await;
        outcome
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn moderate_checked(
        &self,
        account_id: &str,
        group_id: Option<i64>,
        op: &Moderation,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: &CallCtx,
        approved: bool,
        note: &mut Note,
    ) -> Result<i64> {
        let account = self.account(account_id, ctx)?;
        note.account_id = account.id.clone();
        op.validate()?;
        ctx.caller.check_write()?;
        let group_id = resolve_group(&account, group_id)?;
        ctx.caller.check_group(group_id)?;
        let chat = ChatRef::Group(group_id);
        note.chat = Some(chat);
        onebot_gateway_telemetry::record_chat(&chat.target());
        self.require_joined(&account, group_id, ctx.deadline)
            .await?;
        if !approved
            && let Some(denied) = self
                .policy()
                .decide(&note.actions, chat, Role::None)
                .unnamed()
        {
            return Err(denied);
        }
        // One member list serves the bot's role and the target's.
        let members = self
            .members_of(&account, group_id, None, ctx.deadline)
            .await?
            .0;
        let bot = require_bot_role(&members, account.peer.self_id(), group_id, Role::Admin)?;
        if let Some(user_id) = op.target() {
            let protected = |why: &str| {
                Error::new(
                    Kind::ProtectedMember,
                    format!("{user_id} is {why}; the gateway never mutes, kicks or re-cards them"),
                )
                .with("user_id", user_id)
                .with("group_id", group_id)
                .with("why", why)
                .field("user_id")
            };
            if user_id == account.peer.self_id() {
                return Err(protected("the bot itself"));
            }
            let Some(member) = members.iter().find(|m| m.user_id == Some(user_id)) else {
                return Err(Error::invalid(
                    "user_id",
                    format!("{user_id} is not a member of group {group_id}"),
                )
                .with("user_id", user_id)
                .with("group_id", group_id));
            };
            match Role::of_member(&member.role) {
                Role::Owner => return Err(protected("the group's owner")),
                Role::Admin if bot != Role::Owner => {
                    return Err(Error::new(
                        Kind::BotNotAdmin,
                        format!(
                            "{user_id} is an admin of group {group_id}; only the group's owner can do this to an admin, and the bot is {}",
                            bot.name()
                        ),
                    )
                    .with("group_id", group_id)
                    .with("bot_role", bot.name())
                    .with("needed_role", "owner"));
                }
                _ => {}
            }
        }
        if !approved {
            self.govern(&account, note, on_behalf_of, ctx, || Held::Moderate {
                group_id,
                op: op.clone(),
            })
            .await?;
        }
        let peer = &account.peer;
        let done = match op {
            Moderation::Mute {
                user_id,
                duration_secs,
            } => {
                let secs = u32::try_from(*duration_secs).unwrap_or(u32::MAX);
                peer.mute_member(group_id, *user_id, secs, ctx.deadline)
                    .await
            }
            Moderation::MuteAll { enable } => peer.mute_all(group_id, *enable, ctx.deadline).await,
            Moderation::Kick {
                user_id,
                reject_rejoin,
            } => {
                peer.kick_member(group_id, *user_id, *reject_rejoin, ctx.deadline)
                    .await
            }
            Moderation::SetCard { user_id, card } => {
                peer.set_member_card(group_id, *user_id, card, ctx.deadline)
                    .await
            }
        };
        done.map_err(|e| e.with("group_id", group_id))?;
        if op.target().is_some() {
            self.member_cache.invalidate(&account.id, group_id);
        }
        Ok(group_id)
    }
}
