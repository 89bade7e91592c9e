//! The message archive end to end, over real gRPC against the sandbox:
//! SearchMessages by Chinese substrings, sender and time; the agent tool;
//! GetHistory with `until` from the archive and the peer (also with the
//! peer down); gap healing after the sandbox was down while messages came
//! in; the same message from event, history and backfill stored once;
//! event sequence numbers and resumes across a gateway restart.

use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_gateway_config::Config;
use onebot_gateway_domain::call::CallCtx;
use onebot_gateway_domain::read::search::SearchRequest;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, config_for, reason, sandbox};
use onebot_sandbox::SANDBOX_GROUP;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tonic::Streaming;

const WAIT: Duration = Duration::from_secs(20);

/// The next event, skipping heartbeats.
async fn next_event(stream: &mut Streaming<pb::StreamEventsResponse>) -> pb::Event {
    crate::events::next_event(stream).await
}

fn events_request(after: Option<u64>, kinds: &[pb::EventKind]) -> pb::StreamEventsRequest {
    pb::StreamEventsRequest {
        account_id: String::new(),
        chats: Vec::new(),
        kinds: kinds.iter().map(|k| *k as i32).collect(),
        after_sequence: after,
    }
}

fn search(query: &str) -> pb::SearchMessagesRequest {
    pb::SearchMessagesRequest {
        query: query.into(),
        chat: Some(pb::Chat::group(SANDBOX_GROUP)),
        ..pb::SearchMessagesRequest::default()
    }
}

fn texts(r: &pb::SearchMessagesResponse) -> Vec<String> {
    r.messages.iter().map(|m| m.text.clone()).collect()
}

fn ts(secs: i64) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: secs,
        nanos: 0,
    }
}

#[tokio::test]
async fn search_finds_chinese_substrings_by_sender_and_time() {
    let sb = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sb, &[SANDBOX_GROUP]).await;
    let mut events = gw
        .events()
        .stream_events(events_request(None, &[pb::EventKind::Message]))
        .await
        .unwrap()
        .into_inner();
    let control = sb.control();
    let said = [
        (10001, "明天下午三点开会"),
        (10002, "收到，下午开会前我把材料发群里"),
        (10001, "会开完了吗"),
        (10003, "今天天气不错"),
    ];
    let mut times = Vec::new();
    for (who, text) in said {
        control.inject_group_message(SANDBOX_GROUP, who, json!(text));
        let ev = next_event(&mut events).await;
        let Some(pb::event::Kind::Message(m)) = ev.kind else {
            panic!("not a message")
        };
        times.push(m.message.unwrap().time.unwrap().seconds);
    }
    let mut messages = gw.messages();
    // Two characters, then four.
    let two = messages
        .search_messages(search("开会"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        texts(&two),
        ["明天下午三点开会", "收到，下午开会前我把材料发群里"]
    );
    assert!(two.next_page_token.is_empty());
    let lines: Vec<&str> = two.rendered.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].ends_with("(10001): 明天下午三点开会"), "{lines:?}");
    let four = messages
        .search_messages(search("下午开会"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(texts(&four), ["收到，下午开会前我把材料发群里"]);
    // By sender.
    let by_sender = messages
        .search_messages(pb::SearchMessagesRequest {
            sender_id: Some(10001),
            ..search("")
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(texts(&by_sender), ["明天下午三点开会", "会开完了吗"]);
    // By time: `since` inclusive, `until` exclusive.
    let by_time = |since: i64, until: i64| pb::SearchMessagesRequest {
        since: Some(ts(since)),
        until: Some(ts(until)),
        ..search("")
    };
    let window = messages
        .search_messages(by_time(times[0], times[3] + 1))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(window.messages.len(), 4);
    let before = messages
        .search_messages(by_time(times[0] - 3600, times[0]))
        .await
        .unwrap()
        .into_inner();
    assert!(before.messages.is_empty(), "{:?}", texts(&before));
    let status = messages
        .search_messages(by_time(times[3], times[0]))
        .await
        .unwrap_err();
    assert_eq!(
        status.code(),
        tonic::Code::InvalidArgument,
        "since after until"
    );
    // Every archived chat of the account, and a paged walk.
    let mut token = String::new();
    let mut all = Vec::new();
    loop {
        let page = messages
            .search_messages(pb::SearchMessagesRequest {
                chat: None,
                limit: 3,
                page_token: token.clone(),
                ..search("")
            })
            .await
            .unwrap()
            .into_inner();
        all.extend(texts(&page));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(all.len(), 4);
    // Bad input is refused with the field named.
    let status = messages
        .search_messages(pb::SearchMessagesRequest {
            page_token: "nonsense".into(),
            ..search("开会")
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_REQUEST");
    let status = messages
        .search_messages(pb::SearchMessagesRequest {
            chat: Some(pb::Chat { kind: None }),
            ..search("")
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);

    // The agent tool reads the same archive.
    let out = gw
        .tools()
        .call_tool(pb::CallToolRequest {
            name: "qq_search_messages".into(),
            arguments_json: json!({"query": "开会", "target": "group:20000003", "senderId": 10002})
                .to_string(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!out.is_error, "{}", out.text);
    let details: Value = serde_json::from_str(&out.details_json).unwrap();
    assert_eq!(details["count"], 1);
    assert_eq!(
        details["messages"][0]["text"],
        "收到，下午开会前我把材料发群里"
    );
    assert!(
        out.text.ends_with("收到，下午开会前我把材料发群里"),
        "{}",
        out.text
    );
    let bad = gw
        .tools()
        .call_tool(pb::CallToolRequest {
            name: "qq_search_messages".into(),
            arguments_json: json!({"since": "last tuesday"}).to_string(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(bad.is_error);
    assert!(bad.text.contains("since"), "{}", bad.text);
}

#[tokio::test]
async fn a_token_limited_to_a_group_may_not_search_another() {
    use onebot_gateway_config::{Access, TokenConfig};
    let sb = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&sb, &[SANDBOX_GROUP, onebot_sandbox::EXAMPLE_GROUP]);
    let mut scoped = TokenConfig::inline(
        "team",
        "team-token-0123456789abcdef",
        &["default"],
        Access::ReadOnly,
    );
    scoped.groups = Some(vec![SANDBOX_GROUP]);
    config.auth.tokens = vec![scoped];
    let gw = TestGateway::start(config).await;
    let mut client = pb::message_service_client::MessageServiceClient::with_interceptor(
        gw.channel.clone(),
        |mut req: tonic::Request<()>| {
            req.metadata_mut().insert(
                "authorization",
                "Bearer team-token-0123456789abcdef".parse().unwrap(),
            );
            Ok(req)
        },
    );
    let status = client
        .search_messages(pb::SearchMessagesRequest {
            chat: Some(pb::Chat::group(onebot_sandbox::EXAMPLE_GROUP)),
            ..pb::SearchMessagesRequest::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied);
    assert_eq!(reason(&status), "TOKEN_SCOPE");
    client
        .search_messages(search(""))
        .await
        .expect("its own group");
}

/// Waits until the account is online (through its status watch).
async fn online(gw: &onebot_gateway_domain::Gateway, want: bool) {
    let account = gw.account("default", &CallCtx::anonymous()).unwrap();
    let mut status = account.peer.watch_status();
    tokio::time::timeout(WAIT, status.wait_for(|s| s.online == want))
        .await
        .expect("account state in time")
        .unwrap();
}

fn domain_search(query: &str) -> SearchRequest {
    SearchRequest {
        query: query.into(),
        include_recalled: true,
        ..SearchRequest::default()
    }
}

async fn found(gw: &onebot_gateway_domain::Gateway, query: &str) -> Vec<i64> {
    gw.search_messages(
        SearchRequest {
            limit: 100,
            ..domain_search(query)
        },
        CallCtx::anonymous(),
    )
    .await
    .unwrap()
    .messages
    .iter()
    .map(|a| a.message.message_id)
    .collect()
}

/// The gap healing, in-process so the test can wait for the backfill run
/// itself: messages injected while the sandbox was not listening are
/// archived after it comes back and delivered to listeners as backfilled
/// message events, and a message seen as an event, in a history page and
/// again by the backfill is stored once and delivered once.
#[tokio::test]
async fn a_backfill_heals_the_gap_and_every_message_is_stored_once() {
    let sb = sandbox(SandboxFlavor::NapCat).await;
    let dir = tempfile::tempdir().unwrap();
    let mut config = config_for(&sb, &[SANDBOX_GROUP]);
    config.server.data_dir = dir.path().to_path_buf();
    if let Some(a) = config.accounts.get_mut("default") {
        a.backoff_min_ms = 20;
        a.backoff_max_ms = 200;
    }
    let shutdown = CancellationToken::new();
    let gw = onebot_gateway::app::gateway(config, shutdown.clone())
        .await
        .unwrap();
    online(&gw, true).await;
    let archive = gw.archive().expect("archive on by default").clone();
    let mut runs = archive.backfill_runs("default").unwrap();
    tokio::time::timeout(WAIT, runs.wait_for(|n| *n >= 1))
        .await
        .expect("the start-up backfill")
        .unwrap();
    let mut events = gw
        .events
        .subscribe("default", None, Default::default())
        .unwrap();
    let control = sb.control();
    let seen = control.inject_group_message(SANDBOX_GROUP, 10001, json!("断线前的最后一句"));
    loop {
        let e = events.next().await.unwrap().unwrap();
        if matches!(
            &*e.event,
            onebot_gateway_domain::model::InboundEvent::Message { .. }
        ) {
            break;
        }
    }
    // The same message again in a history page.
    gw.get_history(
        onebot_gateway_domain::read::history::HistoryRequest {
            chat: Some(onebot_gateway_domain::ChatRef::Group(SANDBOX_GROUP)),
            count: 10,
            ..Default::default()
        },
        CallCtx::anonymous(),
    )
    .await
    .unwrap();
    assert_eq!(found(&gw, "断线前").await, vec![seen]);

    sb.stop_listening().await;
    online(&gw, false).await;
    let missed: Vec<i64> = (0..5)
        .map(|i| {
            control.inject_group_message(SANDBOX_GROUP, 10002, json!(format!("断线期间的消息{i}")))
        })
        .collect();
    let done = *runs.borrow();
    sb.start_listening().await.unwrap();
    tokio::time::timeout(WAIT, runs.wait_for(|n| *n > done))
        .await
        .expect("the backfill after the reconnect")
        .unwrap();
    let mut got = found(&gw, "断线期间").await;
    got.sort();
    let mut want = missed.clone();
    want.sort();
    assert_eq!(got, want, "every missed message, once");
    assert_eq!(
        found(&gw, "断线前").await,
        vec![seen],
        "event, history and backfill: stored once"
    );
    // A listener misses nothing: the healed messages come as backfilled
    // message events, oldest first, once; then live messages as before.
    let after = control.inject_group_message(SANDBOX_GROUP, 10001, json!("重连之后"));
    let mut delivered = Vec::new();
    loop {
        let e = tokio::time::timeout(WAIT, events.next())
            .await
            .expect("events after the reconnect")
            .unwrap()
            .unwrap();
        if let onebot_gateway_domain::model::InboundEvent::Message {
            message,
            backfilled,
            ..
        } = &*e.event
        {
            delivered.push((message.message_id, *backfilled));
            if message.message_id == after {
                break;
            }
        }
    }
    let mut want: Vec<(i64, bool)> = missed.iter().map(|id| (*id, true)).collect();
    want.push((after, false));
    assert_eq!(
        delivered, want,
        "the gap once and in order, then the live message"
    );
    shutdown.cancel();
}

#[tokio::test]
async fn history_until_merges_the_archive_with_the_peer_and_survives_the_peer_going_away() {
    let sb = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&sb, &[SANDBOX_GROUP]);
    if let Some(a) = config.accounts.get_mut("default") {
        a.backoff_min_ms = 20;
        a.backoff_max_ms = 200;
        a.connect_wait_ms = 100;
    }
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut events = gw
        .events()
        .stream_events(events_request(None, &[pb::EventKind::Message]))
        .await
        .unwrap()
        .into_inner();
    let control = sb.control();
    let mut ids = Vec::new();
    let mut times = Vec::new();
    for i in 0..3 {
        ids.push(control.inject_group_message(SANDBOX_GROUP, 10001, json!(format!("第{i}条"))));
        let Some(pb::event::Kind::Message(m)) = next_event(&mut events).await.kind else {
            panic!("not a message")
        };
        times.push(m.message.unwrap().time.unwrap().seconds);
    }
    let until = times[2] + 1;
    let request = |count| pb::GetHistoryRequest {
        chat: Some(pb::Chat::group(SANDBOX_GROUP)),
        count,
        until: Some(ts(until)),
        ..pb::GetHistoryRequest::default()
    };
    let page = gw
        .messages()
        .get_history(request(5))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.messages.len(), 5);
    let last: Vec<i64> = page
        .messages
        .iter()
        .rev()
        .take(3)
        .map(|m| m.message_id)
        .collect();
    assert_eq!(
        last,
        ids.iter().rev().copied().collect::<Vec<_>>(),
        "the newest before until, once each"
    );
    assert!(
        page.messages
            .iter()
            .all(|m| m.time.as_ref().unwrap().seconds < until)
    );
    assert!(page.next_anchor_message_id.is_some());

    // With the peer gone, the archive answers alone.
    sb.stop_listening().await;
    gw.wait_state("default", pb::ConnectionState::Backoff).await;
    let page = gw
        .messages()
        .get_history(request(3))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        page.messages
            .iter()
            .map(|m| m.message_id)
            .collect::<Vec<_>>(),
        ids
    );
    // Without until, GetHistory is the peer's as before.
    let status = gw
        .messages()
        .get_history(pb::GetHistoryRequest {
            until: None,
            ..request(3)
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable);
}

#[tokio::test]
async fn event_sequences_continue_and_resume_across_a_restart() {
    let sb = sandbox(SandboxFlavor::NapCat).await;
    let dir = tempfile::tempdir().unwrap();
    let mut config: Config = config_for(&sb, &[SANDBOX_GROUP]);
    config.server.data_dir = dir.path().to_path_buf();
    let control = sb.control();

    let gw = TestGateway::start(config.clone()).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut stream = gw
        .events()
        .stream_events(events_request(None, &[]))
        .await
        .unwrap()
        .into_inner();
    let mut before = Vec::new();
    for i in 0..3 {
        control.inject_group_message(SANDBOX_GROUP, 10001, json!(format!("重启前{i}")));
        loop {
            let e = next_event(&mut stream).await;
            if matches!(e.kind, Some(pb::event::Kind::Message(_))) {
                before.push(e.sequence);
                break;
            }
        }
    }
    gw.stop().await.unwrap();
    let last = *before.last().unwrap();

    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    // Resume from the first message: the two after it come back from the
    // persisted buffer, then everything after, numbered on without a gap.
    let mut resumed = gw
        .events()
        .stream_events(events_request(Some(before[0]), &[]))
        .await
        .unwrap()
        .into_inner();
    let after = control.inject_group_message(SANDBOX_GROUP, 10001, json!("重启后"));
    let mut seqs = Vec::new();
    loop {
        let e = next_event(&mut resumed).await;
        seqs.push(e.sequence);
        if let Some(pb::event::Kind::Message(m)) = &e.kind
            && m.message.as_ref().unwrap().message_id == after
        {
            break;
        }
    }
    assert_eq!(seqs[0], before[0] + 1);
    assert!(seqs.contains(&last), "{seqs:?}");
    assert!(
        seqs.windows(2).all(|w| w[1] == w[0] + 1),
        "contiguous across the restart: {seqs:?}"
    );
    // The archive kept the messages delivered before the restart.
    let page = gw
        .messages()
        .search_messages(search("重启"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(texts(&page), ["重启前0", "重启前1", "重启前2", "重启后"]);
}

#[tokio::test]
async fn searching_a_chat_the_archive_does_not_keep_or_a_group_the_bot_is_not_in_says_so() {
    let sb = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&sb, &[SANDBOX_GROUP]).await;
    let mut messages = gw.messages();
    let in_chat = |chat: pb::Chat| pb::SearchMessagesRequest {
        chat: Some(chat),
        ..search("")
    };
    // Joined, but neither whitelisted nor in `[archive] chats`.
    let status = messages
        .search_messages(in_chat(pb::Chat::group(onebot_sandbox::EXAMPLE_GROUP)))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    assert_eq!(reason(&status), "CHAT_NOT_ARCHIVED");
    let info = tonic_types::StatusExt::get_error_details(&status);
    assert_eq!(
        info.error_info()
            .and_then(|i| i.metadata.get("target").cloned()),
        Some("group:20000002".to_owned())
    );
    assert!(status.message().contains("group:20000002"), "{status:?}");
    let status = messages
        .search_messages(in_chat(pb::Chat {
            kind: Some(pb::chat::Kind::UserId(10_001)),
        }))
        .await
        .unwrap_err();
    assert_eq!(reason(&status), "CHAT_NOT_ARCHIVED");
    // Not a member at all.
    let status = messages
        .search_messages(in_chat(pb::Chat::group(20_000_009)))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::NotFound);
    assert_eq!(reason(&status), "GROUP_NOT_FOUND");
    // The tool says it in words.
    let out = gw
        .tools()
        .call_tool(pb::CallToolRequest {
            name: "qq_search_messages".into(),
            arguments_json: r#"{"query":"你好","target":"group:20000002"}"#.into(),
        })
        .await
        .expect("a tool result")
        .into_inner();
    assert!(out.is_error, "{out:?}");
    assert!(
        out.text.starts_with("group:20000002 不在消息存档范围内"),
        "{}",
        out.text
    );
    // The archived group searches as before.
    messages
        .search_messages(search(""))
        .await
        .expect("archived");
    gw.stop().await.expect("clean stop");
    sb.shutdown().await;
}
