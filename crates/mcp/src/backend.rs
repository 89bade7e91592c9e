//! What the MCP server stands on: the gateway's tools, chats and message
//! events, reached either in process ([`super::local::LocalBackend`], the
//! Streamable HTTP transport) or over gRPC (the `onebot-gateway mcp` stdio
//! command's backend, in the binary). Both answer from the same tool
//! registry (`domain::tools`) with `ListTools` / `CallTool` /
//! `GetHistory` / `StreamEvents` semantics; nothing here implements a tool.

use std::sync::Arc;

use futures_util::stream::BoxStream;
use serde_json::{Map, Value};

use onebot_gateway_domain::caller::Caller;
use onebot_gateway_domain::model::ChatRef;

/// A JSON object (a JSON Schema, structured content).
pub type JsonObject = Map<String, Value>;

/// One tool as MCP lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    /// Name to call.
    pub name: String,
    /// Other names a call may use.
    pub aliases: Vec<String>,
    /// Short display name.
    pub title: String,
    /// Description for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub input_schema: Arc<JsonObject>,
    /// JSON Schema of the structured content (the details), ok and failed
    /// shapes.
    pub output_schema: Arc<JsonObject>,
    /// Only reads.
    pub read_only: bool,
    /// May delete or overwrite something.
    pub deletes: bool,
    /// Repeating a call has no further effect.
    pub idempotent: bool,
    /// Reaches beyond the gateway (QQ).
    pub open_world: bool,
}

impl ToolInfo {
    /// True when `name` is the tool's name or one of its aliases.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|a| a == name)
    }
}

/// An image a tool result carries (base64 data and its MIME type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolImage {
    /// Base64 of the image bytes.
    pub data_base64: String,
    /// `image/png`, `image/jpeg`, ...
    pub mime_type: String,
}

/// One tool call's result, exactly as `CallTool` returns it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The rendered text (or the error text).
    pub text: String,
    /// The details: `{"status":"ok",...}` or `{"status":"failed","error"}`.
    pub details: Value,
    /// True when the call failed.
    pub is_error: bool,
    /// Images the tool returned, in order (`qq_get_media` of an image, a
    /// message's pictures); MCP shows them as image content after the
    /// text.
    pub images: Vec<ToolImage>,
}

/// A chat MCP serves as a resource: `qq://<account>/group/<id>` or
/// `qq://<account>/private/<id>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChatResource {
    /// The account.
    pub account_id: String,
    /// The chat.
    pub chat: ChatRef,
}

/// Why a backend call failed: each becomes a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendError {
    /// No tool of that name is offered to this caller.
    UnknownTool(String),
    /// No resource of that URI is offered to this caller.
    UnknownResource(String),
    /// The caller's token does not allow it.
    Denied(String),
    /// The request itself is malformed.
    InvalidParams(String),
    /// The gateway could not serve it (offline peer, shutdown, transport).
    Unavailable(String),
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BackendError::UnknownTool(name) => write!(f, "Unknown tool: {name}"),
            BackendError::UnknownResource(uri) => write!(f, "Unknown resource: {uri}"),
            BackendError::Denied(m) | BackendError::InvalidParams(m) => f.write_str(m),
            BackendError::Unavailable(m) => f.write_str(m),
        }
    }
}

/// The chats of new message events, one item per message.
pub type MessageChats = BoxStream<'static, ChatRef>;

/// What the MCP server needs from a gateway. `caller` is who the MCP
/// request runs for (the in-process backend checks it; a gRPC backend
/// acts as its own token and ignores it).
#[async_trait::async_trait]
pub trait Backend: Send + Sync + 'static {
    /// The tools this caller may use, in listing order.
    async fn list_tools(&self, caller: &Caller) -> Result<Arc<Vec<ToolInfo>>, BackendError>;

    /// Calls the tool named `name` (a listed name or alias) with
    /// `arguments` (a JSON object's text).
    async fn call_tool(
        &self,
        caller: &Caller,
        name: &str,
        arguments: &str,
    ) -> Result<ToolResult, BackendError>;

    /// Decides a pending approval for `caller` as the MCP client named
    /// `client` (its user answered an elicitation); returns what
    /// `qq_get_approval` says of the approval afterwards. A caller that may
    /// not decide approvals is `Denied`.
    async fn decide_approval(
        &self,
        caller: &Caller,
        approval_id: &str,
        approve: bool,
        client: &str,
    ) -> Result<ToolResult, BackendError>;

    /// The chats served as resources: each account's whitelisted chats the
    /// caller may read.
    async fn list_chats(&self, caller: &Caller) -> Result<Vec<ChatResource>, BackendError>;

    /// The latest 20 messages of `chat` (`resources::LATEST`),
    /// rendered in the history format.
    async fn read_chat(&self, caller: &Caller, chat: &ChatResource)
    -> Result<String, BackendError>;

    /// The chat of every message arriving in `chats` of `account_id` from
    /// now on, until the gateway ends the stream.
    async fn watch(
        &self,
        caller: &Caller,
        account_id: &str,
        chats: Vec<ChatRef>,
    ) -> Result<MessageChats, BackendError>;
}
