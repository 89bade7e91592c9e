//! ReactToMessage, SetEssence and SetTyping: small writes about a message
//! or a chat, never queued, governed and audited like sends.
//!
//! A reaction or an essence mark names a message: its chat is read from
//! the peer and must be a whitelisted group inside the caller's scope.
//! Typing names a private chat's user, who must be in the `users`
//! whitelist.

use std::sync::Arc;

use crate::account::Account;
use crate::call::CallCtx;
use crate::delivery::outbound::{not_allowed, user_not_allowed};
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::{ChatRef, GroupMember};
use crate::policy::audit::Note;
use crate::policy::held::Held;
use crate::policy::{Action, OnBehalfOf, Role};
use crate::read::message::{about_message, validate_message_id};

/// Longest `emoji_id` accepted, in bytes.
pub const MAX_EMOJI_ID_BYTES: usize = 32;

/// `BotNotAdmin` unless the bot's role in `group_id`, from the group's
/// member list `members`, is at least `needed` (`Admin`: an admin or the
/// owner; `Owner`: the owner); the bot's role otherwise.
pub(crate) fn require_bot_role(
    members: &[GroupMember],
    self_id: i64,
    group_id: i64,
    needed: Role,
) -> Result<Role> {
    let role = members
        .iter()
        .find(|m| m.user_id == Some(self_id))
        .map_or(Role::Stranger, |m| Role::of_member(&m.role));
    let ok = match needed {
        Role::Owner => role == Role::Owner,
        _ => matches!(role, Role::Owner | Role::Admin),
    };
    if ok {
        return Ok(role);
    }
    let needed_name = match needed {
        Role::Owner => "owner",
        _ => "admin",
    };
    Err(Error::new(
        Kind::BotNotAdmin,
        format!(
            "the bot is {} in group {group_id}, and this needs the group's {needed_name}; nothing was sent",
            role.name()
        ),
    )
    .with("group_id", group_id)
    .with("bot_role", role.name())
    .with("needed_role", needed_name))
}

impl Gateway {
    /// The group of message `message_id`: read from the peer, a group (not
    /// a private chat), whitelisted, inside the caller's scope, and joined.
    async fn message_group(
        &self,
        account: &Arc<Account>,
        message_id: i64,
        ctx: &CallCtx,
        note: &mut Note,
    ) -> Result<i64> {
        validate_message_id(message_id)?;
        let message = account
            .peer
            .get_message(message_id, None, ctx.deadline)
            .await
            .map_err(|e| about_message(e, message_id))?;
        let ChatRef::Group(group_id) = message.chat else {
            return Err(Error::invalid(
                "message_id",
                format!(
                    "message {message_id} is in a private chat; reactions and essence are for group messages"
                ),
            )
            .with("message_id", message_id)
            .with("target", message.chat.target()));
        };
        note.chat = Some(message.chat);
        if !account.config.groups.contains(&group_id) {
            let mut e = not_allowed(group_id).with("message_id", message_id);
            e.field = Some("message_id".into());
            return Err(e);
        }
        ctx.caller.check_group(group_id)?;
        onebot_gateway_telemetry::record_chat(&message.chat.target());
        self.require_joined(account, group_id, ctx.deadline).await?;
        Ok(group_id)
    }

    /// Adds (or with `remove`, removes) an emoji reaction to a group
    /// message; returns its group. See the module docs for the checks; the
    /// `[policy]` action is `react`.
    pub async fn react_to_message(
        &self,
        account_id: &str,
        message_id: i64,
        emoji_id: &str,
        remove: bool,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: CallCtx,
    ) -> Result<i64> {
        let verb = if remove { "remove" } else { "add" };
        let mut note = Note::new(
            account_id,
            vec![Action::React],
            format!("{verb} reaction {emoji_id} on message {message_id}"),
        );
        let outcome = self
            .react_checked(
                account_id,
                message_id,
                emoji_id,
                remove,
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
    pub(crate) async fn react_checked(
        &self,
        account_id: &str,
        message_id: i64,
        emoji_id: &str,
        remove: bool,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: &CallCtx,
        approved: bool,
        note: &mut Note,
    ) -> Result<i64> {
        let emoji_id = emoji_id.trim();
        if emoji_id.is_empty() || emoji_id.len() > MAX_EMOJI_ID_BYTES {
            return Err(Error::invalid(
                "emoji_id",
                format!(
                    "emoji_id must be a QQ face id or an emoji's code point (1 to {MAX_EMOJI_ID_BYTES} bytes), got {emoji_id:?}"
                ),
            ));
        }
        let account = self.account(account_id, ctx)?;
        note.account_id = account.id.clone();
        ctx.caller.check_write()?;
        let group_id = self.message_group(&account, message_id, ctx, note).await?;
        if !approved {
            self.govern(&account, note, on_behalf_of, ctx, || Held::React {
                message_id,
                emoji_id: emoji_id.to_owned(),
                remove,
            })
            .await?;
        }
        account
            .peer
            .react(group_id, message_id, emoji_id, !remove, ctx.deadline)
            .await
            .map_err(|e| about_message(e, message_id))?;
        Ok(group_id)
    }

    /// Marks (or with `remove`, unmarks) a group message as essence;
    /// returns its group. The bot must be an admin or the owner of the
    /// group (`BotNotAdmin` before the peer is asked). The `[policy]`
    /// action is `essence`.
    pub async fn set_essence(
        &self,
        account_id: &str,
        message_id: i64,
        remove: bool,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: CallCtx,
    ) -> Result<i64> {
        let verb = if remove { "unmark" } else { "mark" };
        let mut note = Note::new(
            account_id,
            vec![Action::Essence],
            format!("{verb} message {message_id} as essence"),
        );
        let outcome = self
            .essence_checked(
                account_id,
                message_id,
                remove,
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
    pub(crate) async fn essence_checked(
        &self,
        account_id: &str,
        message_id: i64,
        remove: bool,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: &CallCtx,
        approved: bool,
        note: &mut Note,
    ) -> Result<i64> {
        let account = self.account(account_id, ctx)?;
        note.account_id = account.id.clone();
        ctx.caller.check_write()?;
        let group_id = self.message_group(&account, message_id, ctx, note).await?;
        let members = self
            .members_of(&account, group_id, None, ctx.deadline)
            .await?
            .0;
        require_bot_role(&members, account.peer.self_id(), group_id, Role::Admin)?;
        if !approved {
            self.govern(&account, note, on_behalf_of, ctx, || Held::Essence {
                message_id,
                remove,
            })
            .await?;
        }
        account
            .peer
            .set_essence(group_id, message_id, !remove, ctx.deadline)
            .await
            .map_err(|e| about_message(e, message_id))?;
        Ok(group_id)
    }

    /// Shows "正在输入" to `user_id` in their private chat, which must be in
    /// the `users` whitelist and the caller's scope. The `[policy]` action
    /// is `typing`.
    pub async fn set_typing(
        &self,
        account_id: &str,
        user_id: i64,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: CallCtx,
    ) -> Result<()> {
        let mut note = Note::new(
            account_id,
            vec![Action::Typing],
            format!("typing to {user_id}"),
        );
        let outcome = self
            .typing_checked(account_id, user_id, on_behalf_of, &ctx, false, &mut note)
            .await;
        self.audit_outcome(&note, &ctx, &outcome, |_| String::new())
            .await;
        outcome
    }

    pub(crate) async fn typing_checked(
        &self,
        account_id: &str,
        user_id: i64,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: &CallCtx,
        approved: bool,
        note: &mut Note,
    ) -> Result<()> {
        let account = self.account(account_id, ctx)?;
        note.account_id = account.id.clone();
        if user_id <= 0 {
            return Err(
                Error::invalid("user_id", "user_id must be positive").with("user_id", user_id)
            );
        }
        ctx.caller.check_write()?;
        let chat = ChatRef::Private(user_id);
        if !account.config.users.contains(&user_id) {
            return Err(user_not_allowed(user_id).field("user_id"));
        }
        ctx.caller.check_chat(chat)?;
        note.chat = Some(chat);
        onebot_gateway_telemetry::record_chat(&chat.target());
        if !approved {
            self.govern(&account, note, on_behalf_of, ctx, || Held::Typing {
                user_id,
            })
            .await?;
        }
        account.peer.set_typing(user_id, ctx.deadline).await
    }
}
