//! The in-process [`Backend`]: the gateway's own domain, with the MCP
//! request's [`Caller`] checked exactly as a gRPC request's is.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::backend::{
    Backend, BackendError, ChatResource, JsonObject, MessageChats, ToolImage, ToolInfo, ToolResult,
};
use super::resources::LATEST;
use onebot_gateway_domain::call::{CallCtx, Deadline};
use onebot_gateway_domain::caller::Caller;
use onebot_gateway_domain::error::{Error, Kind};
use onebot_gateway_domain::events::{EventFilter, EventKind, Subscription};
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::model::{ChatRef, InboundEvent};
use onebot_gateway_domain::read::history::HistoryRequest;
use onebot_gateway_domain::tools::texts::error_text;
use onebot_gateway_domain::tools::{ToolOutput, ToolSpec};

/// The tools, schemas and chats of one gateway, in process.
pub struct LocalBackend {
    gw: Arc<Gateway>,
    /// Every tool offered (none when the tool service is off).
    tools: Arc<Vec<ToolInfo>>,
    /// Only the read tools, for read-only tokens.
    read_tools: Arc<Vec<ToolInfo>>,
    timeout: Duration,
}

impl std::fmt::Debug for LocalBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalBackend")
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

fn object(schema: Value) -> Arc<JsonObject> {
    match schema {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// A registry tool as MCP lists it.
pub fn tool_info(spec: ToolSpec) -> ToolInfo {
    ToolInfo {
        name: spec.tool.name().to_owned(),
        aliases: spec
            .tool
            .aliases()
            .iter()
            .map(|a| (*a).to_owned())
            .collect(),
        title: spec.title.to_owned(),
        description: spec.description.to_owned(),
        input_schema: object(spec.input_schema),
        output_schema: object(spec.details_schema),
        read_only: spec.read_only,
        deletes: spec.deletes,
        idempotent: spec.idempotent,
        open_world: spec.open_world,
    }
}

/// A registry result as MCP returns it.
pub fn tool_result(output: ToolOutput) -> ToolResult {
    let images = output
        .images()
        .map(|(mime_type, data)| ToolImage {
            data_base64: STANDARD.encode(data),
            mime_type: mime_type.to_owned(),
        })
        .collect();
    ToolResult {
        text: output.text,
        details: output.details,
        is_error: output.is_error,
        images,
    }
}

impl LocalBackend {
    /// Serves `gw`. Tool calls get `limits.request_timeout_ms`, like a
    /// unary RPC.
    pub fn new(gw: Arc<Gateway>) -> Self {
        let tools: Vec<ToolInfo> = gw
            .list_tools()
            .map(|specs| specs.into_iter().map(tool_info).collect())
            .unwrap_or_default();
        let read_tools = tools.iter().filter(|t| t.read_only).cloned().collect();
        let timeout = Duration::from_millis(gw.config.limits.request_timeout_ms);
        Self {
            gw,
            tools: Arc::new(tools),
            read_tools: Arc::new(read_tools),
            timeout,
        }
    }

    fn ctx(&self, caller: &Caller) -> CallCtx {
        CallCtx::new(caller.clone(), Deadline::after(self.timeout))
    }

    fn failure(&self, err: Error) -> BackendError {
        let text = error_text(&err, self.gw.config.tools.locale);
        match err.kind {
            Kind::TokenScope | Kind::Unauthenticated => BackendError::Denied(err.message),
            Kind::InvalidRequest => BackendError::InvalidParams(text),
            Kind::AccountNotConfigured | Kind::GroupNotAllowed => {
                BackendError::UnknownResource(text)
            }
            _ => BackendError::Unavailable(text),
        }
    }
}

/// The chats of message events of one subscription, resubscribing from
/// now (and reporting every watched chat as changed) if it ever lags.
struct Watch {
    gw: Arc<Gateway>,
    account_id: String,
    filter: EventFilter,
    sub: Subscription,
    chats: Vec<ChatRef>,
    pending: Vec<ChatRef>,
}

impl Watch {
    async fn next(mut self) -> Option<(ChatRef, Watch)> {
        loop {
            if let Some(chat) = self.pending.pop() {
                return Some((chat, self));
            }
            match self.sub.next().await? {
                Ok(stored) => {
                    if let InboundEvent::Message { message, .. } = &*stored.event {
                        return Some((message.chat, self));
                    }
                }
                Err(_) => {
                    self.sub = self
                        .gw
                        .events
                        .subscribe(&self.account_id, None, self.filter.clone())
                        .ok()?;
                    self.pending = self.chats.clone();
                }
            }
        }
    }
}

#[async_trait::async_trait]
impl Backend for LocalBackend {
    async fn list_tools(&self, caller: &Caller) -> Result<Arc<Vec<ToolInfo>>, BackendError> {
        Ok(if caller.can_write() {
            self.tools.clone()
        } else {
            self.read_tools.clone()
        })
    }

    async fn call_tool(
        &self,
        caller: &Caller,
        name: &str,
        arguments: &str,
    ) -> Result<ToolResult, BackendError> {
        match self.gw.call_tool(name, arguments, self.ctx(caller)).await {
            Ok(output) => Ok(tool_result(output)),
            Err(err) if err.kind == Kind::ToolsDisabled => {
                Err(BackendError::UnknownTool(name.to_owned()))
            }
            Err(err) => Err(self.failure(err)),
        }
    }

    async fn decide_approval(
        &self,
        caller: &Caller,
        approval_id: &str,
        approve: bool,
        client: &str,
    ) -> Result<ToolResult, BackendError> {
        let ctx = self.ctx(caller);
        let record = self
            .gw
            .get_approval(approval_id, &ctx)
            .await
            .map_err(|e| self.failure(e))?;
        self.gw
            .check_approver(caller, &record.account_id)
            .map_err(|e| self.failure(e))?;
        self.gw
            .decide_approval(&record.id, approve, &format!("mcp:{client}"))
            .await
            .map_err(|e| self.failure(e))?;
        let arguments = serde_json::json!({"approvalId": record.id}).to_string();
        self.call_tool(caller, "qq_get_approval", &arguments).await
    }

    async fn list_chats(&self, caller: &Caller) -> Result<Vec<ChatResource>, BackendError> {
        let mut chats = Vec::new();
        for account in self.gw.accounts() {
            if !account.config.has_transport() || !caller.allows_account(&account.id) {
                continue;
            }
            // The whitelisted chats: the groups, then the private chats.
            let whitelisted = (account.config.groups.iter().map(|g| ChatRef::Group(*g)))
                .chain(account.config.users.iter().map(|u| ChatRef::Private(*u)));
            chats.extend(
                whitelisted
                    .filter(|chat| caller.allows_chat(*chat))
                    .map(|chat| ChatResource {
                        account_id: account.id.clone(),
                        chat,
                    }),
            );
        }
        Ok(chats)
    }

    async fn read_chat(
        &self,
        caller: &Caller,
        chat: &ChatResource,
    ) -> Result<String, BackendError> {
        let request = HistoryRequest {
            account_id: chat.account_id.clone(),
            chat: Some(chat.chat),
            count: LATEST,
            anchor_message_id: None,
            until: None,
        };
        match self.gw.get_history(request, self.ctx(caller)).await {
            Ok(page) => Ok(page.rendered),
            Err(err) => Err(self.failure(err)),
        }
    }

    async fn watch(
        &self,
        caller: &Caller,
        account_id: &str,
        chats: Vec<ChatRef>,
    ) -> Result<MessageChats, BackendError> {
        let ctx = self.ctx(caller);
        let account = self
            .gw
            .account(account_id, &ctx)
            .map_err(|e| self.failure(e))?;
        for chat in &chats {
            caller.check_chat(*chat).map_err(|e| self.failure(e))?;
        }
        let filter = EventFilter {
            chats: chats.iter().copied().collect(),
            kinds: [EventKind::Message].into_iter().collect(),
        };
        let sub = self
            .gw
            .events
            .subscribe(&account.id, None, filter.clone())
            .map_err(|e| self.failure(e))?;
        let watch = Watch {
            gw: self.gw.clone(),
            account_id: account.id.clone(),
            filter,
            sub,
            chats,
            pending: Vec::new(),
        };
        Ok(Box::pin(futures_util::stream::unfold(watch, Watch::next)))
    }
}
