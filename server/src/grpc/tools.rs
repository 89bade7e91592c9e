//! `AgentToolService`: the seeds' tools for agent runtimes.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::agent_tool_service_server::AgentToolService;
use tonic::{Request, Response, Status};

use crate::domain::Gateway;

/// The AgentToolService implementation.
pub struct ToolApi {
    #[allow(dead_code)]
    gw: Arc<Gateway>,
}

impl ToolApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

#[tonic::async_trait]
impl AgentToolService for ToolApi {
    async fn list_tools(
        &self,
        _request: Request<pb::ListToolsRequest>,
    ) -> Result<Response<pb::ListToolsResponse>, Status> {
        Err(Status::unimplemented("ListTools is not built yet"))
    }

    async fn call_tool(
        &self,
        _request: Request<pb::CallToolRequest>,
    ) -> Result<Response<pb::CallToolResponse>, Status> {
        Err(Status::unimplemented("CallTool is not built yet"))
    }
}
