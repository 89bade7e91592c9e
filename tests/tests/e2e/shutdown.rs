//! Graceful shutdown over real gRPC: health goes NOT_SERVING first, an RPC in
//! flight finishes within the grace period, a stuck one is cut off when the
//! grace period ends, and the server returns cleanly either way.

use std::time::{Duration, Instant};

use onebot_gateway_client::pb;
use onebot_gateway_tests::{TestGateway, config_for, sandbox};
use onebot_sandbox::{EXAMPLE_GROUP, Fault, Flavor, SANDBOX_GROUP};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;

fn history(group_id: i64) -> pb::GetHistoryRequest {
    pb::GetHistoryRequest {
        chat: Some(pb::Chat {
            kind: Some(pb::chat::Kind::GroupId(group_id)),
        }),
        ..Default::default()
    }
}

#[tokio::test]
async fn an_in_flight_rpc_finishes_within_the_grace_period() {
    let sb = sandbox(Flavor::NapCat).await;
    let mut config = config_for(&sb, &[SANDBOX_GROUP]);
    config.server.grace_period_ms = 10_000;
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;

    // Delay the peer's answer so the RPC is in flight when shutdown starts.
    let control = sb.control();
    control.set_fault(Fault::SlowReplies(Duration::from_millis(400)));
    let mut health = gw
        .health()
        .watch(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("watch")
        .into_inner();
    assert_eq!(
        health.message().await.unwrap().unwrap().status,
        ServingStatus::Serving as i32
    );

    let mut messages = gw.messages();
    let call = tokio::spawn(async move { messages.get_history(history(EXAMPLE_GROUP)).await });
    control.wait_for_action("get_group_msg_history").await;

    let started = Instant::now();
    let stopping = tokio::spawn(gw.stop());
    // Shutdown starts by marking the process NOT_SERVING.
    let next = tokio::time::timeout(Duration::from_secs(10), health.message())
        .await
        .expect("health announces shutdown");
    if let Ok(Some(resp)) = next {
        assert_eq!(resp.status, ServingStatus::NotServing as i32);
    }
    // A health watch is an open call too; the server would wait for it until
    // the grace period ends.
    drop(health);
    // The account's connection stays up while in-flight RPCs drain, so the
    // delayed answer still arrives and the call completes normally.
    let answer = call.await.expect("join");
    stopping
        .await
        .expect("join")
        .expect("server returns cleanly");
    assert!(started.elapsed() < Duration::from_secs(10), "within grace");
    assert_eq!(answer.expect("answered").into_inner().messages.len(), 3);
}

#[tokio::test]
async fn a_stuck_rpc_is_cut_off_when_the_grace_period_ends() {
    let sb = sandbox(Flavor::NapCat).await;
    let mut config = config_for(&sb, &[SANDBOX_GROUP]);
    config.server.grace_period_ms = 300;
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let control = sb.control();
    control.set_fault(Fault::Stall { action: None });

    let mut messages = gw.messages();
    let call = tokio::spawn(async move { messages.get_history(history(EXAMPLE_GROUP)).await });
    control.wait_for_action("get_group_msg_history").await;

    let started = Instant::now();
    gw.stop().await.expect("server returns cleanly");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "stopped after {took:?}");
    let status = call.await.expect("join").expect_err("cut off");
    assert!(
        matches!(
            status.code(),
            tonic::Code::Unavailable | tonic::Code::Cancelled | tonic::Code::Unknown
        ),
        "{status:?}"
    );
}
