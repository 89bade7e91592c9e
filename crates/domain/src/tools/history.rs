//! `qq_get_history` (alias `snowluma_get_history`): [`Gateway::get_history`]
//! with the tool's arguments and details.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{
    AccountId, MessageId, Number, QqNumber, Target, account_rule, group_alias, message_id_rule,
    target_rule, user_alias,
};
use super::media::{history_images, marked_history};
use super::output::{ToolOutput, domain_failure};
use super::props::clamp_rule;
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

/// The `properties` and `required` of the details' ok shape (the registry
/// adds `status`).
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "target": {"type": "string", "pattern": "^(group|private):[1-9][0-9]*$"},
            "count": {"type": "integer", "minimum": 0, "maximum": 100},
            "senders": super::props::senders(),
            "messages": {"type": "array", "items": {"$ref": "#/$defs/message"}, "maxItems": 100},
            "nextAnchorMessageId": {"type": "integer"},
            "images": {
                "type": "array",
                "maxItems": 4,
                "items": {
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer", "minimum": 1, "maximum": 4},
                        "messageId": {"type": "integer"},
                        "segmentIndex": {"type": "integer", "minimum": 0},
                        "mediaId": {"type": "string", "minLength": 1},
                        "mimeType": {"type": "string"},
                        "size": {"type": "integer", "minimum": 0}
                    },
                    "required": ["n", "messageId", "segmentIndex", "mediaId", "mimeType", "size"],
                    "additionalProperties": false
                }
            }
        }),
        json!(["status", "target", "count", "senders", "messages"]),
    )
}

/// The arguments object of `qq_get_history` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryInput {
    #[doc = concat!("The chat (required, or one of its aliases groupId / userId). ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    #[doc = user_alias!()]
    pub user_id: Option<QqNumber>,
    #[doc = concat!("Messages wanted. ", clamp_rule!(100, 20))]
    #[schemars(extend("default" = DEFAULT_COUNT))]
    pub count: Option<Number>,
    #[doc = concat!("Page anchor: return only messages strictly older than this one (details.nextAnchorMessageId of the previous page). ", message_id_rule!())]
    pub anchor_message_id: Option<MessageId>,
    #[doc = concat!("Alias of anchorMessageId (the seed's name). ", message_id_rule!())]
    pub message_seq: Option<MessageId>,
    /// Return the page's images (at most 4, newest first, each at most 2 MiB) as image content, marked [图片#<n>] in the text.
    #[schemars(extend("default" = false))]
    pub include_images: Option<bool>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

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
