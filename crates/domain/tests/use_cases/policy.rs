//! Governed actions: the requester's role from the member list, rules that
//! refuse or hold an action, approvals answered by an owner's private
//! message, and the audit trail of every decision.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use onebot_gateway_config::{AccountConfig, Approval, Config, PolicyRule};
use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::call::CallCtx;
use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::model::{ChatRef, GroupMember, InboundEvent, Message};
use onebot_gateway_domain::policy::OnBehalfOf;
use onebot_gateway_domain::policy::store::{ApprovalState, AuditDecision, AuditQuery};
use onebot_gateway_domain::ports::EventSink;
use onebot_gateway_domain::write::send::SendRequest;
use onebot_gateway_onebot::Flavor;
use onebot_gateway_testkit::{Call, FakeApi};

const G: i64 = 20_000_003;
const OWNER: i64 = 9_001;
const ADMIN: i64 = 10_002;
const MEMBER: i64 = 10_003;

struct T {
    gw: Arc<Gateway>,
    api: Arc<FakeApi>,
    _dir: tempfile::TempDir,
    shutdown: CancellationToken,
}

impl Drop for T {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

fn member(id: i64, role: &str) -> GroupMember {
    GroupMember {
        user_id: Some(id),
        nickname: format!("u{id}").into(),
        role: role.into(),
        ..GroupMember::default()
    }
}

fn rule(actions: &[&str], allow: Option<&[&str]>, approval: Approval) -> PolicyRule {
    PolicyRule {
        actions: actions.iter().map(|s| s.to_string()).collect(),
        chats: Vec::new(),
        allow_requesters: allow.map(|a| a.iter().map(|s| s.to_string()).collect()),
        approval,
    }
}

fn start(rules: Vec<PolicyRule>) -> T {
    start_with(rules, 600)
}

fn start_with(rules: Vec<PolicyRule>, approval_timeout_secs: u64) -> T {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.server.data_dir = dir.path().to_path_buf();
    config.policy.owners = vec![OWNER];
    config.policy.rules = rules;
    config.policy.approval_timeout_secs = approval_timeout_secs;
    let a = AccountConfig {
        ws_url: Some("ws://127.0.0.1:9/".into()),
        groups: vec![G],
        ..AccountConfig::default()
    };
    config.accounts.insert("default".into(), a.clone());
    config.validate().unwrap();
    let shutdown = CancellationToken::new();
    let api = FakeApi::new(Flavor::NapCat);
    api.set_members(Some(vec![
        member(10_001, "owner"),
        member(ADMIN, "admin"),
        member(MEMBER, "member"),
    ]));
    let accounts = vec![Account {
        id: "default".into(),
        config: a,
        peer: api.clone(),
    }];
    let gw = Arc::new(
        onebot_gateway_testkit::GatewayBuilder::new(config, accounts, shutdown.clone()).build(),
    );
    tokio::spawn(gw.clone().run_approvals(shutdown.clone()));
    T {
        gw,
        api,
        _dir: dir,
        shutdown,
    }
}

fn all(text: &str, on_behalf_of: Option<OnBehalfOf>) -> SendRequest {
    SendRequest {
        group_id: Some(G),
        text: text.into(),
        mention_all: true,
        on_behalf_of,
        ..SendRequest::default()
    }
}

fn message(id: i64, chat: ChatRef, user: i64, text: &str) -> Message {
    onebot_gateway_onebot::model::decode_message(
        &serde_json::json!({"message_id": id, "user_id": user, "time": 1,
            "sender": {"user_id": user}, "message": text}),
        Some(chat),
    )
    .unwrap()
}

/// The texts the bot sent privately to `user`.
fn private_texts(api: &FakeApi, user: i64) -> Vec<String> {
    api.calls()
        .into_iter()
        .filter_map(|c| match c {
            Call::SendPrivate { user_id, message } if user_id == user => {
                message[0]["data"]["text"].as_str().map(str::to_owned)
            }
            _ => None,
        })
        .collect()
}

fn group_sends(api: &FakeApi) -> usize {
    api.calls()
        .iter()
        .filter(|c| matches!(c, Call::Send { .. }))
        .count()
}

async fn audit(gw: &Gateway) -> Vec<(String, AuditDecision, String)> {
    let (records, _) = gw
        .list_audit(AuditQuery::default(), &CallCtx::anonymous())
        .await
        .unwrap();
    records
        .into_iter()
        .rev()
        .map(|r| (r.action, r.decision.unwrap(), r.role))
        .collect()
}

/// Waits until the owners were asked (the approvals task asks, then
/// announces a change).
async fn question(t: &T) -> String {
    let mut changes = t.gw.approval_changes();
    let asked = async {
        loop {
            if let Some(text) = private_texts(&t.api, OWNER).pop() {
                return text;
            }
            changes.changed().await.unwrap();
        }
    };
    match tokio::time::timeout(Duration::from_secs(20), asked).await {
        Ok(text) => text,
        Err(_) => panic!("the owner was not asked within 20 s: {:?}", t.api.calls()),
    }
}

#[tokio::test]
async fn a_rule_refuses_roles_it_does_not_name_and_records_it() {
    let t = start(vec![rule(
        &["mention_all"],
        Some(&["bot_owner", "owner", "admin"]),
        Approval::None,
    )]);
    t.api
        .store(message(77, ChatRef::Group(G), MEMBER, "@all 开会"));
    t.api
        .store(message(78, ChatRef::Group(G), ADMIN, "@all 开会"));
    let ctx = CallCtx::anonymous();
    let e =
        t.gw.send_message(all("开会", Some(OnBehalfOf::Message(77))), ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::PolicyDenied, "{e:?}");
    assert_eq!(
        (e.meta("rule"), e.meta("action"), e.meta("role")),
        (Some("0"), Some("mention_all"), Some("member"))
    );
    assert_eq!(group_sends(&t.api), 0, "nothing reached the peer");
    // Nobody named is role `none`: refused too.
    let e =
        t.gw.send_message(all("x", None), ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.meta("role"), Some("none"));
    // The admin's own message shows the role: sent.
    t.gw.send_message(all("开会", Some(OnBehalfOf::Message(78))), ctx.clone())
        .await
        .unwrap();
    // A plain send is no rule's business.
    t.gw.send_message(
        SendRequest {
            group_id: Some(G),
            text: "hi".into(),
            on_behalf_of: Some(OnBehalfOf::User(MEMBER)),
            ..SendRequest::default()
        },
        ctx,
    )
    .await
    .unwrap();
    assert_eq!(group_sends(&t.api), 2);
    assert_eq!(
        audit(&t.gw).await,
        vec![
            (
                "send,mention_all".into(),
                AuditDecision::Denied,
                "member".into()
            ),
            (
                "send,mention_all".into(),
                AuditDecision::Denied,
                "none".into()
            ),
            (
                "send,mention_all".into(),
                AuditDecision::Allowed,
                "admin".into()
            ),
            ("send".into(), AuditDecision::Allowed, "member".into()),
        ]
    );
}

#[tokio::test]
async fn roles_come_from_the_member_list_and_the_owners() {
    let t = start(vec![rule(&["poke"], Some(&["bot_owner"]), Approval::None)]);
    let ctx = CallCtx::anonymous();
    let poke = |u| {
        t.gw.poke_member("", Some(G), 10_001, Some(OnBehalfOf::User(u)), ctx.clone())
    };
    assert_eq!(poke(ADMIN).await.unwrap_err().meta("role"), Some("admin"));
    assert_eq!(poke(10_001).await.unwrap_err().meta("role"), Some("owner"));
    assert_eq!(
        poke(55_555).await.unwrap_err().meta("role"),
        Some("stranger")
    );
    assert_eq!(poke(OWNER).await.unwrap(), G);
    // A message of another chat cannot stand for a requester here.
    t.api
        .store(message(5, ChatRef::Private(ADMIN), ADMIN, "hi"));
    let e =
        t.gw.poke_member("", Some(G), 10_001, Some(OnBehalfOf::Message(5)), ctx)
            .await
            .unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (Kind::InvalidRequest, Some("on_behalf_of.message_id"))
    );
}

#[tokio::test]
async fn an_approval_waits_for_the_owner_and_runs_once() {
    let t = start(vec![rule(&["mention_all"], None, Approval::BotOwner)]);
    let ctx = CallCtx::anonymous();
    let e =
        t.gw.send_message(all("全体集合", Some(OnBehalfOf::User(ADMIN))), ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::ApprovalPending);
    let id = e.meta("approval_id").unwrap().to_owned();
    assert_eq!(group_sends(&t.api), 0);
    let asked = question(&t).await;
    assert!(asked.contains(&id) && asked.contains("全体集合"), "{asked}");
    // Someone else's "yes" does nothing.
    t.gw.events.publish(
        "default",
        InboundEvent::Message {
            message: message(900, ChatRef::Private(ADMIN), ADMIN, &format!("同意 {id}")),
            self_sent: false,
            backfilled: false,
        },
    );
    let a = t.gw.get_approval(&id, &ctx).await.unwrap();
    assert_eq!(a.state, ApprovalState::Pending);
    // The owner's does, once.
    for n in 0..2 {
        t.gw.events.publish(
            "default",
            InboundEvent::Message {
                message: message(
                    901 + n,
                    ChatRef::Private(OWNER),
                    OWNER,
                    &format!("同意 {id}"),
                ),
                self_sent: false,
                backfilled: false,
            },
        );
    }
    let done =
        t.gw.wait_approval(&id, Duration::from_secs(20), &ctx)
            .await
            .unwrap();
    assert_eq!(done.state, ApprovalState::Executed, "{done:?}");
    assert_eq!(done.decided_by.as_deref(), Some(&*format!("qq:{OWNER}")));
    assert_eq!(group_sends(&t.api), 1, "executed exactly once");
    let again = t.gw.decide_approval(&id, true, "api").await.unwrap_err();
    assert_eq!(again.kind, Kind::ApprovalDecided);
    assert_eq!(
        audit(&t.gw)
            .await
            .into_iter()
            .map(|(_, d, _)| d)
            .collect::<Vec<_>>(),
        vec![
            AuditDecision::Pending,
            AuditDecision::Approved,
            AuditDecision::Executed
        ]
    );
}

#[tokio::test]
async fn a_rejected_or_expired_approval_never_runs() {
    let t = start_with(vec![rule(&["recall"], None, Approval::BotOwner)], 10);
    let ctx = CallCtx::anonymous();
    t.api
        .store(message(42, ChatRef::Group(G), MEMBER, "要撤回的"));
    let e =
        t.gw.recall_message("", 42, None, ctx.clone())
            .await
            .unwrap_err();
    let id = e.meta("approval_id").unwrap().to_owned();
    let asked = question(&t).await;
    assert!(asked.contains("要撤回的"), "{asked}");
    // The owner answers by quoting the question.
    let quoted =
        t.gw.get_approval(&id, &ctx)
            .await
            .unwrap()
            .owner_message_ids[0];
    let mut answer = message(950, ChatRef::Private(OWNER), OWNER, " 拒绝");
    answer.segments.insert(
        0,
        onebot_gateway_domain::model::Segment::Reply {
            id: quoted.to_string(),
            quoted: None,
        },
    );
    t.gw.events.publish(
        "default",
        InboundEvent::Message {
            message: answer,
            self_sent: false,
            backfilled: false,
        },
    );
    let done =
        t.gw.wait_approval(&id, Duration::from_secs(20), &ctx)
            .await
            .unwrap();
    assert_eq!(done.state, ApprovalState::Rejected, "{done:?}");
    assert_eq!(done.decided_by.as_deref(), Some(&*format!("qq:{OWNER}")));
    // Nobody answers the next one: it expires after 10 s and never runs.
    let e =
        t.gw.recall_message("", 42, None, ctx.clone())
            .await
            .unwrap_err();
    let id = e.meta("approval_id").unwrap().to_owned();
    let done =
        t.gw.wait_approval(&id, Duration::from_secs(30), &ctx)
            .await
            .unwrap();
    assert_eq!(done.state, ApprovalState::Expired, "{done:?}");
    assert_eq!(done.decided_by.as_deref(), Some("timeout"));
    let late = t.gw.decide_approval(&id, true, "api").await.unwrap_err();
    assert_eq!(
        (late.kind, late.meta("state")),
        (Kind::ApprovalDecided, Some("expired"))
    );
    assert!(!t.api.calls().contains(&Call::Recall { message_id: 42 }));
}

#[tokio::test]
async fn approvals_cut_off_mid_run_are_failed_only_for_this_gateways_accounts() {
    use onebot_gateway_domain::policy::store::{ApprovalRecord, GovernanceStore};
    use onebot_gateway_store::governance::sqlite::SqliteGovernance;
    let dir = tempfile::tempdir().unwrap();
    // Two approvals being executed when a gateway stopped: one of this
    // gateway's account, one of an account another gateway (a shard) holds
    // in the same governance store.
    let store = SqliteGovernance::open(dir.path()).unwrap();
    for (id, account_id) in [("HERE1", "default"), ("ELSE1", "elsewhere")] {
        let record = ApprovalRecord {
            id: id.into(),
            account_id: account_id.into(),
            created_ms: 1,
            expires_ms: i64::MAX,
            state: ApprovalState::Approved,
            action: "send".into(),
            chat: format!("group:{G}"),
            requester_id: None,
            role: "none".into(),
            token: None,
            rule: 0,
            summary: "s".into(),
            payload: "{}".into(),
            decided_by: Some(format!("qq:{OWNER}")),
            decided_ms: Some(2),
            result: None,
            owner_message_ids: Vec::new(),
        };
        assert!(store.insert_approval(&record).await.unwrap());
    }
    let mut config = Config::default();
    config.server.data_dir = dir.path().to_path_buf();
    config.policy.owners = vec![OWNER];
    let a = AccountConfig {
        ws_url: Some("ws://127.0.0.1:9/".into()),
        groups: vec![G],
        ..AccountConfig::default()
    };
    config.accounts.insert("default".into(), a.clone());
    let shutdown = CancellationToken::new();
    let accounts = vec![Account {
        id: "default".into(),
        config: a,
        peer: FakeApi::new(Flavor::NapCat),
    }];
    let gw = Arc::new(
        onebot_gateway_testkit::GatewayBuilder::new(config, accounts, shutdown.clone()).build(),
    );
    let mut changes = gw.approval_changes();
    tokio::spawn(gw.clone().run_approvals(shutdown.clone()));
    changes.changed().await.unwrap();
    let state = |id: &'static str| {
        let store = &store;
        async move { store.get_approval(id).await.unwrap().unwrap().state }
    };
    assert_eq!(state("HERE1").await, ApprovalState::Failed);
    assert_eq!(state("ELSE1").await, ApprovalState::Approved);
    shutdown.cancel();
}
