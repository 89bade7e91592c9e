//! The event path over a fake peer: order kept while quotes resolve,
//! mentions named before the hub numbers the event, recalls published
//! once, quotes of recalled messages forgotten.

use std::sync::Arc;

use serde_json::json;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::inbound::*;
use onebot_gateway_domain::model::{ChatRef, InboundEvent, Segment};
use onebot_gateway_domain::ports::EventSink;
use onebot_gateway_domain::quotes::Quotes;

use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::events::{EventFilter, EventHub, Subscription};
use onebot_gateway_domain::model::{AccountStatus, GroupMember, Message};
use onebot_gateway_onebot::Flavor;
use onebot_gateway_onebot::model::decode_message;
use onebot_gateway_testkit::{Call, FakeApi};

const G: ChatRef = ChatRef::Group(7);

fn msg(id: i64, user: i64, segments: serde_json::Value) -> Message {
    decode_message(
        &json!({"message_id": id, "user_id": user, "time": 100 + id,
                "sender": {"user_id": user, "nickname": format!("u{user}")}, "message": segments}),
        Some(G),
    )
    .unwrap()
}

fn reply(id: i64, quoted: i64, text: &str) -> Message {
    msg(
        id,
        2,
        json!([{"type": "reply", "data": {"id": quoted.to_string()}}, {"type": "text", "data": {"text": text}}]),
    )
}

fn event(m: Message) -> InboundEvent {
    InboundEvent::message(m, false)
}

struct Env {
    inbound: Arc<Inbound>,
    peer: Arc<FakeApi>,
    sub: Subscription,
    _stop: tokio_util::sync::DropGuard,
}

/// The inbound path of account `a` over the shared fake: offline, every
/// group's members one 丙, each `get_message` waiting for a permit of
/// `release` when it is set.
fn env(release: Option<Arc<Semaphore>>) -> Env {
    let stop = CancellationToken::new();
    let hub = Arc::new(EventHub::new(64, stop.clone()));
    let sub = hub.subscribe("a", None, EventFilter::default()).unwrap();
    let inbound = Inbound::new(hub, Arc::new(Quotes::default()), stop.clone());
    let peer = FakeApi::new(Flavor::NapCat);
    peer.update_status(|s| *s = AccountStatus::default());
    peer.set_members(Some(vec![GroupMember {
        user_id: Some(3),
        nickname: "丙".into(),
        card: "丙的群名片".into(),
        ..GroupMember::default()
    }]));
    *peer.lookup_gate.lock().unwrap() = release;
    inbound.attach(&[Arc::new(Account {
        id: "a".into(),
        config: AccountConfig::default(),
        peer: peer.clone(),
    })]);
    Env {
        inbound,
        peer,
        sub,
        _stop: stop.drop_guard(),
    }
}

impl Env {
    /// The message ids looked up, in order.
    fn lookups(&self) -> Vec<i64> {
        self.peer
            .calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::GetMessage { message_id } => Some(message_id),
                _ => None,
            })
            .collect()
    }

    /// The groups whose members were read, in order.
    fn member_reads(&self) -> Vec<i64> {
        self.peer
            .calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Members { group_id, .. } => Some(group_id),
                _ => None,
            })
            .collect()
    }
}

async fn next(sub: &mut Subscription) -> InboundEvent {
    (*sub.next().await.unwrap().unwrap().event).clone()
}

fn quoted_of(e: &InboundEvent) -> Option<&Message> {
    let InboundEvent::Message { message, .. } = e else {
        return None;
    };
    message.segments.iter().find_map(|s| match s {
        Segment::Reply { quoted, .. } => quoted.as_deref(),
        _ => None,
    })
}

#[tokio::test]
async fn a_quote_of_a_message_seen_resolves_without_the_peer() {
    let mut e = env(None);
    e.inbound.publish("a", event(msg(1, 1, json!("大家好"))));
    e.inbound.publish("a", event(reply(2, 1, "你好")));
    let first = next(&mut e.sub).await;
    assert!(quoted_of(&first).is_none());
    let second = next(&mut e.sub).await;
    let q = quoted_of(&second).expect("resolved from the messages seen");
    assert_eq!((q.message_id, q.sender.user_id), (1, 1));
    assert!(e.lookups().is_empty());
}

#[tokio::test]
async fn order_is_kept_while_a_quote_is_looked_up() {
    let release = Arc::new(Semaphore::new(0));
    let mut e = env(Some(release.clone()));
    e.peer.store(msg(50, 1, json!("旧消息")));
    e.inbound.publish("a", event(reply(2, 50, "引用旧消息")));
    e.inbound.publish(
        "a",
        InboundEvent::Lifecycle {
            sub_type: "connect".into(),
            time: 1,
        },
    );
    // Nothing passes the waiting look-up.
    tokio::task::yield_now().await;
    assert_eq!(e.inbound.hub().last_sequence("a"), 0);
    release.add_permits(1);
    let first = next(&mut e.sub).await;
    assert_eq!(quoted_of(&first).map(|q| q.message_id), Some(50));
    assert!(matches!(
        next(&mut e.sub).await,
        InboundEvent::Lifecycle { .. }
    ));
    assert_eq!(e.lookups(), vec![50]);
}

#[tokio::test]
async fn an_unknown_quote_stays_an_id_and_a_quote_from_another_chat_is_ignored() {
    let mut e = env(None);
    let mut elsewhere = msg(60, 1, json!("别的群"));
    elsewhere.chat = ChatRef::Group(8);
    e.peer.store(elsewhere);
    e.inbound
        .publish("a", event(reply(2, 99, "引用不存在的消息")));
    e.inbound.publish("a", event(reply(3, 60, "引用别的群")));
    assert!(quoted_of(&next(&mut e.sub).await).is_none());
    assert!(quoted_of(&next(&mut e.sub).await).is_none());
}

#[tokio::test]
async fn a_recall_is_published_once_and_forgets_the_message() {
    let mut e = env(None);
    e.inbound.publish("a", event(msg(1, 1, json!("将被撤回"))));
    let recall = InboundEvent::MessageRecalled {
        chat: G,
        message_id: 1,
        operator_id: 1,
        time: 5,
    };
    e.inbound.publish_own("a", recall.clone());
    e.inbound.publish("a", recall.clone());
    e.inbound
        .publish("a", event(reply(2, 1, "引用已撤回的消息")));
    next(&mut e.sub).await;
    assert_eq!(next(&mut e.sub).await, recall);
    // The duplicate is gone; the quote of the recalled message is asked of
    // the peer, which no longer has it.
    assert!(quoted_of(&next(&mut e.sub).await).is_none());
    assert_eq!(e.lookups(), vec![1]);
    assert_eq!(e.inbound.hub().last_sequence("a"), 3);
}

#[tokio::test]
async fn the_peers_notice_of_the_gateways_recall_gives_way_to_the_gateways_event() {
    let mut e = env(None);
    // The peer reports the bot's own private recall first, naming the
    // friend; the gateway's event names the bot.
    e.inbound.expect_own("a", ChatRef::Private(9), 4);
    let notice = |operator_id| InboundEvent::MessageRecalled {
        chat: ChatRef::Private(9),
        message_id: 4,
        operator_id,
        time: 5,
    };
    e.inbound.publish("a", notice(9));
    e.inbound.publish_own("a", notice(1));
    e.inbound.publish("a", notice(9));
    e.inbound.publish(
        "a",
        InboundEvent::Lifecycle {
            sub_type: "x".into(),
            time: 1,
        },
    );
    assert_eq!(next(&mut e.sub).await, notice(1));
    assert!(matches!(
        next(&mut e.sub).await,
        InboundEvent::Lifecycle { .. }
    ));
    // A recall that failed lets the peer's later notices through.
    e.inbound.expect_own("a", G, 7);
    e.inbound.cancel_own("a", G, 7);
    let other = InboundEvent::MessageRecalled {
        chat: G,
        message_id: 7,
        operator_id: 3,
        time: 6,
    };
    e.inbound.publish("a", other.clone());
    assert_eq!(next(&mut e.sub).await, other);
}

fn names(e: &InboundEvent) -> Vec<Option<String>> {
    let InboundEvent::Message { message, .. } = e else {
        return Vec::new();
    };
    let quoted = message.segments.iter().filter_map(|s| match s {
        Segment::Reply { quoted, .. } => quoted.as_deref(),
        _ => None,
    });
    quoted
        .flat_map(|q| q.segments.iter())
        .chain(&message.segments)
        .filter_map(|s| match s {
            Segment::At { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn mentions_are_named_before_the_hub_numbers_the_event() {
    let mut e = env(None);
    let at = |qq: i64| json!({"type": "at", "data": {"qq": qq.to_string()}});
    // 1 mentions 3 (a member), 2 (its own sender) and 9 (no one known).
    e.inbound
        .publish("a", event(msg(1, 2, json!([at(3), at(2), at(9)]))));
    // 5 quotes 1 and mentions 3 again: the quote's mentions are named too,
    // and the member list is not read again (it is cached).
    let quoting = msg(
        5,
        4,
        json!([{"type": "reply", "data": {"id": "1"}}, at(3), {"type": "text", "data": {"text": " 好"}}]),
    );
    e.inbound.publish("a", event(quoting));
    let first = next(&mut e.sub).await;
    assert_eq!(
        names(&first),
        [Some("丙的群名片".into()), Some("u2".into()), None]
    );
    let second = next(&mut e.sub).await;
    assert_eq!(
        names(&second),
        [
            Some("丙的群名片".into()),
            Some("u2".into()),
            None,
            Some("丙的群名片".into())
        ]
    );
    assert_eq!(e.member_reads(), [7]);
    // A message without mentions reads nothing.
    e.inbound.publish("a", event(msg(6, 2, json!("无"))));
    next(&mut e.sub).await;
    assert_eq!(e.member_reads(), [7]);
}

fn backfilled_of(e: &InboundEvent) -> Option<(i64, bool)> {
    match e {
        InboundEvent::Message {
            message,
            backfilled,
            ..
        } => Some((message.message_id, *backfilled)),
        _ => None,
    }
}

#[tokio::test]
async fn a_message_is_delivered_once_whether_it_comes_live_or_backfilled_first() {
    let mut e = env(None);
    // Live first: the backfilled copy is dropped.
    e.inbound.publish("a", event(msg(1, 1, json!("实时"))));
    e.inbound
        .publish_backfilled("a", msg(1, 1, json!("实时")), false);
    // Backfilled first: the live copy is dropped.
    e.inbound
        .publish_backfilled("a", msg(2, 1, json!("补回")), false);
    e.inbound.publish("a", event(msg(2, 1, json!("补回"))));
    // The same id in another chat is another message.
    let mut elsewhere = msg(1, 1, json!("别的群"));
    elsewhere.chat = ChatRef::Group(8);
    e.inbound.publish_backfilled("a", elsewhere, false);
    e.inbound.publish(
        "a",
        InboundEvent::Lifecycle {
            sub_type: "end".into(),
            time: 1,
        },
    );
    let mut got = Vec::new();
    loop {
        let ev = next(&mut e.sub).await;
        match backfilled_of(&ev) {
            Some(pair) => got.push(pair),
            None => break,
        }
    }
    assert_eq!(got, [(1, false), (2, true), (1, true)]);
    assert_eq!(e.inbound.hub().last_sequence("a"), 4);
}
