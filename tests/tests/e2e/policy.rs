//! Governed actions end to end over gRPC against the sandbox imitating
//! NapCat: the requester's role read from the group's member list, a rule
//! refusing a member's @all, an admin's @all held until the bot owner
//! answers the bot's private message in QQ, a pending approval surviving a
//! restart, and the audit trail of every decision.

use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_gateway_config::{Approval, Config, PolicyRule};
use onebot_gateway_tests::{
    Sandbox, SandboxConfig, SandboxFlavor, TestGateway, config_for, reason,
};
use onebot_sandbox::{ChatRef, SANDBOX_GROUP};
use serde_json::json;
use tonic::{Code, Streaming};
use tonic_types::StatusExt;

use crate::events::next_event;

/// The sandbox's group owner, a friend of the bot: the bot's owner here.
const OWNER: i64 = 10_001;
/// An admin of the sandbox group.
const ADMIN: i64 = 10_002;
/// A plain member.
const MEMBER: i64 = 10_003;

async fn peer() -> Sandbox {
    Sandbox::start(SandboxConfig {
        flavor: SandboxFlavor::NapCat,
        report_self_message: true,
        ..SandboxConfig::default()
    })
    .await
    .expect("sandbox")
}

/// @all needs an owner, admin or the bot owner to ask, and the bot owner's
/// yes.
fn config(sb: &Sandbox) -> Config {
    let mut config = config_for(sb, &[SANDBOX_GROUP]);
    if let Some(a) = config.accounts.get_mut("default") {
        a.users = vec![OWNER];
    }
    config.policy.owners = vec![OWNER];
    config.policy.rules = vec![PolicyRule {
        actions: vec!["mention_all".into()],
        chats: vec![format!("group:{SANDBOX_GROUP}")],
        allow_requesters: Some(vec!["bot_owner".into(), "owner".into(), "admin".into()]),
        approval: Approval::BotOwner,
    }];
    config
}

async fn messages(gw: &TestGateway) -> Streaming<pb::StreamEventsResponse> {
    gw.events()
        .stream_events(pb::StreamEventsRequest {
            kinds: vec![pb::EventKind::Message as i32],
            ..pb::StreamEventsRequest::default()
        })
        .await
        .expect("StreamEvents")
        .into_inner()
}

/// The next message event matching `want`, skipping others.
async fn next_matching(
    events: &mut Streaming<pb::StreamEventsResponse>,
    want: impl Fn(&pb::MessageEvent) -> bool,
) -> pb::MessageEvent {
    let found = async {
        loop {
            if let Some(pb::event::Kind::Message(m)) = next_event(events).await.kind
                && want(&m)
            {
                return m;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), found)
        .await
        .expect("the message within 30 s")
}

/// A user of the sandbox group says `text`; returns its id as the gateway
/// delivered it.
async fn says(
    sb: &Sandbox,
    events: &mut Streaming<pb::StreamEventsResponse>,
    user: i64,
    text: &str,
) -> i64 {
    sb.control().inject_group_message(
        SANDBOX_GROUP,
        user,
        json!([{"type": "text", "data": {"text": text}}]),
    );
    let m = next_matching(events, |m| {
        m.message
            .as_ref()
            .is_some_and(|c| c.text == text && c.sender.as_ref().is_some_and(|s| s.user_id == user))
    })
    .await;
    m.message.expect("message").message_id
}

fn at_all(text: &str, requester_message: i64) -> pb::SendMessageRequest {
    pb::SendMessageRequest {
        group_id: Some(SANDBOX_GROUP),
        text: text.into(),
        mention_all: true,
        on_behalf_of: Some(pb::OnBehalfOf {
            requester: Some(pb::on_behalf_of::Requester::MessageId(requester_message)),
        }),
        ..pb::SendMessageRequest::default()
    }
}

fn metadata(status: &tonic::Status, key: &str) -> String {
    status
        .get_error_details()
        .error_info()
        .and_then(|i| i.metadata.get(key).cloned())
        .unwrap_or_default()
}

/// The bot's question to the owner about `approval_id`, from the event
/// stream (the bot's own private message).
async fn question(events: &mut Streaming<pb::StreamEventsResponse>, approval_id: &str) -> String {
    let m = next_matching(events, |m| {
        m.self_sent
            && m.message.as_ref().is_some_and(|c| {
                c.chat.as_ref().and_then(|c| c.kind) == Some(pb::chat::Kind::UserId(OWNER))
                    && c.text.contains(approval_id)
            })
    })
    .await;
    m.message.expect("message").text
}

fn owner_answers(sb: &Sandbox, text: &str) {
    sb.control()
        .inject_private_message(OWNER, json!([{"type": "text", "data": {"text": text}}]));
}

async fn approval(gw: &TestGateway, id: &str, wait: Duration) -> pb::Approval {
    pb::approval_service_client::ApprovalServiceClient::new(gw.channel.clone())
        .get_approval(pb::GetApprovalRequest {
            approval_id: id.into(),
            wait: Some(wait.try_into().unwrap()),
        })
        .await
        .expect("GetApproval")
        .into_inner()
        .approval
        .expect("approval")
}

async fn audit(gw: &TestGateway) -> Vec<pb::AuditRecord> {
    let mut records = pb::audit_service_client::AuditServiceClient::new(gw.channel.clone())
        .list_audit_records(pb::ListAuditRecordsRequest::default())
        .await
        .expect("ListAuditRecords")
        .into_inner()
        .records;
    records.reverse();
    records
}

/// The sandbox group's messages that mention everyone.
fn at_all_messages(sb: &Sandbox) -> usize {
    sb.control()
        .messages(ChatRef::Group(SANDBOX_GROUP))
        .iter()
        .filter(|m| m.to_string().contains("\"qq\":\"all\""))
        .count()
}

#[tokio::test]
async fn roles_come_from_the_member_list_and_the_owner_approves_in_qq() {
    let sb = peer().await;
    let gw = TestGateway::start(config(&sb)).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut events = messages(&gw).await;
    let mut approvals = gw
        .events()
        .stream_events(pb::StreamEventsRequest {
            kinds: vec![pb::EventKind::Approval as i32],
            ..pb::StreamEventsRequest::default()
        })
        .await
        .expect("StreamEvents")
        .into_inner();
    let seeded = at_all_messages(&sb);

    // A member's request: refused, nothing sent.
    let asked = says(&sb, &mut events, MEMBER, "能@全体说一下明天停课吗").await;
    let refused = gw
        .messages()
        .send_message(at_all("明天停课", asked))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::PermissionDenied, "{refused:?}");
    assert_eq!(reason(&refused), "POLICY_DENIED");
    assert_eq!(metadata(&refused, "role"), "member");
    assert_eq!(metadata(&refused, "rule"), "0");
    assert_eq!(at_all_messages(&sb), seeded);

    // An admin's request: held, and the owner is asked in a private chat.
    let asked = says(&sb, &mut events, ADMIN, "请@全体通知明天停课").await;
    let held = gw
        .messages()
        .send_message(at_all("明天停课", asked))
        .await
        .unwrap_err();
    assert_eq!(held.code(), Code::FailedPrecondition, "{held:?}");
    assert_eq!(reason(&held), "APPROVAL_PENDING");
    let id = metadata(&held, "approval_id");
    let q = question(&mut events, &id).await;
    assert!(
        q.contains("明天停课") && q.contains(&ADMIN.to_string()),
        "{q}"
    );
    assert_eq!(
        at_all_messages(&sb),
        seeded,
        "nothing sent before the answer"
    );

    // Someone else's yes is ignored; the owner's runs it once.
    sb.control().inject_private_message(
        ADMIN,
        json!([{"type": "text", "data": {"text": format!("同意 {id}")}}]),
    );
    owner_answers(&sb, &format!("同意 {id}"));
    let done = approval(&gw, &id, Duration::from_secs(20)).await;
    assert_eq!(done.state(), pb::ApprovalState::Executed, "{done:?}");
    assert_eq!(done.decided_by, format!("qq:{OWNER}"));
    assert_eq!(done.requester_user_id, ADMIN);
    assert_eq!(done.requester_role, "admin");
    assert_eq!(done.message_ids.len(), 1);
    assert_eq!(at_all_messages(&sb), seeded + 1);
    owner_answers(&sb, &format!("同意 {id}"));
    // The bot tells the owner the second yes came too late.
    let late = next_matching(&mut events, |m| {
        m.self_sent
            && m.message
                .as_ref()
                .is_some_and(|c| c.text.contains(&id) && c.text.contains("已处理过"))
    })
    .await;
    assert!(late.message.is_some());
    assert_eq!(at_all_messages(&sb), seeded + 1, "executed exactly once");

    // Every state change was an APPROVAL event, in order.
    let mut states = Vec::new();
    for _ in 0..3 {
        match next_event(&mut approvals).await.kind {
            Some(pb::event::Kind::Approval(a)) if a.approval_id == id => states.push(a.state()),
            other => panic!("not this approval's event: {other:?}"),
        }
    }
    assert_eq!(
        states,
        [
            pb::ApprovalState::Pending,
            pb::ApprovalState::Approved,
            pb::ApprovalState::Executed
        ]
    );

    let trail: Vec<(String, pb::AuditDecision)> = audit(&gw)
        .await
        .into_iter()
        .map(|r| (r.requester_role.clone(), r.decision()))
        .collect();
    assert_eq!(
        trail,
        vec![
            ("member".into(), pb::AuditDecision::Denied),
            ("admin".into(), pb::AuditDecision::Pending),
            ("admin".into(), pb::AuditDecision::Approved),
            ("admin".into(), pb::AuditDecision::Executed),
        ]
    );

    // The trail in pages, newest first, and filtered.
    let mut audit_service = pb::audit_service_client::AuditServiceClient::new(gw.channel.clone());
    let page = |token: &str| pb::ListAuditRecordsRequest {
        limit: 3,
        page_token: token.into(),
        ..pb::ListAuditRecordsRequest::default()
    };
    let first = audit_service
        .list_audit_records(page(""))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(first.records.len(), 3);
    assert!(!first.next_page_token.is_empty());
    let rest = audit_service
        .list_audit_records(page(&first.next_page_token))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(rest.records.len(), 1);
    assert_eq!(rest.records[0].decision(), pb::AuditDecision::Denied);
    assert!(rest.next_page_token.is_empty());
    let denied = audit_service
        .list_audit_records(pb::ListAuditRecordsRequest {
            decision: pb::AuditDecision::Denied as i32,
            target: format!("group:{SANDBOX_GROUP}"),
            action: "mention_all".into(),
            ..pb::ListAuditRecordsRequest::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(denied.records.len(), 1);
    assert_eq!(denied.records[0].error_reason, "POLICY_DENIED");
    assert_eq!(denied.records[0].rule, 0);
    let bad = audit_service
        .list_audit_records(page("not-a-token"))
        .await
        .unwrap_err();
    assert_eq!(bad.code(), Code::InvalidArgument);
    assert_eq!(reason(&bad), "INVALID_REQUEST");
    gw.stop().await.unwrap();
}

#[tokio::test]
async fn a_pending_approval_survives_a_restart_and_runs_once() {
    let sb = peer().await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(&sb);
    cfg.server.data_dir = dir.path().to_path_buf();
    let gw = TestGateway::start(cfg.clone()).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let mut events = messages(&gw).await;
    let seeded = at_all_messages(&sb);
    let asked = says(&sb, &mut events, ADMIN, "@全体 今晚八点开会").await;
    let held = gw
        .messages()
        .send_message(at_all("今晚八点开会", asked))
        .await
        .unwrap_err();
    let id = metadata(&held, "approval_id");
    question(&mut events, &id).await;
    gw.stop().await.unwrap();

    let gw = TestGateway::start(cfg).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let before = approval(&gw, &id, Duration::ZERO).await;
    assert_eq!(before.state(), pb::ApprovalState::Pending);
    owner_answers(&sb, &format!("approve {}", id.to_lowercase()));
    let done = approval(&gw, &id, Duration::from_secs(20)).await;
    assert_eq!(done.state(), pb::ApprovalState::Executed, "{done:?}");
    assert_eq!(at_all_messages(&sb), seeded + 1);
    gw.stop().await.unwrap();
}

/// DecideApproval needs a token with `approve = true`; it runs the action
/// before it answers.
#[tokio::test]
async fn only_approver_tokens_decide_over_grpc() {
    use onebot_gateway_config::{Access, TokenConfig};
    use tonic::metadata::MetadataValue;

    const AGENT: &str = "agent-token-0123456789abcdef";
    const HUMAN: &str = "human-token-0123456789abcdef";
    let sb = peer().await;
    let mut cfg = config(&sb);
    let mut human = TokenConfig::inline("human", HUMAN, &["default"], Access::ReadOnly);
    human.approve = true;
    cfg.auth.tokens = vec![
        TokenConfig::inline("agent", AGENT, &["*"], Access::ReadWrite),
        human,
    ];
    let gw = TestGateway::start(cfg).await;
    let with = |token: &str, mut req: tonic::Request<pb::DecideApprovalRequest>| {
        req.metadata_mut().insert(
            "authorization",
            MetadataValue::try_from(format!("Bearer {token}")).unwrap(),
        );
        req
    };
    let mut send = tonic::Request::new(pb::SendMessageRequest {
        on_behalf_of: None,
        ..at_all("全体注意", 1)
    });
    send.metadata_mut().insert(
        "authorization",
        MetadataValue::try_from(format!("Bearer {AGENT}")).unwrap(),
    );
    // Nobody named (role `none`) may not ask for @all here: refused.
    let refused = gw.messages().send_message(send).await.unwrap_err();
    assert_eq!(reason(&refused), "POLICY_DENIED");
    assert_eq!(metadata(&refused, "role"), "none");

    // The bot owner may: held, then decided over gRPC.
    let mut send = tonic::Request::new(pb::SendMessageRequest {
        on_behalf_of: Some(pb::OnBehalfOf {
            requester: Some(pb::on_behalf_of::Requester::UserId(OWNER)),
        }),
        ..at_all("全体注意", 1)
    });
    send.metadata_mut().insert(
        "authorization",
        MetadataValue::try_from(format!("Bearer {AGENT}")).unwrap(),
    );
    let held = gw.messages().send_message(send).await.unwrap_err();
    assert_eq!(reason(&held), "APPROVAL_PENDING", "{held:?}");
    let id = metadata(&held, "approval_id");
    let mut approvals = pb::approval_service_client::ApprovalServiceClient::new(gw.channel.clone());
    let decide = || {
        tonic::Request::new(pb::DecideApprovalRequest {
            approval_id: id.clone(),
            approve: true,
        })
    };
    let denied = approvals
        .decide_approval(with(AGENT, decide()))
        .await
        .unwrap_err();
    assert_eq!(denied.code(), Code::PermissionDenied, "{denied:?}");
    assert_eq!(reason(&denied), "TOKEN_SCOPE");
    let done = approvals
        .decide_approval(with(HUMAN, decide()))
        .await
        .unwrap()
        .into_inner()
        .approval
        .unwrap();
    assert_eq!(done.state(), pb::ApprovalState::Executed, "{done:?}");
    assert_eq!(done.decided_by, "token:human");
    assert_eq!(done.token_name, "agent");
    let again = approvals
        .decide_approval(with(HUMAN, decide()))
        .await
        .unwrap_err();
    assert_eq!(reason(&again), "APPROVAL_DECIDED");
    gw.stop().await.unwrap();
}
