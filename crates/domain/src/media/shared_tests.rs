//! Stores over different directories sharing one index and one blob store,
//! as the gateways of `[ha]` do: what one keeps, another serves.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};

use super::received::{ItemMeta, Lookup, ReceivedStore};
use super::shared::{PART_BYTES, SharedBlobs, received_name, staged_name};
use super::staging::{MediaOwner, MediaStore};
use super::upload::UploadHeader;
use crate::error::{Kind, Result};
use crate::model::{ChatRef, MediaKind, ReceivedKind};
use crate::ports::MediaSink as _;
use crate::store::{MediaIndex, ReceivedIndex};
use onebot_gateway_config::{CaptureConfig, MediaConfig};

/// Blobs in memory, in parts, counting fetches.
#[derive(Debug, Default)]
struct MemBlobs {
    parts: Mutex<HashMap<String, Vec<Vec<u8>>>>,
    fetches: AtomicUsize,
}

impl MemBlobs {
    fn has(&self, name: &str) -> bool {
        self.parts.lock().contains_key(name)
    }
}

#[async_trait::async_trait]
impl SharedBlobs for MemBlobs {
    async fn put(&self, name: &str, path: &Path) -> Result<()> {
        let mut file = tokio::fs::File::open(path).await.unwrap();
        let mut parts = Vec::new();
        loop {
            let mut part = vec![0u8; PART_BYTES];
            let n = file.read(&mut part).await.unwrap();
            if n == 0 {
                break;
            }
            part.truncate(n);
            parts.push(part);
        }
        self.parts.lock().entry(name.to_owned()).or_insert(parts);
        Ok(())
    }

    async fn fetch(&self, name: &str, out: &mut (dyn AsyncWrite + Send + Unpin)) -> Result<bool> {
        self.fetches.fetch_add(1, Ordering::SeqCst);
        let Some(parts) = self.parts.lock().get(name).cloned() else {
            return Ok(false);
        };
        for part in parts {
            out.write_all(&part).await.unwrap();
            tokio::task::yield_now().await;
        }
        Ok(true)
    }

    async fn remove(&self, names: &[String]) -> Result<()> {
        let mut parts = self.parts.lock();
        for n in names {
            parts.remove(n);
        }
        Ok(())
    }
}

/// An index in memory, shared by the stores of a test.
#[derive(Debug, Default)]
struct MemIndex {
    secret: Mutex<Option<[u8; 32]>>,
    rows: Mutex<BTreeMap<String, Vec<u8>>>,
}

impl ReceivedIndex for MemIndex {
    fn secret(&self, fresh: [u8; 32]) -> Result<[u8; 32]> {
        Ok(*self.secret.lock().get_or_insert(fresh))
    }

    fn all(&self) -> Result<Vec<(String, Vec<u8>)>> {
        Ok(self
            .rows
            .lock()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    fn apply(&self, put: &[(String, Vec<u8>)], remove: &[String]) -> Result<()> {
        let mut rows = self.rows.lock();
        for (k, v) in put {
            rows.insert(k.clone(), v.clone());
        }
        for k in remove {
            rows.remove(k);
        }
        Ok(())
    }
}

impl MediaIndex for MemIndex {
    fn all(&self) -> Result<Vec<(String, Vec<u8>)>> {
        ReceivedIndex::all(self)
    }

    fn put(&self, id: &str, value: &[u8]) -> Result<()> {
        self.rows.lock().insert(id.to_owned(), value.to_vec());
        Ok(())
    }

    fn remove(&self, ids: &[String]) -> Result<()> {
        let mut rows = self.rows.lock();
        for id in ids {
            rows.remove(id);
        }
        Ok(())
    }
}

fn capture(quota: u64) -> CaptureConfig {
    CaptureConfig {
        quota_bytes: quota,
        max_bytes: quota,
        ttl_secs: 60,
        ..CaptureConfig::default()
    }
}

fn meta(id: &str) -> ItemMeta {
    ItemMeta {
        media_id: id.to_owned(),
        chat: ChatRef::Group(5),
        message_id: 7,
        index: 0,
        kind: ReceivedKind::File,
        file_name: format!("{id}.bin"),
    }
}

fn bytes(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31) ^ seed)
        .collect()
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

async fn keep(store: &ReceivedStore, id: &str, bytes: &[u8]) {
    keep_for(store, "acct", id, bytes).await;
}

async fn keep_for(store: &ReceivedStore, account: &str, id: &str, bytes: &[u8]) {
    let mut w = store.writer(64 << 20).await.unwrap();
    for chunk in bytes.chunks(100_000) {
        w.write(chunk).await.unwrap();
    }
    store.commit(account, meta(id), w).await.unwrap();
}

struct Received {
    index: Arc<MemIndex>,
    blobs: Arc<MemBlobs>,
    dirs: Vec<tempfile::TempDir>,
}

impl Received {
    fn new() -> Self {
        Self {
            index: Arc::default(),
            blobs: Arc::default(),
            dirs: Vec::new(),
        }
    }

    /// Another gateway's store, over a directory of its own.
    fn open(&mut self, quota: u64) -> ReceivedStore {
        let dir = tempfile::tempdir().unwrap();
        let store = ReceivedStore::open_with_blobs(
            dir.path(),
            self.index.clone(),
            capture(quota),
            self.blobs.clone(),
        )
        .unwrap();
        self.dirs.push(dir);
        store
    }
}

fn stored(store: &ReceivedStore, id: &str) -> super::received::StoredItem {
    match store.lookup("acct", id) {
        Lookup::Stored(item) => item,
        other => panic!("{id} is not stored: {other:?}"),
    }
}

#[tokio::test]
async fn received_media_kept_by_one_gateway_are_served_by_another_after_reload() {
    let mut gw = Received::new();
    let a = gw.open(64 << 20);
    let b = gw.open(64 << 20);
    // Several parts, the last one short.
    let data = bytes(PART_BYTES * 2 + 12_345, 1);
    keep(&a, "one", &data).await;
    assert!(gw.blobs.has(&received_name("acct", &sha(&data))));
    assert_eq!(a.ids().id("acct", 7, 0), b.ids().id("acct", 7, 0));

    assert_eq!(b.lookup("acct", "one"), Lookup::Unknown);
    assert_eq!(b.used_bytes(), 0);
    b.reload().await.unwrap();
    assert_eq!(b.used_bytes(), data.len() as u64);
    assert_eq!(b.len(), 1);
    let item = stored(&b, "one");
    assert!(!item.path.exists(), "B's directory never had the file");
    assert!(b.ensure_local("acct", &item).await.unwrap());
    assert_eq!(std::fs::read(&item.path).unwrap(), data);
    // Served from the file from now on.
    let before = gw.blobs.fetches.load(Ordering::SeqCst);
    assert!(b.ensure_local("acct", &item).await.unwrap());
    assert_eq!(gw.blobs.fetches.load(Ordering::SeqCst), before);

    // A gateway opened now keeps the record although its file is elsewhere;
    // concurrent reads fetch it once.
    let c = gw.open(64 << 20);
    let item = stored(&c, "one");
    let before = gw.blobs.fetches.load(Ordering::SeqCst);
    let (x, y, z) = tokio::join!(
        c.ensure_local("acct", &item),
        c.ensure_local("acct", &item),
        c.ensure_local("acct", &item)
    );
    assert!(x.unwrap() && y.unwrap() && z.unwrap());
    assert_eq!(gw.blobs.fetches.load(Ordering::SeqCst), before + 1);
    assert_eq!(sha(&std::fs::read(&item.path).unwrap()), sha(&data));
}

#[tokio::test]
async fn received_bytes_leave_the_shared_store_with_their_last_record() {
    let mut gw = Received::new();
    let a = gw.open(1000);
    let b = gw.open(1000);
    let (one, two) = (bytes(600, 1), bytes(600, 2));
    keep(&a, "one", &one).await;
    // The same bytes under another id: one blob, two users.
    keep(&a, "one-again", &one).await;
    b.reload().await.unwrap();
    let item = stored(&b, "one");
    assert!(b.ensure_local("acct", &item).await.unwrap());

    // Room for "two" evicts both users of "one".
    keep(&a, "two", &two).await;
    assert!(!gw.blobs.has(&received_name("acct", &sha(&one))));
    assert!(gw.blobs.has(&received_name("acct", &sha(&two))));

    // B follows: the evicted items are gone, their file here too, and
    // the quota counts only "two".
    b.reload().await.unwrap();
    assert!(matches!(b.lookup("acct", "one"), Lookup::Gone(..)));
    assert!(!item.path.exists());
    assert_eq!(b.used_bytes(), 600);
    let two_item = stored(&b, "two");
    assert!(b.ensure_local("acct", &two_item).await.unwrap());

    // Expiry removes the shared bytes too.
    let expired = a.sweep(crate::clock::now_ms() + 120_000).await.unwrap();
    assert_eq!(expired, 1);
    assert!(!gw.blobs.has(&received_name("acct", &sha(&two))));
    b.reload().await.unwrap();
    assert_eq!(b.used_bytes(), 0);
    assert!(!two_item.path.exists());
}

#[tokio::test]
async fn one_account_letting_its_bytes_go_keeps_another_accounts_copy() {
    let mut gw = Received::new();
    // Two gateways leading two accounts that received the same bytes.
    let a = gw.open(1000);
    let b = gw.open(1000);
    let same = bytes(600, 3);
    keep_for(&a, "acct", "one", &same).await;
    keep_for(&b, "other", "one", &same).await;
    assert!(gw.blobs.has(&received_name("acct", &sha(&same))));
    assert!(gw.blobs.has(&received_name("other", &sha(&same))));
    // A's item expires: only A's account's bytes go.
    assert_eq!(a.sweep(crate::clock::now_ms() + 120_000).await.unwrap(), 1);
    assert!(!gw.blobs.has(&received_name("acct", &sha(&same))));
    assert!(gw.blobs.has(&received_name("other", &sha(&same))));
}

#[tokio::test]
async fn received_item_without_shared_bytes_is_not_kept() {
    let mut gw = Received::new();
    let a = gw.open(1 << 20);
    let data = bytes(5000, 3);
    keep(&a, "one", &data).await;
    gw.blobs.parts.lock().clear();
    let c = gw.open(1 << 20);
    let item = stored(&c, "one");
    assert!(!c.ensure_local("acct", &item).await.unwrap());
    assert!(!item.path.exists());
}

fn media_config() -> MediaConfig {
    MediaConfig {
        file_max_bytes: 8 << 20,
        staging_quota_bytes: 64 << 20,
        ..MediaConfig::default()
    }
}

fn owner() -> MediaOwner {
    MediaOwner::account("acct")
}

async fn stage(media: &MediaStore, data: &[u8]) -> super::staging::StagedMedia {
    let mut up = media
        .begin(
            owner(),
            UploadHeader {
                kind: MediaKind::File,
                file_name: "a.bin".into(),
                size: Some(data.len() as u64),
                sha256: None,
            },
        )
        .unwrap();
    for chunk in data.chunks(300_000) {
        up.write(chunk.to_vec()).await.unwrap();
    }
    up.finish().await.unwrap()
}

fn open_media(
    index: &Arc<MemIndex>,
    blobs: &Arc<MemBlobs>,
    dirs: &mut Vec<tempfile::TempDir>,
) -> MediaStore {
    let dir = tempfile::tempdir().unwrap();
    let config = media_config();
    let share = config.staging_quota_bytes;
    let media =
        MediaStore::open_with_blobs(dir.path(), index.clone(), config, share, blobs.clone())
            .unwrap();
    dirs.push(dir);
    media
}

#[tokio::test]
async fn staged_media_of_one_gateway_are_served_by_another_after_reload() {
    let index = Arc::new(MemIndex::default());
    let blobs = Arc::new(MemBlobs::default());
    let mut dirs = Vec::new();
    let a = open_media(&index, &blobs, &mut dirs);
    let b = open_media(&index, &blobs, &mut dirs);
    let data = bytes(PART_BYTES * 3 + 7, 4);
    let staged = stage(&a, &data).await;
    assert!(blobs.has(&staged_name(&staged.id)));

    assert_eq!(
        b.get(&staged.id, &owner()).unwrap_err().kind,
        Kind::MediaNotFound
    );
    b.reload().await.unwrap();
    assert_eq!(b.used_bytes(), data.len() as u64);
    let got = b.get_local(&staged.id, &owner()).await.unwrap();
    assert_ne!(got.path, staged.path);
    assert_eq!(std::fs::read(&got.path).unwrap(), data);
    assert_eq!(got.sha256, sha(&data));
    // Another owner still sees nothing.
    let other = MediaOwner::account("other");
    assert_eq!(
        b.get_local(&staged.id, &other).await.unwrap_err().kind,
        Kind::MediaNotFound
    );

    // A gateway opened now keeps the entry; concurrent reads fetch once.
    let c = open_media(&index, &blobs, &mut dirs);
    assert_eq!(c.used_bytes(), data.len() as u64);
    let before = blobs.fetches.load(Ordering::SeqCst);
    let me = owner();
    let (x, y) = tokio::join!(c.get_local(&staged.id, &me), c.get_local(&staged.id, &me));
    assert_eq!(x.unwrap(), y.unwrap());
    assert_eq!(blobs.fetches.load(Ordering::SeqCst), before + 1);

    // The sweep removes the shared bytes; a reload follows it.
    assert_eq!(
        a.sweep(crate::clock::now_ms() + 10_000_000).await.unwrap(),
        1
    );
    assert!(!blobs.has(&staged_name(&staged.id)));
    b.reload().await.unwrap();
    assert_eq!(b.used_bytes(), 0);
    assert!(b.is_empty());
    assert!(!got.path.exists());
}

#[tokio::test]
async fn staged_media_without_shared_bytes_are_not_found() {
    let index = Arc::new(MemIndex::default());
    let blobs = Arc::new(MemBlobs::default());
    let mut dirs = Vec::new();
    let a = open_media(&index, &blobs, &mut dirs);
    let staged = stage(&a, &bytes(1000, 5)).await;
    blobs.parts.lock().clear();
    let b = open_media(&index, &blobs, &mut dirs);
    assert_eq!(
        b.get_local(&staged.id, &owner()).await.unwrap_err().kind,
        Kind::MediaNotFound
    );
}
