//! One suite for both governance stores: SQLite always, PostgreSQL (a
//! database of its own per test) when `ONEBOT_GATEWAY_TEST_POSTGRES` names
//! a server, over TLS with `ONEBOT_GATEWAY_TEST_POSTGRES_CA` when set;
//! without it the PostgreSQL runs print that they were skipped.

use std::sync::Arc;

use super::DEFAULT_LIMIT;
use super::postgres::PgGovernance;
use super::sqlite::SqliteGovernance;
use onebot_gateway_domain::policy::store::{
    ApprovalRecord, ApprovalState, ApprovalUpdate, AuditDecision, AuditQuery, AuditRecord,
    GovernanceStore,
};

const T0: i64 = 1_790_000_000_000;

/// A store under test, and how to open a second handle to its data.
struct Subject {
    store: Arc<dyn GovernanceStore>,
    target: Target,
}

enum Target {
    Sqlite(tempfile::TempDir),
    Postgres(String),
}

impl Subject {
    /// Another handle to the same records (another connection).
    async fn reopen(&self) -> Arc<dyn GovernanceStore> {
        match &self.target {
            Target::Sqlite(dir) => Arc::new(SqliteGovernance::open(dir.path()).unwrap()),
            Target::Postgres(url) => Arc::new(
                PgGovernance::open(url, crate::tests::test_tls())
                    .await
                    .unwrap(),
            ),
        }
    }
}

fn sqlite() -> Subject {
    let dir = tempfile::tempdir().unwrap();
    Subject {
        store: Arc::new(SqliteGovernance::open(dir.path()).unwrap()),
        target: Target::Sqlite(dir),
    }
}

/// A fresh PostgreSQL database for one test, or `None` (with a notice)
/// when no server is configured.
async fn postgres(test: &str) -> Option<Subject> {
    let url = crate::tests::fresh_database(&format!("governance {test}"), "onebot_gov_test", test)
        .await?
        .to_string();
    Some(Subject {
        store: Arc::new(
            PgGovernance::open(&url, crate::tests::test_tls())
                .await
                .unwrap(),
        ),
        target: Target::Postgres(url),
    })
}

/// Runs `suite` on SQLite, then on PostgreSQL when one is configured.
macro_rules! both {
    ($name:ident, $suite:ident) => {
        mod $name {
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                $suite(super::sqlite()).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                if let Some(s) = super::postgres(stringify!($name)).await {
                    $suite(s).await;
                }
            }
        }
    };
}

/// An approval with every field set.
fn full(id: &str, created_ms: i64) -> ApprovalRecord {
    ApprovalRecord {
        id: id.to_string(),
        account_id: "acct".into(),
        created_ms,
        expires_ms: created_ms + 600_000,
        state: ApprovalState::Pending,
        action: "send,mention_all".into(),
        chat: "group:20000003".into(),
        requester_id: Some(10001),
        role: "member".into(),
        token: Some("agent".into()),
        rule: 2,
        summary: "发送 @全体成员".into(),
        payload: r#"{"action":"send","text":"明天开会"}"#.into(),
        decided_by: Some("qq:10002".into()),
        decided_ms: Some(created_ms + 5),
        result: Some(r#"{"message_ids":[1,2]}"#.into()),
        owner_message_ids: vec![30, 10, 20],
    }
}

/// An approval with every optional field absent.
fn bare(id: &str, account: &str, created_ms: i64, state: ApprovalState) -> ApprovalRecord {
    ApprovalRecord {
        id: id.to_string(),
        account_id: account.into(),
        created_ms,
        expires_ms: created_ms + 1000,
        state,
        action: "send".into(),
        chat: "private:10001".into(),
        requester_id: None,
        role: "none".into(),
        token: None,
        rule: 0,
        summary: String::new(),
        payload: "{}".into(),
        decided_by: None,
        decided_ms: None,
        result: None,
        owner_message_ids: Vec::new(),
    }
}

fn record(time_ms: i64, account: &str, action: &str, chat: &str) -> AuditRecord {
    AuditRecord {
        time_ms,
        account_id: account.into(),
        role: "none".into(),
        action: action.into(),
        chat: chat.into(),
        summary: format!("{action} at {time_ms}"),
        ..AuditRecord::default()
    }
}

fn update(state: ApprovalState) -> ApprovalUpdate {
    ApprovalUpdate {
        state,
        decided_by: None,
        decided_ms: None,
        result: None,
    }
}

fn ids(records: &[AuditRecord]) -> Vec<i64> {
    records.iter().map(|r| r.id).collect()
}

fn query() -> AuditQuery {
    AuditQuery {
        limit: 100,
        ..AuditQuery::default()
    }
}

async fn every_field_round_trips_and_absent_ones_stay_null(s: Subject) {
    let a = full("A1B2C3", T0);
    assert!(s.store.insert_approval(&a).await.unwrap());
    assert_eq!(s.store.get_approval("A1B2C3").await.unwrap(), Some(a));
    let b = bare("B2", "acct", T0, ApprovalState::Pending);
    assert!(s.store.insert_approval(&b).await.unwrap());
    assert_eq!(s.store.get_approval("B2").await.unwrap(), Some(b));
    assert_eq!(s.store.get_approval("a1b2c3").await.unwrap(), None);

    let full_audit = AuditRecord {
        id: 0,
        time_ms: T0,
        account_id: "acct".into(),
        token: Some("agent".into()),
        requester_id: Some(10001),
        role: "admin".into(),
        action: "send,mention_all".into(),
        chat: "group:20000003".into(),
        decision: Some(AuditDecision::Denied),
        rule: Some(3),
        approval_id: Some("A1B2C3".into()),
        summary: "发送".into(),
        decided_by: Some("qq:10002".into()),
        error: Some("POLICY_DENIED".into()),
    };
    let id = s.store.append_audit(full_audit.clone()).await.unwrap();
    let empty = record(T0 + 1, "acct", "send", "");
    let id2 = s.store.append_audit(empty.clone()).await.unwrap();
    assert!(id2 > id && id > 0, "{id} {id2}");
    let listed = s.store.list_audit(query()).await.unwrap();
    assert_eq!(
        listed,
        vec![
            AuditRecord { id: id2, ..empty },
            AuditRecord { id, ..full_audit }
        ]
    );
    for decision in AuditDecision::ALL {
        let mut r = record(T0 + 2, "decisions", "send", "");
        r.decision = Some(decision);
        let id = s.store.append_audit(r.clone()).await.unwrap();
        let q = AuditQuery {
            account_id: Some("decisions".into()),
            decision: Some(decision),
            ..query()
        };
        assert_eq!(
            s.store.list_audit(q).await.unwrap(),
            vec![AuditRecord { id, ..r }]
        );
    }
}
both!(
    round_trip,
    every_field_round_trips_and_absent_ones_stay_null
);

async fn a_taken_id_is_refused_and_nothing_is_stored(s: Subject) {
    let first = bare("DUP", "acct", T0, ApprovalState::Pending);
    assert!(s.store.insert_approval(&first).await.unwrap());
    let second = full("DUP", T0 + 99);
    assert!(!s.store.insert_approval(&second).await.unwrap());
    assert_eq!(s.store.get_approval("DUP").await.unwrap(), Some(first));
    assert_eq!(
        s.store.list_approvals(None, None, 0).await.unwrap().len(),
        1
    );
}
both!(duplicate, a_taken_id_is_refused_and_nothing_is_stored);

async fn a_transition_is_a_compare_and_set(s: Subject) {
    let a = bare("CAS1", "acct", T0, ApprovalState::Pending);
    s.store.insert_approval(&a).await.unwrap();
    // From the wrong state, or of no such approval: nothing changes.
    let wrong = ApprovalUpdate {
        state: ApprovalState::Executed,
        decided_by: Some("qq:1".into()),
        decided_ms: Some(T0 + 1),
        result: Some("{}".into()),
    };
    assert!(
        !s.store
            .transition("CAS1", ApprovalState::Approved, wrong.clone())
            .await
            .unwrap()
    );
    assert!(
        !s.store
            .transition("NONE", ApprovalState::Pending, wrong)
            .await
            .unwrap()
    );
    assert_eq!(s.store.get_approval("CAS1").await.unwrap(), Some(a.clone()));
    // The fields set are written, the others kept.
    let approve = ApprovalUpdate {
        state: ApprovalState::Approved,
        decided_by: Some("qq:10002".into()),
        decided_ms: Some(T0 + 10),
        result: None,
    };
    assert!(
        s.store
            .transition("CAS1", ApprovalState::Pending, approve)
            .await
            .unwrap()
    );
    let execute = ApprovalUpdate {
        result: Some(r#"{"message_ids":[7]}"#.into()),
        ..update(ApprovalState::Executed)
    };
    assert!(
        s.store
            .transition("CAS1", ApprovalState::Approved, execute)
            .await
            .unwrap()
    );
    let got = s.store.get_approval("CAS1").await.unwrap().unwrap();
    assert_eq!(
        got,
        ApprovalRecord {
            state: ApprovalState::Executed,
            decided_by: Some("qq:10002".into()),
            decided_ms: Some(T0 + 10),
            result: Some(r#"{"message_ids":[7]}"#.into()),
            ..a
        }
    );
}
both!(cas, a_transition_is_a_compare_and_set);

async fn of_racing_transitions_from_pending_exactly_one_wins(s: Subject) {
    let other = s.reopen().await;
    for round in 0..20 {
        let id = format!("RACE{round}");
        s.store
            .insert_approval(&bare(&id, "acct", T0, ApprovalState::Pending))
            .await
            .unwrap();
        // Two handles (two connections), several tasks each, all released
        // at once.
        let barrier = Arc::new(tokio::sync::Barrier::new(8));
        let mut tasks = Vec::new();
        for i in 0..8 {
            let store = if i % 2 == 0 {
                s.store.clone()
            } else {
                other.clone()
            };
            let (id, barrier) = (id.clone(), barrier.clone());
            let to = if i % 3 == 0 {
                ApprovalState::Rejected
            } else {
                ApprovalState::Approved
            };
            tasks.push(tokio::spawn(async move {
                barrier.wait().await;
                let update = ApprovalUpdate {
                    decided_by: Some(format!("qq:{i}")),
                    ..update(to)
                };
                let won = store
                    .transition(&id, ApprovalState::Pending, update)
                    .await
                    .unwrap();
                (won, i, to)
            }));
        }
        let mut winners = Vec::new();
        for t in tasks {
            let (won, i, to) = t.await.unwrap();
            if won {
                winners.push((i, to));
            }
        }
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        let (i, to) = winners[0];
        let got = s.store.get_approval(&id).await.unwrap().unwrap();
        assert_eq!(
            (got.state, got.decided_by),
            (to, Some(format!("qq:{i}"))),
            "the winner's update is the one stored"
        );
    }
}
both!(race, of_racing_transitions_from_pending_exactly_one_wins);

async fn owner_messages_keep_their_order(s: Subject) {
    s.store
        .insert_approval(&bare("OWN", "acct", T0, ApprovalState::Pending))
        .await
        .unwrap();
    s.store
        .set_owner_messages("OWN", &[900, -3, 5, 5_000_000_000])
        .await
        .unwrap();
    let got = s.store.get_approval("OWN").await.unwrap().unwrap();
    assert_eq!(got.owner_message_ids, vec![900, -3, 5, 5_000_000_000]);
    s.store.set_owner_messages("OWN", &[]).await.unwrap();
    let got = s.store.get_approval("OWN").await.unwrap().unwrap();
    assert!(got.owner_message_ids.is_empty());
    // Of no such approval: nothing happens.
    s.store.set_owner_messages("NONE", &[1]).await.unwrap();
    assert_eq!(s.store.get_approval("NONE").await.unwrap(), None);
}
both!(owner_messages, owner_messages_keep_their_order);

async fn approvals_list_newest_first_by_state_and_account(s: Subject) {
    use ApprovalState::*;
    let rows = [
        ("P1", "a", T0, Pending),
        ("P2", "b", T0 + 10, Pending),
        ("X1", "a", T0 + 20, Executed),
        ("P3", "a", T0 + 20, Pending),
        ("R1", "b", T0 + 30, Rejected),
    ];
    for (id, account, created, state) in rows {
        s.store
            .insert_approval(&bare(id, account, created, state))
            .await
            .unwrap();
    }
    let list = |state: Option<ApprovalState>, account: Option<&'static str>, limit: u32| {
        let store = s.store.clone();
        async move {
            store
                .list_approvals(state, account, limit)
                .await
                .unwrap()
                .into_iter()
                .map(|a| a.id)
                .collect::<Vec<_>>()
        }
    };
    // Created at the same time: the greater id first.
    assert_eq!(list(None, None, 0).await, ["R1", "X1", "P3", "P2", "P1"]);
    assert_eq!(list(None, None, 2).await, ["R1", "X1"]);
    assert_eq!(list(Some(Pending), None, 10).await, ["P3", "P2", "P1"]);
    assert_eq!(list(Some(Pending), Some("a"), 10).await, ["P3", "P1"]);
    assert_eq!(list(None, Some("b"), 10).await, ["R1", "P2"]);
    assert!(list(Some(Failed), None, 10).await.is_empty());
    assert!(list(None, Some("c"), 10).await.is_empty());
    // Lists leave the payload out; the approval itself has it.
    let listed = s.store.list_approvals(None, None, 0).await.unwrap();
    assert!(listed.iter().all(|a| a.payload.is_empty()), "{listed:?}");
    let one = s.store.get_approval("P1").await.unwrap().unwrap();
    assert!(!one.payload.is_empty(), "{one:?}");
}
both!(
    list_approvals,
    approvals_list_newest_first_by_state_and_account
);

async fn audit_filters_select_and_before_id_pages_newest_first(s: Subject) {
    let mut all = Vec::new();
    let specs = [
        (T0, "a", "send", "group:1", Some(AuditDecision::Allowed)),
        (
            T0 + 10,
            "a",
            "send,mention_all",
            "group:1",
            Some(AuditDecision::Pending),
        ),
        (
            T0 + 20,
            "b",
            "recall",
            "group:2",
            Some(AuditDecision::Denied),
        ),
        (T0 + 30, "a", "mention_allx,send_file", "private:9", None),
        (
            T0 + 40,
            "a",
            "mention",
            "group:1",
            Some(AuditDecision::Denied),
        ),
        (
            T0 + 40,
            "b",
            "kick,mention_all",
            "group:2",
            Some(AuditDecision::Approved),
        ),
    ];
    for (time, account, action, chat, decision) in specs {
        let r = AuditRecord {
            decision,
            ..record(time, account, action, chat)
        };
        let id = s.store.append_audit(r.clone()).await.unwrap();
        all.push(AuditRecord { id, ..r });
    }
    let ordered: Vec<i64> = all.iter().rev().map(|r| r.id).collect();
    let pick = |is: &[usize]| -> Vec<i64> { is.iter().rev().map(|&i| all[i].id).collect() };
    let list = |q: AuditQuery| {
        let store = s.store.clone();
        async move { ids(&store.list_audit(q).await.unwrap()) }
    };
    assert_eq!(list(query()).await, ordered);
    assert_eq!(
        s.store.list_audit(query()).await.unwrap(),
        all.iter().rev().cloned().collect::<Vec<_>>()
    );
    let q = |f: fn(&mut AuditQuery)| {
        let mut q = query();
        f(&mut q);
        q
    };
    assert_eq!(
        list(q(|q| q.account_id = Some("b".into()))).await,
        pick(&[2, 5])
    );
    assert_eq!(
        list(q(|q| q.since_ms = Some(T0 + 20))).await,
        pick(&[2, 3, 4, 5])
    );
    assert_eq!(list(q(|q| q.until_ms = Some(T0 + 20))).await, pick(&[0, 1]));
    assert_eq!(
        list(q(|q| {
            q.since_ms = Some(T0 + 10);
            q.until_ms = Some(T0 + 40);
        }))
        .await,
        pick(&[1, 2, 3])
    );
    // One action name exactly: never a part of one, never a `_` wildcard.
    assert_eq!(
        list(q(|q| q.action = Some("mention_all".into()))).await,
        pick(&[1, 5])
    );
    assert_eq!(
        list(q(|q| q.action = Some("send".into()))).await,
        pick(&[0, 1])
    );
    assert_eq!(
        list(q(|q| q.action = Some("mention".into()))).await,
        pick(&[4])
    );
    assert_eq!(
        list(q(|q| q.action = Some("send_file".into()))).await,
        pick(&[3])
    );
    assert!(
        list(q(|q| q.action = Some("mention%".into())))
            .await
            .is_empty()
    );
    assert!(
        list(q(|q| q.action = Some("mentionXall".into())))
            .await
            .is_empty()
    );
    assert!(
        list(q(|q| q.action = Some("send,mention_all".into())))
            .await
            .is_empty()
    );
    assert_eq!(
        list(q(|q| q.chat = Some("group:1".into()))).await,
        pick(&[0, 1, 4])
    );
    assert_eq!(
        list(q(|q| q.decision = Some(AuditDecision::Denied))).await,
        pick(&[2, 4])
    );
    assert_eq!(
        list(q(|q| {
            q.account_id = Some("a".into());
            q.chat = Some("group:1".into());
            q.decision = Some(AuditDecision::Denied);
        }))
        .await,
        pick(&[4])
    );
    // Pages of two by before_id.
    let mut pages = Vec::new();
    let mut before = None;
    loop {
        let page = list(AuditQuery {
            before_id: before,
            limit: 2,
            ..AuditQuery::default()
        })
        .await;
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 2);
        before = page.last().copied();
        pages.push(page);
    }
    assert_eq!(pages.len(), 3);
    assert_eq!(pages.concat(), ordered);
    // A page token combined with a filter.
    assert_eq!(
        list(q(|q| q.account_id = Some("a".into())))
            .await
            .into_iter()
            .filter(|&id| id < all[3].id)
            .collect::<Vec<_>>(),
        list(AuditQuery {
            account_id: Some("a".into()),
            before_id: Some(all[3].id),
            ..query()
        })
        .await
    );
}
both!(
    list_audit,
    audit_filters_select_and_before_id_pages_newest_first
);

async fn a_limit_of_zero_lists_the_default_number(s: Subject) {
    for i in 0..(DEFAULT_LIMIT as i64 + 5) {
        s.store
            .append_audit(record(T0 + i, "acct", "send", ""))
            .await
            .unwrap();
    }
    let got = s.store.list_audit(AuditQuery::default()).await.unwrap();
    assert_eq!(got.len(), DEFAULT_LIMIT as usize);
    assert_eq!(
        got[0].time_ms,
        T0 + DEFAULT_LIMIT as i64 + 4,
        "newest first"
    );
    let two = s
        .store
        .list_audit(AuditQuery {
            limit: 2,
            ..AuditQuery::default()
        })
        .await
        .unwrap();
    assert_eq!(two.len(), 2);
}
both!(limit, a_limit_of_zero_lists_the_default_number);

async fn prunes_delete_old_records_and_settled_approvals_only(s: Subject) {
    let mut kept = Vec::new();
    for i in 0..6 {
        let r = record(T0 + i * 10, "acct", "send", "");
        let id = s.store.append_audit(r.clone()).await.unwrap();
        if i >= 3 {
            kept.push(id);
        }
    }
    assert_eq!(s.store.prune_audit(T0 + 30).await.unwrap(), 3);
    kept.reverse();
    assert_eq!(ids(&s.store.list_audit(query()).await.unwrap()), kept);
    assert_eq!(s.store.prune_audit(T0 + 30).await.unwrap(), 0);
    // Ids are never reused after a prune.
    let next = s
        .store
        .append_audit(record(T0 + 100, "acct", "send", ""))
        .await
        .unwrap();
    assert!(next > kept[0]);

    for (i, state) in ApprovalState::ALL.into_iter().enumerate() {
        for (suffix, created) in [("OLD", T0), ("NEW", T0 + 1000)] {
            let id = format!("{suffix}{i}");
            s.store
                .insert_approval(&bare(&id, "acct", created, state))
                .await
                .unwrap();
        }
    }
    assert_eq!(s.store.prune_approvals(T0 + 1000).await.unwrap(), 4);
    let mut left: Vec<String> = s
        .store
        .list_approvals(None, None, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.id)
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "NEW0", "NEW1", "NEW2", "NEW3", "NEW4", "NEW5", "OLD0", "OLD1"
        ]
    );
    assert_eq!(s.store.prune_approvals(T0 + 1000).await.unwrap(), 0);
}
both!(prune, prunes_delete_old_records_and_settled_approvals_only);

async fn the_records_survive_a_reopen(s: Subject) {
    let a = full("KEEP", T0);
    s.store.insert_approval(&a).await.unwrap();
    let id = s
        .store
        .append_audit(record(T0, "acct", "send", "group:1"))
        .await
        .unwrap();
    let Subject { store, target } = s;
    drop(store);
    let s = Subject {
        store: Arc::new(SqliteGovernance::open(dir_of(&target)).unwrap()),
        target,
    };
    assert_eq!(s.store.get_approval("KEEP").await.unwrap(), Some(a));
    assert_eq!(ids(&s.store.list_audit(query()).await.unwrap()), vec![id]);
    let next = s
        .store
        .append_audit(record(T0 + 1, "acct", "send", ""))
        .await
        .unwrap();
    assert!(next > id);
}

fn dir_of(target: &Target) -> &std::path::Path {
    match target {
        Target::Sqlite(dir) => dir.path(),
        Target::Postgres(_) => unreachable!("a SQLite subject"),
    }
}

#[tokio::test]
async fn sqlite_records_survive_a_reopen() {
    the_records_survive_a_reopen(sqlite()).await;
}

#[tokio::test]
async fn the_stores_describe_themselves_without_credentials() {
    let s = sqlite();
    let path = dir_of(&s.target).join("governance.sqlite3");
    assert_eq!(s.store.describe(), format!("sqlite {}", path.display()));
    assert!(std::fs::metadata(&path).unwrap().is_file());
    assert_eq!(
        crate::pg::describe_url("postgres://user:secret@db.example:5433/gw", "x"),
        "postgres db.example:5433/gw"
    );
    assert_eq!(
        crate::pg::describe_url("postgres://user:secret@db.example/gw", "x"),
        "postgres db.example:5432/gw"
    );
    if let Some(s) = postgres("describe").await {
        let described = s.store.describe();
        assert!(described.starts_with("postgres 127.0.0.1:"), "{described}");
        assert!(!described.contains('@'), "{described}");
    }
}

#[tokio::test]
async fn open_picks_postgres_when_the_url_is_set_even_with_the_archive_off() {
    let dir = tempfile::tempdir().unwrap();
    let config = onebot_gateway_config::ArchiveConfig {
        enabled: false,
        ..Default::default()
    };
    let store = crate::open::governance(&config, dir.path()).await.unwrap();
    assert!(
        store.describe().starts_with("sqlite "),
        "{}",
        store.describe()
    );
    let Some(s) = postgres("open").await else {
        return;
    };
    let Target::Postgres(url) = &s.target else {
        unreachable!()
    };
    let config = onebot_gateway_config::ArchiveConfig {
        enabled: false,
        url: Some(onebot_gateway_config::Secret::new(url.clone())),
        ca_file: std::env::var_os("ONEBOT_GATEWAY_TEST_POSTGRES_CA").map(Into::into),
        ..Default::default()
    };
    let store = crate::open::governance(&config, dir.path()).await.unwrap();
    assert!(
        store.describe().starts_with("postgres "),
        "{}",
        store.describe()
    );
    store
        .insert_approval(&bare("OPEN", "acct", T0, ApprovalState::Pending))
        .await
        .unwrap();
    assert!(s.store.get_approval("OPEN").await.unwrap().is_some());
}
