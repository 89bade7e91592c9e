//! `qq_search_messages`: [`Gateway::search_messages`] with the tool's
//! arguments and details. Read-only.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{
    AccountId, Number, QqNumber, Target, account_rule, group_alias, qq_rule, target_rule,
    user_alias,
};
use super::output::{ToolOutput, domain_failure};
use super::props::clamp_rule;
use super::texts::Failure;
use super::view::View;
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::model::ChatRef;
use crate::read::search::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SearchRequest};
use onebot_gateway_config::Locale;

/// The `properties` and `required` of the details' ok shape (the registry
/// adds `status`).
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "count": {"type": "integer", "minimum": 0, "maximum": 100},
            "senders": super::props::senders(),
            "messages": {
                "type": "array",
                "maxItems": 100,
                "items": {"$ref": "#/$defs/chatMessage"}
            },
            "nextPageToken": {"type": "string", "minLength": 1}
        }),
        json!(["status", "count", "senders", "messages"]),
    )
}

/// The arguments object of `qq_search_messages` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchInput {
    /// Text to find in the message text (case-insensitive); empty: every message.
    #[schemars(extend("examples" = ["开会"]))]
    pub query: Option<String>,
    #[doc = concat!("Only this chat. ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    #[doc = user_alias!()]
    pub user_id: Option<QqNumber>,
    /// ISO 8601 time: only messages at or after it (no offset: the gateway's time zone).
    #[schemars(extend("examples" = ["2026-11-30T18:00:00+08:00", "2026-11-30"]))]
    pub since: Option<String>,
    /// ISO 8601 time: only messages before it (no offset: the gateway's time zone).
    #[schemars(extend("examples" = ["2026-12-01T00:00:00+08:00"]))]
    pub until: Option<String>,
    #[doc = concat!("Only messages from this QQ number. ", qq_rule!())]
    pub sender_id: Option<QqNumber>,
    #[doc = concat!("Matches per page. ", clamp_rule!(100, 20))]
    #[schemars(extend("default" = DEFAULT_SEARCH_LIMIT))]
    pub limit: Option<Number>,
    /// details.nextPageToken of the previous result: the next, older matches.
    pub page_token: Option<String>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_search_messages`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchArgs {
    /// Account id.
    pub account_id: String,
    /// Substring to find (may be empty).
    pub query: String,
    /// Only this chat.
    pub chat: Option<ChatRef>,
    /// Only messages at or after (Unix seconds).
    pub since: Option<i64>,
    /// Only messages before (Unix seconds).
    pub until: Option<i64>,
    /// Only this sender.
    pub sender_id: Option<i64>,
    /// Page size in `[1, 100]`.
    pub limit: u32,
    /// The previous result's `nextPageToken`.
    pub page_token: String,
}

impl SearchArgs {
    /// `query` a string (absent: every message); `target` as in
    /// `qq_get_history`, optional; `since` / `until` ISO 8601 (times without
    /// an offset in `tz`); `senderId` a positive integer; `limit` clamped to
    /// `[1, 100]` (20 when absent or not a number); `pageToken` a string.
    pub fn parse(args: &Args, tz: &jiff::tz::TimeZone) -> Result<Self, ArgError> {
        Ok(Self {
            chat: args.chat(true)?,
            query: args.optional_string("query")?.unwrap_or_default(),
            since: args.time("since", tz)?,
            until: args.time("until", tz)?,
            sender_id: args.qq_id("senderId")?,
            limit: args.clamped(
                "limit",
                DEFAULT_SEARCH_LIMIT as u32,
                MAX_SEARCH_LIMIT as u32,
            ),
            page_token: args.optional_string("pageToken")?.unwrap_or_default(),
            account_id: args.account_id()?,
        })
    }
}

/// Runs the tool: the page as SearchMessages renders it; details carry the
/// messages in the gateway's model ([`View`]), each with its chat.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = SearchArgs::parse(args, &gw.tz).map_err(Failure::Args)?;
    let request = SearchRequest {
        account_id: args.account_id.clone(),
        chat: args.chat,
        query: args.query.clone(),
        since: args.since,
        until: args.until,
        sender_id: args.sender_id,
        // Already in [1, 100], which the domain keeps as it is.
        limit: args.limit as i32,
        page_token: args.page_token.clone(),
        include_recalled: false,
    };
    let page = gw
        .search_messages(request, ctx)
        .await
        .map_err(domain_failure(&args.account_id))?;
    let mut view = View::new(gw, &args.account_id);
    let messages: Vec<Value> = page
        .messages
        .iter()
        .map(|a| view.message_in_chat(&a.message))
        .collect();
    let mut details = json!({
        "status": "ok",
        "count": messages.len(),
        "senders": view.senders(),
        "messages": messages,
    });
    let mut text = page.rendered;
    if !page.next_page_token.is_empty() {
        details["nextPageToken"] = json!(page.next_page_token);
        let token = &page.next_page_token;
        text.push_str(&match gw.config.tools.locale {
            Locale::Zh => format!("\n（还有更早的匹配：pageToken = {token}）"),
            Locale::En => format!("\n(older matches: pageToken = {token})"),
        });
    }
    Ok(ToolOutput::ok(text, details))
}
