//! `qq_get_history` through MCP Streamable HTTP against `CallTool` over
//! gRPC: the same tool, arguments and gateway in the same run, so the
//! ratio is what the MCP edge costs on top of the gRPC one.
//!
//! The MCP client is what most clients are today: an `initialize`d session
//! (protocol 2025-11-25) over HTTP/1.1 keep-alive connections, one session
//! per concurrent caller, each call a `tools/call` POST (with its own
//! JSON-RPC id) whose answer is an SSE stream read to its end.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::load::{self, Call};
use crate::procs::{BENCH_GROUP, GatewayProc};
use crate::rounds::{Summary, measure};
use crate::workload::HISTORY_COUNT;

/// Concurrencies of the MCP row.
pub const MCP_CONCURRENCIES: [usize; 2] = [1, 16];
/// The target: MCP p50 at most this many times CallTool's.
pub const MCP_TARGET: f64 = 1.5;
/// The protocol version the sessions negotiate.
const PROTOCOL: &str = "2025-11-25";

/// One round at one concurrency.
#[derive(Debug, Clone, Copy, Default)]
pub struct McpRound {
    /// `tools/call` over MCP Streamable HTTP.
    pub mcp: Summary,
    /// `CallTool` over gRPC.
    pub grpc: Summary,
}

impl McpRound {
    /// MCP p50 / gRPC p50.
    pub fn p50_ratio(&self) -> f64 {
        self.mcp.p50 / self.grpc.p50
    }
}

/// The tool's arguments.
pub fn arguments() -> Value {
    json!({"target": format!("group:{BENCH_GROUP}"), "count": HISTORY_COUNT})
}

/// One MCP session.
#[derive(Debug, Clone)]
struct Session {
    http: reqwest::Client,
    url: String,
    id: String,
}

fn post(http: &reqwest::Client, url: &str, body: &Value) -> reqwest::RequestBuilder {
    http.post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string())
}

impl Session {
    async fn open(http: &reqwest::Client, url: &str) -> Result<Session> {
        let init = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"}
            }
        });
        let response = post(http, url, &init).send().await.context("initialize")?;
        if !response.status().is_success() {
            bail!("initialize: HTTP {}", response.status());
        }
        let id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .context("initialize: no Mcp-Session-Id")?
            .to_owned();
        response.text().await?;
        let session = Session {
            http: http.clone(),
            url: url.to_owned(),
            id,
        };
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let r = session.request(&initialized).send().await?;
        if r.status() != reqwest::StatusCode::ACCEPTED {
            bail!("notifications/initialized: HTTP {}", r.status());
        }
        Ok(session)
    }

    fn request(&self, body: &Value) -> reqwest::RequestBuilder {
        post(&self.http, &self.url, body)
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", PROTOCOL)
    }

    /// One `tools/call`; fails unless the answer is a non-error result.
    async fn call(&self, body: &Value) -> Result<(), String> {
        let response = self.request(body).send().await.map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status()));
        }
        let text = response.text().await.map_err(|e| e.to_string())?;
        if text.contains("\"isError\":false") {
            Ok(())
        } else {
            Err(format!("not a successful result: {text:.200}"))
        }
    }
}

/// `conc` sessions to the gateway's MCP endpoint.
async fn sessions(gateway: &GatewayProc, conc: usize) -> Result<Arc<Vec<Session>>> {
    let http = reqwest::Client::builder()
        .http1_only()
        .tcp_nodelay(true)
        .pool_max_idle_per_host(conc.max(1) * 2)
        .build()?;
    let url = format!("http://{}/mcp", gateway.addr);
    let mut out = Vec::with_capacity(conc);
    for _ in 0..conc {
        out.push(Session::open(&http, &url).await?);
    }
    Ok(Arc::new(out))
}

/// The MCP call over a pool of sessions: each call takes a session of its
/// own (one per concurrent caller) and a fresh JSON-RPC id.
fn mcp_call(pool: Arc<Vec<Session>>) -> Call {
    let idle = Arc::new(parking_lot::Mutex::new((*pool).clone()));
    let ids = Arc::new(AtomicUsize::new(1));
    load::call(move || {
        let idle = idle.clone();
        let id = ids.fetch_add(1, Ordering::Relaxed);
        async move {
            let session = idle.lock().pop().ok_or("more callers than sessions")?;
            let body = json!({
                "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "qq_get_history", "arguments": arguments()}
            });
            let result = session.call(&body).await;
            idle.lock().push(session);
            result
        }
    })
}

/// The same tool call over gRPC.
fn grpc_call(gateway: &GatewayProc) -> Call {
    let tools = gateway.tools();
    let arguments_json = arguments().to_string();
    load::call(move || {
        let mut c = tools.clone();
        let request = onebot_gateway_client::pb::CallToolRequest {
            name: "qq_get_history".into(),
            arguments_json: arguments_json.clone(),
        };
        async move {
            let out = c
                .call_tool(request)
                .await
                .map_err(|s| s.to_string())?
                .into_inner();
            if out.is_error { Err(out.text) } else { Ok(()) }
        }
    })
}

/// The two calls at each concurrency, ready to measure.
pub struct McpSystems {
    calls: Vec<(Call, Call)>,
}

impl McpSystems {
    /// Opens the sessions (and checks each call answers).
    pub async fn new(gateway: &GatewayProc) -> Result<McpSystems> {
        let mut calls = Vec::new();
        for conc in MCP_CONCURRENCIES {
            let mcp = mcp_call(sessions(gateway, conc).await?);
            let grpc = grpc_call(gateway);
            mcp()
                .await
                .map_err(|e| anyhow::anyhow!("MCP tools/call: {e}"))?;
            grpc().await.map_err(|e| anyhow::anyhow!("CallTool: {e}"))?;
            calls.push((mcp, grpc));
        }
        Ok(McpSystems { calls })
    }

    /// One round: each concurrency, gRPC then MCP, `dur` each.
    pub async fn round(&self, pids: &[u32], dur: Duration) -> [McpRound; 2] {
        let mut out = [McpRound::default(); 2];
        for (i, conc) in MCP_CONCURRENCIES.iter().enumerate() {
            let (mcp, grpc) = &self.calls[i];
            let warm = if *conc == 1 { 50 } else { 5 };
            out[i] = McpRound {
                grpc: measure(grpc, pids, *conc, warm, dur).await,
                mcp: measure(mcp, pids, *conc, warm, dur).await,
            };
        }
        out
    }
}
