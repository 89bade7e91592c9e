//! `qq_get_history` (alias `snowluma_get_history`): [`Gateway::get_history`]
//! with the tool's arguments and details.

use serde_json::{Value, json};

use super::args::{ArgError, Args};
use super::media::{history_images, marked_history};
use super::output::{ToolOutput, domain_failure, raw_value};
use super::texts::Failure;
use crate::domain::call::CallCtx;
use crate::domain::gateway::Gateway;
use crate::domain::model::ChatRef;
use crate::domain::read::history::HistoryRequest;

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
    /// Anchor message id.
    pub message_seq: Option<i64>,
    /// Return the page's images as image content.
    pub include_images: bool,
}

impl HistoryArgs {
    /// `target` required; `count` clamped to `[1, 100]` (20 when absent or
    /// not a finite number); `messageSeq` an integer message id.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            chat: args.target()?,
            count: args.clamped("count", DEFAULT_COUNT, MAX_COUNT),
            message_seq: args.message_seq()?,
            include_images: args.flag("includeImages").unwrap_or(false),
            account_id: args.account_id()?,
        })
    }
}

/// Runs the tool: the page as the typed RPC reads and renders it; details
/// carry the peer's own message objects in the page's (time) order.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = HistoryArgs::parse(args).map_err(Failure::Args)?;
    let request = HistoryRequest {
        account_id: args.account_id.clone(),
        chat: Some(args.chat),
        // Already in [1, 100], which the domain keeps as it is.
        count: args.count as i32,
        anchor_message_id: args.message_seq,
        until: None,
    };
    let page = gw
        .get_history(request, ctx.clone())
        .await
        .map_err(domain_failure(&args.account_id))?;
    let messages: Vec<Value> = page.messages.iter().map(|m| raw_value(&m.raw)).collect();
    let mut details = json!({
        "status": "ok",
        "target": page.target,
        "count": messages.len(),
        "messages": messages,
    });
    if !args.include_images {
        return Ok(ToolOutput::ok(page.rendered, details));
    }
    let images = history_images(gw, &args.account_id, &page.messages, &ctx).await;
    let text = marked_history(&page.messages, &images, &gw.tz);
    details["images"] = Value::Array(images.iter().map(|i| i.details.clone()).collect());
    Ok(ToolOutput::ok(text, details).with_images(images.into_iter().map(|i| i.image)))
}
