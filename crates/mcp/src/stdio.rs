//! The stdio transport: MCP on standard input and output (the form a
//! desktop agent launches as a command), over any [`Backend`]. Nothing but
//! protocol messages may reach standard output: logs go to standard error.

use std::sync::Arc;

use rmcp::ServiceExt;

use super::backend::Backend;
use super::handler::{Callers, McpHandler};

/// Serves MCP on stdin/stdout over `backend` until the client closes
/// stdin (or sends a shutdown).
pub async fn serve_stdio<B: Backend>(backend: Arc<B>) -> anyhow::Result<()> {
    let handler = McpHandler::new(backend, Callers::Backend, None);
    let running = handler
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow::anyhow!("MCP over stdio: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| anyhow::anyhow!("MCP over stdio: {e}"))?;
    Ok(())
}
