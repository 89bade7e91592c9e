//! The joined-groups cache over the recording fake peer, in paused time.

use std::sync::Arc;
use std::time::Duration;

use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::joined::{JoinedGroups, Membership, READ_BUDGET, REREAD_INTERVAL};
use onebot_gateway_domain::model::{ConnState, GroupInfo, InboundEvent};
use onebot_gateway_onebot::Flavor;
use onebot_gateway_testkit::{Call, FakeApi};

const BOT: i64 = 10_001;

fn reads(peer: &FakeApi) -> usize {
    peer.calls().iter().filter(|c| **c == Call::Groups).count()
}

async fn check(joined: &JoinedGroups, peer: &FakeApi, group: i64) -> Membership {
    joined.check("a", peer, group, Deadline::NONE).await
}

#[tokio::test(start_paused = true)]
async fn a_listed_group_is_read_once_then_held() {
    let (joined, peer) = (JoinedGroups::default(), FakeApi::new(Flavor::NapCat));
    peer.set_groups(Some(&[1, 2]));
    assert_eq!(check(&joined, &peer, 1).await, Membership::Joined);
    assert_eq!(check(&joined, &peer, 2).await, Membership::Joined);
    tokio::time::advance(REREAD_INTERVAL * 10).await;
    assert_eq!(check(&joined, &peer, 1).await, Membership::Joined);
    assert_eq!(reads(&peer), 1);
}

#[tokio::test(start_paused = true)]
async fn a_miss_reads_again_at_most_once_per_interval() {
    let (joined, peer) = (JoinedGroups::default(), FakeApi::new(Flavor::NapCat));
    peer.set_groups(Some(&[1]));
    assert_eq!(check(&joined, &peer, 9).await, Membership::NotJoined);
    assert_eq!(reads(&peer), 1);
    // The bot joins group 9; within the interval the held list answers.
    peer.set_groups(Some(&[1, 9]));
    for group in [9, 10, 11, 12] {
        assert_eq!(check(&joined, &peer, group).await, Membership::NotJoined);
    }
    assert_eq!(reads(&peer), 1, "misses within the interval do not read");
    tokio::time::advance(REREAD_INTERVAL).await;
    assert_eq!(check(&joined, &peer, 9).await, Membership::Joined);
    assert_eq!(reads(&peer), 2);
    // A joined group is answered from the new list without a read.
    assert_eq!(check(&joined, &peer, 9).await, Membership::Joined);
    assert_eq!(reads(&peer), 2);
    // The group error names the group.
    let e = joined
        .require("a", peer.as_ref(), 10, Deadline::NONE)
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::GroupNotFound);
    assert_eq!(e.meta("group_id"), Some("10"));
    assert!(e.message.contains("group 10"), "{}", e.message);
}

#[tokio::test(start_paused = true)]
async fn concurrent_misses_share_one_read() {
    let (joined, peer) = (
        Arc::new(JoinedGroups::default()),
        FakeApi::new(Flavor::NapCat),
    );
    peer.set_groups(Some(&[1]));
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    *peer.gate.lock().unwrap() = Some(gate.clone());
    let entered = peer.called.notified();
    let first = tokio::spawn({
        let (joined, peer) = (joined.clone(), peer.clone());
        async move { check(&joined, &peer, 1).await }
    });
    entered.await;
    let others: Vec<_> = [1, 5, 6]
        .into_iter()
        .map(|group| {
            let (joined, peer) = (joined.clone(), peer.clone());
            tokio::spawn(async move { check(&joined, &peer, group).await })
        })
        .collect();
    // Let the waiters queue behind the read in flight, then finish it.
    tokio::task::yield_now().await;
    gate.add_permits(10);
    assert_eq!(first.await.unwrap(), Membership::Joined);
    let answers: Vec<Membership> = futures_util::future::join_all(others)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        answers,
        [
            Membership::Joined,
            Membership::NotJoined,
            Membership::NotJoined
        ]
    );
    assert_eq!(reads(&peer), 1);
}

#[tokio::test(start_paused = true)]
async fn offline_or_failing_peers_answer_from_what_is_held() {
    let (joined, peer) = (JoinedGroups::default(), FakeApi::new(Flavor::NapCat));
    peer.set_groups(Some(&[1]));
    peer.set_online(false);
    // Nothing held and nobody to ask: unknown, and nothing is asked.
    assert_eq!(check(&joined, &peer, 1).await, Membership::Unknown);
    assert!(
        joined
            .require("a", peer.as_ref(), 1, Deadline::NONE)
            .await
            .is_ok()
    );
    assert_eq!(reads(&peer), 0);
    peer.set_online(true);
    assert_eq!(check(&joined, &peer, 2).await, Membership::NotJoined);
    peer.set_online(false);
    tokio::time::advance(REREAD_INTERVAL).await;
    assert_eq!(check(&joined, &peer, 1).await, Membership::Joined);
    assert_eq!(check(&joined, &peer, 2).await, Membership::NotJoined);
    assert_eq!(reads(&peer), 1);

    // A read that fails keeps nothing new: unknown without a list.
    let (joined, peer) = (JoinedGroups::default(), FakeApi::new(Flavor::NapCat));
    peer.set_groups(None);
    assert_eq!(check(&joined, &peer, 1).await, Membership::Unknown);
}

#[tokio::test(start_paused = true)]
async fn the_bot_joining_leaving_and_reconnecting_update_the_list() {
    let (joined, peer) = (JoinedGroups::default(), FakeApi::new(Flavor::NapCat));
    peer.set_groups(Some(&[1]));
    assert_eq!(check(&joined, &peer, 1).await, Membership::Joined);
    let joined_event = |group_id, user_id| InboundEvent::MemberJoined {
        group_id,
        user_id,
        operator_id: 0,
        time: 0,
    };
    let left_event = |group_id, user_id, sub_type: &str| InboundEvent::MemberLeft {
        group_id,
        user_id,
        operator_id: 0,
        sub_type: sub_type.to_owned(),
        time: 0,
    };
    // Someone else joining group 7 says nothing about the bot.
    joined.observe("a", BOT, &joined_event(7, 42));
    joined.observe("a", BOT, &joined_event(8, BOT));
    assert_eq!(check(&joined, &peer, 7).await, Membership::NotJoined);
    assert_eq!(check(&joined, &peer, 8).await, Membership::Joined);
    joined.observe("a", BOT, &left_event(8, BOT, "leave"));
    joined.observe("a", BOT, &left_event(1, BOT, "kick_me"));
    assert_eq!(check(&joined, &peer, 8).await, Membership::NotJoined);
    assert_eq!(check(&joined, &peer, 1).await, Membership::NotJoined);
    assert_eq!(reads(&peer), 1, "events need no read");
    // Another account's events leave this one alone.
    joined.observe("b", BOT, &joined_event(1, BOT));
    assert_eq!(check(&joined, &peer, 1).await, Membership::NotJoined);
    // A reconnection: the next check reads again, even for a held group.
    peer.set_groups(Some(&[3]));
    joined.observe(
        "a",
        BOT,
        &InboundEvent::Connection {
            state: ConnState::Connected,
            detail: String::new(),
        },
    );
    assert_eq!(check(&joined, &peer, 3).await, Membership::Joined);
    assert_eq!(reads(&peer), 2);
}

#[tokio::test(start_paused = true)]
async fn a_list_read_elsewhere_is_taken() {
    let (joined, peer) = (JoinedGroups::default(), FakeApi::new(Flavor::NapCat));
    peer.set_groups(Some(&[1]));
    let info = |group_id| GroupInfo {
        group_id,
        group_name: String::new(),
        member_count: 0,
        max_member_count: 0,
        raw: Default::default(),
    };
    joined.saw_list("a", &[info(4), info(5)]);
    assert_eq!(check(&joined, &peer, 5).await, Membership::Joined);
    assert_eq!(reads(&peer), 0);
}

#[tokio::test(start_paused = true)]
async fn a_slow_read_takes_at_most_half_the_time_left() {
    let (joined, peer) = (JoinedGroups::default(), FakeApi::new(Flavor::NapCat));
    peer.set_groups(Some(&[1]));
    // The peer never answers.
    *peer.gate.lock().unwrap() = Some(Arc::new(tokio::sync::Semaphore::new(0)));
    let started = tokio::time::Instant::now();
    let answer = joined
        .check(
            "a",
            peer.as_ref(),
            1,
            Deadline::after(Duration::from_secs(2)),
        )
        .await;
    assert_eq!(answer, Membership::Unknown);
    assert_eq!(started.elapsed(), Duration::from_secs(1));
    // Without a caller deadline, the read budget bounds it.
    tokio::time::advance(REREAD_INTERVAL).await;
    let started = tokio::time::Instant::now();
    assert_eq!(check(&joined, &peer, 1).await, Membership::Unknown);
    assert_eq!(started.elapsed(), READ_BUDGET);
}
