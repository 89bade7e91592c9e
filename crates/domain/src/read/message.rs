//! `GetMessage`: one message by id, its quote resolved, as one history line.

use crate::call::CallCtx;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::Message;
use crate::render;

/// One message read by id.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageView {
    /// The message, its quote resolved one level deep.
    pub message: Message,
    /// The message as one history line.
    pub rendered: String,
}

/// Checks a message id given by a client: any non-zero `i64` (SnowLuma ids
/// are negative).
pub fn validate_message_id(message_id: i64) -> Result<()> {
    if message_id == 0 {
        return Err(Error::invalid(
            "message_id",
            "message_id is required (a message id as history, events or sends report it)",
        ));
    }
    Ok(())
}

/// `e` naming the message it is about; a peer's "not found" says which id.
pub(crate) fn about_message(e: Error, message_id: i64) -> Error {
    let e = e.with("message_id", message_id);
    if e.kind == Kind::MessageNotFound && !e.message.contains(&message_id.to_string()) {
        let mut named = Error::new(
            Kind::MessageNotFound,
            format!("message {message_id} not found: {}", e.message),
        );
        named.metadata = e.metadata;
        return named;
    }
    e
}

impl Gateway {
    /// Reads one message. The id and the account are checked before the
    /// peer is asked; the message's chat must be the caller's to read.
    pub async fn get_message(
        &self,
        account_id: &str,
        message_id: i64,
        ctx: CallCtx,
    ) -> Result<MessageView> {
        validate_message_id(message_id)?;
        let account = self.account(account_id, &ctx)?;
        let message = account
            .peer
            .get_message(message_id, None, ctx.deadline)
            .await
            .map_err(|e| about_message(e, message_id))?;
        ctx.caller.check_chat(message.chat)?;
        onebot_gateway_telemetry::record_chat(&message.chat.target());
        let mut one = [message];
        self.quotes
            .resolve(&account.id, &*account.peer, &mut one, ctx.deadline)
            .await;
        self.mentions.name(&account, &mut one, ctx.deadline).await;
        let [message] = one;
        Ok(MessageView {
            rendered: render::history_line_in(&message, &self.tz, self.config.tools.locale),
            message,
        })
    }
}
