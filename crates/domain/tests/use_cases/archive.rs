//! The archive's use cases over a fake peer and the real embedded stores:
//! events and sends archived through the journal, recalls, search paging and
//! its tokens, rendering, token scopes, the archive turned off.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use onebot_gateway_config::{AccountConfig, Config};
use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::call::{CallCtx, Deadline};
use onebot_gateway_domain::caller::{Caller, TokenScope};
use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::model::{ChatRef, InboundEvent, Message, RawJson, Segment, Sender};
use onebot_gateway_domain::ports::EventSink;
use onebot_gateway_domain::read::search::{NO_MATCHES, RECALLED_MARK, SearchRequest};
use onebot_gateway_domain::write::send::SendRequest;
use onebot_gateway_onebot::Flavor;
use onebot_gateway_testkit::{FakeApi, GatewayBuilder};

const G: i64 = 20_000_003;
const OTHER: i64 = 20_000_002;
/// The one user of the account's private whitelist (`users`).
const U: i64 = 30_001;
const T0: i64 = 1_790_000_000;

struct T {
    gw: Arc<Gateway>,
    peer: Arc<FakeApi>,
    _dir: tempfile::TempDir,
    shutdown: CancellationToken,
}

impl Drop for T {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn start(archive: bool) -> T {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.server.data_dir = dir.path().to_path_buf();
    config.archive.enabled = archive;
    config.archive.chats = vec![format!("group:{OTHER}")];
    let account = AccountConfig {
        ws_url: Some("ws://127.0.0.1:9/".into()),
        groups: vec![G],
        users: vec![U],
        ..AccountConfig::default()
    };
    config.accounts.insert("default".into(), account.clone());
    let shutdown = CancellationToken::new();
    let peer = FakeApi::new(Flavor::NapCat);
    let accounts = vec![Account {
        id: "default".into(),
        config: account,
        peer: peer.clone(),
    }];
    let gw = GatewayBuilder::new(config, accounts, shutdown.clone())
        .archive(archive)
        .build();
    T {
        gw: Arc::new(gw),
        peer,
        _dir: dir,
        shutdown,
    }
}

fn message(chat: ChatRef, id: i64, time: i64, sender: i64, text: &str) -> Message {
    Message {
        message_id: id,
        message_seq: None,
        peer_seq: None,
        time,
        sender: Sender {
            user_id: sender,
            nickname: format!("用户{sender}"),
            card: String::new(),
            role: String::new(),
        },
        segments: vec![Segment::Text(text.into())],
        chat,
        raw: RawJson::null(),
    }
}

fn inbound(m: Message) -> InboundEvent {
    InboundEvent::message(m, false)
}

fn search(query: &str) -> SearchRequest {
    SearchRequest {
        query: query.into(),
        ..SearchRequest::default()
    }
}

async fn ids(gw: &Gateway, req: SearchRequest) -> Vec<i64> {
    gw.search_messages(req, CallCtx::anonymous())
        .await
        .unwrap()
        .messages
        .iter()
        .map(|a| a.message.message_id)
        .collect()
}

#[tokio::test]
async fn delivered_events_are_searchable_at_once_and_recalls_hide_them() {
    let t = start(true);
    let mut sub =
        t.gw.events
            .subscribe("default", None, Default::default())
            .unwrap();
    t.gw.events.publish(
        "default",
        inbound(message(ChatRef::Group(G), 1, T0, 10001, "明天下午开会")),
    );
    t.gw.events.publish(
        "default",
        inbound(message(
            ChatRef::Group(OTHER),
            2,
            T0 + 1,
            10002,
            "开会改到周五",
        )),
    );
    // Not archived: a chat outside the whitelist and `archive.chats`.
    t.gw.events.publish(
        "default",
        inbound(message(ChatRef::Group(1), 3, T0 + 2, 10002, "开会吗")),
    );
    for _ in 0..3 {
        sub.next().await.unwrap().unwrap();
    }
    // Every event delivered before the search is in it: no waiting here.
    assert_eq!(ids(&t.gw, search("开会")).await, vec![1, 2]);
    let page =
        t.gw.search_messages(search("开会"), CallCtx::anonymous())
            .await
            .unwrap();
    let lines: Vec<&str> = page.rendered.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("group:20000003 ["), "{lines:?}");
    assert!(
        lines[1].ends_with("用户10002(10002): 开会改到周五"),
        "{lines:?}"
    );

    t.gw.events.publish(
        "default",
        InboundEvent::MessageRecalled {
            chat: ChatRef::Group(G),
            message_id: 1,
            operator_id: 10001,
            time: T0 + 10,
        },
    );
    sub.next().await.unwrap().unwrap();
    assert_eq!(ids(&t.gw, search("开会")).await, vec![2]);
    let all =
        t.gw.search_messages(
            SearchRequest {
                include_recalled: true,
                chat: Some(ChatRef::Group(G)),
                ..search("开会")
            },
            CallCtx::anonymous(),
        )
        .await
        .unwrap();
    assert_eq!(all.messages.len(), 1);
    assert!(all.messages[0].recalled);
    assert!(all.rendered.ends_with(RECALLED_MARK), "{}", all.rendered);
    assert!(!all.rendered.starts_with("group:"), "one chat: no prefixes");
}

#[tokio::test]
async fn a_text_above_max_text_bytes_is_archived_cut_marked_and_indexed_only_as_kept() {
    let t = start(true);
    let max = Config::default().archive.max_text_bytes;
    let mut sub =
        t.gw.events
            .subscribe("default", None, Default::default())
            .unwrap();
    // "开头" at the start, "结尾" past the limit.
    let text = format!("开头{}结尾", "字".repeat(max));
    t.gw.events.publish(
        "default",
        inbound(message(ChatRef::Group(G), 1, T0, 10001, &text)),
    );
    sub.next().await.unwrap().unwrap();
    let page =
        t.gw.search_messages(search("开头"), CallCtx::anonymous())
            .await
            .unwrap();
    assert_eq!(page.messages.len(), 1);
    let kept = &page.messages[0].message;
    let Segment::Text(first) = &kept.segments[0] else {
        panic!("{:?}", kept.segments);
    };
    assert!(
        first.len() <= max && first.len() > max - 3,
        "{}",
        first.len()
    );
    assert_eq!(
        kept.segments.last(),
        Some(&Segment::Unknown {
            kind: onebot_gateway_domain::archive::fit::TRUNCATED_KIND.into(),
            data_json: format!(
                "{{\"text_bytes\":{},\"kept_bytes\":{}}}",
                text.len(),
                first.len()
            ),
        })
    );
    assert!(
        ids(&t.gw, search("结尾")).await.is_empty(),
        "only what was kept is indexed"
    );
}

#[tokio::test]
async fn private_chats_of_the_users_whitelist_are_archived_and_recall_message_hides_them() {
    let t = start(true);
    let mut sub =
        t.gw.events
            .subscribe("default", None, Default::default())
            .unwrap();
    let private = message(ChatRef::Private(U), 11, T0, U, "私聊：明天开会");
    t.gw.events.publish("default", inbound(private.clone()));
    // Not archived: a user outside `users`.
    t.gw.events.publish(
        "default",
        inbound(message(
            ChatRef::Private(U + 1),
            12,
            T0 + 1,
            U + 1,
            "开会吗",
        )),
    );
    for _ in 0..2 {
        sub.next().await.unwrap().unwrap();
    }
    assert_eq!(ids(&t.gw, search("开会")).await, vec![11]);
    let only = SearchRequest {
        chat: Some(ChatRef::Private(U)),
        ..search("开会")
    };
    assert_eq!(ids(&t.gw, only.clone()).await, vec![11]);

    // RecallMessage publishes the recall, which the archive takes.
    t.peer.store(private);
    t.gw.recall_message("default", 11, None, CallCtx::anonymous())
        .await
        .unwrap();
    let recall = sub.next().await.unwrap().unwrap();
    assert!(
        matches!(
            &*recall.event,
            InboundEvent::MessageRecalled { message_id: 11, .. }
        ),
        "{recall:?}"
    );
    assert!(ids(&t.gw, only.clone()).await.is_empty());
    let with_recalled = SearchRequest {
        include_recalled: true,
        ..only
    };
    assert_eq!(ids(&t.gw, with_recalled).await, vec![11]);
}

#[tokio::test]
async fn sends_are_archived_with_their_ids_before_the_send_returns() {
    let t = start(true);
    let sent =
        t.gw.send_message(
            SendRequest {
                text: "周会纪要已发".into(),
                ..SendRequest::default()
            },
            CallCtx::anonymous(),
        )
        .await
        .unwrap();
    assert_eq!(sent.message_ids.len(), 1);
    let page =
        t.gw.search_messages(search("纪要"), CallCtx::anonymous())
            .await
            .unwrap();
    assert_eq!(page.messages.len(), 1);
    let m = &page.messages[0].message;
    assert_eq!(m.message_id, sent.message_ids[0]);
    assert_eq!(m.sender.user_id, 10_001, "the bot's own QQ number");
    assert_eq!(m.chat, ChatRef::Group(G));
}

#[tokio::test]
async fn pages_cover_every_match_once_and_tokens_belong_to_their_search() {
    let t = start(true);
    let mut sub =
        t.gw.events
            .subscribe("default", None, Default::default())
            .unwrap();
    for i in 0..45 {
        t.gw.events.publish(
            "default",
            inbound(message(
                ChatRef::Group(G),
                100 + i,
                T0 + i / 4,
                10001,
                &format!("第{i}次开会"),
            )),
        );
    }
    for _ in 0..45 {
        sub.next().await.unwrap().unwrap();
    }
    let mut token = String::new();
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page =
            t.gw.search_messages(
                SearchRequest {
                    limit: 20,
                    page_token: token.clone(),
                    ..search("开会")
                },
                CallCtx::anonymous(),
            )
            .await
            .unwrap();
        pages += 1;
        let times: Vec<i64> = page.messages.iter().map(|a| a.message.time).collect();
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "a page is oldest first"
        );
        seen.extend(page.messages.iter().map(|a| a.message.message_id));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(pages, 3);
    assert_eq!(seen.len(), 45);
    assert_eq!(seen.iter().copied().collect::<HashSet<_>>().len(), 45);
    // The first page holds the newest matches.
    let first = ids(
        &t.gw,
        SearchRequest {
            limit: 20,
            ..search("开会")
        },
    )
    .await;
    assert_eq!(
        first.iter().copied().collect::<BTreeSet<_>>(),
        (125..145).collect::<BTreeSet<_>>()
    );

    let page =
        t.gw.search_messages(
            SearchRequest {
                limit: 20,
                ..search("开会")
            },
            CallCtx::anonymous(),
        )
        .await
        .unwrap();
    for bad in [
        SearchRequest {
            page_token: page.next_page_token.clone(),
            ..search("别的")
        },
        SearchRequest {
            page_token: "garbage!".into(),
            ..search("开会")
        },
        SearchRequest {
            since: Some(T0 + 5),
            until: Some(T0 + 5),
            ..search("")
        },
        SearchRequest {
            chat: Some(ChatRef::Group(-1)),
            ..search("")
        },
    ] {
        let err =
            t.gw.search_messages(bad.clone(), CallCtx::anonymous())
                .await
                .unwrap_err();
        assert_eq!(err.kind, Kind::InvalidRequest, "{bad:?}: {err:?}");
    }
    let empty =
        t.gw.search_messages(search("没有这句话"), CallCtx::anonymous())
            .await
            .unwrap();
    assert_eq!(empty.rendered, NO_MATCHES);
    assert!(empty.next_page_token.is_empty());
    // 0 means 20, other limits are clamped.
    assert_eq!(
        ids(
            &t.gw,
            SearchRequest {
                limit: 0,
                ..search("开会")
            }
        )
        .await
        .len(),
        20
    );
    assert_eq!(
        ids(
            &t.gw,
            SearchRequest {
                limit: 1000,
                ..search("开会")
            }
        )
        .await
        .len(),
        45
    );
    assert_eq!(
        ids(
            &t.gw,
            SearchRequest {
                limit: -5,
                ..search("开会")
            }
        )
        .await
        .len(),
        1
    );
}

#[tokio::test]
async fn a_token_reads_only_its_chats_and_an_archive_turned_off_says_so() {
    let t = start(true);
    let mut sub =
        t.gw.events
            .subscribe("default", None, Default::default())
            .unwrap();
    t.gw.events.publish(
        "default",
        inbound(message(ChatRef::Group(G), 1, T0, 1, "甲")),
    );
    t.gw.events.publish(
        "default",
        inbound(message(ChatRef::Group(OTHER), 2, T0, 1, "乙")),
    );
    sub.next().await.unwrap().unwrap();
    sub.next().await.unwrap().unwrap();
    let scoped = CallCtx::new(
        Caller::token(TokenScope {
            name: "team".into(),
            accounts: None,
            write: false,
            groups: Some([G].into_iter().collect()),
            users: None,
        }),
        Deadline::NONE,
    );
    let err =
        t.gw.search_messages(
            SearchRequest {
                chat: Some(ChatRef::Group(OTHER)),
                ..search("")
            },
            scoped.clone(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::TokenScope);
    let page = t.gw.search_messages(search(""), scoped).await.unwrap();
    assert_eq!(
        page.messages
            .iter()
            .map(|a| a.message.message_id)
            .collect::<Vec<_>>(),
        vec![1],
        "no chat: only the token's groups"
    );

    let off = start(false);
    let err = off
        .gw
        .search_messages(search("开会"), CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::ArchiveDisabled);
    let tools: Vec<&str> = off
        .gw
        .list_tools()
        .unwrap()
        .iter()
        .map(|t| t.tool.name())
        .collect();
    assert!(!tools.contains(&"qq_search_messages"), "{tools:?}");
    assert!(
        t.gw.list_tools()
            .unwrap()
            .iter()
            .any(|t| t.tool.name() == "qq_search_messages")
    );
}

#[tokio::test]
async fn the_search_tool_pages_the_archive_and_keeps_to_its_schema() {
    use onebot_gateway_domain::tools::{ToolName, ToolSpec};
    let t = start(true);
    let mut sub =
        t.gw.events
            .subscribe("default", None, Default::default())
            .unwrap();
    for (id, text) in [(1, "周一开会"), (2, "周二开会"), (3, "周三吃饭")] {
        t.gw.events.publish(
            "default",
            inbound(message(ChatRef::Group(G), id, T0 + id, 10001, text)),
        );
        sub.next().await.unwrap().unwrap();
    }
    let schema = ToolSpec::of(ToolName::Search).details_schema;
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let call = |args: serde_json::Value| {
        let gw = t.gw.clone();
        async move {
            gw.call_tool(
                "qq_search_messages",
                &args.to_string(),
                CallCtx::anonymous(),
            )
            .await
            .unwrap()
        }
    };
    let first =
        call(serde_json::json!({"query": "开会", "target": "group:20000003", "limit": 1})).await;
    assert!(!first.is_error, "{}", first.text);
    validator.validate(&first.details).unwrap();
    assert_eq!(first.details["messages"][0]["text"], "周二开会");
    let token = first.details["nextPageToken"].as_str().unwrap().to_string();
    assert!(first.text.contains(&token), "{}", first.text);
    let second = call(serde_json::json!({"query": "开会", "target": "group:20000003", "limit": 1, "pageToken": token})).await;
    validator.validate(&second.details).unwrap();
    assert_eq!(second.details["messages"][0]["text"], "周一开会");
    assert!(second.details.get("nextPageToken").is_none());
    let since =
        call(serde_json::json!({"since": "2026-11-30", "until": "2099-01-01T00:00:00Z"})).await;
    assert_eq!(since.details["count"], 0, "the messages are from 2026-09");
    for (args, needle) in [
        (serde_json::json!({"since": "last week"}), "since"),
        (serde_json::json!({"senderId": -1}), "senderId"),
        (serde_json::json!({"target": "channel:1"}), "target"),
        (serde_json::json!({"pageToken": "??"}), "page_token"),
    ] {
        let out = call(args.clone()).await;
        assert!(out.is_error, "{args}");
        validator.validate(&out.details).unwrap();
        assert!(out.text.contains(needle), "{args}: {}", out.text);
    }
}

#[tokio::test]
async fn a_history_page_read_again_hands_over_only_new_messages() {
    let t = start(true);
    let archive = t.gw.archive().unwrap().clone();
    let chat = ChatRef::Group(G);
    let page: Vec<Message> = (1..=3).map(|i| message(chat, i, T0 + i, 7, "旧")).collect();
    archive.saw_page("default", chat, &page);
    let first = archive.handed_over();
    // The same page again: nothing new to hand over.
    archive.saw_page("default", chat, &page);
    assert_eq!(archive.handed_over(), first);
    // A page with one new message hands over a batch again, and the new
    // message is searchable.
    let mut next = page.clone();
    next.push(message(chat, 4, T0 + 4, 7, "新消息"));
    archive.saw_page("default", chat, &next);
    assert_eq!(archive.handed_over(), first + 1);
    assert_eq!(ids(&t.gw, search("新消息")).await, vec![4]);
}

#[tokio::test]
async fn a_chat_given_must_be_a_joined_group_and_one_the_archive_keeps() {
    let t = start(true);
    let chat = |c| SearchRequest {
        chat: Some(c),
        ..search("开会")
    };
    let fail = |req| {
        let gw = t.gw.clone();
        async move {
            gw.search_messages(req, CallCtx::anonymous())
                .await
                .unwrap_err()
        }
    };
    // Offline with no group list held: the archive still answers.
    t.peer.set_groups(Some(&[G]));
    t.peer.set_online(false);
    assert!(ids(&t.gw, chat(ChatRef::Group(G))).await.is_empty());
    t.peer.set_online(true);
    // Not archived: refused, not an empty page.
    let e = fail(chat(ChatRef::Private(U + 1))).await;
    assert_eq!(e.kind, Kind::ChatNotArchived);
    assert_eq!(e.meta("target"), Some("private:30002"));
    assert!(e.message.contains("private:30002"), "{}", e.message);
    assert!(ids(&t.gw, chat(ChatRef::Group(G))).await.is_empty());
    // A group the bot is not in (archived by `archive.chats` or not).
    for group in [OTHER, 1] {
        let e = fail(chat(ChatRef::Group(group))).await;
        assert_eq!(e.kind, Kind::GroupNotFound);
        assert_eq!(e.meta("group_id"), Some(group.to_string().as_str()));
    }
    // Without a chat, every archived chat is searched as before.
    assert!(ids(&t.gw, search("开会")).await.is_empty());
}
