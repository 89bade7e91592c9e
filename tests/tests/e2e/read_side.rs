//! The read side end to end: the real gateway on `127.0.0.1:0`, its
//! `default` account on a sandbox peer of each flavor over forward
//! WebSocket, called over gRPC (and once through grpcurl).

use std::collections::HashSet;
use std::process::Command;

use onebot_gateway_client::pb;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, reason, sandbox};
use onebot_sandbox::{
    ChatRef, EXAMPLE_GROUP, FRIEND_MESSAGES, FRIEND_WITH_HISTORY, FRIEND_WITHOUT_HISTORY,
    SANDBOX_GROUP, SANDBOX_GROUP_MESSAGES, Sandbox,
};
use serde_json::Value;
use tonic::Code;
use tonic_types::StatusExt;

const SEED_LINES: &str = "[09:58:12] 张三(10001): 大家好\n\
                          [09:58:40] 李四(10002): 早上好[图片]\n\
                          [10:00:05] 王五(10003): 昨天开会的记录发一下 [合并转发]";

/// Actions a read RPC may send to the peer.
const READ_ACTIONS: [&str; 5] = [
    "get_group_msg_history",
    "get_friend_msg_history",
    "get_group_member_list",
    "get_group_list",
    "get_msg",
];

fn read_actions(sandbox: &Sandbox) -> Vec<(String, Value)> {
    sandbox
        .control()
        .actions()
        .into_iter()
        .filter(|a| READ_ACTIONS.contains(&a.action.as_str()))
        .map(|a| (a.action, a.params))
        .collect()
}

fn group(id: i64) -> Option<pb::Chat> {
    Some(pb::Chat {
        kind: Some(pb::chat::Kind::GroupId(id)),
    })
}

fn private(id: i64) -> Option<pb::Chat> {
    Some(pb::Chat {
        kind: Some(pb::chat::Kind::UserId(id)),
    })
}

fn history_req(chat: Option<pb::Chat>, count: i32, anchor: Option<i64>) -> pb::GetHistoryRequest {
    pb::GetHistoryRequest {
        account_id: String::new(),
        chat,
        count,
        anchor_message_id: anchor,
        until: None,
    }
}

/// The peer's message ids of a chat, oldest first.
fn peer_ids(sandbox: &Sandbox, chat: ChatRef) -> Vec<i64> {
    sandbox
        .control()
        .messages(chat)
        .iter()
        .map(|m| m["message_id"].as_i64().expect("numeric message_id"))
        .collect()
}

/// Pages from the newest message to the oldest; returns the ids oldest
/// first and checks every page on the way.
async fn page_through(gw: &TestGateway, chat: Option<pb::Chat>, count: i32) -> Vec<i64> {
    let mut client = gw.messages();
    let mut anchor = None;
    let mut pages: Vec<Vec<i64>> = Vec::new();
    loop {
        let page = client
            .get_history(history_req(chat, count, anchor))
            .await
            .unwrap_or_else(|s| panic!("page before {anchor:?}: {s:?}"))
            .into_inner();
        assert!(
            page.messages.len() <= count as usize,
            "{}",
            page.messages.len()
        );
        let times: Vec<i64> = page
            .messages
            .iter()
            .map(|m| m.time.as_ref().expect("time").seconds)
            .collect();
        assert!(times.is_sorted(), "page not sorted by time: {times:?}");
        if let Some(anchor) = anchor {
            assert!(page.messages.iter().all(|m| m.message_id != anchor));
        }
        assert_eq!(
            page.rendered.lines().count(),
            page.messages.len().max(1),
            "{}",
            page.rendered
        );
        pages.push(page.messages.iter().map(|m| m.message_id).collect());
        match page.next_anchor_message_id {
            Some(next) => {
                assert_eq!(Some(next), page.messages.first().map(|m| m.message_id));
                anchor = Some(next);
            }
            None => break,
        }
        assert!(pages.len() <= 400, "paging does not end");
    }
    pages.into_iter().rev().flatten().collect()
}

/// SnowLuma answers an unanchored history request with `[]` until it has
/// seen traffic in the chat; the gateway passes that on
/// as an empty page, the best that flavor allows. Live traffic wakes it.
/// Returns the injected message's id, if one was needed.
fn wake_snowluma(peer: &Sandbox, chat: ChatRef) -> Option<i64> {
    if peer.control().flavor() != SandboxFlavor::SnowLuma {
        return None;
    }
    let text = serde_json::json!([{"type": "text", "data": {"text": "有人吗"}}]);
    Some(match chat {
        ChatRef::Group(g) => peer.control().inject_group_message(g, 10001, text),
        ChatRef::Private(u) => peer.control().inject_private_message(u, text),
    })
}

fn assert_no_gap_or_duplicate(got: &[i64], want: &[i64], what: &str) {
    let unique: HashSet<i64> = got.iter().copied().collect();
    assert_eq!(unique.len(), got.len(), "{what}: duplicates");
    assert_eq!(got, want, "{what}: gap or order");
}

#[tokio::test]
async fn seed_example_history_and_members_on_every_flavor() {
    for flavor in SandboxFlavor::ALL {
        let peer = sandbox(flavor).await;
        let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;

        let read = || async {
            gw.messages()
                .get_history(history_req(group(EXAMPLE_GROUP), 30, None))
                .await
                .unwrap_or_else(|s| panic!("{flavor:?}: {s:?}"))
                .into_inner()
        };
        let mut page = read().await;
        if flavor == SandboxFlavor::SnowLuma {
            assert_eq!(page.rendered, "（无历史消息）", "SnowLuma before traffic");
            assert!(page.messages.is_empty());
            let live = wake_snowluma(&peer, ChatRef::Group(EXAMPLE_GROUP));
            page = read().await;
            let last = page.messages.pop().expect("the live message");
            assert_eq!(Some(last.message_id), live);
            assert_eq!(last.text, "有人吗");
            let (seed, live_line) = page.rendered.rsplit_once('\n').expect("4 lines");
            assert!(
                live_line.ends_with("] 群主张三(10001): 有人吗"),
                "{live_line}"
            );
            page.rendered = seed.to_owned();
        }
        assert_eq!(page.rendered, SEED_LINES, "{flavor:?}");
        assert_eq!(page.target, "group:20000002");
        assert_eq!(page.next_anchor_message_id, None, "{flavor:?}");
        assert_eq!(page.messages.len(), 3);
        let texts: Vec<&str> = page.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            texts,
            ["大家好", "早上好[图片]", "昨天开会的记录发一下 [合并转发]"]
        );
        let sender = page.messages[0].sender.as_ref().expect("sender");
        assert_eq!((sender.user_id, sender.nickname.as_str()), (10001, "张三"));
        let image = page.messages[1]
            .segments
            .iter()
            .find_map(|s| match &s.kind {
                Some(pb::segment::Kind::Image(i)) => Some(i),
                _ => None,
            })
            .expect("image segment");
        assert_eq!(image.file, "5f3c9a1e0b7d4e2a.jpg");
        assert!(matches!(
            page.messages[2].segments.last().and_then(|s| s.kind.as_ref()),
            Some(pb::segment::Kind::Forward(f)) if f.id == "7412580369852147963"
        ));
        assert_eq!(page.messages[0].chat, group(EXAMPLE_GROUP));

        let members = gw
            .groups()
            .list_group_members(pb::ListGroupMembersRequest {
                account_id: String::new(),
                group_id: EXAMPLE_GROUP,
                no_cache: Some(true),
                limit: 50,
            })
            .await
            .unwrap_or_else(|s| panic!("{flavor:?}: {s:?}"))
            .into_inner();
        let lines: Vec<&str> = members.rendered.lines().collect();
        assert_eq!(lines.first().copied(), Some("群主张三(10001) — owner"));
        assert_eq!(lines.get(1).copied(), Some("管理员李四(10002) — admin"));
        assert_eq!(lines.get(2).copied(), Some("王五(10003) — member"));
        assert_eq!(
            lines.last().copied(),
            Some("（仅显示前 50 / 共 120 名成员）")
        );
        assert_eq!(lines.len(), 51);
        assert_eq!((members.total, members.shown), (120, 50), "{flavor:?}");
        assert_eq!(members.members.len(), 50);
        assert!(!members.from_cache);
        assert!(members.fetched_at.is_some());
        gw.stop().await.expect("clean stop");
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn pages_through_group_20000003_without_gap_or_duplicate_on_every_flavor() {
    for flavor in SandboxFlavor::ALL {
        let peer = sandbox(flavor).await;
        let gw = TestGateway::with_sandbox(&peer, &[SANDBOX_GROUP]).await;
        let woken = wake_snowluma(&peer, ChatRef::Group(SANDBOX_GROUP));
        let want = peer_ids(&peer, ChatRef::Group(SANDBOX_GROUP));
        assert_eq!(
            want.len(),
            SANDBOX_GROUP_MESSAGES + usize::from(woken.is_some())
        );
        // 37 does not divide 300 or 50, so pages end at every kind of
        // boundary, including the seconds two messages share.
        let got = page_through(&gw, group(SANDBOX_GROUP), 37).await;
        assert_no_gap_or_duplicate(&got, &want, flavor.as_str());
        gw.stop().await.expect("clean stop");
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn private_history_pages_or_says_unsupported() {
    for flavor in SandboxFlavor::ALL {
        let peer = sandbox(flavor).await;
        let gw = TestGateway::with_sandbox(&peer, &[]).await;
        if flavor == SandboxFlavor::GoCqhttp {
            let err = gw
                .messages()
                .get_history(history_req(private(FRIEND_WITH_HISTORY), 20, None))
                .await
                .expect_err("go-cqhttp has no private history");
            assert_eq!(err.code(), Code::Unimplemented);
            assert_eq!(reason(&err), "HISTORY_UNSUPPORTED");
        } else {
            let woken = wake_snowluma(&peer, ChatRef::Private(FRIEND_WITH_HISTORY));
            let want = peer_ids(&peer, ChatRef::Private(FRIEND_WITH_HISTORY));
            assert_eq!(want.len(), FRIEND_MESSAGES + usize::from(woken.is_some()));
            let got = page_through(&gw, private(FRIEND_WITH_HISTORY), 10).await;
            assert_no_gap_or_duplicate(&got, &want, flavor.as_str());

            // An empty chat is an empty page, whatever the peer does.
            let empty = gw
                .messages()
                .get_history(history_req(private(FRIEND_WITHOUT_HISTORY), 0, None))
                .await
                .unwrap_or_else(|s| panic!("{flavor:?}: {s:?}"))
                .into_inner();
            assert_eq!(empty.rendered, "（无历史消息）");
            assert!(empty.messages.is_empty());
            assert_eq!(empty.next_anchor_message_id, None);
            assert_eq!(empty.target, "private:10002");
        }
        gw.stop().await.expect("clean stop");
        peer.shutdown().await;
    }
}

fn field_violation(status: &tonic::Status) -> String {
    status
        .get_error_details()
        .bad_request()
        .and_then(|b| b.field_violations.first().map(|v| v.field.clone()))
        .unwrap_or_default()
}

#[tokio::test]
async fn invalid_requests_fail_with_reasons_and_reach_no_peer() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;
    peer.control().clear_actions();
    let mut messages = gw.messages();
    let mut groups = gw.groups();

    for (chat, field) in [
        (None, "chat"),
        (Some(pb::Chat { kind: None }), "chat"),
        (group(0), "chat.group_id"),
        (group(-20000002), "chat.group_id"),
        (private(0), "chat.user_id"),
        (private(-1), "chat.user_id"),
    ] {
        let err = messages
            .get_history(history_req(chat, 20, None))
            .await
            .expect_err("invalid chat");
        assert_eq!(err.code(), Code::InvalidArgument, "{chat:?}");
        assert_eq!(reason(&err), "INVALID_REQUEST");
        assert_eq!(field_violation(&err), field);
    }
    for group_id in [0, -1, i64::MIN] {
        let err = groups
            .list_group_members(pb::ListGroupMembersRequest {
                account_id: String::new(),
                group_id,
                no_cache: Some(true),
                limit: 10,
            })
            .await
            .expect_err("invalid group");
        assert_eq!(err.code(), Code::InvalidArgument);
        assert_eq!(reason(&err), "INVALID_REQUEST");
        assert_eq!(field_violation(&err), "group_id");
    }

    let unknown = |status: tonic::Status| {
        assert_eq!(status.code(), Code::FailedPrecondition);
        assert_eq!(reason(&status), "ACCOUNT_NOT_CONFIGURED");
        let details = status.get_error_details();
        let info = details.error_info().expect("ErrorInfo");
        assert_eq!(
            info.metadata.get("account_id").map(String::as_str),
            Some("nobody")
        );
    };
    unknown(
        messages
            .get_history(pb::GetHistoryRequest {
                account_id: "nobody".into(),
                ..history_req(group(EXAMPLE_GROUP), 20, None)
            })
            .await
            .expect_err("unknown account"),
    );
    unknown(
        groups
            .list_group_members(pb::ListGroupMembersRequest {
                account_id: "nobody".into(),
                group_id: EXAMPLE_GROUP,
                no_cache: None,
                limit: 0,
            })
            .await
            .expect_err("unknown account"),
    );
    unknown(
        groups
            .list_groups(pb::ListGroupsRequest {
                account_id: "nobody".into(),
            })
            .await
            .expect_err("unknown account"),
    );

    assert_eq!(
        read_actions(&peer),
        vec![],
        "no read action may reach the peer"
    );
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

#[tokio::test]
async fn member_cache_serves_repeats_and_no_cache_refreshes() {
    let peer = sandbox(SandboxFlavor::SnowLuma).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;
    peer.control().clear_actions();
    let mut groups = gw.groups();
    let list = |no_cache: Option<bool>| pb::ListGroupMembersRequest {
        account_id: "default".into(),
        group_id: EXAMPLE_GROUP,
        no_cache,
        limit: 0,
    };

    let first = groups
        .list_group_members(list(None))
        .await
        .unwrap()
        .into_inner();
    assert!(!first.from_cache);
    assert_eq!((first.total, first.shown), (120, 100));
    let again = groups
        .list_group_members(list(Some(false)))
        .await
        .unwrap()
        .into_inner();
    assert!(again.from_cache);
    assert_eq!(again.fetched_at, first.fetched_at);
    assert_eq!(again.rendered, first.rendered);
    let fresh = groups
        .list_group_members(list(Some(true)))
        .await
        .unwrap()
        .into_inner();
    assert!(!fresh.from_cache);

    // The group check read the group list once; the member lists:
    let (lists, calls): (Vec<_>, Vec<_>) = read_actions(&peer)
        .into_iter()
        .partition(|(a, _)| a == "get_group_list");
    assert_eq!(lists.len(), 1, "{lists:?}");
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0].0, "get_group_member_list");
    assert!(
        calls[0].1.get("no_cache").is_none(),
        "unset passes nothing: {calls:?}"
    );
    assert_eq!(calls[1].1["no_cache"], true);
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

/// The next member event on `stream` (the hub runs the member cache's
/// observer before it fans an event out, so once the event is here the cache
/// has been invalidated).
async fn next_member_event(stream: &mut tonic::Streaming<pb::StreamEventsResponse>) -> pb::Event {
    // Heartbeats (the first message, and one after every idle period) carry
    // no event: skip them.
    loop {
        let m = tokio::time::timeout(std::time::Duration::from_secs(20), stream.message())
            .await
            .expect("a member event in time")
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

#[tokio::test]
async fn member_events_invalidate_the_cache() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;
    let control = peer.control();
    let mut events = gw
        .events()
        .stream_events(pb::StreamEventsRequest {
            account_id: String::new(),
            chats: Vec::new(),
            kinds: [
                pb::EventKind::MemberJoined,
                pb::EventKind::MemberLeft,
                pb::EventKind::CardChanged,
            ]
            .map(|k| k as i32)
            .to_vec(),
            after_sequence: None,
        })
        .await
        .expect("StreamEvents")
        .into_inner();
    let mut groups = gw.groups();
    let list = pb::ListGroupMembersRequest {
        account_id: String::new(),
        group_id: EXAMPLE_GROUP,
        no_cache: None,
        limit: 500,
    };

    let cold = groups
        .list_group_members(list.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!((cold.from_cache, cold.total), (false, 120));
    assert!(
        groups
            .list_group_members(list.clone())
            .await
            .unwrap()
            .into_inner()
            .from_cache
    );

    assert!(control.add_member(EXAMPLE_GROUP, 10200, "新人"));
    next_member_event(&mut events).await;
    let joined = groups
        .list_group_members(list.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!((joined.from_cache, joined.total), (false, 121));
    assert!(
        joined.rendered.lines().any(|l| l == "新人(10200) — member"),
        "{}",
        joined.rendered
    );
    assert!(
        groups
            .list_group_members(list.clone())
            .await
            .unwrap()
            .into_inner()
            .from_cache
    );

    assert!(control.set_card(EXAMPLE_GROUP, 10003, "[老]王\n五"));
    next_member_event(&mut events).await;
    let carded = groups
        .list_group_members(list.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(!carded.from_cache);
    assert_eq!(
        carded.rendered.lines().nth(2),
        Some("(老)王 五(10003) — member")
    );

    assert!(control.remove_member(EXAMPLE_GROUP, 10200));
    next_member_event(&mut events).await;
    let left = groups.list_group_members(list).await.unwrap().into_inner();
    assert_eq!((left.from_cache, left.total), (false, 120));
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

#[tokio::test]
async fn list_groups_follows_the_whitelist() {
    let peer = sandbox(SandboxFlavor::LlOneBot).await;
    let gw = TestGateway::with_sandbox(&peer, &[SANDBOX_GROUP, 30000001, EXAMPLE_GROUP]).await;
    let groups = gw
        .groups()
        .list_groups(pb::ListGroupsRequest::default())
        .await
        .unwrap()
        .into_inner();
    let got: Vec<(i64, &str, i32, bool, bool)> = groups
        .groups
        .iter()
        .map(|g| {
            (
                g.group_id,
                g.group_name.as_str(),
                g.member_count,
                g.whitelisted,
                g.joined,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (SANDBOX_GROUP, "沙盒群", 36, true, true),
            (30000001, "", 0, true, false),
            (EXAMPLE_GROUP, "示例群", 120, true, true),
        ]
    );
    assert_eq!(
        groups.rendered,
        "沙盒群(20000003) — 36 名成员\n?(30000001) — 未加入\n示例群(20000002) — 120 名成员"
    );
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;

    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[]).await;
    let groups = gw
        .groups()
        .list_groups(pb::ListGroupsRequest::default())
        .await
        .unwrap()
        .into_inner();
    let ids: Vec<(i64, bool, bool)> = groups
        .groups
        .iter()
        .map(|g| (g.group_id, g.whitelisted, g.joined))
        .collect();
    assert_eq!(
        ids,
        [(EXAMPLE_GROUP, false, true), (SANDBOX_GROUP, false, true)]
    );
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

pub(crate) fn grpcurl() -> std::path::PathBuf {
    let local =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.tools/go/bin/grpcurl");
    if local.exists() {
        local
    } else {
        "grpcurl".into()
    }
}

/// grpcurl in a blocking thread (the gateway runs on this test's runtime).
async fn run_grpcurl(args: Vec<String>) -> Value {
    let out = tokio::task::spawn_blocking(move || {
        Command::new(grpcurl())
            .args(&args)
            .output()
            .expect("grpcurl (install with scripts/install-tools.sh)")
    })
    .await
    .expect("join");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "grpcurl failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("grpcurl output {text:?}: {e}"))
}

#[tokio::test]
async fn the_seed_examples_through_grpcurl() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;
    let addr = gw.addr.to_string();
    let call = |method: &str, body: &str| {
        vec![
            "-plaintext".to_owned(),
            "-d".to_owned(),
            body.to_owned(),
            addr.clone(),
            method.to_owned(),
        ]
    };

    let history = run_grpcurl(call(
        "onebot.gateway.v1.MessageService/GetHistory",
        r#"{"chat": {"group_id": 20000002}, "count": 30}"#,
    ))
    .await;
    assert_eq!(history["rendered"], SEED_LINES);
    assert_eq!(history["target"], "group:20000002");
    assert_eq!(history["messages"].as_array().map(Vec::len), Some(3));

    let members = run_grpcurl(call(
        "onebot.gateway.v1.GroupService/ListGroupMembers",
        r#"{"group_id": 20000002, "no_cache": true, "limit": 50}"#,
    ))
    .await;
    let rendered = members["rendered"].as_str().expect("rendered");
    assert_eq!(rendered.lines().next(), Some("群主张三(10001) — owner"));
    assert_eq!(
        rendered.lines().last(),
        Some("（仅显示前 50 / 共 120 名成员）")
    );
    assert_eq!(
        (members["total"].as_i64(), members["shown"].as_i64()),
        (Some(120), Some(50))
    );

    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

/// A group the bot is not in (the sandbox's bot is in 20000002 and
/// 20000003 only).
const ABSENT_GROUP: i64 = 20_000_009;

/// Asserts `status` is NOT_FOUND GROUP_NOT_FOUND naming `group_id`.
pub(crate) fn assert_group_not_found(status: &tonic::Status, group_id: i64) {
    assert_eq!(status.code(), Code::NotFound, "{status:?}");
    assert_eq!(reason(status), "GROUP_NOT_FOUND", "{status:?}");
    let details = status.get_error_details();
    let info = details.error_info().expect("ErrorInfo");
    assert_eq!(
        info.metadata.get("group_id").map(String::as_str),
        Some(group_id.to_string().as_str()),
        "{status:?}"
    );
    assert!(
        status.message().contains(&group_id.to_string()),
        "{status:?}"
    );
}

/// Calls a tool and returns its response.
pub(crate) async fn tool(gw: &TestGateway, name: &str, args: &str) -> pb::CallToolResponse {
    gw.tools()
        .call_tool(pb::CallToolRequest {
            name: name.into(),
            arguments_json: args.into(),
        })
        .await
        .unwrap_or_else(|s| panic!("{name} {args}: {s:?}"))
        .into_inner()
}

#[tokio::test]
async fn reads_of_a_group_the_bot_is_not_in_are_group_not_found() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    // Whitelisted or not, a group the bot is not in is not found.
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP, ABSENT_GROUP]).await;
    peer.control().clear_actions();
    for group_id in [ABSENT_GROUP, 30_000_001] {
        let status = gw
            .messages()
            .get_history(history_req(group(group_id), 20, None))
            .await
            .expect_err("not a member");
        assert_group_not_found(&status, group_id);
        let status = gw
            .groups()
            .list_group_members(pb::ListGroupMembersRequest {
                account_id: String::new(),
                group_id,
                no_cache: Some(true),
                limit: 10,
            })
            .await
            .expect_err("not a member");
        assert_group_not_found(&status, group_id);
    }
    let text =
        "机器人不在群 20000009 中（协议端的群列表里没有这个群），未执行任何操作：请检查群号。";
    for (name, args) in [
        ("qq_get_history", r#"{"target":"group:20000009"}"#),
        ("qq_get_group_members", r#"{"groupId":20000009}"#),
    ] {
        let out = tool(&gw, name, args).await;
        assert!(out.is_error, "{name}: {out:?}");
        assert_eq!(out.text, text, "{name}");
    }
    // The peer saw one group-list read (the misses within the re-read
    // interval share it) and nothing else.
    let actions: Vec<String> = read_actions(&peer).into_iter().map(|(a, _)| a).collect();
    assert_eq!(actions, ["get_group_list"]);
    // A joined group reads as before, without another group-list read.
    gw.messages()
        .get_history(history_req(group(EXAMPLE_GROUP), 3, None))
        .await
        .expect("a joined group");
    let lists = read_actions(&peer)
        .iter()
        .filter(|(a, _)| a == "get_group_list")
        .count();
    assert_eq!(lists, 1);
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

#[tokio::test]
async fn a_group_joined_after_the_gateway_started_is_found() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;
    let control = peer.control();
    // Joined before any group check: the first check reads the list.
    assert!(control.join_group(ABSENT_GROUP, "新群", false));
    let members = |group_id| pb::ListGroupMembersRequest {
        account_id: String::new(),
        group_id,
        no_cache: None,
        limit: 10,
    };
    let list = gw
        .groups()
        .list_group_members(members(ABSENT_GROUP))
        .await
        .expect("a group joined after start")
        .into_inner();
    assert_eq!(list.total, 1);
    // Joined while the gateway holds a list without it: the peer's
    // group_increase of the bot itself adds it, no waiting, no re-read.
    let status = gw
        .groups()
        .list_group_members(members(20_000_010))
        .await
        .expect_err("not yet a member");
    assert_group_not_found(&status, 20_000_010);
    let mut events = gw
        .events()
        .stream_events(pb::StreamEventsRequest {
            account_id: String::new(),
            chats: Vec::new(),
            kinds: vec![pb::EventKind::MemberJoined as i32],
            after_sequence: None,
        })
        .await
        .expect("events")
        .into_inner();
    control.clear_actions();
    assert!(control.join_group(20_000_010, "又一个新群", true));
    next_member_event(&mut events).await;
    gw.groups()
        .list_group_members(members(20_000_010))
        .await
        .expect("the joined group is found");
    assert!(
        !read_actions(&peer)
            .iter()
            .any(|(a, _)| a == "get_group_list"),
        "{:?}",
        read_actions(&peer)
    );
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}
