//! The MCP server itself (an `rmcp` [`ServerHandler`]), over a
//! [`Backend`]: tools, chat resources and their subscriptions, the same on
//! every transport.
//!
//! - `tools/list`: the tools the caller may use, each with its title,
//!   input schema, output schema (the details schema) and the four
//!   behaviour hints. `tools/call` of a tool not listed to the caller is
//!   the protocol's unknown-tool error (`-32602`); any other call returns
//!   exactly what `CallTool` does: a text block with the rendered text
//!   first, image blocks after it when the tool returned images,
//!   `structuredContent` = the details (failed results too), and `isError`.
//! - `resources/list` and `resources/read`: the chats of
//!   [`super::resources`].
//! - Subscriptions: `resources/subscribe` (sessions of the protocol
//!   versions with `initialize`) and `subscriptions/listen` (2026-07-28 and
//!   later): `notifications/resources/updated` as soon as a message arrives
//!   in a subscribed chat. A listen stream also starts with one update per
//!   resource, since its acknowledgment precedes the watch.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use futures_util::StreamExt;
use parking_lot::Mutex;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, Tool, ToolAnnotations, UnsubscribeRequestParams,
};
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

use super::backend::{Backend, BackendError, ChatResource, ToolInfo, ToolResult};
use super::resources::MIME_TYPE;
use onebot_gateway_domain::caller::Caller;
use onebot_gateway_domain::model::ChatRef;
use onebot_gateway_domain::shares::Shares;

/// The client a request comes from (its token, or its address without
/// authentication), put into the request's extensions by the transport:
/// the key of its shares of the budgets.
#[derive(Debug, Clone)]
pub struct ClientKey(pub Arc<str>);

/// JSON-RPC code of a request the caller's token does not allow.
pub const FORBIDDEN: ErrorCode = ErrorCode(-32003);
/// JSON-RPC code of a refusal for lack of capacity (too many sessions and
/// subscriptions open).
pub const OVERLOADED: ErrorCode = ErrorCode(-32004);

const INSTRUCTIONS: &str = "QQ chats through onebot-gateway. Read history with qq_get_history, \
members with qq_get_group_members, send with qq_send, poke with qq_poke; search the message \
archive by text, sender or time with qq_search_messages (listed while the archive is on). In a \
group: react with qq_react, mark essence with qq_set_essence, read qq_list_essence, \
qq_list_group_files and qq_get_group_file; moderate with qq_mute, qq_kick and qq_set_card (off \
unless the operator's policy names them). To \
follow new \
messages, loop on qq_wait_messages passing back its lastSequence, or subscribe to a chat \
resource (qq://<account>/group/<id>). Tools never throw: a failure is a result with isError \
and structuredContent {status: \"failed\", error}.";

/// Where a request's caller comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callers {
    /// From the HTTP request's extensions, put there by the transport's
    /// authentication; `required` when tokens are configured (a request
    /// without one is refused rather than served as anonymous).
    Http {
        /// Tokens are configured.
        required: bool,
    },
    /// Always anonymous: the backend acts as its own identity (stdio over
    /// gRPC, with the command's token).
    Backend,
}

/// The MCP server over `B`. One per session (or per request without a
/// session); its resource subscriptions end when it is dropped.
pub struct McpHandler<B: Backend> {
    backend: Arc<B>,
    callers: Callers,
    budget: Option<Arc<Shares>>,
    subscriptions: Mutex<HashMap<String, CancellationToken>>,
}

impl<B: Backend> McpHandler<B> {
    /// A server over `backend`. `budget`, when given, bounds the open
    /// `subscriptions/listen` streams (with the sessions that share it),
    /// each client to its share.
    pub fn new(backend: Arc<B>, callers: Callers, budget: Option<Arc<Shares>>) -> Self {
        Self {
            backend,
            callers,
            budget,
            subscriptions: Mutex::new(HashMap::new()),
        }
    }

    fn caller(&self, extensions: &rmcp::model::Extensions) -> Result<Caller, ErrorData> {
        match self.callers {
            Callers::Backend => Ok(Caller::anonymous()),
            Callers::Http { required } => {
                let found = extensions
                    .get::<http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<Caller>().cloned());
                match found {
                    Some(caller) => Ok(caller),
                    None if !required => Ok(Caller::anonymous()),
                    None => Err(ErrorData::new(
                        FORBIDDEN,
                        "the request carries no authenticated caller",
                        None,
                    )),
                }
            }
        }
    }

    /// Asks the client's user to approve an action the policy held, when
    /// the client declared form elicitation; their answer decides it
    /// (accept with `approve`, or decline: reject; cancel: the approval
    /// stays pending for the bot owners). Returns the approval's result
    /// once decided, `None` when nothing was decided here (no elicitation,
    /// a cancel, a caller that may not approve, a failure: logged).
    async fn elicit_approval(
        &self,
        caller: &Caller,
        result: &ToolResult,
        context: &RequestContext<RoleServer>,
    ) -> Option<ToolResult> {
        if result.details["status"] != "pending_approval" {
            return None;
        }
        let id = result.details["approvalId"].as_str()?.to_owned();
        if !context
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return None;
        }
        let schema = ElicitationSchema::builder()
            .required_bool("approve")
            .build()
            .ok()?;
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: format!(
                "{}\n\nApprove approval {id}? (approve = true runs it now; false rejects it)",
                result.text
            ),
            requested_schema: schema,
        };
        let answer = match context.peer.create_elicitation(params).await {
            Ok(answer) => answer,
            Err(e) => {
                tracing::debug!(approval_id = %id, error = %e, "the MCP client did not answer the approval");
                return None;
            }
        };
        let approve = match answer.action {
            ElicitationAction::Accept => answer
                .content
                .as_ref()
                .and_then(|c| c.get("approve"))
                .and_then(serde_json::Value::as_bool)?,
            ElicitationAction::Decline => false,
            _ => return None,
        };
        let client = context
            .peer
            .peer_info()
            .map(|i| i.client_info.name.clone())
            .unwrap_or_else(|| "client".to_owned());
        match self
            .backend
            .decide_approval(caller, &id, approve, &client)
            .await
        {
            // The write tool's own result: its approval shape, decided.
            Ok(mut decided) if !decided.is_error => {
                if let Some(details) = decided.details.as_object_mut() {
                    details.insert("status".to_owned(), "approval_decided".into());
                }
                Some(decided)
            }
            Ok(failed) => Some(failed),
            Err(e) => {
                tracing::info!(approval_id = %id, error = %e, "the MCP client's answer did not decide the approval");
                None
            }
        }
    }

    /// The resource `uri` if the caller may read it.
    async fn listed(&self, caller: &Caller, uri: &str) -> Result<ChatResource, ErrorData> {
        let unknown = || error(BackendError::UnknownResource(uri.to_owned()));
        let chat = ChatResource::parse(uri).ok_or_else(unknown)?;
        let chats = self.backend.list_chats(caller).await.map_err(error)?;
        if chats.contains(&chat) {
            Ok(chat)
        } else {
            Err(unknown())
        }
    }
}

impl<B: Backend> Drop for McpHandler<B> {
    fn drop(&mut self) {
        for (_, token) in self.subscriptions.lock().drain() {
            token.cancel();
        }
    }
}

/// The JSON-RPC error of a backend failure.
pub fn error(err: BackendError) -> ErrorData {
    let message = err.to_string();
    match err {
        BackendError::UnknownTool(_) | BackendError::InvalidParams(_) => {
            ErrorData::invalid_params(message, None)
        }
        BackendError::UnknownResource(uri) => {
            ErrorData::resource_not_found(message, Some(serde_json::json!({ "uri": uri })))
        }
        BackendError::Denied(_) => ErrorData::new(FORBIDDEN, message, None),
        BackendError::Unavailable(_) => ErrorData::internal_error(message, None),
    }
}

/// A tool as MCP lists it.
pub fn tool(info: &ToolInfo) -> Tool {
    Tool::new(
        info.name.clone(),
        info.description.clone(),
        info.input_schema.clone(),
    )
    .with_title(info.title.clone())
    .with_raw_output_schema(info.output_schema.clone())
    .with_annotations(
        ToolAnnotations::with_title(info.title.clone())
            .read_only(info.read_only)
            .destructive(info.deletes)
            .idempotent(info.idempotent)
            .open_world(info.open_world),
    )
}

/// A call's result as MCP returns it: the text first, then the images;
/// the details as structured content; `isError` as the call said.
pub fn call_result(result: ToolResult) -> CallToolResult {
    let ToolResult {
        text,
        details,
        is_error,
        images,
    } = result;
    let mut content = Vec::with_capacity(1 + images.len());
    content.push(ContentBlock::text(text));
    content.extend(
        images
            .into_iter()
            .map(|i| ContentBlock::image(i.data_base64, i.mime_type)),
    );
    let mut out = if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    out.structured_content = Some(details);
    out
}

/// A chat as an MCP resource.
pub fn resource(chat: &ChatResource) -> Resource {
    Resource::new(chat.uri(), chat.chat.target())
        .with_title(chat.title())
        .with_description(chat.description())
        .with_mime_type(MIME_TYPE)
}

/// Sends `notifications/resources/updated` for `uri` through `notify`
/// whenever a message arrives in `chat`, until `stop` fires, the stream
/// ends or a notification cannot be delivered.
async fn forward_updates<F, Fut>(
    mut chats: super::backend::MessageChats,
    stop: CancellationToken,
    mut notify: F,
) where
    F: FnMut(ChatRef) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    loop {
        let next = tokio::select! {
            biased;
            _ = stop.cancelled() => return,
            next = chats.next() => next,
        };
        match next {
            Some(chat) => {
                if !notify(chat).await {
                    return;
                }
            }
            None => return,
        }
    }
}

#[allow(deprecated)] // resources/subscribe is how sessions of the initialize era subscribe.
impl<B: Backend> ServerHandler for McpHandler<B> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
        .with_server_info(
            Implementation::new("onebot-gateway", env!("CARGO_PKG_VERSION"))
                .with_title("onebot-gateway (QQ)"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let caller = self.caller(&context.extensions)?;
        let tools = self.backend.list_tools(&caller).await.map_err(error)?;
        Ok(ListToolsResult::with_all_items(
            tools.iter().map(tool).collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = self.caller(&context.extensions)?;
        let name = request.name.as_ref();
        let listed = self.backend.list_tools(&caller).await.map_err(error)?;
        if !listed.iter().any(|t| t.answers_to(name)) {
            return Err(error(BackendError::UnknownTool(name.to_owned())));
        }
        let arguments = match &request.arguments {
            Some(object) => serde_json::to_string(object)
                .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?,
            None => String::new(),
        };
        let result = tokio::select! {
            // A cancelled request (notifications/cancelled, a client that
            // went away) stops the call: qq_wait_messages may wait a minute.
            _ = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("the request was cancelled", None));
            }
            result = self.backend.call_tool(&caller, name, &arguments) => result,
        };
        let mut result = result.map_err(error)?;
        if let Some(decided) = self.elicit_approval(&caller, &result, &context).await {
            result = decided;
        }
        Ok(CallToolResponse::Complete(call_result(result)))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let caller = self.caller(&context.extensions)?;
        let chats = self.backend.list_chats(&caller).await.map_err(error)?;
        Ok(ListResourcesResult::with_all_items(
            chats.iter().map(resource).collect(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let caller = self.caller(&context.extensions)?;
        let chat = self.listed(&caller, &request.uri).await?;
        let text = self
            .backend
            .read_chat(&caller, &chat)
            .await
            .map_err(error)?;
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri).with_mime_type(MIME_TYPE),
        ])
        .into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let caller = self.caller(&context.extensions)?;
        let chat = self.listed(&caller, &request.uri).await?;
        let chats = self
            .backend
            .watch(&caller, &chat.account_id, vec![chat.chat])
            .await
            .map_err(error)?;
        let stop = CancellationToken::new();
        if let Some(old) = self
            .subscriptions
            .lock()
            .insert(request.uri.clone(), stop.clone())
        {
            old.cancel();
        }
        let peer = context.peer.clone();
        let uri = request.uri;
        tokio::spawn(forward_updates(chats, stop, move |_| {
            let peer = peer.clone();
            let uri = uri.clone();
            async move {
                peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                    .await
                    .is_ok()
            }
        }));
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(token) = self.subscriptions.lock().remove(&request.uri) {
            token.cancel();
        }
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // Only resource updates, of URIs that name a chat; whether the
        // caller may read each is checked when the stream starts.
        let uris: Vec<String> = requested
            .resource_subscriptions
            .iter()
            .flatten()
            .filter(|uri| ChatResource::parse(uri).is_some())
            .cloned()
            .collect();
        let filter = SubscriptionFilter::builder();
        Some(if uris.is_empty() {
            filter.build()
        } else {
            filter.resource_subscriptions(uris).build()
        })
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let extensions = &context.request_context().extensions;
        let caller = self.caller(extensions)?;
        let client = extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<ClientKey>())
            .map(|key| key.0.clone());
        let _permit = match &self.budget {
            Some(budget) => Some(budget.slot(client).map_err(|_| {
                ErrorData::new(
                    OVERLOADED,
                    "too many MCP sessions and subscriptions are open, or this client holds its share of them; retry later",
                    None,
                )
            })?),
            None => None,
        };
        let readable = self.backend.list_chats(&caller).await.map_err(error)?;
        let mut by_account: BTreeMap<String, Vec<ChatRef>> = BTreeMap::new();
        for uri in context.accepted().resource_subscriptions.iter().flatten() {
            match ChatResource::parse(uri) {
                Some(chat) if readable.contains(&chat) => {
                    by_account
                        .entry(chat.account_id)
                        .or_default()
                        .push(chat.chat);
                }
                _ => tracing::debug!(%uri, "subscription to a resource the caller may not read"),
            }
        }
        let mut streams = Vec::new();
        for (account_id, chats) in by_account {
            let stream = self
                .backend
                .watch(&caller, &account_id, chats)
                .await
                .map_err(error)?;
            streams.push(
                stream
                    .map(move |chat| {
                        ChatResource {
                            account_id: account_id.clone(),
                            chat,
                        }
                        .uri()
                    })
                    .boxed(),
            );
        }
        if streams.is_empty() {
            context.cancelled().await;
            return Ok(());
        }
        // The acknowledgment went out before the watches started: one
        // update per resource now covers a message that arrived in between
        // (a client re-reads on every update, so it misses nothing).
        for uri in context.accepted().resource_subscriptions.iter().flatten() {
            if ChatResource::parse(uri).is_some_and(|chat| readable.contains(&chat))
                && context
                    .sink()
                    .notify_resource_updated(uri.clone())
                    .await
                    .is_err()
            {
                return Ok(());
            }
        }
        let mut updates = futures_util::stream::select_all(streams);
        loop {
            let next = tokio::select! {
                biased;
                _ = context.cancelled() => return Ok(()),
                next = updates.next() => next,
            };
            match next {
                Some(uri) => {
                    if context.sink().notify_resource_updated(uri).await.is_err() {
                        return Ok(());
                    }
                }
                // The gateway is shutting down.
                None => return Ok(()),
            }
        }
    }
}
