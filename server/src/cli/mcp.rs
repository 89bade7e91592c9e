//! `mcp`: the Model Context Protocol on stdin/stdout, for an agent that
//! launches MCP servers as commands, over a gateway reached by gRPC. The
//! tools, chat resources and updates are the gateway's own (`ListTools`,
//! `CallTool`, `ListAccounts`, `GetHistory`, `StreamEvents`): this command
//! only translates. Logs go to stderr (without colours unless it is a
//! terminal); stdout carries nothing but MCP.
//!
//! The bridge runs on the agent's machine, so a `qq_send` media argument
//! that names a local file (an absolute path or a `file://` URI) is
//! uploaded with UploadMedia first and passed on as `media:<id>`; a local
//! file that does not exist is a failed tool result that says so.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use clap::Args;
use onebot_gateway_client::{Client, Error, pb};
use onebot_gateway_domain::caller::Caller;
use onebot_gateway_domain::model::ChatRef;
use onebot_gateway_domain::tools::ToolName;
use onebot_gateway_mcp::backend::{JsonObject, MessageChats};
use onebot_gateway_mcp::resources::LATEST;
use onebot_gateway_mcp::{Backend, BackendError, ChatResource, ToolImage, ToolInfo, ToolResult};
use serde_json::{Value, json};

use super::connection::{Connection, explain};

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
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .try_init();
    let backend = Arc::new(GrpcBackend {
        client: args.conn.client()?,
        addr: args.conn.addr.clone(),
    });
    if let Err(e) = onebot_gateway_mcp::stdio::serve_stdio(backend).await {
        eprintln!("error: {e:#}");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The gateway over gRPC, as the command's token sees it.
struct GrpcBackend {
    client: Client,
    /// The gateway's address, for the texts of connection failures.
    addr: String,
}

impl GrpcBackend {
    /// A failure of a call to the gateway, with the connection explained.
    fn failure(&self, err: Error) -> BackendError {
        failure(explain(err, &self.addr))
    }

    /// `arguments` of `qq_send` with every local media file uploaded and
    /// named by its `media:<id>`; `None` when nothing is local (or the
    /// arguments are not an object: the gateway refuses those itself).
    async fn upload_local_media(&self, arguments: &str) -> Result<Option<String>, ToolResult> {
        let Ok(Value::Object(mut args)) = serde_json::from_str::<Value>(arguments) else {
            return Ok(None);
        };
        let mut changed = false;
        for (field, kind) in [
            ("images", pb::MediaKind::Image),
            ("videos", pb::MediaKind::Video),
            ("voices", pb::MediaKind::Record),
        ] {
            let Some(Value::Array(items)) = args.get_mut(field) else {
                continue;
            };
            for (i, item) in items.iter_mut().enumerate() {
                if let Some(path) = item.as_str().and_then(local_path) {
                    let id = self.upload(&format!("{field}[{i}]"), &path, kind).await?;
                    *item = Value::String(id);
                    changed = true;
                }
            }
        }
        if let Some(path) = args
            .get("file")
            .and_then(Value::as_str)
            .and_then(local_path)
        {
            let id = self.upload("file", &path, pb::MediaKind::File).await?;
            args.insert("file".into(), Value::String(id));
            changed = true;
        }
        Ok(changed.then(|| Value::Object(args).to_string()))
    }

    /// Uploads the local file at `path` (the argument `field`); its
    /// `media:<id>`, or the failed tool result.
    async fn upload(
        &self,
        field: &str,
        path: &Path,
        kind: pb::MediaKind,
    ) -> Result<String, ToolResult> {
        let fail = |text: String| {
            Err(failed_result(
                text,
                json!({"field": field, "path": path.display().to_string()}),
            ))
        };
        match tokio::fs::metadata(path).await {
            Ok(meta) if meta.is_file() => {}
            Ok(_) => {
                return fail(format!(
                    "参数 {field}：本地路径 {} 不是普通文件。",
                    path.display()
                ));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return fail(format!(
                    "参数 {field}：本地文件 {} 不存在。",
                    path.display()
                ));
            }
            Err(e) => {
                return fail(format!(
                    "参数 {field}：读取本地文件 {} 失败：{e}",
                    path.display()
                ));
            }
        }
        match self.client.upload(path, kind).await {
            Ok(uploaded) => Ok(format!("media:{}", uploaded.media_id)),
            Err(err) => fail(format!(
                "参数 {field}：上传本地文件 {} 失败：{}",
                path.display(),
                explain(err, &self.addr)
            )),
        }
    }
}

/// The local file a media string names: an absolute path or a `file://`
/// URI (`media:<id>` and http(s) URLs are the gateway's).
fn local_path(s: &str) -> Option<PathBuf> {
    let scheme = s.get(..7).unwrap_or_default();
    if scheme.eq_ignore_ascii_case("file://") {
        return url::Url::parse(s).ok()?.to_file_path().ok();
    }
    Path::new(s).is_absolute().then(|| PathBuf::from(s))
}

/// A failed tool result as the gateway's tools write them.
fn failed_result(text: String, extra: Value) -> ToolResult {
    let mut details = json!({"status": "failed", "error": text});
    if let (Value::Object(d), Value::Object(extra)) = (&mut details, extra) {
        d.extend(extra);
    }
    ToolResult {
        text,
        details,
        is_error: true,
        images: Vec::new(),
    }
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
                .map_err(|e| self.failure(e))?
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
        let uploaded = if ToolName::resolve(name) == Some(ToolName::Send) {
            match self.upload_local_media(arguments).await {
                Ok(uploaded) => uploaded,
                Err(failed) => return Ok(failed),
            }
        } else {
            None
        };
        let arguments = uploaded.as_deref().unwrap_or(arguments);
        let out = self
            .client
            .call_tool(name, arguments)
            .await
            .map_err(|e| self.failure(e))?;
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

    async fn decide_approval(
        &self,
        caller: &Caller,
        approval_id: &str,
        approve: bool,
        _client: &str,
    ) -> Result<ToolResult, BackendError> {
        // Over gRPC the decision is the token's (DecideApproval needs
        // `approve = true`): the gateway records it as `token:<name>`.
        let decided = if approve {
            self.client.approve(approval_id).await
        } else {
            self.client.reject(approval_id).await
        };
        decided.map_err(|e| self.failure(e))?;
        let arguments = serde_json::json!({"approvalId": approval_id}).to_string();
        self.call_tool(caller, "qq_get_approval", &arguments).await
    }

    async fn list_chats(&self, _caller: &Caller) -> Result<Vec<ChatResource>, BackendError> {
        let accounts = self.client.accounts().await.map_err(|e| self.failure(e))?;
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
            .map_err(|s| self.failure(s.into()))?
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
        let events = self
            .client
            .events(request)
            .await
            .map_err(|e| self.failure(e))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_paths_are_absolute_paths_and_file_uris() {
        assert_eq!(local_path("/tmp/a.png"), Some(PathBuf::from("/tmp/a.png")));
        assert_eq!(
            local_path("file:///tmp/a%20b.png"),
            Some(PathBuf::from("/tmp/a b.png"))
        );
        assert_eq!(
            local_path("FILE:///tmp/a.png"),
            Some(PathBuf::from("/tmp/a.png"))
        );
        assert_eq!(local_path("media:abc"), None);
        assert_eq!(local_path("https://example.com/a.png"), None);
        assert_eq!(local_path("a.png"), None);
        assert_eq!(local_path("file://remote-host/a.png"), None);
    }
}
