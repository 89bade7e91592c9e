//! Mention names over a fake peer: where names come from, how often the
//! member list is read, and what happens when it cannot be.

use serde_json::{Value, json};
use tokio::sync::Semaphore;

use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::mentions::*;
use onebot_gateway_domain::model::{ChatRef, GroupMember, Message, Segment};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::error::Error;
use onebot_gateway_domain::render::history_in;
use onebot_gateway_onebot::Flavor;
use onebot_gateway_onebot::model::decode_message;
use onebot_gateway_testkit::{Call, FakeApi};

const GROUP: i64 = 20000003;

fn member(id: i64, nickname: &str, card: &str) -> GroupMember {
    GroupMember {
        user_id: Some(id),
        nickname: nickname.into(),
        card: card.into(),
        ..GroupMember::default()
    }
}

/// The sandbox's first members: a card, a card, no card, neither.
fn sandbox_members() -> Vec<GroupMember> {
    vec![
        member(10001, "张三", "群主张三"),
        member(10002, "李四", "管理员李四"),
        member(10003, "王五", ""),
        member(10004, " ", "\n"),
        member(10005, "x", "[管理]\n 赵六"),
    ]
}

struct Env {
    mentions: Mentions,
    account: Account,
    peer: Arc<FakeApi>,
}

/// Mentions over a fake peer whose member list is `members` (a failure
/// when `None`); each read waits for a permit of `release` when it is set.
fn env(members: Option<Vec<GroupMember>>, ttl: u64, release: Option<Arc<Semaphore>>) -> Env {
    let peer = FakeApi::new(Flavor::NapCat);
    if members.is_none() {
        peer.script([Err(Error::internal("the peer failed"))]);
    }
    peer.set_members(Some(members.unwrap_or_default()));
    *peer.gate.lock().unwrap() = release;
    let account = Account {
        id: "a".into(),
        config: AccountConfig {
            member_cache_ttl_secs: ttl,
            ..AccountConfig::default()
        },
        peer: peer.clone(),
    };
    Env {
        mentions: Mentions::default(),
        account,
        peer,
    }
}

impl Env {
    /// Member-list reads so far; only the mentions' group is ever read.
    fn reads(&self) -> usize {
        let calls = self.peer.calls();
        assert!(
            calls.iter().all(|c| *c
                == Call::Members {
                    group_id: GROUP,
                    no_cache: None
                }),
            "{calls:?}"
        );
        calls.len()
    }
}

/// 2026-10-19 09:58:12 in Asia/Shanghai.
const T0: i64 = 1_792_375_092;

fn msg_in(chat: ChatRef, id: i64, sender: Value, segments: Value) -> Message {
    decode_message(
        &json!({"message_id": id, "time": T0 + id, "sender": sender, "message": segments}),
        Some(chat),
    )
    .expect("decodable")
}

fn msg(id: i64, sender: Value, segments: Value) -> Message {
    msg_in(ChatRef::Group(GROUP), id, sender, segments)
}

fn at(qq: &str) -> Value {
    json!({"type": "at", "data": {"qq": qq}})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "data": {"text": t}})
}

fn lines(messages: &[Message]) -> String {
    history_in(
        messages,
        &jiff::tz::TimeZone::get("Asia/Shanghai").unwrap(),
        onebot_gateway_config::Locale::Zh,
    )
}

fn names(m: &Message) -> Vec<Option<String>> {
    m.segments
        .iter()
        .filter_map(|s| match s {
            Segment::At { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn members_are_named_card_then_nickname_then_number() {
    let e = env(Some(sandbox_members()), 60, None);
    let mut page = vec![msg(
        1,
        json!({"user_id": 10003, "nickname": "王五"}),
        json!([
            at("10001"),
            at("10002"),
            at("10003"),
            at("10004"),
            at("10005"),
            at("10099"),
            at("all"),
            text(" 开会")
        ]),
    )];
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(
        lines(&page),
        "[09:58:13] 王五(10003): @群主张三@管理员李四@王五@10004@(管理) 赵六@10099@全体成员 开会"
    );
    // The structured side carries the same names.
    assert_eq!(
        names(&page[0]),
        [
            Some("群主张三".into()),
            Some("管理员李四".into()),
            Some("王五".into()),
            None,
            Some("(管理) 赵六".into()),
            None,
            None,
        ]
    );
    // Six mentions, one read of the group's list.
    assert_eq!(e.reads(), 1);
}

#[tokio::test]
async fn the_pages_own_senders_need_no_read_and_the_peers_name_is_kept() {
    let e = env(Some(sandbox_members()), 60, None);
    let mut page = vec![
        msg(
            1,
            json!({"user_id": 10002, "nickname": "李四", "card": "李四的卡"}),
            json!("早"),
        ),
        msg(
            2,
            json!({"user_id": 10001, "nickname": "张三"}),
            json!([at("10002"), {"type": "at", "data": {"qq": "10003", "name": "老王"}}, text(" 好")]),
        ),
    ];
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(
        lines(&page),
        "[09:58:13] 李四的卡(10002): 早\n[09:58:14] 张三(10001): @李四的卡@老王 好"
    );
    assert_eq!(e.reads(), 0);
}

#[tokio::test]
async fn a_quoted_messages_mentions_are_named_too() {
    let e = env(Some(sandbox_members()), 60, None);
    let quoted = msg(
        1,
        json!({"user_id": 10003, "nickname": "王五"}),
        json!([at("10002"), text(" 在吗")]),
    );
    let mut page = vec![msg(
        2,
        json!({"user_id": 10001, "nickname": "张三", "card": "群主张三"}),
        json!([{"type": "reply", "data": {"id": "1"}}, text("在")]),
    )];
    if let Segment::Reply { quoted: q, .. } = &mut page[0].segments[0] {
        *q = Some(Box::new(quoted));
    }
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(
        lines(&page),
        "[09:58:14] 群主张三(10001): [回复 王五: @管理员李四 在吗]在"
    );
}

#[tokio::test]
async fn a_quoted_sender_known_only_by_number_is_named_from_the_member_list() {
    let e = env(Some(sandbox_members()), 60, None);
    // An inline quote (Milky) names its sender by QQ number alone.
    let quoted = msg(1, json!({"user_id": 10002}), json!("看图"));
    let mut page = vec![msg(
        2,
        json!({"user_id": 10001, "nickname": "张三", "card": "群主张三"}),
        json!([{"type": "reply", "data": {"id": "1"}}, text("好")]),
    )];
    if let Segment::Reply { quoted: q, .. } = &mut page[0].segments[0] {
        *q = Some(Box::new(quoted));
    }
    assert!(wants_names(&page[0]));
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(
        lines(&page),
        "[09:58:14] 群主张三(10001): [回复 管理员李四: 看图]好"
    );
    assert_eq!(e.reads(), 1);
}

#[tokio::test]
async fn a_cached_list_is_not_read_again_and_no_cache_reads_every_call() {
    let e = env(Some(sandbox_members()), 60, None);
    for _ in 0..3 {
        let mut page = vec![msg(1, json!({"user_id": 1}), json!([at("10002")]))];
        e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
        assert_eq!(names(&page[0]), [Some("管理员李四".to_owned())]);
    }
    assert_eq!(e.reads(), 1);
    // An invalidated group (a card changed) is read again.
    e.mentions.members().invalidate("a", GROUP);
    let mut page = vec![msg(1, json!({"user_id": 1}), json!([at("10002")]))];
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(e.reads(), 2);

    let e = env(Some(sandbox_members()), 0, None);
    for _ in 0..2 {
        let mut page = vec![msg(1, json!({"user_id": 1}), json!([at("10002")]))];
        e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
        assert_eq!(names(&page[0]), [Some("管理员李四".to_owned())]);
    }
    assert_eq!(e.reads(), 2);
}

#[tokio::test]
async fn a_peer_failure_leaves_numbers() {
    let e = env(None, 60, None);
    let mut page = vec![msg(
        1,
        json!({"user_id": 1, "nickname": "甲"}),
        json!([at("10002"), text(" 好")]),
    )];
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(lines(&page), "[09:58:13] 甲(1): @10002 好");
    assert_eq!(e.reads(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_peer_that_does_not_answer_costs_the_budget_at_most() {
    // The read is never released.
    let e = env(
        Some(sandbox_members()),
        60,
        Some(Arc::new(Semaphore::new(0))),
    );
    let start = Instant::now();
    let mut page = vec![msg(1, json!({"user_id": 1}), json!([at("10002")]))];
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(names(&page[0]), [None]);
    assert_eq!(start.elapsed(), BUDGET);
    // A caller's earlier deadline ends it sooner.
    let start = Instant::now();
    let deadline = Deadline::at(start + Duration::from_millis(300));
    e.mentions.name(&e.account, &mut page, deadline).await;
    assert_eq!(start.elapsed(), Duration::from_millis(300));
}

#[tokio::test]
async fn calls_needing_the_same_list_share_one_read() {
    let release = Arc::new(Semaphore::new(0));
    let e = env(Some(sandbox_members()), 60, Some(release.clone()));
    let mut a = vec![msg(1, json!({"user_id": 1}), json!([at("10001")]))];
    let mut b = vec![msg(2, json!({"user_id": 1}), json!([at("10002")]))];
    let first = e.mentions.name(&e.account, &mut a, Deadline::NONE);
    let second = e.mentions.name(&e.account, &mut b, Deadline::NONE);
    let release = async {
        // Released once the first read has begun, for as many reads as
        // there are calls: the second call waits for the first read
        // instead of reading.
        while e.reads() == 0 {
            tokio::task::yield_now().await;
        }
        release.add_permits(2);
    };
    tokio::join!(first, second, release);
    assert_eq!(e.reads(), 1);
    assert_eq!(names(&a[0]), [Some("群主张三".to_owned())]);
    assert_eq!(names(&b[0]), [Some("管理员李四".to_owned())]);
}

#[tokio::test]
async fn private_chats_and_forwards_use_their_senders_only() {
    let e = env(Some(sandbox_members()), 60, None);
    let chat = ChatRef::Private(10001);
    let mut page = vec![
        msg_in(
            chat,
            1,
            json!({"user_id": 10001, "nickname": "张三"}),
            json!("在"),
        ),
        msg_in(
            chat,
            2,
            json!({"user_id": 99, "nickname": "机器人"}),
            json!([at("10001"), at("10002")]),
        ),
    ];
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(names(&page[1]), [Some("张三".to_owned()), None]);
    assert_eq!(e.reads(), 0);

    let mut bundle = vec![
        msg(
            1,
            json!({"user_id": 10003, "nickname": "王五"}),
            json!("转发"),
        ),
        msg(
            2,
            json!({"user_id": 10001, "nickname": "张三"}),
            json!([at("10003"), at("10002")]),
        ),
    ];
    name_from_senders(&mut bundle);
    assert_eq!(names(&bundle[1]), [Some("王五".to_owned()), None]);
}

#[tokio::test]
async fn a_group_sender_without_a_card_is_checked_against_the_member_list() {
    // 示例群's history leaves cards out of sender records: the list's card
    // wins over the sender's nickname.
    let e = env(Some(sandbox_members()), 60, None);
    let mut page = vec![
        msg(
            1,
            json!({"user_id": 10002, "nickname": "李四"}),
            json!("早"),
        ),
        msg(
            2,
            json!({"user_id": 10001, "nickname": "张三"}),
            json!([at("10002")]),
        ),
    ];
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(names(&page[1]), [Some("管理员李四".to_owned())]);
    assert_eq!(e.reads(), 1);
    // Without the list, the sender's nickname.
    let e = env(None, 60, None);
    let mut page = vec![
        msg(
            1,
            json!({"user_id": 10002, "nickname": "李四"}),
            json!("早"),
        ),
        msg(
            2,
            json!({"user_id": 10001, "nickname": "张三"}),
            json!([at("10002")]),
        ),
    ];
    e.mentions.name(&e.account, &mut page, Deadline::NONE).await;
    assert_eq!(names(&page[1]), [Some("李四".to_owned())]);
}
