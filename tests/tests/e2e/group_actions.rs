//! Group actions end to end over gRPC against the sandbox imitating NapCat
//! (and the other flavors' gaps): reactions, essence, typing, voice, group
//! files and moderation, their events, the policy that refuses moderation
//! no rule names, and the bot-role and owner-protection checks made before
//! the peer is called.

use onebot_gateway_client::pb;
use onebot_gateway_config::{Approval, Config, PolicyRule};
use onebot_gateway_tests::{
    Sandbox, SandboxConfig, SandboxFlavor, TestGateway, config_for, reason,
};
use onebot_sandbox::{EXAMPLE_GROUP, MediaKind, SANDBOX_FOLDER, SANDBOX_GROUP, sample_media};
use sha2::{Digest, Sha256};
use tokio_stream::StreamExt as _;
use tonic::{Code, Streaming};
use tonic_types::StatusExt;

use crate::events::next_event;

/// The group's owner (and the bot's owner here).
const OWNER: i64 = 10_001;
/// An admin of the sandbox group.
const ADMIN: i64 = 10_002;
/// A plain member.
const MEMBER: i64 = 10_003;

pub(crate) async fn peer(flavor: SandboxFlavor) -> Sandbox {
    Sandbox::start(SandboxConfig {
        flavor,
        report_self_message: true,
        ..SandboxConfig::default()
    })
    .await
    .expect("sandbox")
}

/// Starts the gateway on `config` and waits until `default` is connected.
async fn start(config: Config) -> TestGateway {
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    gw
}

/// The sandbox group and the example group (where the bot is a plain
/// member) whitelisted, the owner's private chat allowed; with `rule`,
/// moderation by owners and admins of the group is allowed.
fn config(sb: &Sandbox, rule: bool) -> Config {
    let mut config = config_for(sb, &[SANDBOX_GROUP, EXAMPLE_GROUP]);
    // The sandbox serves group files from loopback.
    config.media.allow_private_urls = true;
    if let Some(a) = config.accounts.get_mut("default") {
        a.users = vec![OWNER];
    }
    config.policy.owners = vec![OWNER];
    if rule {
        config.policy.rules = vec![PolicyRule {
            actions: vec![
                "mute".into(),
                "mute_all".into(),
                "kick".into(),
                "set_card".into(),
            ],
            chats: Vec::new(),
            allow_requesters: Some(vec!["bot_owner".into(), "owner".into(), "admin".into()]),
            approval: Approval::None,
        }];
    }
    config
}

async fn events(gw: &TestGateway) -> Streaming<pb::StreamEventsResponse> {
    gw.events()
        .stream_events(pb::StreamEventsRequest {
            kinds: [
                pb::EventKind::Reaction,
                pb::EventKind::Essence,
                pb::EventKind::Mute,
                pb::EventKind::AdminChanged,
                pb::EventKind::GroupFileUploaded,
                pb::EventKind::GroupNameChanged,
                pb::EventKind::CardChanged,
                pb::EventKind::MemberLeft,
            ]
            .into_iter()
            .map(|k| k as i32)
            .collect(),
            ..pb::StreamEventsRequest::default()
        })
        .await
        .expect("StreamEvents")
        .into_inner()
}

/// The next event's kind.
async fn next(stream: &mut Streaming<pb::StreamEventsResponse>) -> pb::event::Kind {
    next_event(stream).await.kind.expect("an event kind")
}

fn user(id: i64) -> Option<pb::OnBehalfOf> {
    Some(pb::OnBehalfOf {
        requester: Some(pb::on_behalf_of::Requester::UserId(id)),
    })
}

/// Asserts `status` has `code` and `reason`.
fn refused(status: &tonic::Status, code: Code, want: &str) {
    assert_eq!(status.code(), code, "{status:?}");
    assert_eq!(reason(status), want, "{status:?}");
}

/// The actions the sandbox received named `name`.
fn calls(sb: &Sandbox, name: &str) -> Vec<serde_json::Value> {
    sb.control()
        .actions()
        .into_iter()
        .filter(|a| a.action == name)
        .map(|a| a.params)
        .collect()
}

async fn send_text(gw: &TestGateway, text: &str) -> i64 {
    gw.messages()
        .send_message(pb::SendMessageRequest {
            group_id: Some(SANDBOX_GROUP),
            text: text.into(),
            ..Default::default()
        })
        .await
        .expect("SendMessage")
        .into_inner()
        .message_ids[0]
}

async fn mute(
    gw: &TestGateway,
    group: i64,
    user_id: i64,
    secs: i64,
    by: i64,
) -> Result<pb::MuteMemberResponse, tonic::Status> {
    gw.groups()
        .mute_member(pb::MuteMemberRequest {
            group_id: Some(group),
            user_id,
            duration_secs: secs,
            on_behalf_of: user(by),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn reactions_essence_typing_and_their_events() {
    let sb = peer(SandboxFlavor::NapCat).await;
    let gw = start(config(&sb, false)).await;
    let mut stream = events(&gw).await;
    let id = send_text(&gw, "给我点个赞").await;

    let done = gw
        .messages()
        .react_to_message(pb::ReactToMessageRequest {
            message_id: id,
            emoji_id: "76".into(),
            ..Default::default()
        })
        .await
        .expect("ReactToMessage")
        .into_inner();
    assert_eq!(done.group_id, SANDBOX_GROUP);
    let sent = calls(&sb, "set_msg_emoji_like");
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["emoji_id"], "76");
    assert_eq!(sent[0]["set"], true);
    // A member's reaction arrives as an event.
    sb.control()
        .react(id, MEMBER, "128077", true)
        .expect("the member reacts");
    let reaction = loop {
        if let pb::event::Kind::Reaction(r) = next(&mut stream).await
            && r.user_id == MEMBER
        {
            break r;
        }
    };
    assert_eq!(
        (
            reaction.group_id,
            reaction.message_id,
            reaction.emoji_id.as_str(),
            reaction.added
        ),
        (SANDBOX_GROUP, id, "128077", true)
    );

    // Essence: marked by the bot (an admin), listed, paged.
    gw.messages()
        .set_essence(pb::SetEssenceRequest {
            message_id: id,
            ..Default::default()
        })
        .await
        .expect("SetEssence");
    assert_eq!(calls(&sb, "set_essence_msg").len(), 1);
    let essence = loop {
        if let pb::event::Kind::Essence(e) = next(&mut stream).await {
            break e;
        }
    };
    assert_eq!(
        (essence.group_id, essence.message_id, essence.is_set),
        (SANDBOX_GROUP, id, true)
    );
    let mut listed = Vec::new();
    let mut token = String::new();
    loop {
        let page = gw
            .messages()
            .list_essence(pb::ListEssenceRequest {
                group_id: Some(SANDBOX_GROUP),
                page_size: 2,
                page_token: token.clone(),
                ..Default::default()
            })
            .await
            .expect("ListEssence")
            .into_inner();
        assert!(page.messages.len() <= 2);
        listed.extend(page.messages);
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    // The three seeded entries and the new one.
    assert_eq!(listed.len(), 4, "{listed:#?}");
    assert!(
        listed
            .iter()
            .any(|e| e.message.as_ref().is_some_and(|m| m.text == "第16条消息")),
        "{listed:#?}"
    );
    let bad = gw
        .messages()
        .list_essence(pb::ListEssenceRequest {
            page_token: "f0.2".into(),
            group_id: Some(SANDBOX_GROUP),
            ..Default::default()
        })
        .await
        .expect_err("a files token is not an essence token");
    refused(&bad, Code::InvalidArgument, "INVALID_REQUEST");

    // Typing: the owner's private chat is whitelisted, a member's is not.
    gw.messages()
        .set_typing(pb::SetTypingRequest {
            user_id: OWNER,
            ..Default::default()
        })
        .await
        .expect("SetTyping");
    let typing = calls(&sb, "set_input_status");
    assert_eq!(typing.len(), 1);
    assert_eq!(typing[0]["user_id"], OWNER);
    let not_allowed = gw
        .messages()
        .set_typing(pb::SetTypingRequest {
            user_id: MEMBER,
            ..Default::default()
        })
        .await
        .expect_err("a user outside `users`");
    refused(&not_allowed, Code::PermissionDenied, "USER_NOT_ALLOWED");
    assert_eq!(calls(&sb, "set_input_status").len(), 1);
    gw.stop().await.expect("stop");
}

#[tokio::test]
async fn a_voice_and_a_group_file_round_trip_byte_exact() {
    let sb = peer(SandboxFlavor::NapCat).await;
    let gw = start(config(&sb, false)).await;
    let mut stream = events(&gw).await;

    // A voice goes out as a `record` segment, its bytes unchanged.
    let voice = sample_media(MediaKind::Record, 6000);
    let sent = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            group_id: Some(SANDBOX_GROUP),
            voices: vec![pb::MediaSource {
                source: Some(pb::media_source::Source::Data(voice.clone())),
            }],
            ..Default::default()
        })
        .await
        .expect("SendMessage with a voice")
        .into_inner();
    assert_eq!(sent.media.as_ref().map(|m| m.voices), Some(1));
    assert_eq!(sent.message_ids.len(), 1);
    let sha = hex::encode(Sha256::digest(&voice));
    assert!(
        sb.control()
            .received_media()
            .iter()
            .any(|m| m.sha256.as_deref() == Some(sha.as_str())),
        "the sandbox received the voice's bytes"
    );
    let not_voice = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            group_id: Some(SANDBOX_GROUP),
            voices: vec![pb::MediaSource {
                source: Some(pb::media_source::Source::Data(sample_media(
                    MediaKind::Image,
                    100,
                ))),
            }],
            ..Default::default()
        })
        .await
        .expect_err("an image is not a voice");
    refused(&not_voice, Code::InvalidArgument, "MEDIA_TYPE_MISMATCH");

    // Group files: folders first, then files; a member's upload is an
    // event, and its bytes come back byte-exact.
    let root = gw
        .groups()
        .list_group_files(pb::ListGroupFilesRequest {
            group_id: Some(SANDBOX_GROUP),
            ..Default::default()
        })
        .await
        .expect("ListGroupFiles")
        .into_inner();
    assert_eq!(root.folders.len(), 1, "{root:#?}");
    assert_eq!(root.folders[0].folder_id, SANDBOX_FOLDER.0);
    assert_eq!(root.folders[0].name, SANDBOX_FOLDER.1);
    assert_eq!(root.files.len(), 3, "{root:#?}");
    let inside = gw
        .groups()
        .list_group_files(pb::ListGroupFilesRequest {
            group_id: Some(SANDBOX_GROUP),
            folder_id: SANDBOX_FOLDER.0.into(),
            ..Default::default()
        })
        .await
        .expect("ListGroupFiles of a folder")
        .into_inner();
    assert_eq!(inside.files.len(), 1, "{inside:#?}");
    let first = gw
        .groups()
        .list_group_files(pb::ListGroupFilesRequest {
            group_id: Some(SANDBOX_GROUP),
            page_size: 2,
            ..Default::default()
        })
        .await
        .expect("a page of two")
        .into_inner();
    assert_eq!((first.folders.len(), first.files.len()), (1, 1));
    let second = gw
        .groups()
        .list_group_files(pb::ListGroupFilesRequest {
            group_id: Some(SANDBOX_GROUP),
            page_token: first.next_page_token.clone(),
            ..Default::default()
        })
        .await
        .expect("the next page")
        .into_inner();
    assert_eq!((second.folders.len(), second.files.len()), (0, 2));
    assert!(second.next_page_token.is_empty());

    let bytes = sample_media(MediaKind::File, 300_000);
    let file_id = sb
        .control()
        .upload_group_file(SANDBOX_GROUP, MEMBER, "会议纪要.pdf", bytes.clone())
        .expect("the member uploads a file");
    let uploaded = loop {
        if let pb::event::Kind::GroupFileUploaded(f) = next(&mut stream).await {
            break f;
        }
    };
    assert_eq!(
        (
            uploaded.user_id,
            uploaded.file_id.as_str(),
            uploaded.name.as_str(),
            uploaded.size
        ),
        (MEMBER, file_id.as_str(), "会议纪要.pdf", bytes.len() as u64)
    );
    let mut download = gw
        .media()
        .download_group_file(pb::DownloadGroupFileRequest {
            group_id: Some(SANDBOX_GROUP),
            file_id: file_id.clone(),
            ..Default::default()
        })
        .await
        .expect("DownloadGroupFile")
        .into_inner();
    let mut header = None;
    let mut got = Vec::new();
    while let Some(msg) = download.next().await {
        match msg.expect("a chunk").payload {
            Some(pb::download_group_file_response::Payload::Header(h)) => header = Some(h),
            Some(pb::download_group_file_response::Payload::Chunk(c)) => got.extend(c),
            None => panic!("an empty message"),
        }
    }
    let header = header.expect("a header");
    assert_eq!(got, bytes, "the file's bytes, byte-exact");
    assert_eq!(header.size, bytes.len() as i64);
    assert_eq!(header.sha256, hex::encode(Sha256::digest(&bytes)));
    assert_eq!(header.mime_type, "application/pdf");
    assert_eq!(header.kind, pb::MediaKind::File as i32);
    let missing = gw
        .media()
        .download_group_file(pb::DownloadGroupFileRequest {
            group_id: Some(SANDBOX_GROUP),
            file_id: "/no-such-file".into(),
            ..Default::default()
        })
        .await
        .map(|_| ())
        .expect_err("an unknown file");
    assert_ne!(missing.code(), Code::Ok);
    gw.stop().await.expect("stop");
}

#[tokio::test]
async fn moderation_is_refused_unless_a_rule_names_it() {
    let sb = peer(SandboxFlavor::NapCat).await;
    let gw = start(config(&sb, false)).await;
    let denied = mute(&gw, SANDBOX_GROUP, MEMBER, 600, OWNER)
        .await
        .expect_err("no rule names mute");
    refused(&denied, Code::PermissionDenied, "POLICY_DENIED");
    let info = denied.get_details_error_info().expect("ErrorInfo");
    assert_eq!(info.metadata.get("rule").map(String::as_str), Some("none"));
    assert_eq!(
        info.metadata.get("action").map(String::as_str),
        Some("mute")
    );
    let kick = gw
        .groups()
        .kick_member(pb::KickMemberRequest {
            group_id: Some(SANDBOX_GROUP),
            user_id: MEMBER,
            ..Default::default()
        })
        .await
        .expect_err("no rule names kick");
    refused(&kick, Code::PermissionDenied, "POLICY_DENIED");
    assert!(calls(&sb, "set_group_ban").is_empty());
    assert!(calls(&sb, "set_group_kick").is_empty());
    gw.stop().await.expect("stop");
}

#[tokio::test]
async fn moderation_with_a_rule_checks_roles_before_the_peer() {
    let sb = peer(SandboxFlavor::NapCat).await;
    let gw = start(config(&sb, true)).await;
    let mut stream = events(&gw).await;
    let self_id = gw.account("default").await.self_id;

    // A member may not ask; the group's owner, the bot itself and an admin
    // (the bot is only an admin) are never targets; in the example group
    // the bot is a plain member. None of these reach the peer.
    let member_asks = mute(&gw, SANDBOX_GROUP, MEMBER, 600, MEMBER)
        .await
        .expect_err("a member asks");
    refused(&member_asks, Code::PermissionDenied, "POLICY_DENIED");
    let owner = mute(&gw, SANDBOX_GROUP, OWNER, 600, ADMIN)
        .await
        .expect_err("the group's owner");
    refused(&owner, Code::PermissionDenied, "PROTECTED_MEMBER");
    let bot = mute(&gw, SANDBOX_GROUP, self_id, 600, ADMIN)
        .await
        .expect_err("the bot itself");
    refused(&bot, Code::PermissionDenied, "PROTECTED_MEMBER");
    let admin = mute(&gw, SANDBOX_GROUP, ADMIN, 600, OWNER)
        .await
        .expect_err("an admin, by a bot that is only an admin");
    refused(&admin, Code::FailedPrecondition, "BOT_NOT_ADMIN");
    let info = admin.get_details_error_info().expect("ErrorInfo");
    assert_eq!(
        info.metadata.get("needed_role").map(String::as_str),
        Some("owner")
    );
    let not_admin = mute(&gw, EXAMPLE_GROUP, MEMBER, 600, OWNER)
        .await
        .expect_err("the bot is a member of the example group");
    refused(&not_admin, Code::FailedPrecondition, "BOT_NOT_ADMIN");
    let too_long = mute(&gw, SANDBOX_GROUP, MEMBER, 30 * 86_400 + 1, ADMIN)
        .await
        .expect_err("over 30 days");
    refused(&too_long, Code::InvalidArgument, "INVALID_REQUEST");
    assert!(
        calls(&sb, "set_group_ban").is_empty(),
        "nothing reached the peer"
    );

    // Allowed: the duration is always sent, and the mute is an event.
    mute(&gw, SANDBOX_GROUP, MEMBER, 600, ADMIN)
        .await
        .expect("an admin asks to mute a member");
    let bans = calls(&sb, "set_group_ban");
    assert_eq!(bans.len(), 1);
    assert_eq!(bans[0]["duration"], 600);
    let muted = loop {
        if let pb::event::Kind::Mute(m) = next(&mut stream).await {
            break m;
        }
    };
    assert_eq!(
        (
            muted.user_id,
            muted.whole_group,
            muted.muted,
            muted.duration_secs
        ),
        (MEMBER, false, true, 600)
    );
    mute(&gw, SANDBOX_GROUP, MEMBER, 0, ADMIN)
        .await
        .expect("lift the mute");
    assert_eq!(calls(&sb, "set_group_ban")[1]["duration"], 0);

    for enable in [true, false] {
        gw.groups()
            .mute_all(pb::MuteAllRequest {
                group_id: Some(SANDBOX_GROUP),
                enable,
                on_behalf_of: user(OWNER),
                ..Default::default()
            })
            .await
            .expect("MuteAll");
        let whole = loop {
            if let pb::event::Kind::Mute(m) = next(&mut stream).await
                && m.whole_group
            {
                break m;
            }
        };
        assert_eq!((whole.user_id, whole.muted), (0, enable));
    }

    // A card over 60 bytes is refused; a card is set and the member list
    // shows it at once.
    let long = gw
        .groups()
        .set_member_card(pb::SetMemberCardRequest {
            group_id: Some(SANDBOX_GROUP),
            user_id: MEMBER,
            card: "名".repeat(21),
            on_behalf_of: user(ADMIN),
            ..Default::default()
        })
        .await
        .expect_err("63 bytes");
    refused(&long, Code::InvalidArgument, "INVALID_REQUEST");
    let members = |gw: &TestGateway| {
        let mut client = gw.groups();
        async move {
            client
                .list_group_members(pb::ListGroupMembersRequest {
                    group_id: SANDBOX_GROUP,
                    limit: 100,
                    ..Default::default()
                })
                .await
                .expect("ListGroupMembers")
                .into_inner()
                .members
        }
    };
    assert!(members(&gw).await.iter().any(|m| m.user_id == MEMBER));
    gw.groups()
        .set_member_card(pb::SetMemberCardRequest {
            group_id: Some(SANDBOX_GROUP),
            user_id: MEMBER,
            card: "新名片".into(),
            on_behalf_of: user(ADMIN),
            ..Default::default()
        })
        .await
        .expect("SetMemberCard");
    let card = members(&gw)
        .await
        .into_iter()
        .find(|m| m.user_id == MEMBER)
        .map(|m| m.card);
    assert_eq!(card.as_deref(), Some("新名片"));

    // The owner makes the member an admin: an event, and the member list
    // follows it.
    sb.control()
        .set_admin(SANDBOX_GROUP, MEMBER, true)
        .expect("the owner sets an admin");
    let changed = loop {
        if let pb::event::Kind::AdminChanged(a) = next(&mut stream).await {
            break a;
        }
    };
    assert_eq!((changed.user_id, changed.is_admin), (MEMBER, true));
    let role = members(&gw)
        .await
        .into_iter()
        .find(|m| m.user_id == MEMBER)
        .map(|m| m.role);
    assert_eq!(role.as_deref(), Some("admin"));
    sb.control()
        .set_admin(SANDBOX_GROUP, MEMBER, false)
        .expect("and back");

    // Kick: the member leaves.
    gw.groups()
        .kick_member(pb::KickMemberRequest {
            group_id: Some(SANDBOX_GROUP),
            user_id: MEMBER,
            on_behalf_of: user(OWNER),
            ..Default::default()
        })
        .await
        .expect("KickMember");
    let kicks = calls(&sb, "set_group_kick");
    assert_eq!(kicks.len(), 1);
    assert_eq!(kicks[0]["reject_add_request"], false);
    let left = loop {
        if let pb::event::Kind::MemberLeft(l) = next(&mut stream).await {
            break l;
        }
    };
    assert_eq!(left.user_id, MEMBER);

    // Renaming the group is an event.
    sb.control()
        .rename_group(SANDBOX_GROUP, OWNER, "新群名")
        .expect("the owner renames the group");
    let renamed = loop {
        if let pb::event::Kind::GroupNameChanged(n) = next(&mut stream).await {
            break n;
        }
    };
    assert_eq!(
        (renamed.name.as_str(), renamed.operator_id),
        ("新群名", OWNER)
    );
    gw.stop().await.expect("stop");
}

#[tokio::test]
async fn a_flavor_without_an_action_answers_unimplemented_without_sending() {
    let sb = peer(SandboxFlavor::GoCqhttp).await;
    let gw = start(config(&sb, false)).await;
    let id = send_text(&gw, "go-cqhttp 没有表情回应").await;
    let no_reaction = gw
        .messages()
        .react_to_message(pb::ReactToMessageRequest {
            message_id: id,
            emoji_id: "76".into(),
            ..Default::default()
        })
        .await
        .expect_err("go-cqhttp has no reactions");
    refused(
        &no_reaction,
        Code::Unimplemented,
        "NOT_SUPPORTED_BY_IMPLEMENTATION",
    );
    let info = no_reaction.get_details_error_info().expect("ErrorInfo");
    assert_eq!(
        info.metadata.get("action").map(String::as_str),
        Some("react")
    );
    let no_typing = gw
        .messages()
        .set_typing(pb::SetTypingRequest {
            user_id: OWNER,
            ..Default::default()
        })
        .await
        .expect_err("go-cqhttp has no typing");
    refused(
        &no_typing,
        Code::Unimplemented,
        "NOT_SUPPORTED_BY_IMPLEMENTATION",
    );
    let sent: Vec<String> = sb
        .control()
        .actions()
        .into_iter()
        .map(|a| a.action)
        .collect();
    assert!(
        !sent
            .iter()
            .any(|a| a.contains("emoji") || a == "set_input_status"),
        "{sent:?}"
    );
    gw.stop().await.expect("stop");
}
