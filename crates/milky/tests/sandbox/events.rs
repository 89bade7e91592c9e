//! Events over WebSocket and SSE, reconnects, refused tokens and failures by kind.

use super::*;

async fn events_arrive(events: MilkyEvents, name: &'static str) {
    let mut rig = rig(name, events).await;
    let control = rig.sandbox.control();
    let quoted = control.inject_group_message(SANDBOX_GROUP, 10002, json!("第一句"));
    let sid = control.inject_group_message(
        SANDBOX_GROUP,
        10003,
        json!([{"type": "reply", "data": {"id": quoted}}, {"type": "text", "data": {"text": "回一句"}}]),
    );
    let seq = control.message_seq(sid).unwrap();
    let m = event_until(&mut rig.events, |e| match e {
        InboundEvent::Message { message, .. } if message.message_seq == Some(seq) => Some(message),
        _ => None,
    })
    .await;
    assert_eq!(m.chat, ChatRef::Group(SANDBOX_GROUP));
    assert_eq!(m.sender.user_id, 10003);
    match m.segments.first() {
        Some(Segment::Reply {
            quoted: Some(q), ..
        }) => assert_eq!(text(q), "第一句"),
        other => panic!("no inline quote: {other:?}"),
    }
    // The event's id reads the same message back.
    let again = rig
        .client
        .get_message(m.message_id, None, deadline())
        .await
        .unwrap();
    assert_eq!(again.message_seq, Some(seq));
    assert!(control.recall_message(sid, 10003));
    let (chat, id) = event_until(&mut rig.events, |e| match e {
        InboundEvent::MessageRecalled {
            chat, message_id, ..
        } => Some((chat, message_id)),
        _ => None,
    })
    .await;
    assert_eq!((chat, id), (m.chat, m.message_id));
    control.bot_offline("test");
    event_until(&mut rig.events, |e| {
        matches!(e, InboundEvent::Lifecycle { ref sub_type, .. } if sub_type == "offline")
            .then_some(())
    })
    .await;
}

#[tokio::test]
async fn events_arrive_over_websocket() {
    events_arrive(MilkyEvents::WebSocket, "events-ws").await;
}

#[tokio::test]
async fn events_arrive_over_sse() {
    events_arrive(MilkyEvents::Sse, "events-sse").await;
}

async fn reconnects(events: MilkyEvents, name: &'static str) {
    let mut rig = rig(name, events).await;
    rig.sandbox.stop_listening().await;
    status_until(&rig.client, |s| {
        s.state != ConnState::Connected && !s.online
    })
    .await;
    let offline = rig.client.get_groups(deadline()).await.unwrap_err();
    assert_eq!(offline.kind, Kind::AccountOffline);
    assert!(offline.retry_after.is_some());
    rig.sandbox.start_listening().await.unwrap();
    status_until(&rig.client, |s| s.state == ConnState::Connected && s.online).await;
    let sid = rig
        .sandbox
        .control()
        .inject_private_message(10001, json!("又在了"));
    let seq = rig.sandbox.control().message_seq(sid).unwrap();
    let m = event_until(&mut rig.events, |e| match e {
        InboundEvent::Message { message, .. } if message.message_seq == Some(seq) => Some(message),
        _ => None,
    })
    .await;
    assert_eq!(m.chat, ChatRef::Private(10001));
}

#[tokio::test]
async fn reconnects_over_websocket_after_the_peer_restarts() {
    reconnects(MilkyEvents::WebSocket, "reconnect-ws").await;
}

#[tokio::test]
async fn reconnects_over_sse_after_the_peer_restarts() {
    reconnects(MilkyEvents::Sse, "reconnect-sse").await;
}

#[tokio::test]
async fn a_wrong_token_is_auth_failed() {
    let sandbox = Sandbox::start(SandboxConfig {
        access_token: Some("secret".into()),
        ..SandboxConfig::milky()
    })
    .await
    .unwrap();
    let (tx, _rx) = mpsc::unbounded_channel();
    let shutdown = CancellationToken::new();
    let client = MilkyClient::start(
        "milky",
        AccountConfig {
            milky_url: Some(sandbox.milky_url()),
            access_token: Some(onebot_gateway_config::Secret::new("wrong")),
            ..AccountConfig::default()
        },
        1024 * 1024,
        Arc::new(Sink(tx)),
        shutdown.clone(),
    )
    .unwrap();
    status_until(&client, |s| s.state == ConnState::AuthFailed).await;
    let e = client.get_groups(deadline()).await.unwrap_err();
    assert_eq!(e.kind, Kind::OnebotAuthFailed);
    shutdown.cancel();
}

async fn large_events_are_dropped(events: MilkyEvents, name: &'static str) {
    let mut rig = rig_with(name, events, 4096).await;
    let control = rig.sandbox.control();
    let big = control.inject_group_message(SANDBOX_GROUP, 10002, json!("长".repeat(5000)));
    let small = control.inject_group_message(SANDBOX_GROUP, 10002, json!("短"));
    let (big, small) = (control.message_seq(big), control.message_seq(small));
    let m = event_until(&mut rig.events, |e| match e {
        InboundEvent::Message { message, .. } => Some(message),
        _ => None,
    })
    .await;
    // The large one never arrives; the connection carries the next one.
    assert_ne!(m.message_seq, big);
    assert_eq!(m.message_seq, small);
    assert_eq!(rig.client.status().state, ConnState::Connected);
}

#[tokio::test]
async fn large_events_are_dropped_over_websocket() {
    large_events_are_dropped(MilkyEvents::WebSocket, "large-ws").await;
}

#[tokio::test]
async fn large_events_are_dropped_over_sse() {
    large_events_are_dropped(MilkyEvents::Sse, "large-sse").await;
}

#[tokio::test]
async fn unknown_apis_and_passed_deadlines_fail_by_kind() {
    let mut rig = rig("raw", MilkyEvents::WebSocket).await;
    rig.schema = false;
    let unknown = rig
        .client
        .call("get_nothing", json!({}), deadline())
        .await
        .unwrap_err();
    assert_eq!(unknown.kind, Kind::OnebotActionUnsupported);
    let bad = rig
        .client
        .call(
            "get_message",
            json!({"message_scene": "group", "peer_id": SANDBOX_GROUP}),
            deadline(),
        )
        .await
        .unwrap_err();
    assert_eq!(bad.kind, Kind::OnebotBadRequest);
    let past = Deadline::at(tokio::time::Instant::now() - Duration::from_millis(1));
    assert_eq!(
        rig.client.get_groups(past).await.unwrap_err().kind,
        Kind::DeadlineExceeded
    );
}
