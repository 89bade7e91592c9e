//! The conversation over real gRPC against the sandbox, on every flavor:
//! private sends, quotes and mentions reaching the peer as its segments,
//! whitelist refusals, GetMessage with its quote, quotes resolved in history
//! (on the page, by `get_msg`, not at all), forward bundles with a nested
//! one, RecallMessage inside and outside QQ's window, recall events, and
//! mentions rendered as `@名字` wherever messages are read.

use onebot_gateway_client::pb;
use onebot_gateway_config::{AccountConfig, Config};
use onebot_gateway_tests::{TestGateway, reason, sandbox};
use onebot_sandbox::{
    ChatRef, EXAMPLE_FORWARD, EXAMPLE_GROUP, EXAMPLE_NESTED_FORWARD, FRIEND_WITH_HISTORY, Flavor,
    MISSING_QUOTE, SANDBOX_GROUP, Sandbox,
};
use serde_json::{Value, json};
use tonic::Code;

const FRIEND: i64 = FRIEND_WITH_HISTORY;

/// A gateway on `peer` whitelisting both seeded groups and the friend.
async fn gateway(peer: &Sandbox) -> TestGateway {
    let mut config = Config::default();
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: Some(peer.ws_url()),
            groups: vec![EXAMPLE_GROUP, SANDBOX_GROUP],
            users: vec![FRIEND],
            ..AccountConfig::default()
        },
    );
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    gw
}

fn send(group: Option<i64>, user: Option<i64>, text: &str) -> pb::SendMessageRequest {
    pb::SendMessageRequest {
        group_id: group,
        user_id: user,
        text: text.into(),
        ..Default::default()
    }
}

fn get(message_id: i64) -> pb::GetMessageRequest {
    pb::GetMessageRequest {
        account_id: String::new(),
        message_id,
    }
}

fn recall(message_id: i64) -> pb::RecallMessageRequest {
    pb::RecallMessageRequest {
        account_id: String::new(),
        message_id,
        on_behalf_of: None,
    }
}

/// The stored segments of the newest message of `chat`, as the peer keeps
/// them.
fn newest(peer: &Sandbox, chat: ChatRef) -> Value {
    peer.control().messages(chat).last().expect("a message")["message"].clone()
}

fn quoted(m: &pb::ChatMessage) -> Option<&pb::ChatMessage> {
    m.segments.iter().find_map(|s| match &s.kind {
        Some(pb::segment::Kind::Reply(r)) => r.quoted.as_ref(),
        _ => None,
    })
}

fn peer_text(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_error_details()
        .error_info()
        .and_then(|i| i.metadata.get("peer_message").cloned())
        .unwrap_or_default()
}

#[tokio::test]
async fn private_sends_quotes_and_mentions_reach_every_flavor_as_its_segments() {
    for flavor in Flavor::ALL {
        let peer = sandbox(flavor).await;
        let gw = gateway(&peer).await;
        let mut messages = gw.messages();
        // A private send lands in the private history, through
        // send_private_msg.
        let r = messages
            .send_message(send(None, Some(FRIEND), "私聊你好"))
            .await
            .unwrap_or_else(|s| panic!("{flavor}: {s:?}"))
            .into_inner();
        assert_eq!(
            (r.user_id, r.group_id, r.chunks),
            (FRIEND, 0, 1),
            "{flavor}"
        );
        assert!(
            peer.control()
                .actions()
                .iter()
                .any(|a| a.action == "send_private_msg" && a.params["user_id"] == FRIEND),
            "{flavor}"
        );
        assert_eq!(
            newest(&peer, ChatRef::Private(FRIEND)),
            json!([{"type": "text", "data": {"text": "私聊你好"}}]),
            "{flavor}"
        );
        // A quote of a seeded message and two mentions, in the group where
        // the bot is admin (沙盒群).
        let target = peer.control().messages(ChatRef::Group(SANDBOX_GROUP))[0]["message_id"]
            .as_i64()
            .unwrap();
        let req = pb::SendMessageRequest {
            reply_to_message_id: Some(target),
            mention_user_ids: vec![10002, 10003],
            mention_all: true,
            ..send(Some(SANDBOX_GROUP), None, "请看")
        };
        messages
            .send_message(req)
            .await
            .unwrap_or_else(|s| panic!("{flavor}: {s:?}"));
        let stored = newest(&peer, ChatRef::Group(SANDBOX_GROUP));
        let (named_2, named_3) = match flavor {
            // LLOneBot and Lagrange report the display name with a mention.
            Flavor::LlOneBot | Flavor::Lagrange => (
                json!({"qq": "10002", "name": "管理员李四"}),
                json!({"qq": "10003", "name": "王五"}),
            ),
            _ => (json!({"qq": "10002"}), json!({"qq": "10003"})),
        };
        assert_eq!(
            stored,
            json!([
                {"type": "reply", "data": {"id": target.to_string()}},
                {"type": "at", "data": named_2},
                {"type": "at", "data": named_3},
                {"type": "at", "data": {"qq": "all"}},
                {"type": "text", "data": {"text": "请看"}}
            ]),
            "{flavor}"
        );
        // @全体成员 where the bot is no admin (示例群): refused with the
        // peer's own words, or dropped by the peers that drop it.
        let req = pb::SendMessageRequest {
            mention_all: true,
            ..send(Some(EXAMPLE_GROUP), None, "全体注意")
        };
        match (flavor, messages.send_message(req).await) {
            (Flavor::LlOneBot | Flavor::GoCqhttp, Ok(_)) => {
                assert_eq!(
                    newest(&peer, ChatRef::Group(EXAMPLE_GROUP)),
                    json!([{"type": "text", "data": {"text": "全体注意"}}])
                );
            }
            (Flavor::NapCat | Flavor::SnowLuma | Flavor::Lagrange, Err(s)) => {
                assert_eq!(s.code(), Code::FailedPrecondition, "{flavor}: {s:?}");
                assert_eq!(reason(&s), "ONEBOT_ACTION_FAILED", "{flavor}");
                if flavor == Flavor::NapCat {
                    assert!(peer_text(&s).contains("@全体成员"), "{s:?}");
                }
            }
            (_, other) => panic!("{flavor}: {other:?}"),
        }
        // A quote of a message the peer does not know is refused on every
        // flavor before anything is sent (NapCat and LLOneBot would drop
        // it, go-cqhttp post it as literal text, Lagrange fail silently).
        let before = peer.control().messages(ChatRef::Group(SANDBOX_GROUP)).len();
        let req = pb::SendMessageRequest {
            reply_to_message_id: Some(MISSING_QUOTE),
            ..send(Some(SANDBOX_GROUP), None, "引用不存在的")
        };
        let s = messages.send_message(req).await.unwrap_err();
        assert_eq!(s.code(), Code::NotFound, "{flavor}: {s:?}");
        assert_eq!(reason(&s), "MESSAGE_NOT_FOUND", "{flavor}");
        assert_eq!(
            peer.control().messages(ChatRef::Group(SANDBOX_GROUP)).len(),
            before,
            "{flavor}: nothing sent"
        );
        gw.stop().await.expect("clean stop");
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn whitelists_and_tokens_refuse_private_chats() {
    let peer = sandbox(Flavor::NapCat).await;
    let gw = gateway(&peer).await;
    let mut messages = gw.messages();
    let s = messages
        .send_message(send(None, Some(10002), "x"))
        .await
        .unwrap_err();
    assert_eq!(
        (s.code(), reason(&s).as_str()),
        (Code::PermissionDenied, "USER_NOT_ALLOWED")
    );
    let s = messages
        .send_message(send(Some(SANDBOX_GROUP), Some(FRIEND), "x"))
        .await
        .unwrap_err();
    assert_eq!(
        (s.code(), reason(&s).as_str()),
        (Code::InvalidArgument, "INVALID_REQUEST")
    );
    let s = messages
        .send_message(pb::SendMessageRequest {
            mention_user_ids: (1..=21).collect(),
            ..send(Some(SANDBOX_GROUP), None, "x")
        })
        .await
        .unwrap_err();
    assert_eq!(s.code(), Code::InvalidArgument);
    assert!(
        peer.control()
            .actions()
            .iter()
            .all(|a| !a.action.starts_with("send_")),
        "refusals reach no peer"
    );
    gw.stop().await.unwrap();
    peer.shutdown().await;
}

#[tokio::test]
async fn quotes_resolve_on_the_page_by_get_msg_or_not_at_all() {
    for flavor in Flavor::ALL {
        let peer = sandbox(flavor).await;
        let gw = gateway(&peer).await;
        let mut messages = gw.messages();
        // GetMessage of a bot answer: the quoted question comes from get_msg.
        let private = peer.control().messages(ChatRef::Private(FRIEND));
        let answer = private[7]["message_id"].as_i64().unwrap();
        let question = private[6]["message_id"].as_i64().unwrap();
        let got = messages
            .get_message(get(answer))
            .await
            .unwrap_or_else(|s| panic!("{flavor}: {s:?}"))
            .into_inner();
        let m = got.message.as_ref().unwrap();
        assert_eq!(m.message_id, answer, "{flavor}");
        assert_eq!(quoted(m).map(|q| q.message_id), Some(question), "{flavor}");
        assert_eq!(m.text, "在的，这是第8条回复", "text omits the quote");
        assert!(
            got.rendered
                .ends_with("[回复 张三: 在吗？第7条]在的，这是第8条回复"),
            "{flavor}: {}",
            got.rendered
        );
        // The unresolvable quote.
        let lost = private[43]["message_id"].as_i64().unwrap();
        let got = messages.get_message(get(lost)).await.unwrap().into_inner();
        assert!(quoted(got.message.as_ref().unwrap()).is_none());
        assert!(got.rendered.contains("[回复]在的"), "{}", got.rendered);
        // An unknown id.
        let s = messages.get_message(get(MISSING_QUOTE)).await.unwrap_err();
        assert_eq!(
            (s.code(), reason(&s).as_str()),
            (Code::NotFound, "MESSAGE_NOT_FOUND"),
            "{flavor}: {s:?}"
        );
        // History of 沙盒群: every 16th message quotes the one before it,
        // on the same page.
        let group = peer.control().messages(ChatRef::Group(SANDBOX_GROUP));
        if flavor == Flavor::SnowLuma {
            peer.control()
                .inject_group_message(SANDBOX_GROUP, 10001, json!("有人吗"));
        }
        let page = messages
            .get_history(pb::GetHistoryRequest {
                account_id: String::new(),
                chat: Some(pb::Chat::group(SANDBOX_GROUP)),
                count: 19,
                anchor_message_id: group.get(297).and_then(|m| m["message_id"].as_i64()),
                until: None,
            })
            .await
            .unwrap_or_else(|s| panic!("{flavor}: {s:?}"))
            .into_inner();
        let replying = page
            .messages
            .iter()
            .position(|m| m.text.starts_with("回复上一条"))
            .unwrap_or_else(|| panic!("{flavor}: {}", page.rendered));
        assert!(replying > 0, "{flavor}: the quoted message is on the page");
        assert_eq!(
            quoted(&page.messages[replying]).map(|q| q.message_id),
            Some(page.messages[replying - 1].message_id),
            "{flavor}"
        );
        gw.stop().await.expect("clean stop");
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn forward_bundles_open_with_the_nested_one_left_as_a_segment() {
    for flavor in Flavor::ALL {
        let peer = sandbox(flavor).await;
        let gw = gateway(&peer).await;
        let mut messages = gw.messages();
        let open = |id: &str| pb::GetForwardMessagesRequest {
            account_id: String::new(),
            forward_id: id.into(),
        };
        let outer = messages
            .get_forward_messages(open(EXAMPLE_FORWARD))
            .await
            .unwrap_or_else(|s| panic!("{flavor}: {s:?}"))
            .into_inner();
        let texts: Vec<&str> = outer.messages.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "会议纪要：周五发布 1.2 版",
                "收到，测试周四前完成",
                "[合并转发]"
            ],
            "{flavor}"
        );
        let senders: Vec<i64> = outer
            .messages
            .iter()
            .map(|m| m.sender.as_ref().unwrap().user_id)
            .collect();
        assert_eq!(senders, [10001, 10002, 10003], "{flavor}");
        assert!(matches!(
            outer.messages[2].segments[0].kind.as_ref(),
            Some(pb::segment::Kind::Forward(f)) if f.id == EXAMPLE_NESTED_FORWARD
        ));
        assert!(
            outer
                .rendered
                .lines()
                .nth(2)
                .unwrap()
                .ends_with("王五(10003): [合并转发]"),
            "{}",
            outer.rendered
        );
        let inner = messages
            .get_forward_messages(open(EXAMPLE_NESTED_FORWARD))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(inner.messages.len(), 2, "{flavor}");
        let s = messages
            .get_forward_messages(open("no-such-bundle"))
            .await
            .unwrap_err();
        assert_eq!(
            (s.code(), reason(&s).as_str()),
            (Code::NotFound, "MESSAGE_NOT_FOUND"),
            "{flavor}: {s:?}"
        );
        gw.stop().await.expect("clean stop");
        peer.shutdown().await;
    }
}

async fn next_recall(
    stream: &mut tonic::Streaming<pb::StreamEventsResponse>,
) -> pb::MessageRecalledEvent {
    loop {
        // Skips heartbeats and other events.
        let event = crate::events::next_event(stream).await;
        if let Some(pb::event::Kind::MessageRecalled(r)) = event.kind {
            return r;
        }
    }
}

#[tokio::test]
async fn recall_inside_and_outside_the_window_and_recall_events() {
    for flavor in Flavor::ALL {
        let peer = sandbox(flavor).await;
        let gw = gateway(&peer).await;
        let mut messages = gw.messages();
        let mut events = gw
            .events()
            .stream_events(pb::StreamEventsRequest {
                kinds: vec![pb::EventKind::MessageRecalled as i32],
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        // Inside the window: the bot's fresh message goes.
        let sent = messages
            .send_message(send(Some(EXAMPLE_GROUP), None, "马上撤回"))
            .await
            .unwrap()
            .into_inner();
        let id = sent.message_ids[0];
        messages
            .recall_message(recall(id))
            .await
            .unwrap_or_else(|s| panic!("{flavor}: {s:?}"));
        let r = next_recall(&mut events).await;
        assert_eq!(
            (r.message_id, r.chat, r.operator_id),
            (
                id,
                Some(pb::Chat::group(EXAMPLE_GROUP)),
                onebot_sandbox::DEFAULT_SELF_ID
            ),
            "{flavor}"
        );
        let s = messages.get_message(get(id)).await.unwrap_err();
        assert_eq!(s.code(), Code::NotFound, "{flavor}: recalled is gone");
        // Outside the window: QQ refuses, in its own words.
        let old = messages
            .send_message(send(Some(EXAMPLE_GROUP), None, "太久了"))
            .await
            .unwrap()
            .into_inner()
            .message_ids[0];
        assert!(peer.control().age_message(old, 300));
        let s = messages.recall_message(recall(old)).await.unwrap_err();
        assert_eq!(
            (s.code(), reason(&s).as_str()),
            (Code::FailedPrecondition, "ONEBOT_ACTION_FAILED"),
            "{flavor}: {s:?}"
        );
        if !matches!(flavor, Flavor::Lagrange) {
            assert!(!peer_text(&s).is_empty(), "{flavor}: the peer's words");
        }
        // A member's message where the bot is no admin (示例群). Read
        // first, as an agent would: Lagrange's get_msg does not say which
        // chat a message is in, the gateway knows it from the page.
        let member = peer.control().messages(ChatRef::Group(EXAMPLE_GROUP))[0]["message_id"]
            .as_i64()
            .unwrap();
        let read = pb::GetHistoryRequest {
            account_id: String::new(),
            chat: Some(pb::Chat::group(EXAMPLE_GROUP)),
            count: 10,
            anchor_message_id: None,
            until: None,
        };
        if flavor == Flavor::SnowLuma {
            peer.control()
                .inject_group_message(EXAMPLE_GROUP, 10002, json!("醒醒"));
        }
        messages.get_history(read.clone()).await.unwrap();
        let s = messages.recall_message(recall(member)).await.unwrap_err();
        assert_eq!(s.code(), Code::FailedPrecondition, "{flavor}: {s:?}");
        // Not whitelisted: refused before delete_msg.
        let gw2 = TestGateway::with_sandbox(&peer, &[SANDBOX_GROUP]).await;
        gw2.messages().get_history(read).await.unwrap();
        peer.control().clear_actions();
        let s = gw2
            .messages()
            .recall_message(recall(member))
            .await
            .unwrap_err();
        assert_eq!(
            (s.code(), reason(&s).as_str()),
            (Code::PermissionDenied, "GROUP_NOT_ALLOWED")
        );
        assert!(
            peer.control()
                .actions()
                .iter()
                .all(|a| a.action != "delete_msg"),
            "{flavor}"
        );
        gw2.stop().await.unwrap();
        // Someone else's recall, reported by the peer.
        assert!(peer.control().recall_message(member, 10001));
        let r = next_recall(&mut events).await;
        assert_eq!((r.message_id, r.operator_id), (member, 10001), "{flavor}");
        gw.stop().await.expect("clean stop");
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn message_events_carry_their_quote() {
    let peer = sandbox(Flavor::NapCat).await;
    let gw = gateway(&peer).await;
    let mut events = gw
        .events()
        .stream_events(pb::StreamEventsRequest {
            kinds: vec![pb::EventKind::Message as i32],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let first = peer.control().messages(ChatRef::Group(EXAMPLE_GROUP))[0]["message_id"]
        .as_i64()
        .unwrap();
    peer.control().inject_group_message(
        EXAMPLE_GROUP,
        10002,
        json!([{"type": "reply", "data": {"id": first.to_string()}}, {"type": "text", "data": {"text": "同意"}}]),
    );
    let event = crate::events::next_event(&mut events).await;
    let Some(pb::event::Kind::Message(m)) = event.kind else {
        panic!("{event:?}")
    };
    let m = m.message.unwrap();
    assert_eq!(m.text, "同意");
    let q = quoted(&m).expect("resolved with get_msg");
    assert_eq!((q.message_id, q.text.as_str()), (first, "大家好"));
    gw.stop().await.unwrap();
    peer.shutdown().await;
}

fn mentions(m: &pb::ChatMessage) -> Vec<(i64, bool, String)> {
    m.segments
        .iter()
        .filter_map(|s| match &s.kind {
            Some(pb::segment::Kind::At(a)) => Some((a.user_id, a.all, a.name.clone())),
            _ => None,
        })
        .collect()
}

/// 沙盒群's peer sends mentions with the QQ number only: history, GetMessage
/// and forwards show the member's card (`@管理员李四`), and `@全体成员`.
#[tokio::test]
async fn mentions_render_as_the_members_name_on_every_flavor() {
    for flavor in Flavor::ALL {
        let peer = sandbox(flavor).await;
        let gw = gateway(&peer).await;
        let mut messages = gw.messages();
        // The page before the 292nd message: the 272nd to the 291st.
        let group = peer.control().messages(ChatRef::Group(SANDBOX_GROUP));
        let page = messages
            .get_history(pb::GetHistoryRequest {
                chat: Some(pb::Chat::group(SANDBOX_GROUP)),
                count: 20,
                anchor_message_id: group[291]["message_id"].as_i64(),
                ..Default::default()
            })
            .await
            .unwrap_or_else(|s| panic!("{flavor}: {s:?}"))
            .into_inner();
        // The 289th message mentions 10002, the 290th everyone.
        assert!(
            page.rendered.contains("): @管理员李四 看一下第289条\n"),
            "{flavor}: {}",
            page.rendered
        );
        assert!(
            page.rendered.contains("): @全体成员 通知 290\n"),
            "{flavor}: {}",
            page.rendered
        );
        assert!(
            !page.rendered.contains("@10002"),
            "{flavor}: {}",
            page.rendered
        );
        let at = page
            .messages
            .iter()
            .find(|m| m.text.ends_with("看一下第289条"))
            .unwrap_or_else(|| panic!("{flavor}: {}", page.rendered));
        assert_eq!(
            mentions(at),
            [(10002, false, "管理员李四".to_owned())],
            "{flavor}"
        );
        assert_eq!(at.text, "@管理员李四 看一下第289条", "{flavor}");
        let all = page
            .messages
            .iter()
            .find(|m| m.text.ends_with("通知 290"))
            .unwrap_or_else(|| panic!("{flavor}: {}", page.rendered));
        assert_eq!(mentions(all), [(0, true, String::new())], "{flavor}");

        // GetMessage of the same message: the same line.
        let got = messages
            .get_message(get(at.message_id))
            .await
            .unwrap_or_else(|s| panic!("{flavor}: {s:?}"))
            .into_inner();
        let line = page
            .rendered
            .lines()
            .find(|l| l.ends_with("看一下第289条"))
            .expect("the line");
        assert_eq!(got.rendered, line, "{flavor}");
        gw.stop().await.expect("clean stop");
        peer.shutdown().await;
    }
}
