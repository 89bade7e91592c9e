//! `AgentToolService`: the agent tools (history, members, send, poke, wait) for
//! agent runtimes.
//!
//! ListTools and CallTool answer UNIMPLEMENTED (`TOOLS_DISABLED`) when the
//! operator turned the service off. Otherwise CallTool fails at the gRPC
//! level only when the caller's deadline passed; every other failure is a
//! normal response with `is_error` (see [`Gateway::call_tool`]).

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::agent_tool_service_server::AgentToolService;
use tonic::{Request, Response, Status};

use crate::status::to_status;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::tools::output::ToolContent;
use onebot_gateway_domain::tools::{ToolOutput, ToolSpec};

/// The AgentToolService implementation.
pub struct ToolApi {
    gw: Arc<Gateway>,
}

impl ToolApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

/// A tool as the proto shows it.
pub fn tool(spec: &ToolSpec) -> pb::Tool {
    pb::Tool {
        name: spec.tool.name().to_owned(),
        description: spec.description.to_owned(),
        input_schema_json: spec.input_schema.to_string(),
        details_schema_json: spec.details_schema.to_string(),
        read_only: spec.read_only,
        destructive: spec.destructive,
        title: spec.title.to_owned(),
        idempotent: spec.idempotent,
        open_world: spec.open_world,
        deletes: spec.deletes,
        aliases: spec
            .tool
            .aliases()
            .iter()
            .map(|a| (*a).to_owned())
            .collect(),
    }
}

/// A call's result as the proto shows it.
pub fn call_response(output: ToolOutput) -> pb::CallToolResponse {
    use pb::tool_content::Kind;
    let content = output
        .content
        .into_iter()
        .map(|c| pb::ToolContent {
            kind: Some(match c {
                ToolContent::Text(text) => Kind::Text(text),
                ToolContent::Image { mime_type, data } => Kind::Image(pb::ToolImage {
                    mime_type,
                    data: data.to_vec(),
                }),
            }),
        })
        .collect();
    pb::CallToolResponse {
        text: output.text,
        details_json: output.details.to_string(),
        is_error: output.is_error,
        content,
    }
}

#[tonic::async_trait]
impl AgentToolService for ToolApi {
    async fn list_tools(
        &self,
        request: Request<pb::ListToolsRequest>,
    ) -> Result<Response<pb::ListToolsResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::ListToolsRequest {} = request.into_inner();
        let specs = to_status(self.gw.list_tools_for(&ctx.caller))?;
        Ok(Response::new(pb::ListToolsResponse {
            tools: specs.iter().map(tool).collect(),
        }))
    }

    async fn call_tool(
        &self,
        request: Request<pb::CallToolRequest>,
    ) -> Result<Response<pb::CallToolResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::CallToolRequest {
            name,
            arguments_json,
        } = request.into_inner();
        let output = to_status(self.gw.call_tool(&name, &arguments_json, ctx).await)?;
        Ok(Response::new(call_response(output)))
    }
}
