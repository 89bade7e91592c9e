//! AgentToolService end to end: the real gateway over gRPC/TCP.

use onebot_gateway::config::Config;
use onebot_gateway_client::pb;
use onebot_gateway_tests::{TestGateway, reason};
use serde_json::Value;
use tonic::Code;

/// `tools.enabled = false` turns the whole service off: UNIMPLEMENTED with
/// reason TOOLS_DISABLED for both RPCs.
#[tokio::test]
async fn disabled_service_is_unimplemented() {
    let mut config = Config::default();
    config.tools.enabled = false;
    let gw = TestGateway::start(config).await;
    let mut tools = gw.tools();
    let err = tools.list_tools(pb::ListToolsRequest {}).await.unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);
    assert_eq!(reason(&err), "TOOLS_DISABLED");
    let err = tools
        .call_tool(pb::CallToolRequest {
            name: "qq_get_history".into(),
            arguments_json: r#"{"target":"group:20000002"}"#.into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);
    assert_eq!(reason(&err), "TOOLS_DISABLED");
    gw.stop().await.unwrap();
}

/// ListTools shows each tool with its aliases, hints and both schemas as
/// JSON documents; a call about nothing the gateway knows is a result.
#[tokio::test]
async fn list_and_call_over_grpc() {
    let gw = TestGateway::start(Config::default()).await;
    let mut tools = gw.tools();
    let listed = tools
        .list_tools(pb::ListToolsRequest {})
        .await
        .unwrap()
        .into_inner()
        .tools;
    let history = listed
        .iter()
        .find(|t| t.name == "qq_get_history")
        .expect("qq_get_history listed");
    assert_eq!(history.aliases, ["snowluma_get_history"]);
    assert!(history.read_only && !history.destructive);
    let members = listed
        .iter()
        .find(|t| t.name == "qq_get_group_members")
        .expect("qq_get_group_members listed");
    assert_eq!(members.aliases, ["snowluma_get_group_members"]);
    for tool in &listed {
        for schema in [&tool.input_schema_json, &tool.details_schema_json] {
            let schema: Value = serde_json::from_str(schema).expect("schema is JSON");
            assert_eq!(
                schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{}",
                tool.name
            );
        }
        assert!(tool.description.contains("Never throws"), "{}", tool.name);
    }

    let out = tools
        .call_tool(pb::CallToolRequest {
            name: "qq_nope".into(),
            arguments_json: String::new(),
        })
        .await
        .expect("an unknown tool is a result, not a gRPC error")
        .into_inner();
    assert!(out.is_error);
    let details: Value = serde_json::from_str(&out.details_json).unwrap();
    assert_eq!(details["status"], "failed");
    assert_eq!(details["error"], out.text.as_str());
    assert!(out.text.starts_with("未知工具「qq_nope」"), "{}", out.text);

    let out = tools
        .call_tool(pb::CallToolRequest {
            name: "snowluma_get_history".into(),
            arguments_json: r#"{"target":"group:abc"}"#.into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(out.is_error);
    assert!(
        out.text.contains("target「group:abc」无法解析"),
        "{}",
        out.text
    );
    gw.stop().await.unwrap();
}
