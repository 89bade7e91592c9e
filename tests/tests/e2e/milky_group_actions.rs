//! Group actions on a Milky account over real gRPC against the sandbox's
//! Milky face: a reaction and its event, essence set and listed page by
//! page, a group file listed and downloaded byte-exact, moderation allowed
//! by a rule with its event, and typing, which Milky does not have. The
//! recording is checked against the official Milky schemas at the end.

use onebot_gateway_client::pb;
use onebot_gateway_config::{Approval, MilkyEvents, PolicyRule};
use onebot_gateway_tests::reason;
use onebot_sandbox::{ChatRef, MediaKind, SANDBOX_GROUP, sample_media};
use sha2::{Digest, Sha256};
use tokio_stream::StreamExt as _;
use tonic::Code;

use crate::events::next_event;
use crate::milky::{MilkyPeer, gateway_id, milky_config, start};

const ADMIN: i64 = 10_002;
const MEMBER: i64 = 10_003;

#[tokio::test]
async fn reactions_essence_files_and_moderation_on_milky() {
    let peer = MilkyPeer::start().await;
    let mut config = milky_config(&peer.sb, &[SANDBOX_GROUP], MilkyEvents::WebSocket);
    config.policy.rules = vec![PolicyRule {
        actions: vec!["mute".into()],
        chats: vec![format!("group:{SANDBOX_GROUP}")],
        allow_requesters: Some(vec!["admin".into(), "owner".into()]),
        approval: Approval::None,
    }];
    let gw = start(config).await;
    let mut stream = gw
        .events()
        .stream_events(pb::StreamEventsRequest {
            kinds: vec![
                pb::EventKind::Reaction as i32,
                pb::EventKind::Mute as i32,
                pb::EventKind::GroupFileUploaded as i32,
            ],
            ..Default::default()
        })
        .await
        .expect("StreamEvents")
        .into_inner();
    let chat = ChatRef::Group(SANDBOX_GROUP);
    let seeded = peer.sb.control().messages(chat);
    let sandbox_id = seeded.last().expect("a seeded message")["message_id"]
        .as_i64()
        .expect("an id");
    let id = gateway_id(&peer.sb, chat, sandbox_id);

    // A reaction by the bot names the message by its seq.
    gw.messages()
        .react_to_message(pb::ReactToMessageRequest {
            message_id: id,
            emoji_id: "76".into(),
            ..Default::default()
        })
        .await
        .expect("ReactToMessage");
    let sent = peer.calls("send_group_message_reaction");
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["reaction"], "76");
    assert_eq!(sent[0]["is_add"], true);
    peer.sb
        .control()
        .react(sandbox_id, MEMBER, "66", true)
        .expect("a member reacts");
    let reaction = loop {
        if let Some(pb::event::Kind::Reaction(r)) = next_event(&mut stream).await.kind
            && r.user_id == MEMBER
        {
            break r;
        }
    };
    assert_eq!(
        (reaction.message_id, reaction.emoji_id.as_str()),
        (id, "66")
    );

    // Essence, paged by the peer.
    gw.messages()
        .set_essence(pb::SetEssenceRequest {
            message_id: id,
            ..Default::default()
        })
        .await
        .expect("SetEssence");
    assert_eq!(peer.calls("set_group_essence_message").len(), 1);
    let first = gw
        .messages()
        .list_essence(pb::ListEssenceRequest {
            group_id: Some(SANDBOX_GROUP),
            page_size: 3,
            ..Default::default()
        })
        .await
        .expect("ListEssence")
        .into_inner();
    assert_eq!(first.messages.len(), 3);
    assert!(!first.next_page_token.is_empty());
    let second = gw
        .messages()
        .list_essence(pb::ListEssenceRequest {
            group_id: Some(SANDBOX_GROUP),
            page_token: first.next_page_token,
            ..Default::default()
        })
        .await
        .expect("the next page")
        .into_inner();
    assert_eq!(second.messages.len(), 1, "four entries in all");
    let pages = peer.calls("get_group_essence_messages");
    assert_eq!(pages[1]["page_index"], 1);

    // A group file: listed and downloaded byte-exact.
    let bytes = sample_media(MediaKind::File, 70_000);
    let file_id = peer
        .sb
        .control()
        .upload_group_file(SANDBOX_GROUP, MEMBER, "名单.pdf", bytes.clone())
        .expect("a member uploads");
    let uploaded = loop {
        if let Some(pb::event::Kind::GroupFileUploaded(f)) = next_event(&mut stream).await.kind {
            break f;
        }
    };
    assert_eq!(uploaded.file_id, file_id);
    let root = gw
        .groups()
        .list_group_files(pb::ListGroupFilesRequest {
            group_id: Some(SANDBOX_GROUP),
            ..Default::default()
        })
        .await
        .expect("ListGroupFiles")
        .into_inner();
    let listed = root
        .files
        .iter()
        .find(|f| f.file_id == file_id)
        .expect("the upload is listed");
    assert_eq!(listed.size, bytes.len() as u64);
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
    let mut got = Vec::new();
    let mut sha = String::new();
    while let Some(msg) = download.next().await {
        match msg.expect("a chunk").payload {
            Some(pb::download_group_file_response::Payload::Header(h)) => sha = h.sha256,
            Some(pb::download_group_file_response::Payload::Chunk(c)) => got.extend(c),
            None => panic!("an empty message"),
        }
    }
    assert_eq!(got, bytes);
    assert_eq!(sha, hex::encode(Sha256::digest(&bytes)));

    // Moderation a rule allows.
    gw.groups()
        .mute_member(pb::MuteMemberRequest {
            group_id: Some(SANDBOX_GROUP),
            user_id: MEMBER,
            duration_secs: 120,
            on_behalf_of: Some(pb::OnBehalfOf {
                requester: Some(pb::on_behalf_of::Requester::UserId(ADMIN)),
            }),
            ..Default::default()
        })
        .await
        .expect("MuteMember");
    let mutes = peer.calls("set_group_member_mute");
    assert_eq!(mutes.len(), 1);
    assert_eq!(mutes[0]["duration"], 120);
    let muted = loop {
        if let Some(pb::event::Kind::Mute(m)) = next_event(&mut stream).await.kind {
            break m;
        }
    };
    assert_eq!(
        (muted.user_id, muted.duration_secs, muted.muted),
        (MEMBER, 120, true)
    );

    // Milky has no typing.
    let typing = gw
        .messages()
        .set_typing(pb::SetTypingRequest {
            user_id: MEMBER,
            ..Default::default()
        })
        .await
        .expect_err("not whitelisted, and not in Milky");
    assert_eq!(typing.code(), Code::PermissionDenied, "{typing:?}");
    gw.stop().await.expect("stop");
    peer.finish().await;
}

#[tokio::test]
async fn typing_on_milky_is_unimplemented_without_a_call() {
    let peer = MilkyPeer::start().await;
    let mut config = milky_config(&peer.sb, &[SANDBOX_GROUP], MilkyEvents::WebSocket);
    if let Some(a) = config.accounts.get_mut("default") {
        a.users = vec![MEMBER];
    }
    let gw = start(config).await;
    let typing = gw
        .messages()
        .set_typing(pb::SetTypingRequest {
            user_id: MEMBER,
            ..Default::default()
        })
        .await
        .expect_err("Milky has no typing");
    assert_eq!(typing.code(), Code::Unimplemented, "{typing:?}");
    assert_eq!(reason(&typing), "NOT_SUPPORTED_BY_IMPLEMENTATION");
    gw.stop().await.expect("stop");
    peer.finish().await;
}
