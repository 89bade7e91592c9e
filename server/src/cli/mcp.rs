//! `mcp`: the Model Context Protocol on stdin/stdout, for an agent that
//! launches MCP servers as commands, over a gateway reached by gRPC. The
//! tools, chat resources and updates are the gateway's own (`ListTools`,
//! `CallTool`, `ListAccounts`, `GetHistory`, `StreamEvents`): this command
//! only translates. Logs go to stderr; stdout carries nothing but MCP.

use std::process::ExitCode;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use clap::Args;
use onebot_gateway::auth::Caller;
use onebot_gateway::domain::model::ChatRef;
use onebot_gateway::mcp::backend::{JsonObject, MessageChats};
use onebot_gateway::mcp::resources::LATEST;
use onebot_gateway::mcp::{Backend, BackendError, ChatResource, ToolImage, ToolInfo, ToolResult};
use onebot_gateway_client::{Client, Error, pb};
use serde_json::Value;

use super::connection::Connection;

/// Arguments of `mcp`.
#[derive(Args, Debug)]
pub struct McpArgs {
    #[command(flatten)]
    pub conn: Connection,
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub async fn run(args: McpArgs) -> Result<ExitCode, Error> {
    // Standard output belongs to the protocol.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .try_init();
    let backend = Arc::new(GrpcBackend {
        client: args.conn.client()?,
    });
    if let Err(e) = onebot_gateway::mcp::stdio::serve_stdio(backend).await {
        eprintln!("error: {e:#}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The gateway over gRPC, as the command's token sees it.
struct GrpcBackend {
    client: Client,
}

fn failure(err: Error) -> BackendError {
    let message = match err.rpc() {
        Some(rpc) => match &rpc.reason {
            Some(reason) => format!("{} ({reason})", rpc.message),
            None => rpc.message.clone(),
        },
        None => err.to_string(),
    };
    match err.rpc().map(|r| r.code) {
        Some(tonic::Code::PermissionDenied | tonic::Code::Unauthenticated) => {
            BackendError::Denied(message)
        }
        Some(tonic::Code::InvalidArgument) => BackendError::InvalidParams(message),
        _ => BackendError::Unavailable(message),
    }
}

fn schema(text: &str) -> Arc<JsonObject> {
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tool_info(tool: pb::Tool) -> ToolInfo {
    ToolInfo {
        input_schema: schema(&tool.input_schema_json),
        output_schema: schema(&tool.details_schema_json),
        name: tool.name,
        aliases: tool.aliases,
        title: tool.title,
        description: tool.description,
        read_only: tool.read_only,
        deletes: tool.deletes,
        idempotent: tool.idempotent,
        open_world: tool.open_world,
    }
}

fn pb_chat(chat: ChatRef) -> pb::Chat {
    match chat {
        ChatRef::Group(id) => pb::Chat::group(id),
        ChatRef::Private(id) => pb::Chat::private(id),
    }
}

fn chat_of(event: &pb::Event) -> Option<ChatRef> {
    let Some(pb::event::Kind::Message(m)) = &event.kind else {
        return None;
    };
    match m.message.as_ref()?.chat.as_ref()?.kind? {
        pb::chat::Kind::GroupId(id) => Some(ChatRef::Group(id)),
        pb::chat::Kind::UserId(id) => Some(ChatRef::Private(id)),
    }
}

#[async_trait::async_trait]
impl Backend for GrpcBackend {
    async fn list_tools(&self, _caller: &Caller) -> Result<Arc<Vec<ToolInfo>>, BackendError> {
        Ok(Arc::new(
            self.client
                .list_tools()
                .await
                .map_err(failure)?
                .into_iter()
                .map(tool_info)
                .collect(),
        ))
    }

    async fn call_tool(
        &self,
        _caller: &Caller,
        name: &str,
        arguments: &str,
    ) -> Result<ToolResult, BackendError> {
        let out = self
            .client
            .call_tool(name, arguments)
            .await
            .map_err(failure)?;
        let details = serde_json::from_str(&out.details_json).map_err(|e| {
            BackendError::Unavailable(format!("the gateway's details are not JSON: {e}"))
        })?;
        // The images of the gateway's content, in order (its text is `text`).
        let images = out
            .content
            .into_iter()
            .filter_map(|c| match c.kind {
                Some(pb::tool_content::Kind::Image(image)) => Some(ToolImage {
                    data_base64: STANDARD.encode(&image.data),
                    mime_type: image.mime_type,
                }),
                _ => None,
            })
            .collect();
        Ok(ToolResult {
            text: out.text,
            details,
            is_error: out.is_error,
            images,
        })
    }

    async fn list_chats(&self, _caller: &Caller) -> Result<Vec<ChatResource>, BackendError> {
        let accounts = self.client.accounts().await.map_err(failure)?;
        Ok(accounts
            .into_iter()
            .filter(|a| a.state != pb::ConnectionState::NotConfigured as i32)
            .flat_map(|a| {
                let id = a.account_id;
                let groups = a.groups.into_iter().map(ChatRef::Group);
                let users = a.users.into_iter().map(ChatRef::Private);
                groups.chain(users).map(move |chat| ChatResource {
                    account_id: id.clone(),
                    chat,
                })
            })
            .collect())
    }

    async fn read_chat(
        &self,
        _caller: &Caller,
        chat: &ChatResource,
    ) -> Result<String, BackendError> {
        let request = pb::GetHistoryRequest {
            account_id: chat.account_id.clone(),
            chat: Some(pb_chat(chat.chat)),
            count: LATEST,
            anchor_message_id: None,
            until: None,
        };
        let page = self
            .client
            .message_service()
            .get_history(request)
            .await
            .map_err(|s| failure(s.into()))?
            .into_inner();
        Ok(page.rendered)
    }

    async fn watch(
        &self,
        _caller: &Caller,
        account_id: &str,
        chats: Vec<ChatRef>,
    ) -> Result<MessageChats, BackendError> {
        let request = pb::StreamEventsRequest {
            account_id: account_id.to_owned(),
            chats: chats.into_iter().map(pb_chat).collect(),
            kinds: vec![pb::EventKind::Message as i32],
            after_sequence: None,
        };
        let events = self.client.events(request).await.map_err(failure)?;
        Ok(Box::pin(futures_util::stream::unfold(
            events,
            |mut events| async move {
                loop {
                    match events.next().await {
                        Ok(Some(event)) => {
                            if let Some(chat) = chat_of(&event) {
                                return Some((chat, events));
                            }
                        }
                        Ok(None) => return None,
                        Err(e) => {
                            tracing::warn!(error = %e, "the gateway's event stream ended");
                            return None;
                        }
                    }
                }
            },
        )))
    }
}
