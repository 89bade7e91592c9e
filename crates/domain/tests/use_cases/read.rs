//! Read-side domain tests over a recording fake `PeerApi`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::Semaphore;

use onebot_gateway_config::{AccountConfig, Config};
use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::call::{CallCtx, Deadline};
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::model::{AccountStatus, ChatRef, ConnState, InboundEvent, Message};
use onebot_gateway_domain::ports::HistoryPage;
use onebot_gateway_domain::read::groups::GroupEntry;
use onebot_gateway_domain::read::history::HistoryRequest;
use onebot_gateway_domain::read::members::MembersRequest;
use onebot_gateway_onebot::Flavor;
use onebot_gateway_onebot::model::{decode_group, decode_members, decode_message};
use onebot_gateway_testkit::{Call, FakeApi, GatewayBuilder};

/// The shared fake as the read side meets it: offline (so no group check),
/// an empty history, no members, no groups, no messages; every call
/// recorded.
fn fake() -> Arc<FakeApi> {
    let fake = FakeApi::new(Flavor::NapCat);
    fake.update_status(|s| *s = AccountStatus::default());
    fake.set_history(|_, _, _| Ok(HistoryPage::default()));
    fake.set_members(Some(Vec::new()));
    fake.set_group_list(Some(Vec::new()));
    fake
}

fn account_config(groups: &[i64], ttl: u64) -> AccountConfig {
    AccountConfig {
        ws_url: Some("ws://127.0.0.1:3001/".into()),
        groups: groups.to_vec(),
        member_cache_ttl_secs: ttl,
        ..AccountConfig::default()
    }
}

/// A gateway over `fake` (account `default`, and `bare` without a
/// transport), its data directory removed when the returned guard drops.
fn gateway_with(fake: Arc<FakeApi>, config: AccountConfig) -> (Gateway, Arc<FakeApi>, Guard) {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = Config::default();
    cfg.server.data_dir = dir.path().to_path_buf();
    cfg.accounts.insert("default".into(), config.clone());
    cfg.accounts.insert("bare".into(), AccountConfig::default());
    let accounts = vec![
        Account {
            id: "default".into(),
            config,
            peer: fake.clone(),
        },
        Account {
            id: "bare".into(),
            config: AccountConfig::default(),
            peer: fake.clone(),
        },
    ];
    let stop = tokio_util::sync::CancellationToken::new();
    let gw = GatewayBuilder::new(cfg, accounts, stop.clone()).build();
    (gw, fake, (dir, stop.drop_guard()))
}

/// Keeps a test gateway's data directory and background tasks alive.
type Guard = (tempfile::TempDir, tokio_util::sync::DropGuard);

fn gateway(fake: Arc<FakeApi>) -> (Gateway, Arc<FakeApi>, Guard) {
    gateway_with(fake, account_config(&[], 60))
}

fn message(id: i64, time: i64, user: i64) -> Message {
    decode_message(
        &json!({"message_id": id, "time": time, "sender": {"user_id": user, "nickname": format!("u{user}")},
                "message": format!("m{id}")}),
        Some(ChatRef::Group(1)),
    )
    .unwrap()
}

fn message_with_seq(id: i64, seq: i64, time: i64) -> Message {
    Message {
        message_seq: Some(seq),
        ..message(id, time, 10001 + seq % 12)
    }
}

/// An adapter honouring its contract over `log` (oldest first): the newest
/// `count` messages strictly older than the anchor, in reverse order (the
/// domain must sort), `has_more` when older ones remain.
fn paging(
    log: Vec<Message>,
) -> impl Fn(ChatRef, u32, Option<i64>) -> Result<HistoryPage> + Send + Sync + 'static {
    move |_, count, anchor| {
        let end = match anchor {
            Some(a) => log
                .iter()
                .position(|m| m.message_id == a)
                .ok_or_else(|| Error::new(Kind::OnebotActionFailed, "no such message"))?,
            None => log.len(),
        };
        let start = end.saturating_sub(count as usize);
        let mut messages = log[start..end].to_vec();
        messages.reverse();
        Ok(HistoryPage {
            messages,
            has_more: start > 0,
        })
    }
}

fn req(chat: ChatRef, count: i32, anchor: Option<i64>) -> HistoryRequest {
    HistoryRequest {
        account_id: String::new(),
        chat: Some(chat),
        count,
        anchor_message_id: anchor,
        until: None,
    }
}

#[tokio::test]
async fn invalid_chat_or_account_makes_no_peer_call() {
    let (gw, fake, _guard) = gateway(fake());
    let cases = [
        (None, "default", Kind::InvalidRequest, Some("chat")),
        (
            Some(ChatRef::Group(0)),
            "default",
            Kind::InvalidRequest,
            Some("chat.group_id"),
        ),
        (
            Some(ChatRef::Group(-3)),
            "default",
            Kind::InvalidRequest,
            Some("chat.group_id"),
        ),
        (
            Some(ChatRef::Private(0)),
            "default",
            Kind::InvalidRequest,
            Some("chat.user_id"),
        ),
        (
            Some(ChatRef::Private(i64::MIN)),
            "",
            Kind::InvalidRequest,
            Some("chat.user_id"),
        ),
        (
            Some(ChatRef::Group(1)),
            "nobody",
            Kind::AccountNotConfigured,
            None,
        ),
        (
            Some(ChatRef::Group(1)),
            "bare",
            Kind::AccountNotConfigured,
            None,
        ),
    ];
    for (chat, account, kind, field) in cases {
        let err = gw
            .get_history(
                HistoryRequest {
                    account_id: account.into(),
                    chat,
                    count: 5,
                    anchor_message_id: None,
                    until: None,
                },
                CallCtx::anonymous(),
            )
            .await
            .unwrap_err();
        assert_eq!(err.kind, kind, "{chat:?} {account}");
        assert_eq!(err.field.as_deref(), field);
    }
    let err = gw
        .get_history(req(ChatRef::Group(-3), 5, None), CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(err.meta("group_id"), Some("-3"));
    let err = gw
        .get_history(
            HistoryRequest {
                account_id: "nobody".into(),
                ..req(ChatRef::Group(1), 1, None)
            },
            CallCtx::anonymous(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.meta("account_id"), Some("nobody"));

    for (group_id, account, kind) in [
        (0, "default", Kind::InvalidRequest),
        (-1, "default", Kind::InvalidRequest),
        (i64::MIN, "default", Kind::InvalidRequest),
        (5, "nobody", Kind::AccountNotConfigured),
        (5, "bare", Kind::AccountNotConfigured),
    ] {
        let err = gw
            .list_group_members(
                MembersRequest {
                    account_id: account.into(),
                    group_id,
                    no_cache: Some(true),
                    limit: 5,
                },
                CallCtx::anonymous(),
            )
            .await
            .unwrap_err();
        assert_eq!(err.kind, kind);
        if kind == Kind::InvalidRequest {
            assert_eq!(err.field.as_deref(), Some("group_id"));
        }
    }
    for account in ["nobody", "bare"] {
        let err = gw
            .list_groups(account, CallCtx::anonymous())
            .await
            .unwrap_err();
        assert_eq!(err.kind, Kind::AccountNotConfigured);
    }
    assert_eq!(fake.calls(), vec![]);
}

#[tokio::test]
async fn count_is_defaulted_and_clamped() {
    let (gw, fake, _guard) = gateway(fake());
    let cases = [
        (0, 20),
        (-5, 1),
        (1, 1),
        (100, 100),
        (101, 100),
        (1_000_000_000, 100),
        (i32::MIN, 1),
        (i32::MAX, 100),
    ];
    for (count, _) in cases {
        gw.get_history(
            req(ChatRef::Private(10001), count, None),
            CallCtx::anonymous(),
        )
        .await
        .unwrap();
    }
    let sent: Vec<u32> = fake
        .calls()
        .into_iter()
        .map(|c| match c {
            Call::History {
                count,
                chat,
                anchor,
            } => {
                assert_eq!((chat, anchor), (ChatRef::Private(10001), None));
                count
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(sent, cases.map(|c| c.1));
}

#[tokio::test]
async fn sorted_by_time_stably_whatever_the_peer_order() {
    let fake = fake();
    fake.set_history(|_, _, _| {
        Ok(HistoryPage {
            messages: vec![
                message(5, 10, 1),
                message(3, 5, 1),
                message(4, 10, 1),
                message(1, 1, 1),
                message(2, 5, 1),
            ],
            has_more: false,
        })
    });
    let (gw, _, _guard) = gateway(fake);
    let page = gw
        .get_history(req(ChatRef::Group(1), 10, None), CallCtx::anonymous())
        .await
        .unwrap();
    let ids: Vec<i64> = page.messages.iter().map(|m| m.message_id).collect();
    assert_eq!(ids, [1, 3, 2, 5, 4]);
    assert_eq!(page.next_anchor_message_id, None);
    assert_eq!(page.target, "group:1");
    assert_eq!(page.chat, ChatRef::Group(1));
    assert_eq!(
        page.rendered.lines().map(|l| &l[11..]).collect::<Vec<_>>(),
        [
            "u1(1): m1",
            "u1(1): m3",
            "u1(1): m2",
            "u1(1): m5",
            "u1(1): m4"
        ]
    );
}

#[tokio::test]
async fn keeps_the_newest_count_drops_the_anchor_and_sets_the_next_anchor() {
    let fake = fake();
    // A peer that ignores `count`, includes the anchor and answers new→old.
    fake.set_history(|_, _, anchor| {
        let top = anchor.unwrap_or(30);
        Ok(HistoryPage {
            messages: (1..=top).rev().map(|i| message(i, 1000 + i, 7)).collect(),
            has_more: false,
        })
    });
    let (gw, fake, _guard) = gateway(fake);
    let page = gw
        .get_history(req(ChatRef::Group(9), 10, Some(25)), CallCtx::anonymous())
        .await
        .unwrap();
    let ids: Vec<i64> = page.messages.iter().map(|m| m.message_id).collect();
    assert_eq!(ids, (15..=24).collect::<Vec<_>>());
    // Older messages were cut off, so there is a next page.
    assert_eq!(page.next_anchor_message_id, Some(15));
    assert_eq!(
        fake.calls(),
        vec![Call::History {
            chat: ChatRef::Group(9),
            count: 10,
            anchor: Some(25),
        }]
    );
}

#[tokio::test]
async fn next_anchor_follows_has_more() {
    for (has_more, n, want) in [
        (true, 3, Some(-30)),
        (false, 3, None),
        (true, 0, None),
        (false, 0, None),
    ] {
        let fake = fake();
        fake.set_history(move |_, _, _| {
            Ok(HistoryPage {
                // SnowLuma-style negative ids.
                messages: (1..=n).map(|i| message(-10 * i, 100 - i, 3)).collect(),
                has_more,
            })
        });
        let (gw, _, _guard) = gateway(fake);
        let page = gw
            .get_history(req(ChatRef::Private(3), 20, None), CallCtx::anonymous())
            .await
            .unwrap();
        assert_eq!(page.next_anchor_message_id, want, "{has_more} {n}");
        if n == 0 {
            assert_eq!(page.rendered, "（无历史消息）");
            assert!(page.messages.is_empty());
        }
    }
}

#[tokio::test]
async fn pages_through_a_long_chat_without_gap_or_duplicate() {
    // Equal times in runs, as the sandbox's group 20000003 has.
    // The fake answers new→old, so equal times arrive in reverse; the real
    // seq puts them back in order.
    let log: Vec<Message> = (0..300)
        .map(|i| message_with_seq(1_000_000 + i * 7, i + 1, 5000 + i / 3))
        .collect();
    let want: Vec<i64> = log.iter().map(|m| m.message_id).collect();
    let fake = fake();
    fake.set_history(paging(log));
    let (gw, fake, _guard) = gateway(fake);
    let mut anchor = None;
    let mut pages: Vec<Vec<i64>> = Vec::new();
    loop {
        let page = gw
            .get_history(
                req(ChatRef::Group(20000003), 40, anchor),
                CallCtx::anonymous(),
            )
            .await
            .unwrap();
        assert!(page.messages.len() <= 40);
        pages.push(page.messages.iter().map(|m| m.message_id).collect());
        match page.next_anchor_message_id {
            Some(next) => anchor = Some(next),
            None => break,
        }
    }
    let got: Vec<i64> = pages.into_iter().rev().flatten().collect();
    assert_eq!(got, want);
    assert_eq!(fake.calls().len(), 8);
}

#[tokio::test]
async fn peer_errors_pass_through() {
    let fake = fake();
    fake.set_history(|_, _, _| {
        Err(Error::new(
            Kind::HistoryUnsupported,
            "go-cqhttp has no private history",
        ))
    });
    let (gw, _, _guard) = gateway(fake);
    let err = gw
        .get_history(req(ChatRef::Private(5), 0, None), CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::HistoryUnsupported);
}

/// A fake whose every group has `n` members, each read's copy tagged with
/// its number in `title` (`call1`, `call2`, ...).
fn members_fake(n: i64) -> Arc<FakeApi> {
    let fake = fake();
    let members: Vec<Value> = (0..n)
        .map(|i| json!({"user_id": 10001 + i, "nickname": format!("成员{i}"), "role": if i == 0 { "owner" } else { "member" }}))
        .collect();
    let reads = AtomicUsize::new(0);
    fake.set_members_by(move |_| {
        let n = reads.fetch_add(1, Ordering::SeqCst) + 1;
        decode_members(
            members
                .iter()
                .map(|m| {
                    let mut m = m.clone();
                    m["title"] = json!(format!("call{n}"));
                    m
                })
                .collect(),
        )
    });
    fake
}

fn mreq(group_id: i64, no_cache: Option<bool>, limit: i32) -> MembersRequest {
    MembersRequest {
        account_id: String::new(),
        group_id,
        no_cache,
        limit,
    }
}

#[tokio::test]
async fn limit_is_defaulted_and_clamped() {
    // Cache off, so every call reaches the peer.
    let (gw, fake, _guard) = gateway_with(members_fake(600), account_config(&[], 0));
    for (limit, shown) in [
        (0, 100),
        (-5, 1),
        (1, 1),
        (100, 100),
        (101, 101),
        (500, 500),
        (501, 500),
        (1_000_000_000, 500),
        (i32::MIN, 1),
        (i32::MAX, 500),
    ] {
        let m = gw
            .list_group_members(mreq(7, None, limit), CallCtx::anonymous())
            .await
            .unwrap();
        assert_eq!(
            (m.total, m.shown(), m.members.len()),
            (600, shown, shown),
            "{limit}"
        );
        assert!(!m.from_cache);
        let lines: Vec<&str> = m.rendered.lines().collect();
        assert_eq!(lines.len(), shown + 1);
        assert_eq!(
            lines.last().copied(),
            Some(format!("（仅显示前 {shown} / 共 600 名成员）").as_str())
        );
    }
    assert_eq!(fake.calls().len(), 10);
}

#[tokio::test]
async fn members_render_like_the_seed() {
    let (gw, _, _guard) = gateway(members_fake(120));
    let m = gw
        .list_group_members(mreq(20000002, Some(true), 50), CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!((m.group_id, m.total, m.shown()), (20000002, 120, 50));
    let lines: Vec<&str> = m.rendered.lines().collect();
    assert_eq!(lines[0], "成员0(10001) — owner");
    assert_eq!(lines[50], "（仅显示前 50 / 共 120 名成员）");
    assert_eq!(lines.len(), 51);

    let (gw, _, _guard) = gateway(members_fake(3));
    let m = gw
        .list_group_members(mreq(1, None, 0), CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!((m.total, m.shown()), (3, 3));
    assert_eq!(m.rendered.lines().count(), 3);

    let (gw, _, _guard) = gateway(members_fake(0));
    let m = gw
        .list_group_members(mreq(1, None, 0), CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!((m.total, m.shown()), (0, 0));
    assert_eq!(m.rendered, "（该群暂无成员信息）");
}

fn title(m: &onebot_gateway_domain::read::members::Members) -> &str {
    &m.members[0].title
}

#[tokio::test(start_paused = true)]
async fn cache_hit_bypass_ttl_and_invalidation() {
    let (gw, fake, _guard) = gateway_with(members_fake(3), account_config(&[], 60));
    let ctx = CallCtx::anonymous();
    let get = |no_cache| gw.list_group_members(mreq(5, no_cache, 0), ctx.clone());

    let first = get(None).await.unwrap();
    assert!(!first.from_cache);
    assert_eq!(title(&first), "call1");
    // Hit: same list, same fetched_at, no call.
    let hit = get(None).await.unwrap();
    assert!(hit.from_cache);
    assert_eq!((title(&hit), hit.fetched_at), ("call1", first.fetched_at));
    let hit = get(Some(false)).await.unwrap();
    assert!(hit.from_cache);
    assert_eq!(fake.calls().len(), 1);

    // Bypass: reaches the peer with no_cache=true and refreshes the cache.
    let fresh = get(Some(true)).await.unwrap();
    assert!(!fresh.from_cache);
    assert_eq!(title(&fresh), "call2");
    let hit = get(None).await.unwrap();
    assert_eq!((hit.from_cache, title(&hit)), (true, "call2"));

    // TTL.
    tokio::time::advance(Duration::from_secs(59)).await;
    assert!(get(None).await.unwrap().from_cache);
    tokio::time::advance(Duration::from_secs(1)).await;
    let expired = get(None).await.unwrap();
    assert_eq!((expired.from_cache, title(&expired)), (false, "call3"));

    // Other groups and accounts are separate entries.
    gw.member_cache.invalidate("default", 6);
    gw.member_cache.invalidate("other", 5);
    assert!(get(None).await.unwrap().from_cache);
    gw.member_cache.invalidate("default", 5);
    let after = get(None).await.unwrap();
    assert_eq!((after.from_cache, title(&after)), (false, "call4"));

    // Member events and reconnects invalidate; other events do not.
    let events = [
        (
            InboundEvent::Poke {
                group_id: 5,
                user_id: 1,
                target_id: 2,
                time: 0,
            },
            true,
        ),
        (
            InboundEvent::MemberJoined {
                group_id: 5,
                user_id: 1,
                operator_id: 0,
                time: 0,
            },
            false,
        ),
        (
            InboundEvent::MemberLeft {
                group_id: 5,
                user_id: 1,
                operator_id: 0,
                sub_type: "leave".into(),
                time: 0,
            },
            false,
        ),
        (
            InboundEvent::CardChanged {
                group_id: 5,
                user_id: 1,
                card_new: "a".into(),
                card_old: "b".into(),
                time: 0,
            },
            false,
        ),
        (
            InboundEvent::MemberJoined {
                group_id: 6,
                user_id: 1,
                operator_id: 0,
                time: 0,
            },
            true,
        ),
        (
            InboundEvent::Connection {
                state: ConnState::Connected,
                detail: String::new(),
            },
            false,
        ),
        (
            InboundEvent::Connection {
                state: ConnState::Backoff,
                detail: String::new(),
            },
            true,
        ),
    ];
    for (event, still_cached) in events {
        get(None).await.unwrap();
        gw.member_cache.observe("default", &event);
        assert_eq!(
            get(None).await.unwrap().from_cache,
            still_cached,
            "{event:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn ttl_zero_disables_the_cache() {
    let (gw, fake, _guard) = gateway_with(members_fake(2), account_config(&[], 0));
    for _ in 0..3 {
        let m = gw
            .list_group_members(mreq(5, None, 0), CallCtx::anonymous())
            .await
            .unwrap();
        assert!(!m.from_cache);
    }
    assert_eq!(
        fake.calls(),
        vec![
            Call::Members {
                group_id: 5,
                no_cache: None
            };
            3
        ]
    );
}

#[tokio::test]
async fn no_cache_is_passed_only_when_set() {
    let (gw, fake, _guard) = gateway_with(members_fake(1), account_config(&[], 0));
    for no_cache in [None, Some(false), Some(true)] {
        gw.list_group_members(mreq(8, no_cache, 0), CallCtx::anonymous())
            .await
            .unwrap();
    }
    let sent: Vec<Option<bool>> = fake
        .calls()
        .into_iter()
        .map(|c| match c {
            Call::Members { no_cache, .. } => no_cache,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(sent, [None, Some(false), Some(true)]);
}

#[tokio::test]
async fn a_fetch_overtaken_by_an_invalidation_is_not_cached() {
    let release = Arc::new(Semaphore::new(0));
    let fake = members_fake(2);
    *fake.gate.lock().unwrap() = Some(release.clone());
    let (gw, fake, _guard) = gateway(fake);
    let gw = Arc::new(gw);
    let entered = fake.called.notified();
    let task = {
        let gw = gw.clone();
        tokio::spawn(async move {
            gw.list_group_members(mreq(5, None, 0), CallCtx::anonymous())
                .await
        })
    };
    entered.await;
    gw.member_cache.observe(
        "default",
        &InboundEvent::MemberJoined {
            group_id: 5,
            user_id: 9,
            operator_id: 0,
            time: 0,
        },
    );
    release.add_permits(1);
    assert!(!task.await.unwrap().unwrap().from_cache);
    // Not stored: the next read reaches the peer again.
    let entered = fake.called.notified();
    let next = tokio::spawn({
        let gw = gw.clone();
        async move {
            gw.list_group_members(mreq(5, None, 0), CallCtx::anonymous())
                .await
        }
    });
    entered.await;
    release.add_permits(1);
    let next = next.await.unwrap().unwrap();
    assert!(!next.from_cache);
    assert_eq!(fake.calls().len(), 2);
    // That one was stored.
    assert!(
        gw.list_group_members(mreq(5, None, 0), CallCtx::anonymous())
            .await
            .unwrap()
            .from_cache
    );
}

fn groups_fake() -> Arc<FakeApi> {
    let fake = fake();
    let groups = [
        json!({"group_id": 20000002, "group_name": "示例群", "member_count": 120, "max_member_count": 500}),
        json!({"group_id": "20000003", "group_name": "沙盒群", "member_count": 36, "max_member_count": 200}),
        json!({"group_name": "no id"}),
        json!({"group_id": 20000002, "group_name": "duplicate"}),
        json!({"group_id": 30000001, "group_name": "其他群", "member_count": 8}),
    ];
    fake.set_group_list(Some(groups.iter().filter_map(decode_group).collect()));
    fake
}

fn ids(groups: &[GroupEntry]) -> Vec<(i64, bool, bool)> {
    groups
        .iter()
        .map(|g| (g.group_id, g.whitelisted, g.joined))
        .collect()
}

#[tokio::test]
async fn groups_follow_the_whitelist() {
    let (gw, fake, _guard) = gateway_with(
        groups_fake(),
        account_config(&[20000003, 40000004, 20000002, 20000003], 60),
    );
    let groups = gw.list_groups("", CallCtx::anonymous()).await.unwrap();
    assert_eq!(
        ids(&groups.groups),
        [
            (20000003, true, true),
            (40000004, true, false),
            (20000002, true, true)
        ]
    );
    assert_eq!(groups.groups[2].group_name, "示例群");
    assert_eq!(groups.groups[2].max_member_count, 500);
    assert!(groups.groups[1].raw.is_none());
    assert_eq!(
        groups.rendered,
        "沙盒群(20000003) — 36 名成员\n?(40000004) — 未加入\n示例群(20000002) — 120 名成员"
    );
    assert_eq!(fake.calls(), vec![Call::Groups]);
}

#[tokio::test]
async fn without_a_whitelist_every_group_is_listed() {
    let (gw, _, _guard) = gateway(groups_fake());
    let groups = gw
        .list_groups("default", CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!(
        ids(&groups.groups),
        [
            (20000002, false, true),
            (20000003, false, true),
            (30000001, false, true)
        ]
    );
    assert_eq!(groups.groups[0].group_name, "示例群");

    let (gw, _, _guard) = gateway(fake());
    let groups = gw.list_groups("", CallCtx::anonymous()).await.unwrap();
    assert!(groups.groups.is_empty());
    assert_eq!(groups.rendered, "（暂无可用的群）");
}

fn quoting(id: i64, time: i64, quoted: i64) -> Message {
    decode_message(
        &json!({"message_id": id, "time": time, "sender": {"user_id": 2, "nickname": "李四", "card": "管理员李四"},
                "message": [{"type": "reply", "data": {"id": quoted.to_string()}}, {"type": "text", "data": {"text": "收到"}}]}),
        Some(ChatRef::Group(1)),
    )
    .unwrap()
}

fn quoted_id(m: &Message) -> Option<i64> {
    m.segments.iter().find_map(|s| match s {
        onebot_gateway_domain::model::Segment::Reply {
            quoted: Some(q), ..
        } => Some(q.message_id),
        _ => None,
    })
}

#[tokio::test]
async fn quotes_resolve_from_the_page_then_the_peer_and_render() {
    // Page: 10 (quoted on the page), 11 quotes 10, 12 quotes 5 (only the
    // peer has it), 13 quotes 99 (nobody has it).
    let log = vec![
        message(10, 100, 1),
        quoting(11, 101, 10),
        quoting(12, 102, 5),
        quoting(13, 103, 99),
    ];
    let fake = fake();
    fake.set_history(paging(log));
    let mut old = message(5, 50, 3);
    old.segments = vec![onebot_gateway_domain::model::Segment::Text(
        "这是一条很长很长的旧消息，用来看引用文本在三十个字符处被截断的样子".into(),
    )];
    fake.store(old);
    let (gw, fake, _guard) = gateway(fake);
    let page = gw
        .get_history(req(ChatRef::Group(1), 10, None), CallCtx::anonymous())
        .await
        .unwrap();
    let quoted: Vec<Option<i64>> = page.messages.iter().map(quoted_id).collect();
    assert_eq!(quoted, [None, Some(10), Some(5), None]);
    // Only the quote not on the page reached the peer (and the unknown one).
    let lookups: Vec<Call> = fake
        .calls()
        .into_iter()
        .filter(|c| matches!(c, Call::GetMessage { .. }))
        .collect();
    assert_eq!(
        lookups,
        [
            Call::GetMessage { message_id: 5 },
            Call::GetMessage { message_id: 99 }
        ]
    );
    let lines: Vec<&str> = page.rendered.lines().collect();
    assert!(lines[1].ends_with("[回复 u1: m10]收到"), "{}", lines[1]);
    assert!(
        lines[2].ends_with(
            "[回复 u3: 这是一条很长很长的旧消息，用来看引用文本在三十个字符处被截断…]收到"
        ),
        "{}",
        lines[2]
    );
    assert!(lines[3].ends_with("[回复]收到"), "{}", lines[3]);
    // `text` never shows the quote.
    assert_eq!(
        onebot_gateway_domain::render::segments(&page.messages[1].segments),
        "收到"
    );
    // A second read asks the peer for nothing new: found and missing ids are
    // cached.
    gw.get_history(req(ChatRef::Group(1), 10, None), CallCtx::anonymous())
        .await
        .unwrap();
    let lookups = fake
        .calls()
        .iter()
        .filter(|c| matches!(c, Call::GetMessage { .. }))
        .count();
    assert_eq!(lookups, 2);
}

#[tokio::test]
async fn a_quote_in_another_chat_is_not_shown() {
    let log = vec![quoting(11, 101, 5)];
    let fake = fake();
    fake.set_history(paging(log));
    let mut elsewhere = message(5, 50, 3);
    elsewhere.chat = ChatRef::Group(2);
    fake.store(elsewhere);
    let (gw, _fake, _guard) = gateway(fake);
    let page = gw
        .get_history(req(ChatRef::Group(1), 10, None), CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!(quoted_id(&page.messages[0]), None);
    assert!(page.rendered.ends_with("[回复]收到"));
}

#[tokio::test(start_paused = true)]
async fn quote_lookups_stop_at_the_budget() {
    let fake = fake();
    fake.set_history(paging(vec![quoting(11, 101, 5)]));
    *fake.lookup_gate.lock().unwrap() = Some(Arc::new(Semaphore::new(0)));
    fake.store(message(5, 50, 3));
    let (gw, _fake, _guard) = gateway(fake);
    // The look-up never answers: the page comes back after the budget, the
    // quote unresolved.
    let started = tokio::time::Instant::now();
    let page = gw
        .get_history(req(ChatRef::Group(1), 10, None), CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!(started.elapsed(), onebot_gateway_domain::quotes::BUDGET);
    assert_eq!(quoted_id(&page.messages[0]), None);
}

#[tokio::test]
async fn get_message_checks_the_id_then_the_scope_and_resolves_its_quote() {
    let fake = fake();
    fake.store(message(5, 50, 3));
    fake.store(quoting(11, 101, 5));
    let (gw, fake, _guard) = gateway(fake);
    let err = gw
        .get_message("", 0, CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(
        (err.kind, err.field.as_deref()),
        (Kind::InvalidRequest, Some("message_id"))
    );
    assert!(fake.calls().is_empty());
    let view = gw.get_message("", 11, CallCtx::anonymous()).await.unwrap();
    assert_eq!(quoted_id(&view.message), Some(5));
    assert!(
        view.rendered.ends_with("管理员李四(2): [回复 u3: m5]收到"),
        "{}",
        view.rendered
    );
    let err = gw
        .get_message("", 404, CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::MessageNotFound);
    assert_eq!(err.meta("message_id"), Some("404"));
    assert!(err.message.contains("404"), "{}", err.message);
    // A token limited to another group may not read it.
    let scoped =
        onebot_gateway_domain::caller::Caller::token(onebot_gateway_domain::caller::TokenScope {
            name: "t".into(),
            accounts: None,
            write: false,
            groups: Some([9].into_iter().collect()),
            users: None,
        });
    let err = gw
        .get_message("", 11, CallCtx::new(scoped, Deadline::NONE))
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::TokenScope);
}

#[tokio::test]
async fn forwards_open_with_nested_bundles_left_as_segments() {
    let fake = fake();
    let mut inner = message(0, 60, 4);
    inner.segments = vec![onebot_gateway_domain::model::Segment::Forward { id: "inner".into() }];
    fake.store_forward("outer", vec![message(0, 50, 3), inner]);
    let (gw, fake, _guard) = gateway(fake);
    let err = gw
        .get_forward("", "  ", CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("forward_id"));
    let err = gw
        .get_forward("", &"x".repeat(257), CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(err.field.as_deref(), Some("forward_id"));
    assert!(fake.calls().is_empty());
    let f = gw
        .get_forward("", " outer ", CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!(f.messages.len(), 2);
    assert!(f.rendered.ends_with("u4(4): [合并转发]"), "{}", f.rendered);
    assert_eq!(
        fake.calls(),
        [Call::Forward {
            forward_id: "outer".into()
        }]
    );
    let err = gw
        .get_forward("", "gone", CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(
        (err.kind, err.meta("forward_id")),
        (Kind::MessageNotFound, Some("gone"))
    );
}

fn online(fake: &FakeApi) {
    fake.update_status(|s| {
        s.online = true;
        s.state = ConnState::Connected;
    });
}

#[tokio::test]
async fn a_group_the_bot_is_not_in_is_group_not_found_before_any_read() {
    let (gw, fake, _guard) = gateway(groups_fake());
    online(&fake);
    let history = |group| req(ChatRef::Group(group), 5, None);
    let members = |group_id| MembersRequest {
        group_id,
        ..MembersRequest::default()
    };
    let e = gw
        .get_history(history(40000004), CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::GroupNotFound);
    assert_eq!(e.meta("group_id"), Some("40000004"));
    let e = gw
        .list_group_members(members(40000004), CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::GroupNotFound);
    // One read of the group list answered both (the second is within the
    // re-read interval); nothing else reached the peer.
    assert_eq!(fake.calls(), vec![Call::Groups]);
    // A joined group, and a private chat, are read as before.
    gw.get_history(history(20000003), CallCtx::anonymous())
        .await
        .unwrap();
    gw.get_history(req(ChatRef::Private(5), 5, None), CallCtx::anonymous())
        .await
        .unwrap();
    gw.list_group_members(members(20000002), CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!(fake.calls().len(), 4);
    assert!(!fake.calls().contains(&Call::History {
        chat: ChatRef::Group(40000004),
        count: 5,
        anchor: None
    }));
    // Invalid input is refused before the group list is asked.
    let (gw, fake, _guard) = gateway(groups_fake());
    online(&fake);
    let e = gw
        .list_group_members(members(-1), CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::InvalidRequest);
    assert!(fake.calls().is_empty());
}

#[tokio::test]
async fn list_groups_fills_the_joined_groups() {
    let (gw, fake, _guard) = gateway(groups_fake());
    online(&fake);
    gw.list_groups("", CallCtx::anonymous()).await.unwrap();
    gw.list_group_members(
        MembersRequest {
            group_id: 30000001,
            ..MembersRequest::default()
        },
        CallCtx::anonymous(),
    )
    .await
    .unwrap();
    assert_eq!(
        fake.calls(),
        vec![
            Call::Groups,
            Call::Members {
                group_id: 30000001,
                no_cache: None
            }
        ]
    );
}

#[tokio::test]
async fn offline_without_a_group_list_reads_fail_as_before() {
    let (gw, fake, _guard) = gateway(groups_fake());
    // The fake is offline; its history answers anyway, as a peer's
    // transport would refuse: the group check adds nothing then.
    gw.get_history(req(ChatRef::Group(40000004), 5, None), CallCtx::anonymous())
        .await
        .unwrap();
    assert_eq!(
        fake.calls(),
        vec![Call::History {
            chat: ChatRef::Group(40000004),
            count: 5,
            anchor: None
        }]
    );
}
