//! EventService.StreamEvents and account states over real gRPC against the
//! sandbox: resume after a client reconnect, the gap error, filters,
//! connection events, the end of streams at shutdown, ListAccounts
//! following a peer that is killed and restarted, and the rendered line of
//! message events (live and resumed) against GetHistory's.

use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_gateway_config::AccountConfig;
use onebot_gateway_tests::{TestGateway, config_for, reason, sandbox};
use onebot_sandbox::{EXAMPLE_GROUP, Flavor, SANDBOX_GROUP};
use serde_json::json;
use tonic::Streaming;
use tonic_health::pb::health_check_response::ServingStatus;

const WAIT: Duration = Duration::from_secs(20);

pub(crate) async fn next_event(stream: &mut Streaming<pb::StreamEventsResponse>) -> pb::Event {
    // Heartbeats (the first message, and one after every idle period) carry
    // no event: skip them.
    loop {
        let m = tokio::time::timeout(WAIT, stream.message())
            .await
            .expect("an event in time")
            .expect("stream ok")
            .expect("stream open");
        if let Some(event) = m.event {
            return event;
        }
        assert!(
            m.heartbeat.is_some(),
            "a message with neither event nor heartbeat"
        );
    }
}

fn message_id(e: &pb::Event) -> i64 {
    match &e.kind {
        Some(pb::event::Kind::Message(m)) => m.message.as_ref().expect("message").message_id,
        other => panic!("not a message: {other:?}"),
    }
}

fn request(after: Option<u64>, kinds: &[pb::EventKind]) -> pb::StreamEventsRequest {
    pb::StreamEventsRequest {
        account_id: String::new(),
        chats: Vec::new(),
        kinds: kinds.iter().map(|k| *k as i32).collect(),
        after_sequence: after,
    }
}

#[tokio::test]
async fn a_reconnecting_client_resumes_where_it_left_off() {
    let sb = sandbox(Flavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sb, &[SANDBOX_GROUP]).await;
    let control = sb.control();
    let only_messages = [pb::EventKind::Message];

    let mut first = gw
        .events()
        .stream_events(request(None, &only_messages))
        .await
        .unwrap()
        .into_inner();
    let a = control.inject_group_message(SANDBOX_GROUP, 10001, json!("a"));
    let ev_a = next_event(&mut first).await;
    assert_eq!(message_id(&ev_a), a);
    assert_eq!(ev_a.account_id, "default");
    assert_eq!(ev_a.self_id, onebot_sandbox::DEFAULT_SELF_ID);
    drop(first);

    // Missed while disconnected.
    let b = control.inject_group_message(SANDBOX_GROUP, 10002, json!("b"));
    let c = control.inject_private_message(10001, json!("c"));

    let mut resumed = gw
        .events()
        .stream_events(request(Some(ev_a.sequence), &only_messages))
        .await
        .unwrap()
        .into_inner();
    let ev_b = next_event(&mut resumed).await;
    let ev_c = next_event(&mut resumed).await;
    assert_eq!((message_id(&ev_b), message_id(&ev_c)), (b, c));
    assert!(ev_a.sequence < ev_b.sequence && ev_b.sequence < ev_c.sequence);

    // A chat filter passes only that chat.
    let mut example_only = gw
        .events()
        .stream_events(pb::StreamEventsRequest {
            chats: vec![pb::Chat {
                kind: Some(pb::chat::Kind::GroupId(EXAMPLE_GROUP)),
            }],
            ..request(None, &only_messages)
        })
        .await
        .unwrap()
        .into_inner();
    control.inject_group_message(SANDBOX_GROUP, 10001, json!("elsewhere"));
    let here = control.inject_group_message(EXAMPLE_GROUP, 10001, json!("here"));
    assert_eq!(message_id(&next_event(&mut example_only).await), here);

    // Streams end (OK) when the gateway shuts down.
    gw.stop().await.unwrap();
    let end = tokio::time::timeout(WAIT, async {
        loop {
            match resumed.message().await {
                Ok(Some(_)) => continue,
                other => return other,
            }
        }
    })
    .await
    .unwrap();
    assert!(matches!(end, Ok(None)), "{end:?}");
}

#[tokio::test]
async fn an_old_gap_and_bad_filters_are_refused() {
    let sb = sandbox(Flavor::SnowLuma).await;
    let mut config = config_for(&sb, &[SANDBOX_GROUP]);
    config.events.buffer_size = 4;
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut live = gw
        .events()
        .stream_events(request(None, &[pb::EventKind::Message]))
        .await
        .unwrap()
        .into_inner();
    let control = sb.control();
    let mut last = 0;
    for i in 0..6 {
        control.inject_group_message(SANDBOX_GROUP, 10001, json!(format!("m{i}")));
        last = next_event(&mut live).await.sequence;
    }
    let status = gw
        .events()
        .stream_events(request(Some(1), &[]))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::OutOfRange);
    assert_eq!(reason(&status), "EVENT_GAP_TOO_OLD");
    let oldest = {
        use tonic_types::StatusExt;
        status.get_error_details().error_info().unwrap().metadata["oldest_sequence"].clone()
    };
    assert_eq!(oldest, (last - 3).to_string());

    let status = gw
        .events()
        .stream_events(request(None, &[pb::EventKind::Unspecified]))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    let status = gw
        .events()
        .stream_events(pb::StreamEventsRequest {
            account_id: "nobody".into(),
            ..request(None, &[])
        })
        .await
        .unwrap_err();
    assert_eq!(reason(&status), "ACCOUNT_NOT_CONFIGURED");
}

#[tokio::test]
async fn list_accounts_follows_a_peer_killed_and_restarted() {
    let sb = sandbox(Flavor::NapCat).await;
    let mut config = config_for(&sb, &[SANDBOX_GROUP]);
    if let Some(a) = config.accounts.get_mut("default") {
        *a = AccountConfig {
            backoff_min_ms: 20,
            backoff_max_ms: 200,
            connect_wait_ms: 100,
            ..a.clone()
        };
    }
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut conn_events = gw
        .events()
        .stream_events(request(None, &[pb::EventKind::Connection]))
        .await
        .unwrap()
        .into_inner();

    sb.stop_listening().await;
    gw.wait_state("default", pb::ConnectionState::Backoff).await;
    let account = gw.account("default").await;
    assert!(!account.last_error.is_empty());
    // No RPC hangs while the peer is gone.
    let status = tokio::time::timeout(
        WAIT,
        gw.groups().list_groups(pb::ListGroupsRequest::default()),
    )
    .await
    .expect("no hang")
    .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable);

    sb.start_listening().await.unwrap();
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    gw.groups()
        .list_groups(pb::ListGroupsRequest::default())
        .await
        .expect("after restart");

    // The first connection's own `Connected` event can reach the stream
    // after it was opened (the state is visible before its event is
    // published): the loss of the peer is the first state other than
    // `Connected`, and the stream ends on `Connected` again.
    let mut states = Vec::new();
    loop {
        match next_event(&mut conn_events).await.kind {
            Some(pb::event::Kind::Connection(c)) => states.push(c.state()),
            other => panic!("{other:?}"),
        }
        let lost = states.iter().any(|s| *s != pb::ConnectionState::Connected);
        if lost && states.last() == Some(&pb::ConnectionState::Connected) {
            break;
        }
    }
    assert_eq!(
        states
            .iter()
            .find(|s| **s != pb::ConnectionState::Connected),
        Some(&pb::ConnectionState::Backoff),
        "{states:?}"
    );
}

#[tokio::test]
async fn many_accounts_each_with_its_own_state_and_health() {
    let napcat = sandbox(Flavor::NapCat).await;
    let gocq = sandbox(Flavor::GoCqhttp).await;
    let mut config = config_for(&napcat, &[SANDBOX_GROUP]);
    config.accounts.insert(
        "second".into(),
        AccountConfig {
            ws_url: Some(gocq.ws_url()),
            backoff_min_ms: 20,
            backoff_max_ms: 200,
            ..AccountConfig::default()
        },
    );
    config
        .accounts
        .insert("idle".into(), AccountConfig::default());
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    gw.wait_state("second", pb::ConnectionState::Connected)
        .await;
    let first = gw.account("default").await;
    let second = gw.account("second").await;
    let idle = gw.account("idle").await;
    assert_eq!(first.flavor(), pb::Flavor::Napcat);
    assert_eq!(second.flavor(), pb::Flavor::GoCqhttp);
    assert_eq!(second.transport(), pb::Transport::ForwardWebsocket);
    assert_eq!(idle.state(), pb::ConnectionState::NotConfigured);

    // Waits until the account's health name reports `want`.
    let health = |name: &str, want: ServingStatus| {
        let mut client = gw.health();
        let service = format!("onebot.gateway.v1.account.{name}");
        async move {
            let mut stream = client
                .watch(tonic_health::pb::HealthCheckRequest { service })
                .await
                .unwrap()
                .into_inner();
            tokio::time::timeout(WAIT, async {
                while let Some(r) = stream.message().await.unwrap() {
                    if r.status() == want {
                        return;
                    }
                }
            })
            .await
            .unwrap_or_else(|_| panic!("health never became {want:?}"));
        }
    };
    health("second", ServingStatus::Serving).await;
    health("idle", ServingStatus::NotServing).await;

    gocq.stop_listening().await;
    gw.wait_state("second", pb::ConnectionState::Backoff).await;
    health("second", ServingStatus::NotServing).await;
    health("default", ServingStatus::Serving).await;
    assert_eq!(
        gw.account("default").await.state(),
        pb::ConnectionState::Connected
    );
}

fn rendered(e: &pb::Event) -> &str {
    match &e.kind {
        Some(pb::event::Kind::Message(m)) => &m.rendered,
        other => panic!("not a message: {other:?}"),
    }
}

/// A message that quotes another (which mentions 10002) and mentions 10002
/// itself: its event's line is GetHistory's line of it, names and quote
/// included, and a resumed stream carries the same line.
#[tokio::test]
async fn a_message_events_line_is_its_history_line() {
    let sb = sandbox(Flavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sb, &[SANDBOX_GROUP]).await;
    let control = sb.control();
    let only_messages = [pb::EventKind::Message];
    let mut stream = gw
        .events()
        .stream_events(request(None, &only_messages))
        .await
        .unwrap()
        .into_inner();
    // The 289th seeded message: `@10002 看一下第289条`.
    let quoted = control.messages(onebot_sandbox::ChatRef::Group(SANDBOX_GROUP))[288]["message_id"]
        .as_i64()
        .unwrap();
    let id = control.inject_group_message(
        SANDBOX_GROUP,
        10001,
        json!([
            {"type": "reply", "data": {"id": quoted.to_string()}},
            {"type": "at", "data": {"qq": "10002"}},
            {"type": "text", "data": {"text": " 看这个"}}
        ]),
    );
    let event = next_event(&mut stream).await;
    assert_eq!(message_id(&event), id);
    let line = rendered(&event).to_owned();
    // `[HH:mm:ss] 群主张三(10001): [回复 <quoted sender>: @管理员李四 看一下第289条]@管理员李四 看这个`
    assert!(
        line.starts_with('[') && line[9..].starts_with("] 群主张三(10001): [回复 "),
        "{line}"
    );
    assert!(
        line.ends_with(": @管理员李四 看一下第289条]@管理员李四 看这个"),
        "{line}"
    );

    let page = gw
        .messages()
        .get_history(pb::GetHistoryRequest {
            chat: Some(pb::Chat::group(SANDBOX_GROUP)),
            count: 1,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.messages[0].message_id, id);
    assert_eq!(page.rendered, line);

    // Resumed from the buffer: the same line.
    drop(stream);
    let mut resumed = gw
        .events()
        .stream_events(request(Some(event.sequence - 1), &only_messages))
        .await
        .unwrap()
        .into_inner();
    let again = next_event(&mut resumed).await;
    assert_eq!(again.sequence, event.sequence);
    assert_eq!(rendered(&again), line);
    gw.stop().await.unwrap();
    sb.shutdown().await;
}

/// The journal keeps the names: an event replayed after a restart (no
/// look-up on the way out) carries the same line as when it was live.
#[tokio::test]
async fn a_message_events_line_survives_a_restart() {
    let sb = sandbox(Flavor::NapCat).await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(&sb, &[SANDBOX_GROUP]);
    config.server.data_dir = dir.path().to_path_buf();
    let control = sb.control();
    let only_messages = [pb::EventKind::Message];

    let gw = TestGateway::start(config.clone()).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut stream = gw
        .events()
        .stream_events(request(None, &only_messages))
        .await
        .unwrap()
        .into_inner();
    let id = control.inject_group_message(
        SANDBOX_GROUP,
        10003,
        json!([{"type": "at", "data": {"qq": "10002"}}, {"type": "text", "data": {"text": " 重启前"}}]),
    );
    let live = next_event(&mut stream).await;
    assert_eq!(message_id(&live), id);
    assert!(
        rendered(&live).ends_with("] 王五(10003): @管理员李四 重启前"),
        "{}",
        rendered(&live)
    );
    drop(stream);
    gw.stop().await.unwrap();

    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut resumed = gw
        .events()
        .stream_events(request(Some(live.sequence - 1), &only_messages))
        .await
        .unwrap()
        .into_inner();
    let replayed = next_event(&mut resumed).await;
    assert_eq!(replayed.sequence, live.sequence);
    assert_eq!(rendered(&replayed), rendered(&live));
    gw.stop().await.unwrap();
    sb.shutdown().await;
}
