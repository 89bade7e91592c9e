//! `qq_get_history` (alias `snowluma_get_history`): [`Gateway::get_history`]
//! with the tool's arguments and details.

use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::media::{history_images, marked_history};
use super::output::{ToolOutput, domain_failure};
use super::texts::Failure;
use super::view::View;
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::model::ChatRef;
use crate::read::history::HistoryRequest;

/// `count` when absent or not a finite number.
pub const DEFAULT_COUNT: u32 = 20;
/// Largest `count`; larger numbers are clamped to it.
pub const MAX_COUNT: u32 = 100;

/// Parsed arguments of `qq_get_history`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryArgs {
    /// Account id.
    pub account_id: String,
    /// The chat.
    pub chat: ChatRef,
    /// Page size in `[1, 100]`.
    pub count: u32,
    /// Anchor message id (`anchorMessageId`, alias `messageSeq`).
    pub anchor_message_id: Option<i64>,
    /// Return the page's images as image content.
    pub include_images: bool,
}

impl HistoryArgs {
    /// The chat required (`target`, or its alias `groupId` / `userId`);
    /// `count` clamped to `[1, 100]` (20 when absent or not a finite
    /// number); `anchorMessageId` (alias `messageSeq`) a message id.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            chat: args.chat(true)?.ok_or(ArgError::MissingChat {
                aliases: "groupId / userId",
            })?,
            count: args.clamped("count", DEFAULT_COUNT, MAX_COUNT),
            anchor_message_id: args.anchor()?,
            include_images: args.flag("includeImages").unwrap_or(false),
            account_id: args.account_id()?,
        })
    }
}

/// Runs the tool: the page as the typed RPC reads and renders it; details
/// carry the messages in the page's (time) order, in the gateway's model
/// ([`View`]).
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = HistoryArgs::parse(args).map_err(Failure::Args)?;
    let request = HistoryRequest {
        account_id: args.account_id.clone(),
        chat: Some(args.chat),
        // Already in [1, 100], which the domain keeps as it is.
        count: args.count as i32,
        anchor_message_id: args.anchor_message_id,
        until: None,
    };
    let page = gw
        .get_history(request, ctx.clone())
        .await
        .map_err(domain_failure(&args.account_id))?;
    let mut view = View::new(gw, &args.account_id);
    let messages = view.messages(&page.messages);
    let mut details = json!({
        "status": "ok",
        "target": page.target,
        "count": page.messages.len(),
        "senders": view.senders(),
        "messages": messages,
    });
    if let Some(anchor) = page.next_anchor_message_id {
        details["nextAnchorMessageId"] = json!(anchor);
    }
    if !args.include_images {
        return Ok(ToolOutput::ok(page.rendered, details));
    }
    let images = history_images(gw, &args.account_id, &page.messages, &ctx).await;
    let text = marked_history(&page.messages, &images, &gw.tz, gw.config.tools.locale);
    details["images"] = Value::Array(images.iter().map(|i| i.details.clone()).collect());
    Ok(ToolOutput::ok(text, details).with_images(images.into_iter().map(|i| i.image)))
}
