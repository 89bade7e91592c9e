//! Who a call acts for, and what the policy says of it.
//!
//! The requester of `on_behalf_of = {message_id}` is that message's sender
//! (the message must be of the action's chat); of `{user_id}`, that user.
//! The role: `bot_owner` for `policy.owners`; in a group, the role the
//! group's member list gives (`stranger` when the user is not in it); in a
//! private chat, `member` for the chat's own user and `stranger` for
//! anyone else; `none` when the call names nobody. The member list is the
//! cached one when the account caches lists, else the peer's; when it
//! cannot be read the call fails, never guessing a role.

use std::sync::Arc;

use super::audit::Note;
use super::held::Held;
use super::{Action, Decision, OnBehalfOf, Role};
use crate::account::Account;
use crate::call::{CallCtx, Deadline};
use crate::error::{Error, Result};
use crate::gateway::Gateway;
use crate::model::{ChatRef, GroupMember};
use crate::read::message::about_message;

/// The user a call acts for and their role in the action's chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requester {
    /// The QQ user; `None` when the call names nobody.
    pub user_id: Option<i64>,
    /// Their role.
    pub role: Role,
}

impl Requester {
    /// Nobody named.
    pub const NONE: Requester = Requester {
        user_id: None,
        role: Role::None,
    };
}

/// The policy's answer for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Who the call acts for.
    pub requester: Requester,
    /// What the policy says.
    pub decision: Decision,
}

impl Gateway {
    /// Resolves the requester of `on_behalf_of` in `chat` and decides
    /// `actions` for them.
    pub async fn check_policy(
        &self,
        account: &Account,
        chat: ChatRef,
        actions: &[Action],
        on_behalf_of: Option<OnBehalfOf>,
        deadline: Deadline,
    ) -> Result<Verdict> {
        let requester = self
            .requester(account, chat, on_behalf_of, deadline)
            .await?;
        let decision = self.policy().decide(actions, chat, requester.role);
        Ok(Verdict {
            requester,
            decision,
        })
    }

    /// The policy gate of a write use case, after its whitelist and scope
    /// checks: resolves the requester of `on_behalf_of` in the note's chat
    /// and decides the note's actions, noting the requester and the rule.
    /// A refusal is the `PolicyDenied` error; an action a rule holds is
    /// stored as `held()` and answered with `ApprovalPending`; `Ok` lets the
    /// action run.
    pub(crate) async fn govern(
        &self,
        account: &Arc<Account>,
        note: &mut Note,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: &CallCtx,
        held: impl FnOnce() -> Held,
    ) -> Result<()> {
        let chat = note
            .chat
            .ok_or_else(|| Error::internal("the policy gate runs once the chat is known"))?;
        let verdict = self
            .check_policy(account, chat, &note.actions, on_behalf_of, ctx.deadline)
            .await?;
        note.requester = verdict.requester;
        note.rule = verdict.decision.rule();
        if let Some(denied) = verdict.decision.denial() {
            return Err(denied);
        }
        if let Decision::NeedsApproval { .. } = verdict.decision {
            return Err(self
                .hold(account, &verdict, note, held(), ctx, on_behalf_of)
                .await);
        }
        Ok(())
    }

    /// The requester of `on_behalf_of` in `chat` (see the module docs).
    pub async fn requester(
        &self,
        account: &Account,
        chat: ChatRef,
        on_behalf_of: Option<OnBehalfOf>,
        deadline: Deadline,
    ) -> Result<Requester> {
        let user_id = match on_behalf_of {
            None => return Ok(Requester::NONE),
            Some(OnBehalfOf::User(u)) if u <= 0 => {
                return Err(Error::invalid(
                    "on_behalf_of.user_id",
                    format!("on_behalf_of.user_id must be a positive QQ number, got {u}"),
                )
                .with("user_id", u));
            }
            Some(OnBehalfOf::User(u)) => u,
            Some(OnBehalfOf::Message(id)) => {
                if id == 0 {
                    return Err(Error::invalid(
                        "on_behalf_of.message_id",
                        "on_behalf_of.message_id must be a message id (not 0)",
                    ));
                }
                let message = account
                    .peer
                    .get_message(id, Some(chat), deadline)
                    .await
                    .map_err(|e| about_message(e, id).field("on_behalf_of.message_id"))?;
                if message.chat != chat {
                    return Err(Error::invalid(
                        "on_behalf_of.message_id",
                        format!(
                            "on_behalf_of.message_id {id} is a message of {}, but this action is in {}: name a message of the same chat",
                            message.chat.target(),
                            chat.target()
                        ),
                    )
                    .with("message_id", id)
                    .with("message_chat", message.chat.target())
                    .with("target", chat.target()));
                }
                message.sender.user_id
            }
        };
        if self.policy().is_owner(user_id) {
            return Ok(Requester {
                user_id: Some(user_id),
                role: Role::BotOwner,
            });
        }
        let role = match chat {
            ChatRef::Private(u) if u == user_id => Role::Member,
            ChatRef::Private(_) => Role::Stranger,
            ChatRef::Group(g) => {
                let members = self.members_of(account, g, None, deadline).await?.0;
                members
                    .iter()
                    .find(|m| m.user_id == Some(user_id))
                    .map_or(Role::Stranger, |m: &GroupMember| Role::of_member(&m.role))
            }
        };
        Ok(Requester {
            user_id: Some(user_id),
            role,
        })
    }
}
