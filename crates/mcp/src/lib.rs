//! The Model Context Protocol edge: the agent tools, chat resources and
//! their updates for MCP clients, as a thin layer on the same tool
//! registry (`domain::tools`) and event hub (`domain::events`) the gRPC
//! edge serves. Like [`onebot_gateway_grpc`], it imports the domain and
//! [`onebot_gateway_domain::auth`], never an adapter.
//!
//! # Layout
//! - [`backend`]: what the server stands on (tools, chats, message
//!   events), with [`local`] as the in-process implementation; the
//!   `onebot-gateway mcp` command implements it over gRPC.
//! - [`handler`]: the MCP server (`rmcp`'s `ServerHandler`): tools,
//!   resources, subscriptions; [`resources`]: the chat URIs.
//! - Transports: [`http`] (Streamable HTTP, in the gateway: origin, token
//!   and session-budget checks before `rmcp`'s service; [`sessions`]: the
//!   budgeted session manager) and [`stdio`].

pub mod backend;
pub mod handler;
pub mod http;
pub mod local;
pub mod resources;
pub mod sessions;
pub mod stdio;

#[cfg(test)]
mod tests;

pub use backend::{Backend, BackendError, ChatResource, ToolImage, ToolInfo, ToolResult};
pub use http::{McpBody, McpHttp, McpHttpParts, McpResponse};
