//! MCP over Streamable HTTP on the gRPC listener itself: one port serves
//! gRPC (HTTP/2) and MCP (HTTP/1.1 here, reqwest) side by side, against a
//! real sandbox whose injected messages wake `qq_wait_messages` and a
//! resource subscription, and are found by `qq_search_messages`.

use futures_util::StreamExt;
use onebot_gateway_client::pb;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, sandbox};
use onebot_sandbox::SANDBOX_GROUP;
use serde_json::{Value, json};

const PROTOCOL: &str = "2025-11-25";

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

/// The JSON-RPC messages of an SSE answer.
fn messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

impl Session {
    async fn open(gw: &TestGateway) -> Session {
        let http = reqwest::Client::builder().http1_only().build().unwrap();
        let url = format!("http://{}/mcp", gw.addr);
        let init = json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "e2e", "version": "1"}}
        });
        let r = post(&http, &url, &init).send().await.expect("initialize");
        assert_eq!(r.status(), 200);
        assert_eq!(r.version(), reqwest::Version::HTTP_11);
        let id = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        r.text().await.unwrap();
        let s = Session { http, url, id };
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(s.post(&note).send().await.unwrap().status(), 202);
        s
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        post(&self.http, &self.url, body)
            .header("mcp-session-id", &self.id)
            .header("mcp-protocol-version", PROTOCOL)
    }

    async fn rpc(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
        let text = self.post(&body).send().await.unwrap().text().await.unwrap();
        messages(&text)
            .into_iter()
            .rfind(|m| m["id"] == 9)
            .unwrap_or_else(|| panic!("no answer to {method}: {text}"))
    }
}

#[tokio::test]
async fn mcp_beside_grpc_on_one_port() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[SANDBOX_GROUP]).await;
    let control = peer.control();
    let mcp = Session::open(&gw).await;

    // The same call both ways gives the same text and details.
    let args = json!({"target": format!("group:{SANDBOX_GROUP}"), "count": 5});
    let grpc = gw
        .tools()
        .call_tool(pb::CallToolRequest {
            name: "qq_get_history".into(),
            arguments_json: args.to_string(),
        })
        .await
        .expect("CallTool on the same port")
        .into_inner();
    let answer = mcp
        .rpc(
            "tools/call",
            json!({"name": "qq_get_history", "arguments": args}),
        )
        .await;
    let result = &answer["result"];
    assert_eq!(result["content"][0]["text"], grpc.text);
    assert_eq!(
        result["structuredContent"],
        serde_json::from_str::<Value>(&grpc.details_json).unwrap()
    );
    assert_eq!(result["isError"], false);

    // A subscription: the standalone SSE stream carries the update.
    let uri = format!("qq://default/group/{SANDBOX_GROUP}");
    let listed = mcp.rpc("resources/list", json!({})).await;
    assert!(
        listed["result"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == uri),
        "{listed}"
    );
    let stream = mcp
        .http
        .get(&mcp.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &mcp.id)
        .header("mcp-protocol-version", PROTOCOL)
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let subscribed = mcp.rpc("resources/subscribe", json!({"uri": uri})).await;
    assert!(subscribed.get("result").is_some(), "{subscribed}");
    control.inject_group_message(SANDBOX_GROUP, 10001, json!("有人吗"));
    let mut chunks = stream.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("notifications/resources/updated") {
        let chunk = chunks.next().await.expect("the stream goes on").unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains(&uri), "{seen}");
    let read = mcp.rpc("resources/read", json!({"uri": uri})).await;
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.ends_with(": 有人吗"), "{text}");

    // qq_wait_messages resumes from lastSequence and wakes on the next message.
    let first = mcp
        .rpc(
            "tools/call",
            json!({"name": "qq_wait_messages", "arguments": {"afterSequence": 0, "chats": [format!("group:{SANDBOX_GROUP}")]}}),
        )
        .await;
    let last = first["result"]["structuredContent"]["lastSequence"]
        .as_u64()
        .expect("an integer");
    let waiting = {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "qq_wait_messages",
            "arguments": {"afterSequence": last, "timeoutSecs": 60}
        }});
        mcp.post(&body).send()
    };
    let (response, _) = tokio::join!(waiting, async {
        control.inject_group_message(SANDBOX_GROUP, 10002, json!("醒醒"));
    });
    let text = response.unwrap().text().await.unwrap();
    let woke = messages(&text).into_iter().rfind(|m| m["id"] == 9).unwrap();
    let result = &woke["result"];
    assert_eq!(result["isError"], false, "{woke}");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with(": 醒醒"),
        "{woke}"
    );
    assert!(
        result["structuredContent"]["lastSequence"]
            .as_u64()
            .unwrap()
            > last
    );

    // qq_search_messages reads the archive over MCP as CallTool does: the
    // message just delivered is archived already.
    let args = json!({"query": "醒醒", "target": format!("group:{SANDBOX_GROUP}")});
    let grpc = gw
        .tools()
        .call_tool(pb::CallToolRequest {
            name: "qq_search_messages".into(),
            arguments_json: args.to_string(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!grpc.is_error, "{}", grpc.text);
    let found = mcp
        .rpc(
            "tools/call",
            json!({"name": "qq_search_messages", "arguments": args}),
        )
        .await;
    let result = &found["result"];
    assert_eq!(result["isError"], false, "{found}");
    assert_eq!(result["content"][0]["text"], grpc.text);
    assert_eq!(
        result["structuredContent"],
        serde_json::from_str::<Value>(&grpc.details_json).unwrap()
    );
    assert_eq!(result["structuredContent"]["count"], 1, "{found}");
    assert_eq!(
        result["structuredContent"]["messages"][0]["text"], "醒醒",
        "{found}"
    );

    // gRPC still works on the port, health included.
    let health = gw
        .health()
        .check(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(health.status, 1);
    gw.stop().await.unwrap();
}
