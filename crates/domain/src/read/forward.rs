//! `GetForwardMessages`: the nodes of a merged-forward bundle.
//!
//! A bundle's id is what opening it takes: the peer knows it only from a
//! message that carries the bundle, so a caller that holds the id has read
//! that message. Nested bundles stay `Forward` segments.

use crate::call::CallCtx;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::Message;
use crate::render;

/// Longest forward id accepted, in bytes.
pub const MAX_FORWARD_ID_BYTES: usize = 256;

/// A bundle's nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Forward {
    /// The nodes, in order.
    pub messages: Vec<Message>,
    /// One history line per node, or `（无历史消息）`.
    pub rendered: String,
}

impl Gateway {
    /// Opens the bundle `forward_id`. The id and the account are checked
    /// before the peer is asked.
    pub async fn get_forward(
        &self,
        account_id: &str,
        forward_id: &str,
        ctx: CallCtx,
    ) -> Result<Forward> {
        let id = forward_id.trim();
        if id.is_empty() {
            return Err(Error::invalid(
                "forward_id",
                "forward_id is required: the id of a received forward segment",
            ));
        }
        if id.len() > MAX_FORWARD_ID_BYTES {
            return Err(Error::invalid(
                "forward_id",
                format!("forward_id is at most {MAX_FORWARD_ID_BYTES} bytes"),
            ));
        }
        let account = self.account(account_id, &ctx)?;
        let mut messages = account
            .peer
            .get_forward(id, ctx.deadline)
            .await
            .map_err(|e| {
                let e = e.with("forward_id", id);
                if e.kind == Kind::MessageNotFound && !e.message.contains(id) {
                    let mut named = Error::new(
                        Kind::MessageNotFound,
                        format!("forward bundle {id:?} not found: {}", e.message),
                    );
                    named.metadata = e.metadata;
                    named
                } else {
                    e
                }
            })?;
        // Mentions named by the bundle's own senders only: its nodes' chat
        // is not one the caller was checked for.
        crate::mentions::name_from_senders(&mut messages);
        Ok(Forward {
            rendered: render::history_in(&messages, &self.tz, self.config.tools.locale),
            messages,
        })
    }
}
