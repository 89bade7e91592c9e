//! Reads, sends, members and groups.

use super::*;

#[tokio::test]
async fn status_names_the_peer() {
    let rig = rig("status", MilkyEvents::WebSocket).await;
    let s = rig.client.status();
    assert_eq!(s.self_id, DEFAULT_SELF_ID);
    assert_eq!(s.implementation, "onebot-sandbox");
    assert!(!s.implementation_version.is_empty());
    assert_eq!(s.profile, Some("milky"));
    assert_eq!(
        s.transport,
        onebot_gateway_domain::model::TransportKind::Http
    );
}

#[tokio::test]
async fn history_pages_back_over_thirty_without_gap_or_duplicate() {
    let rig = rig("history", MilkyEvents::WebSocket).await;
    let chat = ChatRef::Group(SANDBOX_GROUP);
    let mut seqs: Vec<i64> = Vec::new();
    let mut anchor = None;
    loop {
        let page = rig
            .client
            .get_history(chat, 100, anchor, deadline())
            .await
            .unwrap();
        assert!(page.messages.len() <= 100);
        let page_seqs: Vec<i64> = page
            .messages
            .iter()
            .map(|m| m.message_seq.unwrap())
            .collect();
        assert!(page_seqs.windows(2).all(|w| w[0] < w[1]), "{page_seqs:?}");
        if let (Some(last), Some(first)) = (page_seqs.last(), seqs.first()) {
            assert!(last < first, "pages overlap: {last} !< {first}");
        }
        if page.has_more {
            assert_eq!(page.messages.len(), 100);
        }
        anchor = page.messages.first().map(|m| m.message_id);
        seqs.splice(0..0, page_seqs);
        if !page.has_more {
            break;
        }
    }
    let stored = stored_seqs(
        &rig.sandbox.control(),
        onebot_sandbox::ChatRef::Group(SANDBOX_GROUP),
    );
    assert_eq!(seqs, stored);
    // A friend chat: every row its sender's name, the bot's own too.
    let friend = rig
        .client
        .get_history(ChatRef::Private(10001), 100, None, deadline())
        .await
        .unwrap();
    assert!(friend.messages.len() > 30 && !friend.has_more);
    assert!(
        friend
            .messages
            .iter()
            .any(|m| m.sender.user_id == DEFAULT_SELF_ID)
    );
    assert!(
        friend
            .messages
            .iter()
            .all(|m| !m.sender.nickname.is_empty()),
        "{:?}",
        friend.messages
    );
    // A count under one page, and an anchor's chat checked.
    let small = rig
        .client
        .get_history(chat, 7, None, deadline())
        .await
        .unwrap();
    assert_eq!(small.messages.len(), 7);
    assert!(small.has_more);
    let other = rig
        .client
        .get_history(
            ChatRef::Group(EXAMPLE_GROUP),
            5,
            Some(small.messages[0].message_id),
            deadline(),
        )
        .await;
    assert_eq!(other.unwrap_err().kind, Kind::MessageNotFound);
}

#[tokio::test]
async fn send_read_and_recall_a_message() {
    let mut rig = rig("send", MilkyEvents::WebSocket).await;
    let chat = ChatRef::Group(SANDBOX_GROUP);
    let newest = rig
        .client
        .get_history(chat, 1, None, deadline())
        .await
        .unwrap();
    let quoted = newest.messages[0].message_id;
    let image = MediaPayload::inline(
        MediaKind::Image,
        "image/png".into(),
        "a.png".into(),
        Bytes::from(onebot_sandbox::sample_media(
            onebot_sandbox::MediaKind::Image,
            256,
        )),
    );
    let id = rig
        .client
        .send_message(
            chat,
            &[
                OutSegment::Reply(quoted),
                OutSegment::At(10002),
                OutSegment::Text("你好 milky"),
                OutSegment::Image(&image),
            ],
            deadline(),
        )
        .await
        .unwrap();
    assert_ne!(id, 0);
    let m = rig
        .client
        .get_message(id, Some(chat), deadline())
        .await
        .unwrap();
    assert_eq!(m.message_id, id);
    assert_eq!(m.chat, chat);
    assert_eq!(m.sender.user_id, DEFAULT_SELF_ID);
    assert!(text(&m).contains("你好 milky"), "{m:?}");
    assert!(
        m.segments
            .iter()
            .any(|s| matches!(s, Segment::Image { .. })),
        "{m:?}"
    );
    match m.segments.first() {
        Some(Segment::Reply {
            id: q,
            quoted: Some(inline),
        }) => {
            assert_eq!(q, &quoted.to_string());
            assert_eq!(inline.message_id, quoted);
        }
        other => panic!("no inline quote: {other:?}"),
    }
    // The peer echoes the bot's own send as an event with the same id.
    let echoed = event_until(&mut rig.events, |e| match e {
        InboundEvent::Message {
            message,
            self_sent: true,
            ..
        } if message.message_id == id => Some(message),
        _ => None,
    })
    .await;
    assert_eq!(echoed.chat, chat);
    rig.client.recall(id, deadline()).await.unwrap();
    let gone = rig
        .client
        .get_message(id, Some(chat), deadline())
        .await
        .unwrap_err();
    assert_eq!(gone.kind, Kind::MessageNotFound);
    // Ids of no message of this account.
    assert_eq!(
        rig.client
            .get_message(12345, None, deadline())
            .await
            .unwrap_err()
            .kind,
        Kind::MessageNotFound
    );
    assert_eq!(
        rig.client.recall(12345, deadline()).await.unwrap_err().kind,
        Kind::MessageNotFound
    );
}

#[tokio::test]
async fn members_and_groups_are_listed() {
    let rig = rig("members", MilkyEvents::Sse).await;
    let groups = rig.client.get_groups(deadline()).await.unwrap();
    let ids: Vec<i64> = groups.iter().map(|g| g.group_id).collect();
    assert_eq!(ids, vec![EXAMPLE_GROUP, SANDBOX_GROUP]);
    let members = rig
        .client
        .get_group_members(EXAMPLE_GROUP, None, deadline())
        .await
        .unwrap();
    assert_eq!(members.len() as i64, groups[0].member_count);
    assert!(members.iter().any(|m| m.role == "owner"));
    let fresh = rig
        .client
        .get_group_members(EXAMPLE_GROUP, Some(true), deadline())
        .await
        .unwrap();
    assert_eq!(fresh.len(), members.len());
    rig.client
        .poke(SANDBOX_GROUP, 10002, deadline())
        .await
        .unwrap();
}
