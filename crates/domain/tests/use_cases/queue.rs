//! The durable offline queue over the gateway's SQLite state: order, limits,
//! expiry and what survives a restart.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use onebot_gateway_domain::delivery::lead::Lead;
use onebot_gateway_domain::delivery::queue::{NewEntry, OfflineQueue, QueuedEntry};
use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::model::ChatRef;
use onebot_gateway_store::state::StateStore;

fn open(dir: &Path) -> OfflineQueue {
    OfflineQueue::open(Arc::new(StateStore::open(dir).unwrap())).unwrap()
}

const TTL: Duration = Duration::from_secs(1800);
const G7: ChatRef = ChatRef::Group(7);

#[tokio::test]
async fn entries_keep_order_survive_reopen_and_never_evict() {
    let dir = tempfile::tempdir().unwrap();
    {
        let q = open(dir.path());
        for i in 0..3 {
            q.push(
                "a",
                NewEntry::group_text(7, vec![format!("m{i}")]),
                3,
                TTL,
                1000,
            )
            .await
            .unwrap();
        }
        q.push(
            "b",
            NewEntry::group_text(8, vec!["other".into()]),
            3,
            TTL,
            1000,
        )
        .await
        .unwrap();
        let err = q
            .push(
                "a",
                NewEntry::group_text(7, vec!["m3".into()]),
                3,
                TTL,
                1000,
            )
            .await
            .unwrap_err();
        assert_eq!(err.kind, Kind::QueueFull);
        assert_eq!(q.depth("a"), 3);
    }
    let q = open(dir.path());
    assert_eq!(q.depth("a"), 3);
    assert_eq!(q.depth("b"), 1);
    let a = q.list("a").await.unwrap();
    let texts: Vec<&str> = a.iter().map(|e| e.chunks[0].as_str()).collect();
    assert_eq!(texts, ["m0", "m1", "m2"]);
    let mut first = a[0].clone();
    first.sent = 1;
    q.update("a", &first).await.unwrap();
    assert_eq!(q.list("a").await.unwrap()[0].sent, 1);
    q.remove("a", first.seq).await.unwrap();
    assert_eq!(q.depth("a"), 2);
    assert_eq!(q.list("a").await.unwrap()[0].chunks, ["m1"]);
}

#[tokio::test]
async fn expired_entries_are_returned_not_dropped_silently() {
    let dir = tempfile::tempdir().unwrap();
    let q = open(dir.path());
    q.push(
        "a",
        NewEntry::group_text(7, vec!["old".into()]),
        2,
        Duration::from_secs(1),
        0,
    )
    .await
    .unwrap();
    q.push(
        "a",
        NewEntry::group_text(7, vec!["new".into()]),
        2,
        TTL,
        500,
    )
    .await
    .unwrap();
    // Full, but the old entry has expired by now: it makes room.
    let (_, expired) = q
        .push(
            "a",
            NewEntry::group_text(7, vec!["newer".into()]),
            2,
            TTL,
            1000,
        )
        .await
        .unwrap();
    assert_eq!(expired.len(), 1);
    assert_eq!(expired[0].chunks, ["old"]);
    let expired = q.take_expired("a", 500 + 1_800_000).await.unwrap();
    assert_eq!(expired.len(), 1);
    assert_eq!(q.depth("a"), 1);
}

#[tokio::test]
async fn private_entries_and_leads_round_trip_and_old_entries_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let q = open(dir.path());
    let lead = Lead {
        reply_to: Some(5),
        mentions: vec![],
        mention_all: false,
    };
    let (entry, _) = q
        .push(
            "a",
            NewEntry {
                chat: ChatRef::Private(42),
                lead: lead.clone(),
                chunks: vec![],
            },
            5,
            TTL,
            0,
        )
        .await
        .unwrap();
    assert_eq!((entry.chat(), entry.messages()), (ChatRef::Private(42), 1));
    let listed = &q.list("a").await.unwrap()[0];
    assert_eq!((listed.chat(), &listed.lead), (ChatRef::Private(42), &lead));
    // An entry stored before private sends existed.
    let old = r#"{"seq":9,"group_id":7,"chunks":["hi"],"sent":0,"enqueued_ms":1,"expires_ms":2}"#;
    let old: QueuedEntry = serde_json::from_str(old).unwrap();
    assert_eq!(
        (old.chat(), old.lead.is_empty(), old.messages()),
        (G7, true, 1)
    );
    let text = serde_json::to_string(&old).unwrap();
    assert!(
        !text.contains("user_id") && !text.contains("lead"),
        "{text}"
    );
}
