//! End-to-end tests of the Rust client against a real gateway on its
//! sandbox peer (started by scripts/sdk-tests.sh, which sets
//! `ONEBOT_GATEWAY_ADDR`). Run: `cargo test -p onebot-gateway-client
//! --features e2e --test e2e`.

mod examples;

use onebot_gateway_client::{ACCOUNT_HEALTH_SERVICE_PREFIX, Client, Error, ServingStatus, pb};

async fn client() -> Client {
    assert!(
        std::env::var("ONEBOT_GATEWAY_ADDR").is_ok(),
        "ONEBOT_GATEWAY_ADDR is not set: run ./scripts/sdk-tests.sh"
    );
    examples::connect().await.expect("connect")
}

#[tokio::test]
async fn health_is_serving() {
    let client = client().await;
    assert_eq!(
        examples::health(&client).await.unwrap(),
        ServingStatus::Serving
    );
    let unknown = client.health("no.such.Service").await.unwrap_err();
    assert_eq!(unknown.rpc().unwrap().code, tonic::Code::NotFound);
}

const PLAYGROUND: i64 = 20000003;

#[tokio::test]
async fn accounts_list_the_sandbox_account() {
    let client = client().await;
    let accounts = examples::accounts(&client).await.unwrap();
    let default = accounts.iter().find(|a| a.account_id == "default").unwrap();
    assert!(default.groups.contains(&PLAYGROUND), "{default:?}");
    // The embedded sandbox imitates NapCat: probed on connect, anchors in message_seq.
    assert_eq!(
        (
            default.history_anchor.as_str(),
            default.anchor_included,
            default.history_anchor_source.as_str()
        ),
        ("message_id_as_seq", true, "probed")
    );
    assert_eq!(
        client
            .health(&format!("{ACCOUNT_HEALTH_SERVICE_PREFIX}default"))
            .await
            .unwrap(),
        ServingStatus::Serving
    );
}

#[tokio::test]
async fn history_pages_the_playground_group() {
    let client = client().await;
    let page = examples::history(&client).await.unwrap();
    assert_eq!(page.target, format!("group:{PLAYGROUND}"));
    assert_eq!(page.messages.len(), 5);
    assert_eq!(page.rendered.lines().count(), 5);
    let anchor = page.next_anchor_message_id.expect("older pages exist");
    let older = client
        .history(pb::Chat::group(PLAYGROUND), 5, Some(anchor))
        .await
        .unwrap();
    let newer: Vec<i64> = page.messages.iter().map(|m| m.message_id).collect();
    assert!(
        older
            .messages
            .iter()
            .all(|m| !newer.contains(&m.message_id))
    );
}

#[tokio::test]
async fn members_of_the_playground_group() {
    let client = client().await;
    let members = examples::members(&client).await.unwrap();
    assert_eq!((members.total, members.shown), (36, 5));
    assert_eq!(members.members[0].user_id, 10001);
    assert_eq!(members.members[0].role, "owner");
    assert!(
        members.rendered.ends_with("（仅显示前 5 / 共 36 名成员）"),
        "{}",
        members.rendered
    );
    let groups = examples::groups(&client).await.unwrap();
    let playground = groups
        .groups
        .iter()
        .find(|g| g.group_id == PLAYGROUND)
        .unwrap();
    assert!(playground.whitelisted);
}

#[tokio::test]
async fn uploads_a_5_mib_image() {
    let client = client().await;
    let path = std::env::var("ONEBOT_GATEWAY_TEST_IMAGE").expect("ONEBOT_GATEWAY_TEST_IMAGE");
    let data = std::fs::read(&path).unwrap();
    assert!(data.len() >= 5 * 1024 * 1024);
    let uploaded = examples::upload(&client, &path).await.unwrap();
    assert!(!uploaded.media_id.is_empty());
    assert_eq!(uploaded.size, data.len() as u64);
    assert_eq!(uploaded.mime_type, "image/png");
    assert_eq!(uploaded.response.kind, pb::MediaKind::Image as i32);
}

#[tokio::test]
async fn downloads_received_and_uploaded_media() {
    use sha2::Digest;
    let client = client().await;
    let dir = tempfile::tempdir().unwrap();
    let picture = examples::download(&client, dir.path())
        .await
        .unwrap()
        .expect("the playground has pictures");
    assert_eq!(picture.header.mime_type, "image/png");
    assert_eq!(
        hex::encode(sha2::Sha256::digest(&picture.data)),
        picture.header.sha256
    );
    assert_eq!(
        std::fs::read(dir.path().join("picture")).unwrap(),
        picture.data.to_vec()
    );
    let data = b"%PDF-1.4 round trip".to_vec();
    let uploaded = client
        .upload(
            onebot_gateway_client::MediaInput::bytes(data.clone(), "r.pdf"),
            pb::MediaKind::File,
        )
        .await
        .unwrap();
    let again = client.download(uploaded.media_id.as_str()).await.unwrap();
    assert_eq!(again.data.to_vec(), data);
    let missing = client
        .download_to("r_0123456789abcdef_1_0", dir.path().join("missing"))
        .await
        .unwrap_err();
    let rpc = missing.rpc().expect("an rpc error");
    assert_eq!(rpc.code, tonic::Code::NotFound);
    assert_eq!(rpc.reason.as_deref(), Some("MEDIA_NOT_FOUND"));
    assert!(!dir.path().join("missing.part").exists());
}

#[tokio::test]
async fn errors_carry_reason_metadata_and_field() {
    let client = client().await;
    let err = examples::errors(&client).await.unwrap();
    let rpc = err.rpc().unwrap();
    assert_eq!(rpc.code, tonic::Code::InvalidArgument);
    assert_eq!(rpc.reason(), Some("INVALID_REQUEST"));
    assert!(rpc.is_gateway_error());
    assert_eq!(rpc.field_violations[0].field, "group_id");

    let other = Client::builder(std::env::var("ONEBOT_GATEWAY_ADDR").unwrap())
        .account_id("nope")
        .connect()
        .await
        .unwrap();
    let err = other
        .history(pb::Chat::group(PLAYGROUND), 5, None)
        .await
        .unwrap_err();
    let rpc = err.rpc().unwrap();
    assert_eq!(rpc.code, tonic::Code::FailedPrecondition);
    assert!(rpc.is(pb::ErrorReason::AccountNotConfigured));
    assert_eq!(rpc.metadata["account_id"], "nope");

    // A media kind mismatch is refused while streaming.
    let err = client
        .upload(
            onebot_gateway_client::MediaInput::bytes(vec![0u8; 1024], "x.png"),
            pb::MediaKind::Image,
        )
        .await
        .unwrap_err();
    assert_eq!(err.reason(), Some("MEDIA_TYPE_MISMATCH"), "{err}");
}

#[tokio::test]
async fn an_unreachable_gateway_is_a_connect_error() {
    let err = Client::builder("http://127.0.0.1:1")
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Connect(_)), "{err:?}");
}

#[tokio::test]
async fn sends_a_5_mib_image_and_reads_it_back() {
    let client = client().await;
    let path = std::env::var("ONEBOT_GATEWAY_TEST_IMAGE").expect("ONEBOT_GATEWAY_TEST_IMAGE");
    let sent = examples::send(&client, &path).await.unwrap();
    assert_eq!(sent.group_id, PLAYGROUND);
    assert!(!sent.queued);
    assert_eq!(sent.media.as_ref().map(|m| m.images), Some(1));
    assert_eq!(sent.message_ids.len(), 2, "text then image: {sent:?}");
    let page = client
        .history(pb::Chat::group(PLAYGROUND), 10, None)
        .await
        .unwrap();
    let image_id = sent.message_ids[1];
    let message = page
        .messages
        .iter()
        .find(|m| m.message_id == image_id)
        .unwrap_or_else(|| panic!("{image_id} not in {page:?}"));
    assert!(
        message
            .segments
            .iter()
            .any(|s| matches!(s.kind, Some(pb::segment::Kind::Image(_)))),
        "{message:?}"
    );
    let text = page
        .messages
        .iter()
        .find(|m| m.message_id == sent.message_ids[0])
        .unwrap();
    assert_eq!(text.text, "hello from Rust");
}

#[tokio::test]
async fn conversation_reply_mention_private_recall_forward() {
    let client = client().await;
    let reply = examples::conversation(&client).await.unwrap();
    let message = reply.message.as_ref().unwrap();
    let kinds: Vec<&str> = message
        .segments
        .iter()
        .map(|s| match s.kind {
            Some(pb::segment::Kind::Reply(_)) => "reply",
            Some(pb::segment::Kind::At(_)) => "at",
            Some(pb::segment::Kind::Text(_)) => "text",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["reply", "at", "text"]);
    let Some(pb::segment::Kind::Reply(quote)) = &message.segments[0].kind else {
        unreachable!()
    };
    assert!(quote.quoted.as_ref().is_some_and(|q| q.message_id != 0));
    assert!(reply.rendered.contains("[回复 "), "{}", reply.rendered);
    assert!(!message.text.contains("回复"));
    let private = client
        .history(pb::Chat::private(10001), 5, None)
        .await
        .unwrap();
    assert!(private.messages.iter().all(|m| m.text != "私聊一句"));
    let too_old = client
        .recall(private.messages[0].message_id)
        .await
        .unwrap_err();
    let rpc = too_old.rpc().unwrap();
    assert_eq!(
        (rpc.code, rpc.reason.as_deref()),
        (
            tonic::Code::FailedPrecondition,
            Some("ONEBOT_ACTION_FAILED")
        )
    );
    let missing = client.get_forward("no-such-bundle").await.unwrap_err();
    assert!(
        missing.rpc().unwrap().is(pb::ErrorReason::MessageNotFound),
        "{missing:?}"
    );
    let denied = client
        .send(onebot_gateway_client::OutgoingMessage::to_user(10002).text("x"))
        .await
        .unwrap_err();
    assert!(
        denied.rpc().unwrap().is(pb::ErrorReason::UserNotAllowed),
        "{denied:?}"
    );
}

#[tokio::test]
async fn pokes_a_member() {
    let client = client().await;
    let poked = examples::poke(&client).await.unwrap();
    assert_eq!((poked.group_id, poked.user_id), (PLAYGROUND, 10001));
}

#[tokio::test]
async fn calls_a_tool() {
    let client = client().await;
    let result = examples::tools(&client).await.unwrap();
    assert!(!result.is_error, "{result:?}");
    let details: serde_json::Value = serde_json::from_str(&result.details_json).unwrap();
    assert_eq!(details["status"], "ok");
    assert_eq!(details["total"], 36);
    assert_eq!(details["shown"], 2);
    assert_eq!(result.text.lines().count(), 3, "{}", result.text);
    let failed = client
        .call_tool("qq_get_group_members", "{}")
        .await
        .unwrap();
    assert!(failed.is_error);
}

#[tokio::test]
async fn events_replay_and_follow() {
    let client = client().await;
    // Any poke (this one or another test's) is replayed from the buffer.
    client.poke(Some(PLAYGROUND), 10002).await.unwrap();
    let first = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        examples::events(&client),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(first.sequence >= 1);
    match first.kind {
        Some(pb::event::Kind::Poke(p)) => assert_eq!(p.group_id, PLAYGROUND),
        other => panic!("unexpected event {other:?}"),
    }
}

#[tokio::test]
async fn events_resume_across_a_proxy_restart() {
    // scripts/sdk-tests.sh runs nginx in front of the gateway and gives a
    // command that kills and restarts it.
    let (Ok(proxy), Ok(restart)) = (
        std::env::var("ONEBOT_GATEWAY_PROXY_ADDR"),
        std::env::var("ONEBOT_GATEWAY_PROXY_RESTART"),
    ) else {
        panic!("ONEBOT_GATEWAY_PROXY_ADDR is not set: run ./scripts/sdk-tests.sh");
    };
    let client = client().await;
    let via_proxy = Client::connect(proxy).await.unwrap();
    let mut events = via_proxy
        .events(pb::StreamEventsRequest {
            kinds: vec![pb::EventKind::Poke as i32],
            after_sequence: Some(0),
            ..Default::default()
        })
        .await
        .unwrap();
    let target = |e: &pb::Event| match &e.kind {
        Some(pb::event::Kind::Poke(p)) => p.target_id,
        _ => 0,
    };
    client.poke(Some(PLAYGROUND), 10009).await.unwrap();
    let first = loop {
        let e = events.next().await.unwrap().unwrap();
        if target(&e) == 10009 {
            break e;
        }
    };
    let status = std::process::Command::new(restart).status().unwrap();
    assert!(status.success(), "restarting the proxy: {status}");
    client.poke(Some(PLAYGROUND), 10010).await.unwrap();
    // Other tests poke too: read up to this test's second poke, and see
    // nothing twice on the way.
    let mut last = first.sequence;
    loop {
        let e = events.next().await.unwrap().unwrap();
        assert!(
            e.sequence > last,
            "in order, once: {} after {last}",
            e.sequence
        );
        assert_ne!(target(&e), 10009, "the event before the restart came again");
        last = e.sequence;
        if target(&e) == 10010 {
            break;
        }
    }
    assert!(events.reconnects() >= 1);
}

#[tokio::test]
async fn search_finds_what_was_sent() {
    let client = client().await;
    let sent = client
        .send(
            onebot_gateway_client::OutgoingMessage::to_group(PLAYGROUND).text("Rust 明天下午开会"),
        )
        .await
        .unwrap();
    let pages = examples::search(&client).await.unwrap();
    let found: Vec<&pb::ChatMessage> = pages.iter().flat_map(|p| &p.messages).collect();
    assert!(
        found.iter().any(|m| m.message_id == sent.message_ids[0]),
        "{found:?}"
    );
    assert!(found.iter().all(|m| m.text.contains("开会")), "{found:?}");
    let err = client
        .search(pb::SearchMessagesRequest {
            chat: Some(pb::Chat::group(0)),
            ..Default::default()
        })
        .next_page()
        .await
        .unwrap_err();
    assert_eq!(err.rpc().and_then(|r| r.reason()), Some("INVALID_REQUEST"));
}

#[tokio::test]
async fn lists_and_downloads_group_files() {
    let client = client().await;
    let dir = tempfile::tempdir().unwrap();
    let files = examples::group_files(&client, dir.path()).await.unwrap();
    assert!(!files.is_empty(), "group {PLAYGROUND} has files");
    for (file, got) in &files {
        assert_eq!(got.data.len() as u64, file.size, "{file:?}");
        assert_eq!(got.header.size as u64, file.size);
        assert_eq!(got.header.kind, pb::MediaKind::File as i32);
    }
    let saved = std::fs::metadata(dir.path().join("group-file")).unwrap();
    assert_eq!(saved.len(), files.last().unwrap().0.size);
}

#[tokio::test]
async fn reacts_and_lists_essence() {
    let client = client().await;
    let essence = examples::react(&client).await.unwrap();
    assert!(
        !essence.is_empty(),
        "group {PLAYGROUND} has essence messages"
    );
    let mut pages = client.list_essence(Some(PLAYGROUND), 1);
    let first = pages.next_page().await.unwrap().unwrap();
    assert_eq!(first.group_id, PLAYGROUND);
    assert!(first.messages.len() <= 1);
}

#[tokio::test]
async fn typing_needs_a_whitelisted_user() {
    let client = client().await;
    let denied = client.set_typing(10002).await.unwrap_err();
    let rpc = denied.rpc().unwrap();
    assert_eq!(rpc.code, tonic::Code::PermissionDenied);
    assert!(rpc.is(pb::ErrorReason::UserNotAllowed), "{denied:?}");
    examples::typing(&client).await.unwrap();
}

#[tokio::test]
async fn moderation_without_a_policy_rule_is_denied() {
    let client = client().await;
    let refused = examples::moderation(&client)
        .await
        .unwrap()
        .expect("no policy rule names `mute`");
    let rpc = refused.rpc().unwrap();
    assert_eq!(rpc.code, tonic::Code::PermissionDenied);
    assert!(rpc.is(pb::ErrorReason::PolicyDenied));
    assert_eq!(rpc.metadata.get("rule").map(String::as_str), Some("none"));
    for err in [
        client.mute_all(Some(PLAYGROUND), true).await.unwrap_err(),
        client
            .kick_member(Some(PLAYGROUND), 10003, false)
            .await
            .unwrap_err(),
        client
            .set_member_card(Some(PLAYGROUND), 10003, "新名片")
            .await
            .unwrap_err(),
    ] {
        assert_eq!(err.reason(), Some("POLICY_DENIED"), "{err:?}");
    }
}
