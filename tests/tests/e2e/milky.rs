//! The gateway end to end on a Milky account: the `default` account speaks
//! Milky 1.2 to the sandbox's Milky face, called over real gRPC. This
//! module holds the shared harness (the recorded sandbox, the account's
//! config, the schema check of the recording, the gateway's ids of the
//! sandbox's messages) and the account and read tests; `milky_writes`
//! and `milky_events` hold the rest.
//!
//! Every test records the sandbox's Milky traffic and, at its end, checks
//! the recording against the official Milky schemas
//! ([`assert_schema_valid`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use onebot_gateway_client::pb;
use onebot_gateway_config::{AccountConfig, Config, MilkyEvents};
use onebot_gateway_tests::TestGateway;
use onebot_sandbox::{
    ChatRef, EXAMPLE_FORWARD, EXAMPLE_GROUP, FRIEND_MESSAGES, FRIEND_WITH_HISTORY, SANDBOX_GROUP,
    SANDBOX_GROUP_MESSAGES, Sandbox, SandboxConfig,
};
use serde_json::{Value, json};
use tonic_health::pb::health_check_response::ServingStatus;

/// The example group's seed as GetHistory renders it, in the OneBot
/// accounts' form. A Milky peer reports each group message's sender as the
/// group member, card included, so the names are the members' cards
/// (`群主张三`, `管理员李四`) where a OneBot history's senders carry none.
pub(crate) const SEED_LINES: &str = "[09:58:12] 群主张三(10001): 大家好\n\
                                     [09:58:40] 管理员李四(10002): 早上好[图片]\n\
                                     [10:00:05] 王五(10003): 昨天开会的记录发一下 [合并转发]";

/// A Milky sandbox that records its traffic to a JSONL file.
pub(crate) struct MilkyPeer {
    /// The sandbox.
    pub sb: Sandbox,
    /// The recording.
    pub record: PathBuf,
    _dir: tempfile::TempDir,
}

impl MilkyPeer {
    /// Starts a Milky sandbox recording to a fresh temporary file.
    pub async fn start() -> MilkyPeer {
        let dir = tempfile::tempdir().expect("tempdir");
        let record = dir.path().join("milky.jsonl");
        let sb = Sandbox::start(SandboxConfig {
            milky_record: Some(record.clone()),
            ..SandboxConfig::milky()
        })
        .await
        .expect("start the Milky sandbox");
        MilkyPeer {
            sb,
            record,
            _dir: dir,
        }
    }

    /// The recorded calls of `api`: their requests, in order.
    pub fn calls(&self, api: &str) -> Vec<Value> {
        recorded(&self.record)
            .into_iter()
            .filter(|r| r["kind"] == "call" && r["api"] == api)
            .map(|r| r["request"].clone())
            .collect()
    }

    /// The recorded events of `event_type`, in order.
    pub fn events(&self, event_type: &str) -> Vec<Value> {
        recorded(&self.record)
            .into_iter()
            .filter(|r| r["kind"] == "event" && r["event"]["event_type"] == event_type)
            .map(|r| r["event"].clone())
            .collect()
    }

    /// Pushes `event` to every event stream of the sandbox as it is given
    /// and records it as the sandbox records the events it sends (one
    /// line, appended), so the schema check of [`finish`](Self::finish)
    /// covers it: the sandbox's own `inject_event` pushes raw events
    /// unrecorded.
    pub fn inject_event(&self, event: Value) {
        let line = format!("{}\n", json!({"kind": "event", "event": &event}));
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.record)
            .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()))
            .expect("append the event to the recording");
        self.sb.control().inject_event(event);
    }

    /// Stops the sandbox and checks its recording against the schemas.
    pub async fn finish(self) {
        self.sb.shutdown().await;
        assert_schema_valid(&self.record);
    }
}

fn recorded(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a recorded line is JSON"))
        .collect()
}

/// Runs `tests/milky-schema/validate.mjs` on `record` and fails unless it
/// reports no invalid line. Without node or the validator's modules it
/// prints a NOTICE and returns, unless `CI=true`, where it fails.
pub(crate) fn assert_schema_valid(record: &Path) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("milky-schema");
    let node = std::process::Command::new("node").arg("--version").output();
    let has_node = node.is_ok_and(|o| o.status.success());
    let has_modules = dir.join("node_modules/@saltify/milky-types").exists();
    if !has_node || !has_modules {
        let why = if has_node {
            "tests/milky-schema/node_modules is missing (npm ci there)"
        } else {
            "node is not installed"
        };
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the Milky schema check cannot run on CI: {why}"
        );
        eprintln!(
            "NOTICE: Milky schema check of {} skipped: {why}",
            record.display()
        );
        return;
    }
    assert!(
        !recorded(record).is_empty(),
        "nothing recorded in {}",
        record.display()
    );
    let out = std::process::Command::new("node")
        .arg(dir.join("validate.mjs"))
        .arg(record)
        .current_dir(&dir)
        .output()
        .expect("run node validate.mjs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(", 0 invalid;"),
        "the Milky recording breaks the schemas:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{}", stdout.trim_end());
}

/// A config whose `default` account speaks Milky to `sb` with events over
/// `events`, `groups` whitelisted, the sandbox's loopback media host
/// reachable and short reconnect delays.
pub(crate) fn milky_config(sb: &Sandbox, groups: &[i64], events: MilkyEvents) -> Config {
    let mut config = Config::default();
    config.media.allow_private_urls = true;
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            milky_url: Some(sb.milky_url()),
            milky_events: events,
            groups: groups.to_vec(),
            backoff_min_ms: 20,
            backoff_max_ms: 200,
            ..AccountConfig::default()
        },
    );
    config
}

/// Starts the gateway with `config` and waits until `default` is CONNECTED.
pub(crate) async fn start(config: Config) -> TestGateway {
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    gw
}

/// The gateway's message id of the sandbox's message `id` in `chat`.
pub(crate) fn gateway_id(sb: &Sandbox, chat: ChatRef, id: i64) -> i64 {
    let seq = sb.control().message_seq(id).expect("a stored message");
    let (scene, peer) = match chat {
        ChatRef::Group(g) => ("group", g),
        ChatRef::Private(u) => ("friend", u),
    };
    onebot_gateway_domain::ids::mint(&format!("milky:default:{scene}:{peer}:{seq}"))
}

/// The gateway's ids of the sandbox's stored messages of `chat`, oldest first.
pub(crate) fn gateway_ids(sb: &Sandbox, chat: ChatRef) -> Vec<i64> {
    sb.control()
        .messages(chat)
        .iter()
        .map(|m| gateway_id(sb, chat, m["message_id"].as_i64().expect("numeric id")))
        .collect()
}

pub(crate) fn history_req(
    chat: pb::Chat,
    count: i32,
    anchor: Option<i64>,
) -> pb::GetHistoryRequest {
    pb::GetHistoryRequest {
        account_id: String::new(),
        chat: Some(chat),
        count,
        anchor_message_id: anchor,
        until: None,
    }
}

/// Pages from the newest message to the oldest; returns the ids oldest first.
async fn page_through(gw: &TestGateway, chat: pb::Chat, count: i32) -> Vec<i64> {
    let mut anchor = None;
    let mut pages: Vec<Vec<i64>> = Vec::new();
    loop {
        let page = gw
            .messages()
            .get_history(history_req(chat, count, anchor))
            .await
            .unwrap_or_else(|s| panic!("page before {anchor:?}: {s:?}"))
            .into_inner();
        assert!(page.messages.len() <= count as usize);
        if let Some(anchor) = anchor {
            assert!(page.messages.iter().all(|m| m.message_id != anchor));
        }
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

fn assert_no_gap_or_duplicate(got: &[i64], want: &[i64], what: &str) {
    let unique: HashSet<i64> = got.iter().copied().collect();
    assert_eq!(unique.len(), got.len(), "{what}: duplicates");
    assert_eq!(got, want, "{what}: gap or order");
}

#[tokio::test]
async fn the_account_is_listed_as_milky_and_serving() {
    let peer = MilkyPeer::start().await;
    let gw = start(milky_config(
        &peer.sb,
        &[EXAMPLE_GROUP],
        MilkyEvents::WebSocket,
    ))
    .await;
    let account = gw.account("default").await;
    assert_eq!(account.protocol, pb::UpstreamProtocol::Milky as i32);
    assert_eq!(account.flavor, pb::Flavor::Milky as i32);
    assert_eq!(account.implementation, "onebot-sandbox");
    assert_eq!(account.state, pb::ConnectionState::Connected as i32);
    assert_eq!(account.self_id, onebot_sandbox::DEFAULT_SELF_ID);
    assert_eq!(account.nickname, onebot_sandbox::DEFAULT_NICKNAME);
    assert_eq!(account.groups, [EXAMPLE_GROUP]);
    for service in ["", "onebot.gateway.v1.account.default"] {
        let health = gw
            .health()
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.into(),
            })
            .await
            .expect("health")
            .into_inner();
        assert_eq!(health.status, ServingStatus::Serving as i32, "{service:?}");
    }
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}

#[tokio::test]
async fn history_renders_the_seed_and_pages_without_gap_or_duplicate() {
    let peer = MilkyPeer::start().await;
    let gw = start(milky_config(
        &peer.sb,
        &[EXAMPLE_GROUP, SANDBOX_GROUP],
        MilkyEvents::WebSocket,
    ))
    .await;
    let mut messages = gw.messages();

    let page = messages
        .get_history(history_req(pb::Chat::group(EXAMPLE_GROUP), 20, None))
        .await
        .expect("GetHistory")
        .into_inner();
    assert_eq!(page.rendered, SEED_LINES);
    assert_eq!(page.target, "group:20000002");
    assert_eq!(page.next_anchor_message_id, None);
    let ids: Vec<i64> = page.messages.iter().map(|m| m.message_id).collect();
    assert_eq!(ids, gateway_ids(&peer.sb, ChatRef::Group(EXAMPLE_GROUP)));
    let sender = page.messages[0].sender.as_ref().expect("sender");
    assert_eq!((sender.user_id, sender.nickname.as_str()), (10001, "张三"));
    assert!(matches!(
        page.messages[2].segments.last().and_then(|s| s.kind.as_ref()),
        Some(pb::segment::Kind::Forward(f)) if f.id == EXAMPLE_FORWARD
    ));

    // More than Milky's 30 a call: the gateway asks again.
    let want = gateway_ids(&peer.sb, ChatRef::Group(SANDBOX_GROUP));
    assert_eq!(want.len(), SANDBOX_GROUP_MESSAGES);
    let hundred = messages
        .get_history(history_req(pb::Chat::group(SANDBOX_GROUP), 100, None))
        .await
        .expect("GetHistory 100")
        .into_inner();
    let got: Vec<i64> = hundred.messages.iter().map(|m| m.message_id).collect();
    assert_eq!(got, want[want.len() - 100..]);
    assert_eq!(hundred.rendered.lines().count(), 100);
    assert!(peer.calls("get_history_messages").len() >= 4);

    let got = page_through(&gw, pb::Chat::group(SANDBOX_GROUP), 37).await;
    assert_no_gap_or_duplicate(&got, &want, "group 20000003");

    let want = gateway_ids(&peer.sb, ChatRef::Private(FRIEND_WITH_HISTORY));
    assert_eq!(want.len(), FRIEND_MESSAGES);
    let got = page_through(&gw, pb::Chat::private(FRIEND_WITH_HISTORY), 10).await;
    assert_no_gap_or_duplicate(&got, &want, "friend 10001");
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}

#[tokio::test]
async fn messages_members_groups_forwards_and_search() {
    let peer = MilkyPeer::start().await;
    let gw = start(milky_config(
        &peer.sb,
        &[EXAMPLE_GROUP],
        MilkyEvents::WebSocket,
    ))
    .await;
    let page = gw
        .messages()
        .get_history(history_req(pb::Chat::group(EXAMPLE_GROUP), 20, None))
        .await
        .expect("GetHistory")
        .into_inner();
    let second = &page.messages[1];
    let got = gw
        .messages()
        .get_message(pb::GetMessageRequest {
            account_id: String::new(),
            message_id: second.message_id,
        })
        .await
        .expect("GetMessage")
        .into_inner();
    assert_eq!(got.rendered, "[09:58:40] 管理员李四(10002): 早上好[图片]");
    let message = got.message.expect("message");
    assert_eq!(message.text, "早上好[图片]");
    assert_eq!(message.chat, Some(pb::Chat::group(EXAMPLE_GROUP)));

    let members = gw
        .groups()
        .list_group_members(pb::ListGroupMembersRequest {
            account_id: String::new(),
            group_id: EXAMPLE_GROUP,
            no_cache: Some(true),
            limit: 50,
        })
        .await
        .expect("ListGroupMembers")
        .into_inner();
    let lines: Vec<&str> = members.rendered.lines().collect();
    assert_eq!(lines.first().copied(), Some("群主张三(10001) — owner"));
    assert_eq!(lines.get(1).copied(), Some("管理员李四(10002) — admin"));
    assert_eq!(lines.get(2).copied(), Some("王五(10003) — member"));
    assert_eq!((members.total, members.shown), (120, 50));

    let groups = gw
        .groups()
        .list_groups(pb::ListGroupsRequest {
            account_id: String::new(),
        })
        .await
        .expect("ListGroups")
        .into_inner();
    // With a whitelist, the whitelisted groups only.
    let listed: Vec<i64> = groups.groups.iter().map(|g| g.group_id).collect();
    assert_eq!(listed, [EXAMPLE_GROUP]);
    let example = &groups.groups[0];
    assert!(example.whitelisted && example.joined);
    assert_eq!(example.member_count, 120);
    assert!(
        groups.rendered.ends_with("(20000002) — 120 名成员"),
        "{}",
        groups.rendered
    );

    let forward_id = page.messages[2]
        .segments
        .iter()
        .find_map(|s| match &s.kind {
            Some(pb::segment::Kind::Forward(f)) => Some(f.id.clone()),
            _ => None,
        })
        .expect("a forward segment in history");
    let forward = gw
        .messages()
        .get_forward_messages(pb::GetForwardMessagesRequest {
            account_id: String::new(),
            forward_id,
        })
        .await
        .expect("GetForwardMessages")
        .into_inner();
    let nodes = peer
        .sb
        .control()
        .forward_nodes(EXAMPLE_FORWARD)
        .expect("the seeded bundle");
    assert_eq!(forward.messages.len(), nodes.len());
    // A Milky forwarded message names its sender by name only.
    let senders: Vec<&str> = forward
        .messages
        .iter()
        .map(|m| m.sender.as_ref().expect("sender").nickname.as_str())
        .collect();
    assert_eq!(senders, ["张三", "李四", "王五"]);
    let texts: Vec<&str> = forward.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "会议纪要：周五发布 1.2 版",
            "收到，测试周四前完成",
            "[合并转发]"
        ]
    );
    assert_eq!(forward.rendered.lines().count(), nodes.len());

    // An archived message (read through history) is found.
    let found = gw
        .messages()
        .search_messages(pb::SearchMessagesRequest {
            query: "早上好".into(),
            chat: Some(pb::Chat::group(EXAMPLE_GROUP)),
            ..pb::SearchMessagesRequest::default()
        })
        .await
        .expect("SearchMessages")
        .into_inner();
    let ids: Vec<i64> = found.messages.iter().map(|m| m.message_id).collect();
    assert_eq!(ids, [second.message_id]);
    let live = peer.sb.control().inject_group_message(
        EXAMPLE_GROUP,
        10003,
        json!([{"type": "text", "data": {"text": "米奇妙妙屋"}}]),
    );
    let live = gateway_id(&peer.sb, ChatRef::Group(EXAMPLE_GROUP), live);
    // GetHistory archives what it reads: the live message is searchable
    // once a page holding it was read, once though it also came as an event.
    gw.messages()
        .get_history(history_req(pb::Chat::group(EXAMPLE_GROUP), 5, None))
        .await
        .expect("GetHistory");
    let found = gw
        .messages()
        .search_messages(pb::SearchMessagesRequest {
            query: "妙妙屋".into(),
            ..pb::SearchMessagesRequest::default()
        })
        .await
        .expect("SearchMessages")
        .into_inner();
    let ids: Vec<i64> = found.messages.iter().map(|m| m.message_id).collect();
    assert_eq!(ids, [live]);
    gw.stop().await.expect("clean stop");
    peer.finish().await;
}
