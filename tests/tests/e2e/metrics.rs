//! The Prometheus listener: scraped over HTTP after real gRPC traffic.
//!
//! The recorder is process-wide and, once installed, counts the traffic of
//! every gateway in the process: each test runs in a process of its own, so
//! that it sees its own traffic only.

use onebot_gateway_client::pb;
use onebot_gateway_config::MetricsConfig;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, config_for, in_own_process, sandbox};

/// The value of the sample whose name and labels contain all of `parts`.
fn sample(page: &str, name: &str, labels: &[&str]) -> Option<f64> {
    page.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.split(['{', ' ']).next().is_some_and(|n| n == name))
        .find(|l| labels.iter().all(|p| l.contains(p)))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

async fn scrape(gw: &TestGateway, path: &str) -> (u16, String) {
    let addr = gw.metrics_addr.expect("metrics listener");
    let response = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

#[tokio::test]
async fn metrics_are_scraped_after_traffic() {
    if !in_own_process("metrics::metrics_are_scraped_after_traffic") {
        return;
    }
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&sandbox, &[20_000_003]);
    config.metrics = Some(MetricsConfig::default());
    let gw = TestGateway::start(config).await;

    for _ in 0..3 {
        gw.accounts()
            .list_accounts(pb::ListAccountsRequest {})
            .await
            .unwrap();
    }
    // An RPC that fails: counted under its code.
    let refused = gw
        .groups()
        .list_group_members(pb::ListGroupMembersRequest {
            account_id: "nope".into(),
            group_id: 1,
            ..Default::default()
        })
        .await
        .unwrap_err();
    let state = gw.account("default").await.state;

    let (status, page) = scrape(&gw, "/metrics").await;
    assert_eq!(status, 200);
    let list = [
        "grpc_service=\"onebot.gateway.v1.AccountService\"",
        "grpc_method=\"ListAccounts\"",
    ];
    let ok = sample(
        &page,
        "grpc_server_handled_total",
        &[list[0], list[1], "grpc_code=\"OK\""],
    );
    assert!(ok.is_some_and(|n| n >= 4.0), "{page}");
    let started = sample(&page, "grpc_server_started_total", &list);
    assert!(started.is_some_and(|n| n >= 4.0), "{page}");
    let code = onebot_gateway_grpc::observe::code_name(refused.code());
    let failed = sample(
        &page,
        "grpc_server_handled_total",
        &[
            "grpc_method=\"ListGroupMembers\"",
            &format!("grpc_code=\"{code}\""),
        ],
    );
    assert_eq!(failed, Some(1.0), "{page}");
    let latency = sample(&page, "grpc_server_handling_seconds_count", &list);
    assert!(latency.is_some_and(|n| n >= 4.0), "{page}");
    assert!(
        page.contains("grpc_server_handling_seconds_bucket{"),
        "{page}"
    );

    // Per-account gauges reflect ListAccounts.
    let name = match pb::ConnectionState::try_from(state).unwrap() {
        pb::ConnectionState::Connected => "connected",
        pb::ConnectionState::Connecting => "connecting",
        pb::ConnectionState::Backoff => "backoff",
        pb::ConnectionState::AuthFailed => "auth_failed",
        pb::ConnectionState::NotConfigured | pb::ConnectionState::Unspecified => "not_configured",
    };
    let current = sample(
        &page,
        "onebot_gateway_account_state",
        &["account=\"default\"", &format!("state=\"{name}\"")],
    );
    assert_eq!(current, Some(1.0), "{page}");
    let others: f64 = page
        .lines()
        .filter(|l| {
            l.starts_with("onebot_gateway_account_state{") && l.contains("account=\"default\"")
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(others, 1.0, "exactly one state is current: {page}");
    assert!(sample(&page, "onebot_gateway_account_up", &["account=\"default\""]).is_some());
    assert_eq!(
        sample(
            &page,
            "onebot_gateway_queue_depth",
            &["account=\"default\""]
        ),
        Some(0.0)
    );
    assert!(page.contains("# HELP grpc_server_handled_total"), "{page}");

    let (status, _) = scrape(&gw, "/other").await;
    assert_eq!(status, 404);
    gw.stop().await.unwrap();
}

/// Peer-side metrics after real traffic to the sandbox: action latency by
/// action and retcode, pending calls back to zero, staged upload bytes and a
/// reconnect after the peer dropped the connection.
#[tokio::test]
async fn peer_upload_and_reconnect_metrics() {
    if !in_own_process("metrics::peer_upload_and_reconnect_metrics") {
        return;
    }
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&sandbox, &[20_000_003]);
    config.metrics = Some(MetricsConfig::default());
    if let Some(a) = config.accounts.get_mut("default") {
        a.backoff_min_ms = 20;
        a.backoff_max_ms = 50;
    }
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;

    gw.groups()
        .list_groups(pb::ListGroupsRequest::default())
        .await
        .unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.resize(1000, 0);
    let upload = vec![
        pb::UploadMediaRequest {
            payload: Some(pb::upload_media_request::Payload::Header(
                pb::UploadMediaHeader {
                    kind: pb::MediaKind::Image as i32,
                    size: Some(png.len() as i64),
                    ..Default::default()
                },
            )),
        },
        pb::UploadMediaRequest {
            payload: Some(pb::upload_media_request::Payload::Chunk(png)),
        },
    ];
    gw.media()
        .upload_media(tokio_stream::iter(upload))
        .await
        .unwrap();
    // The peer drops the link; the gateway reconnects.
    let control = sandbox.control();
    control.drop_connections();
    control.wait_connections(1).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;

    let (_, page) = scrape(&gw, "/metrics").await;
    let acct = "account=\"default\"";
    let groups = sample(
        &page,
        "onebot_gateway_peer_action_seconds_count",
        &[acct, "action=\"get_group_list\"", "retcode=\"0\""],
    );
    assert!(groups.is_some_and(|n| n >= 1.0), "{page}");
    assert!(
        page.contains("onebot_gateway_peer_action_seconds_bucket{"),
        "{page}"
    );
    assert_eq!(
        sample(&page, "onebot_gateway_pending_calls", &[acct]),
        Some(0.0),
        "{page}"
    );
    assert_eq!(
        sample(
            &page,
            "onebot_gateway_upload_bytes_total",
            &[acct, "kind=\"image\""]
        ),
        Some(1000.0),
        "{page}"
    );
    let reconnects = sample(&page, "onebot_gateway_reconnects_total", &[acct]);
    assert!(reconnects.is_some_and(|n| n >= 1.0), "{page}");
    assert_eq!(
        sample(&page, "onebot_gateway_account_up", &[acct]),
        Some(1.0),
        "{page}"
    );
    gw.stop().await.unwrap();
}
