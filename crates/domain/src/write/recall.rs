//! The RecallMessage use case: read the message, check its chat against
//! the account's whitelists and the caller's scope, recall it, and publish
//! the recall as an event.

use crate::call::CallCtx;
use crate::delivery::outbound::not_allowed_chat;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::{ChatRef, InboundEvent};
use crate::policy::audit::{Note, cut};
use crate::policy::held::Held;
use crate::policy::{Action, OnBehalfOf};
use crate::read::message::{about_message, validate_message_id};

/// The text segments of `message`, joined.
fn plain_text(message: &crate::model::Message) -> String {
    message
        .segments
        .iter()
        .filter_map(|s| match s {
            crate::model::Segment::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<String>()
}

impl Gateway {
    /// Recalls `message_id`; returns the chat it was in. Refused before
    /// the recall: an id of 0, a read-only caller, a message the peer does
    /// not know, one whose chat is not whitelisted (`groups`, `users`) or
    /// outside the caller's scope. The peer's refusal (too old, not the
    /// sender, no admin rights) is `OnebotActionFailed` with its text.
    ///
    /// The `[policy]` rules decide after the whitelist and the caller's
    /// scope; the outcome goes to the audit trail.
    pub async fn recall_message(
        &self,
        account_id: &str,
        message_id: i64,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: CallCtx,
    ) -> Result<ChatRef> {
        let mut note = Note::new(
            account_id,
            vec![Action::Recall],
            format!("recall message {message_id}"),
        );
        let outcome = self
            .recall_checked(account_id, message_id, on_behalf_of, &ctx, false, &mut note)
            .await;
        self.audit_outcome(&note, &ctx, &outcome, |_| String::new())
            .await;
        outcome
    }

    /// Recalls a message an owner approved: the same checks but the
    /// policy's.
    pub(crate) async fn recall_approved(
        &self,
        account_id: &str,
        message_id: i64,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: CallCtx,
    ) -> Result<ChatRef> {
        let mut note = Note::new(account_id, vec![Action::Recall], String::new());
        self.recall_checked(account_id, message_id, on_behalf_of, &ctx, true, &mut note)
            .await
    }

    async fn recall_checked(
        &self,
        account_id: &str,
        message_id: i64,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: &CallCtx,
        approved: bool,
        note: &mut Note,
    ) -> Result<ChatRef> {
        validate_message_id(message_id)?;
        let account = self.account(account_id, ctx)?;
        note.account_id = account.id.clone();
        ctx.caller.check_write()?;
        let message = account
            .peer
            .get_message(message_id, None, ctx.deadline)
            .await
            .map_err(|e| about_message(e, message_id))?;
        let chat = message.chat;
        note.chat = Some(chat);
        let text = plain_text(&message);
        if !text.is_empty() {
            note.summary = cut(&format!("recall message {message_id}: {text}"));
        }
        let c = &account.config;
        let whitelisted = match chat {
            ChatRef::Group(g) => c.groups.contains(&g),
            ChatRef::Private(u) => c.users.contains(&u),
        };
        if !whitelisted {
            let mut e = not_allowed_chat(chat).with("message_id", message_id);
            e.field = Some("message_id".into());
            return Err(e);
        }
        ctx.caller.check_chat(chat)?;
        onebot_gateway_telemetry::record_chat(&chat.target());
        if !approved {
            self.govern(&account, note, on_behalf_of, ctx, || Held::Recall {
                message_id,
            })
            .await?;
        }
        // The peer's notice of this recall waits for the gateway's own event;
        // a failed (or abandoned) recall withdraws the announcement.
        self.inbound.expect_own(&account.id, chat, message_id);
        let announced = Announced {
            gw: self,
            account_id: &account.id,
            chat,
            message_id,
        };
        account
            .peer
            .recall(message_id, ctx.deadline)
            .await
            .map_err(|e| refused(e, message_id))?;
        std::mem::forget(announced);
        self.quotes.forget(&account.id, message_id);
        let operator_id = account.peer.self_id();
        self.inbound.publish_own(
            &account.id,
            InboundEvent::MessageRecalled {
                chat,
                message_id,
                operator_id,
                time: jiff::Timestamp::now().as_second(),
            },
        );
        Ok(chat)
    }
}

/// Withdraws an announced recall when dropped (the recall failed, or the
/// caller went away); forgotten once the recall succeeded.
struct Announced<'a> {
    gw: &'a Gateway,
    account_id: &'a str,
    chat: ChatRef,
    message_id: i64,
}

impl Drop for Announced<'_> {
    fn drop(&mut self) {
        self.gw
            .inbound
            .cancel_own(self.account_id, self.chat, self.message_id);
    }
}

/// The peer's refusal of a recall: any answer the peer classed as a failure
/// of its own (an undocumented retcode too) is `OnebotActionFailed`, its
/// text kept.
fn refused(e: Error, message_id: i64) -> Error {
    let e = about_message(e, message_id);
    match e.kind {
        Kind::OnebotActionUnknown | Kind::BotMuted | Kind::RemovedFromGroup => {
            let mut failed = Error::new(Kind::OnebotActionFailed, e.message);
            failed.metadata = e.metadata;
            failed
        }
        _ => e,
    }
}
