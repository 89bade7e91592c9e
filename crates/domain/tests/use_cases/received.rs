//! The received-media store: content addressing, quota eviction with
//! tombstones, expiry, and what survives a restart.

use std::path::Path;
use std::sync::Arc;

use onebot_gateway_config::CaptureConfig;
use onebot_gateway_domain::clock::now_ms;
use onebot_gateway_domain::media::received::{Gone, ItemMeta, Lookup, ReceivedStore};
use onebot_gateway_domain::model::{ChatRef, ReceivedKind};
use onebot_gateway_domain::ports::MediaSink;
use onebot_gateway_store::state::StateStore;

fn config(quota: u64) -> CaptureConfig {
    CaptureConfig {
        quota_bytes: quota,
        max_bytes: quota,
        ttl_secs: 60,
        ..CaptureConfig::default()
    }
}

fn open(dir: &Path) -> ReceivedStore {
    let state = Arc::new(StateStore::open(dir).unwrap());
    ReceivedStore::open(dir, state, config(100)).unwrap()
}

fn meta(id: &str, index: usize) -> ItemMeta {
    ItemMeta {
        media_id: id.to_string(),
        chat: ChatRef::Group(5),
        message_id: 7,
        index,
        kind: ReceivedKind::File,
        file_name: format!("{id}.bin"),
    }
}

async fn keep(store: &ReceivedStore, id: &str, bytes: &[u8]) {
    let mut w = store.writer(1 << 20).await.unwrap();
    w.write(bytes).await.unwrap();
    store.commit("a", meta(id, 0), w).await.unwrap();
}

fn blobs(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("received"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn same_bytes_once_oldest_evicted_and_everything_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let ids;
    {
        let store = open(dir.path());
        ids = store.ids().clone();
        keep(&store, "one", &[1; 40]).await;
        keep(&store, "one-again", &[1; 40]).await;
        assert_eq!(store.used_bytes(), 40, "the same bytes are kept once");
        assert_eq!(blobs(dir.path()).len(), 1);
        keep(&store, "two", &[2; 40]).await;
        keep(&store, "three", &[3; 40]).await;
        // 3 × 40 > 100: the oldest blob's records went.
        assert!(store.used_bytes() <= 100);
        assert!(matches!(
            store.lookup("a", "one"),
            Lookup::Gone(Gone::Evicted, _, ChatRef::Group(5))
        ));
        assert!(matches!(
            store.lookup("a", "one-again"),
            Lookup::Gone(Gone::Evicted, ..)
        ));
        assert!(matches!(store.lookup("a", "three"), Lookup::Stored(_)));
        assert!(
            matches!(store.lookup("b", "three"), Lookup::Unknown),
            "per account"
        );
        assert_eq!(blobs(dir.path()).len(), 2, "the evicted blob is deleted");
        // A writer dropped uncommitted leaves nothing.
        let mut w = store.writer(10).await.unwrap();
        w.write(&[9; 5]).await.unwrap();
        assert!(w.write(&[9; 6]).await.is_err(), "past the limit");
        drop(w);
        assert_eq!(blobs(dir.path()).len(), 2);
    }
    let store = open(dir.path());
    assert_eq!(
        store.ids().id("a", 1, 2),
        ids.id("a", 1, 2),
        "ids are stable across restarts"
    );
    match store.lookup("a", "three") {
        Lookup::Stored(item) => {
            assert_eq!(item.size, 40);
            assert_eq!(std::fs::read(&item.path).unwrap(), vec![3; 40]);
            assert_eq!(item.file_name, "three.bin");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        store.lookup("a", "one"),
        Lookup::Gone(Gone::Evicted, ..)
    ));
    // Past the TTL: expired, the blobs deleted.
    assert_eq!(store.sweep(now_ms() + 61_000).await.unwrap(), 2);
    assert!(matches!(
        store.lookup("a", "three"),
        Lookup::Gone(Gone::Expired, ..)
    ));
    assert!(blobs(dir.path()).is_empty());
    assert_eq!(store.used_bytes(), 0);
}

#[tokio::test]
async fn waiting_for_a_fetch_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(dir.path());
    let fetching = store.begin("a", "x").expect("not yet fetching");
    assert!(store.begin("a", "x").is_none(), "one fetch at a time");
    let waiter = {
        let store = store.clone();
        tokio::spawn(async move { store.wait("a", "x", None).await })
    };
    tokio::task::yield_now().await;
    fetching.finish(Ok(()));
    assert!(matches!(waiter.await.unwrap(), Some(Ok(())) | None));
    assert!(store.wait("a", "x", None).await.is_none(), "over");
    // A fetch dropped without an outcome is abandoned.
    let fetching = store.begin("a", "y").unwrap();
    drop(fetching);
    assert!(store.begin("a", "y").is_some());
}
