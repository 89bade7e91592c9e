//! Reliability under peer faults: the real gateway over gRPC, its account on
//! a sandbox peer that is killed, restarted, slowed down or made to send
//! garbage (the sandbox's fault switches), and on a raw WebSocket peer that
//! interleaves generated garbage frames with its replies.

use std::time::{Duration, Instant};

use onebot_gateway_client::pb;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, config_for, reason, sandbox};
use onebot_sandbox::{Fault, SANDBOX_GROUP};
use tonic::{Code, Request};

const HISTORY: &str = "get_group_msg_history";

fn history_req() -> pb::GetHistoryRequest {
    pb::GetHistoryRequest {
        account_id: String::new(),
        chat: Some(pb::Chat {
            kind: Some(pb::chat::Kind::GroupId(SANDBOX_GROUP)),
        }),
        count: 5,
        anchor_message_id: None,
        until: None,
    }
}

/// Actions the gateway sends when it (re)identifies a fresh connection.
fn identify_calls(actions: &[onebot_sandbox::RecordedAction]) -> usize {
    actions
        .iter()
        .filter(|a| a.action == "get_login_info" || a.action == "get_version_info")
        .count()
}

#[tokio::test]
async fn pending_calls_fail_within_a_second_when_the_peer_dies_and_the_account_recovers() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sandbox, &[SANDBOX_GROUP]).await;
    let control = sandbox.control();
    control.set_fault(Fault::Stall {
        action: Some(HISTORY.into()),
    });
    control.clear_actions();

    // Five calls in flight, each known to have reached the peer.
    let mut calls = Vec::new();
    for _ in 0..5 {
        let mut client = gw.messages();
        calls.push(tokio::spawn(async move {
            let r = client.get_history(history_req()).await;
            (r, Instant::now())
        }));
        control.wait_for_action(HISTORY).await;
        control.clear_actions();
    }

    let killed = Instant::now();
    sandbox.stop_listening().await;
    for call in calls {
        let (result, done) = call.await.expect("join");
        let status = result.expect_err("a call pending on a dead peer must fail");
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
        assert_eq!(reason(&status), "ONEBOT_CONNECTION_LOST", "{status:?}");
        let after = done.saturating_duration_since(killed);
        assert!(
            after < Duration::from_secs(1),
            "failed {after:?} after the kill"
        );
    }

    // Restart: the gateway reconnects by itself and serves again.
    control.clear_faults();
    sandbox.start_listening().await.expect("listen again");
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let page = gw
        .messages()
        .get_history(history_req())
        .await
        .expect("history after the restart")
        .into_inner();
    assert_eq!(page.messages.len(), 5);
}

#[tokio::test]
async fn a_slow_peer_cannot_hold_a_call_past_its_deadline() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sandbox, &[SANDBOX_GROUP]).await;
    let control = sandbox.control();
    control.set_fault(Fault::SlowReplies(Duration::from_secs(3)));
    control.clear_actions();

    // The caller's deadline.
    let mut req = Request::new(history_req());
    // One second: the gateway ends its wait 50 ms early, so its typed error
    // beats tonic's own grpc-timeout timer even on a busy machine.
    req.set_timeout(Duration::from_millis(1000));
    let started = Instant::now();
    let status = gw
        .messages()
        .get_history(req)
        .await
        .expect_err("the peer answers after the deadline");
    let took = started.elapsed();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert_eq!(reason(&status), "ONEBOT_TIMEOUT", "{status:?}");
    assert!(
        took < Duration::from_millis(1000 + 700),
        "answered after {took:?}"
    );
    control.wait_for_action(HISTORY).await;

    // The connection is intact: once the peer is fast again, the next call
    // gets its own answer (not the late one) and nothing reconnected.
    control.clear_faults();
    let page = gw
        .messages()
        .get_history(pb::GetHistoryRequest {
            count: 7,
            ..history_req()
        })
        .await
        .expect("history once the peer is fast")
        .into_inner();
    assert_eq!(page.messages.len(), 7);
    assert_eq!(
        identify_calls(&control.actions()),
        0,
        "the link was replaced"
    );
    assert_eq!(control.connections(), 1);
}

#[tokio::test]
async fn the_account_timeout_bounds_a_call_without_a_deadline() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&sandbox, &[SANDBOX_GROUP]);
    if let Some(a) = config.accounts.get_mut("default") {
        a.request_timeout_ms = 400;
    }
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    sandbox
        .control()
        .set_fault(Fault::SlowReplies(Duration::from_secs(3)));
    let started = Instant::now();
    let status = gw
        .messages()
        .get_history(history_req())
        .await
        .expect_err("the peer answers after the account timeout");
    let took = started.elapsed();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert_eq!(reason(&status), "ONEBOT_TIMEOUT", "{status:?}");
    assert!(
        took >= Duration::from_millis(400) && took < Duration::from_millis(1400),
        "answered after {took:?}"
    );
}

#[tokio::test]
async fn garbage_frames_from_the_peer_do_not_break_the_connection() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sandbox, &[SANDBOX_GROUP]).await;
    let control = sandbox.control();
    control.clear_actions();
    control.set_fault(Fault::MalformedFrames);
    let mut client = gw.messages();
    for count in 1..=12 {
        let page = client
            .get_history(pb::GetHistoryRequest {
                count,
                ..history_req()
            })
            .await
            .unwrap_or_else(|s| panic!("history {count} beside garbage frames: {s:?}"))
            .into_inner();
        assert_eq!(page.messages.len(), count as usize);
    }
    let members = gw
        .groups()
        .list_group_members(pb::ListGroupMembersRequest {
            group_id: SANDBOX_GROUP,
            no_cache: Some(true),
            ..Default::default()
        })
        .await
        .expect("members beside garbage frames")
        .into_inner();
    assert!(members.total > 0);
    assert_eq!(
        identify_calls(&control.actions()),
        0,
        "the link was replaced"
    );
    assert_eq!(control.connections(), 1);
    assert_eq!(
        gw.account("default").await.state,
        pb::ConnectionState::Connected as i32
    );
}

#[tokio::test]
async fn a_peer_that_drops_the_connection_on_an_action_fails_only_that_call() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sandbox, &[SANDBOX_GROUP]).await;
    let control = sandbox.control();
    control.set_fault(Fault::DropOnAction {
        action: "get_group_member_list".into(),
    });
    let status = gw
        .groups()
        .list_group_members(pb::ListGroupMembersRequest {
            group_id: SANDBOX_GROUP,
            no_cache: Some(true),
            ..Default::default()
        })
        .await
        .expect_err("the peer hung up instead of answering");
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert_eq!(reason(&status), "ONEBOT_CONNECTION_LOST", "{status:?}");
    control.clear_faults();
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let page = gw
        .messages()
        .get_history(history_req())
        .await
        .expect("history after the reconnect")
        .into_inner();
    assert_eq!(page.messages.len(), 5);
}

#[tokio::test]
async fn replies_out_of_order_reach_their_own_callers() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sandbox, &[SANDBOX_GROUP]).await;
    // One read first, so the gateway holds the bot's group list and the
    // four calls below are the only ones in the batch.
    gw.messages()
        .get_history(history_req())
        .await
        .expect("history");
    sandbox.control().set_fault(Fault::OutOfOrder { batch: 4 });
    // Four concurrent calls with different answers: the peer answers them
    // in reverse; each caller must get its own.
    let calls = (1..=4).map(|count| {
        let mut client = gw.messages();
        async move {
            let page = client
                .get_history(pb::GetHistoryRequest {
                    count,
                    ..history_req()
                })
                .await
                .expect("history")
                .into_inner();
            (count, page.messages.len())
        }
    });
    for (asked, got) in futures_util::future::join_all(calls).await {
        assert_eq!(asked as usize, got);
    }
}

fn text(t: &str) -> pb::SendMessageRequest {
    pb::SendMessageRequest {
        group_id: Some(SANDBOX_GROUP),
        text: t.into(),
        ..pb::SendMessageRequest::default()
    }
}

/// The raw texts of the group's history, oldest first.
fn group_texts(sandbox: &onebot_sandbox::Sandbox) -> Vec<String> {
    sandbox
        .control()
        .messages(onebot_sandbox::ChatRef::Group(SANDBOX_GROUP))
        .iter()
        .filter_map(|m| m["raw_message"].as_str().map(str::to_string))
        .collect()
}

#[tokio::test]
async fn a_send_in_flight_when_the_peer_dies_is_reported_unknown_never_lost() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sandbox, &[SANDBOX_GROUP]).await;
    let control = sandbox.control();
    control.clear_actions();
    control.set_fault(Fault::Stall {
        action: Some("send_group_msg".into()),
    });
    let mut client = gw.messages();
    let call = tokio::spawn(async move { client.send_message(text("in flight")).await });
    control.wait_for_action("send_group_msg").await;
    sandbox.stop_listening().await;
    let status = call
        .await
        .expect("join")
        .expect_err("the answer never came");
    assert_eq!(status.code(), Code::Unknown, "{status:?}");
    assert_eq!(reason(&status), "SEND_OUTCOME_UNKNOWN", "{status:?}");

    // Nothing is sent again behind the caller's back after the restart.
    control.clear_faults();
    sandbox.start_listening().await.expect("listen again");
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let r = gw
        .messages()
        .send_message(text("after restart"))
        .await
        .expect("send after the restart")
        .into_inner();
    assert!(!r.queued);
    let sends: Vec<String> = control
        .actions()
        .iter()
        .filter(|a| a.action == "send_group_msg")
        .map(|a| a.params["message"].to_string())
        .collect();
    assert_eq!(sends.len(), 2, "{sends:?}");
    assert!(sends[0].contains("in flight") && sends[1].contains("after restart"));
}

#[tokio::test]
async fn queued_entries_flush_once_each_and_in_order_across_a_peer_restart() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&sandbox, &[SANDBOX_GROUP]);
    if let Some(a) = config.accounts.get_mut("default") {
        // Several chunks per entry, and no throttling of the flush.
        a.reply_chunk_size = 8;
        a.rate_group_per_minute = 100_000;
        a.rate_group_burst = 1_000;
        a.rate_account_per_minute = 100_000;
        a.rate_account_burst = 1_000;
    }
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    sandbox.stop_listening().await;
    gw.wait_state("default", pb::ConnectionState::Backoff).await;

    let mut client = gw.messages();
    let mut expected = Vec::new();
    for i in 0..12 {
        let body = format!("queued {i:02} with words");
        let r = client
            .send_message(text(&body))
            .await
            .unwrap_or_else(|s| panic!("queue {i}: {s:?}"))
            .into_inner();
        assert!(r.queued, "{r:?}");
        assert!(r.chunks >= 2, "{r:?}");
        expected.push(body);
    }
    assert_eq!(gw.account("default").await.queue_depth, 12);
    let before = group_texts(&sandbox).len();

    sandbox.start_listening().await.expect("listen again");
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    // A new send goes out after the whole queue.
    let r = client
        .send_message(text("marker"))
        .await
        .expect("send after the flush")
        .into_inner();
    assert!(!r.queued);
    let after: Vec<String> = group_texts(&sandbox).split_off(before);
    // The chunks of each entry, in order, each once, then the marker.
    let delivered = after.concat();
    let wanted = format!("{}marker", expected.concat());
    assert_eq!(
        delivered.replace(' ', ""),
        wanted.replace(' ', ""),
        "{after:?}"
    );
    assert_eq!(gw.account("default").await.queue_depth, 0);
}
