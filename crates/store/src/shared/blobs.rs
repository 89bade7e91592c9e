//! The bytes of captured and staged media, shared by the gateways
//! ([`SharedBlobs`] in PostgreSQL): each name's bytes are rows of
//! `gateway_media_blobs`, parts of at most [`PART_BYTES`] numbered from 0.
//!
//! A name's parts are written in one transaction (all or none), so a name
//! with a part 0 has all its parts. Stores of one name race harmlessly:
//! each inserts with `ON CONFLICT DO NOTHING`, so the later waits for the
//! earlier's rows and adds nothing. Reads and writes hold one part in
//! memory at a time. Writes go over connections of their own (at most
//! [`WRITERS`]), so a long store never holds back the fenced writes on the
//! shared write connection; reads use the shared read connection. The rows
//! belong to no account and carry no epoch.

use std::path::Path;
use std::sync::Arc;

use tokio::io::{AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::sync::{Semaphore, SemaphorePermit};
use tokio_postgres::Client;

use super::Shared;
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::media::shared::{PART_BYTES, SharedBlobs};

/// Connections writing blobs at once.
pub const WRITERS: usize = 4;

/// [`SharedBlobs`] in the shared PostgreSQL database.
pub struct PgBlobs {
    shared: Arc<Shared>,
    idle: parking_lot::Mutex<Vec<Client>>,
    writers: Semaphore,
}

impl std::fmt::Debug for PgBlobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgBlobs")
            .field("shared", &self.shared)
            .finish_non_exhaustive()
    }
}

/// A write connection, back among the idle ones when dropped (unless it
/// broke).
struct Writer<'a> {
    blobs: &'a PgBlobs,
    client: Option<Client>,
    _permit: SemaphorePermit<'a>,
}

impl Writer<'_> {
    fn client(&mut self) -> Result<&mut Client> {
        self.client
            .as_mut()
            .ok_or_else(|| Error::internal("the shared media connection is missing"))
    }
}

impl Drop for Writer<'_> {
    fn drop(&mut self) {
        if let Some(client) = self.client.take()
            && !client.is_closed()
        {
            self.blobs.idle.lock().push(client);
        }
    }
}

impl PgBlobs {
    /// The shared blobs in `shared`'s database.
    pub fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            idle: parking_lot::Mutex::new(Vec::new()),
            writers: Semaphore::new(WRITERS),
        }
    }

    /// A write connection: an idle one, or a new one.
    async fn writer(&self) -> Result<Writer<'_>> {
        let permit = self
            .writers
            .acquire()
            .await
            .map_err(|_| Error::internal("the shared media writers are closed"))?;
        let idle = {
            let mut idle = self.idle.lock();
            idle.retain(|c| !c.is_closed());
            idle.pop()
        };
        let client = match idle {
            Some(c) => c,
            None => self.shared.connect().await?,
        };
        Ok(Writer {
            blobs: self,
            client: Some(client),
            _permit: permit,
        })
    }
}

/// Reads up to `buf.len()` bytes of `file` (fewer only at its end).
async fn read_part(file: &mut tokio::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        let n = file.read(&mut buf[filled..]).await?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(filled)
}

#[async_trait::async_trait]
impl SharedBlobs for PgBlobs {
    async fn put(&self, name: &str, path: &Path) -> Result<()> {
        let io = |e: std::io::Error| {
            Error::internal(format!("reading media for the shared store: {e}"))
                .with("path", path.display())
        };
        let mut file = tokio::fs::File::open(path).await.map_err(io)?;
        let err = self.shared.err();
        let mut writer = self.writer().await?;
        let tx = writer.client()?.transaction().await.map_err(&err)?;
        let stored = tx
            .query_opt(
                "SELECT 1 FROM gateway_media_blobs WHERE name = $1 AND part = 0",
                &[&name],
            )
            .await
            .map_err(&err)?;
        if stored.is_some() {
            return tx.rollback().await.map_err(&err);
        }
        let insert = tx
            .prepare(
                "INSERT INTO gateway_media_blobs (name, part, bytes) VALUES ($1, $2, $3) \
                 ON CONFLICT (name, part) DO NOTHING",
            )
            .await
            .map_err(&err)?;
        let mut buf = vec![0u8; PART_BYTES];
        let mut part: i32 = 0;
        loop {
            let n = read_part(&mut file, &mut buf).await.map_err(io)?;
            // Part 0 is written even for no bytes: it says the name is stored.
            if n == 0 && part > 0 {
                break;
            }
            let bytes: &[u8] = &buf[..n];
            tx.execute(&insert, &[&name, &part, &bytes])
                .await
                .map_err(&err)?;
            part = part
                .checked_add(1)
                .ok_or_else(|| Error::internal("the media has too many parts"))?;
            if n < PART_BYTES {
                break;
            }
        }
        tx.commit().await.map_err(&err)
    }

    async fn fetch(&self, name: &str, out: &mut (dyn AsyncWrite + Send + Unpin)) -> Result<bool> {
        let err = self.shared.err();
        let client = self.shared.reader().await?;
        let parts: i64 = client
            .query_one(
                "SELECT count(*) FROM gateway_media_blobs WHERE name = $1",
                &[&name],
            )
            .await
            .map_err(&err)?
            .get(0);
        if parts == 0 {
            return Ok(false);
        }
        let parts =
            i32::try_from(parts).map_err(|_| Error::internal("the media has too many parts"))?;
        let select = client
            .prepare("SELECT bytes FROM gateway_media_blobs WHERE name = $1 AND part = $2")
            .await
            .map_err(&err)?;
        let io = |e: std::io::Error| Error::internal(format!("writing shared media: {e}"));
        for part in 0..parts {
            let row = client
                .query_opt(&select, &[&name, &part])
                .await
                .map_err(&err)?
                .ok_or_else(|| {
                    Error::internal(format!("the shared media {name} was removed while read"))
                })?;
            let bytes: &[u8] = row.get(0);
            out.write_all(bytes).await.map_err(io)?;
        }
        out.flush().await.map_err(io)?;
        Ok(true)
    }

    async fn remove(&self, names: &[String]) -> Result<()> {
        if names.is_empty() {
            return Ok(());
        }
        let err = self.shared.err();
        let mut writer = self.writer().await?;
        writer
            .client()?
            .execute(
                "DELETE FROM gateway_media_blobs WHERE name = ANY($1)",
                &[&names],
            )
            .await
            .map_err(&err)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::shared::tests::TestDb;

    const MIB: usize = 1024 * 1024;

    fn bytes(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(151) ^ seed ^ (i >> 13) as u8)
            .collect()
    }

    fn file(dir: &tempfile::TempDir, name: &str, data: &[u8]) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, data).unwrap();
        path
    }

    async fn fetched(blobs: &PgBlobs, name: &str) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        blobs.fetch(name, &mut out).await.unwrap().then_some(out)
    }

    async fn parts(blobs: &PgBlobs, name: &str) -> i64 {
        let client = blobs.shared.reader().await.unwrap();
        client
            .query_one(
                "SELECT count(*) FROM gateway_media_blobs WHERE name = $1",
                &[&name],
            )
            .await
            .unwrap()
            .get(0)
    }

    #[tokio::test]
    async fn a_file_of_several_parts_round_trips_between_gateways() {
        let Some(db) = TestDb::fresh("blobs_round_trip").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        let (a, b) = (PgBlobs::new(a.shared), PgBlobs::new(b.shared));
        let dir = tempfile::tempdir().unwrap();
        let data = bytes(3 * MIB + MIB / 2, 7);
        let path = file(&dir, "big", &data);

        a.put("received/big", &path).await.unwrap();
        assert_eq!(parts(&a, "received/big").await, 4);
        // Stored again: nothing changes.
        a.put("received/big", &path).await.unwrap();
        b.put("received/big", &path).await.unwrap();
        assert_eq!(parts(&a, "received/big").await, 4);

        assert!(fetched(&b, "received/big").await.unwrap() == data);
        // Into a file, as the media stores fetch.
        let into = dir.path().join("copy");
        let mut out = tokio::fs::File::create(&into).await.unwrap();
        assert!(b.fetch("received/big", &mut out).await.unwrap());
        drop(out);
        assert!(std::fs::read(&into).unwrap() == data);

        // Exactly one part, and none.
        let one = bytes(MIB, 1);
        a.put("one", &file(&dir, "one", &one)).await.unwrap();
        assert_eq!(parts(&a, "one").await, 1);
        assert!(fetched(&b, "one").await.unwrap() == one);
        a.put("empty", &file(&dir, "empty", &[])).await.unwrap();
        assert_eq!(fetched(&b, "empty").await, Some(Vec::new()));
    }

    #[tokio::test]
    async fn concurrent_stores_of_one_name_all_succeed() {
        let Some(db) = TestDb::fresh("blobs_concurrent").await else {
            return;
        };
        let (a, b) = (db.gateway("a").await, db.gateway("b").await);
        let (a, b) = (PgBlobs::new(a.shared), PgBlobs::new(b.shared));
        let dir = tempfile::tempdir().unwrap();
        let data = bytes(2 * MIB + 3, 9);
        let path = file(&dir, "same", &data);
        let (x, y, z) = tokio::join!(
            a.put("same", &path),
            b.put("same", &path),
            a.put("same", &path)
        );
        x.unwrap();
        y.unwrap();
        z.unwrap();
        assert_eq!(parts(&a, "same").await, 3);
        assert!(fetched(&a, "same").await.unwrap() == data);
    }

    #[tokio::test]
    async fn unknown_names_fetch_nothing_and_removed_ones_are_gone() {
        let Some(db) = TestDb::fresh("blobs_remove").await else {
            return;
        };
        let blobs = PgBlobs::new(db.gateway("a").await.shared);
        let mut out = Vec::new();
        assert!(!blobs.fetch("nothing", &mut out).await.unwrap());
        assert!(out.is_empty());

        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (bytes(MIB + 1, 1), bytes(10, 2));
        blobs.put("one", &file(&dir, "one", &one)).await.unwrap();
        blobs.put("two", &file(&dir, "two", &two)).await.unwrap();
        blobs
            .remove(&["one".to_owned(), "unknown".to_owned()])
            .await
            .unwrap();
        blobs.remove(&[]).await.unwrap();
        assert_eq!(fetched(&blobs, "one").await, None);
        assert_eq!(parts(&blobs, "one").await, 0);
        assert!(fetched(&blobs, "two").await.unwrap() == two);
        // Stored again after removal.
        blobs.put("one", &file(&dir, "one", &one)).await.unwrap();
        assert!(fetched(&blobs, "one").await.unwrap() == one);
    }

    /// Two gateways' media stores over directories of their own, sharing
    /// an index and these blobs: what one captured or staged, the other
    /// serves after a reload.
    #[tokio::test]
    async fn media_kept_by_one_gateway_download_from_another() {
        use onebot_gateway_config::{CaptureConfig, MediaConfig};
        use onebot_gateway_domain::media::received::{ItemMeta, Lookup, ReceivedStore};
        use onebot_gateway_domain::media::staging::{MediaOwner, MediaStore};
        use onebot_gateway_domain::media::upload::UploadHeader;
        use onebot_gateway_domain::model::{ChatRef, MediaKind, ReceivedKind};
        use onebot_gateway_domain::ports::MediaSink as _;

        let Some(db) = TestDb::fresh("blobs_media_stores").await else {
            return;
        };
        let index_dir = tempfile::tempdir().unwrap();
        let index = Arc::new(crate::state::StateStore::open(index_dir.path()).unwrap());
        let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let blobs_a: Arc<dyn SharedBlobs> = Arc::new(PgBlobs::new(db.gateway("a").await.shared));
        let blobs_b: Arc<dyn SharedBlobs> = Arc::new(PgBlobs::new(db.gateway("b").await.shared));
        let capture = CaptureConfig {
            quota_bytes: 64 << 20,
            max_bytes: 64 << 20,
            ..CaptureConfig::default()
        };
        let received_a = ReceivedStore::open_with_blobs(
            dir_a.path(),
            index.clone(),
            capture.clone(),
            blobs_a.clone(),
        )
        .unwrap();
        let received_b =
            ReceivedStore::open_with_blobs(dir_b.path(), index.clone(), capture, blobs_b.clone())
                .unwrap();
        let data = bytes(2 * MIB + 99, 3);
        let mut w = received_a.writer(64 << 20).await.unwrap();
        w.write(&data).await.unwrap();
        let meta = ItemMeta {
            media_id: "r1".into(),
            chat: ChatRef::Group(1),
            message_id: 2,
            index: 0,
            kind: ReceivedKind::File,
            file_name: String::new(),
        };
        received_a.commit("acct", meta, w).await.unwrap();
        received_b.reload().await.unwrap();
        let Lookup::Stored(item) = received_b.lookup("acct", "r1") else {
            panic!("not stored on b");
        };
        assert!(!item.path.exists());
        assert!(received_b.ensure_local("acct", &item).await.unwrap());
        assert!(std::fs::read(&item.path).unwrap() == data);

        let config = MediaConfig::default();
        let share = config.staging_quota_bytes;
        let staging_a = MediaStore::open_with_blobs(
            dir_a.path(),
            index.clone(),
            config.clone(),
            share,
            blobs_a,
        )
        .unwrap();
        let staging_b =
            MediaStore::open_with_blobs(dir_b.path(), index.clone(), config, share, blobs_b)
                .unwrap();
        let owner = MediaOwner::account("acct");
        let header = UploadHeader {
            kind: MediaKind::File,
            file_name: "f.bin".into(),
            size: None,
            sha256: None,
        };
        let mut up = staging_a.begin(owner.clone(), header).unwrap();
        let data = bytes(MIB + 5, 4);
        up.write(data.clone()).await.unwrap();
        let staged = up.finish().await.unwrap();
        staging_b.reload().await.unwrap();
        let got = staging_b.get_local(&staged.id, &owner).await.unwrap();
        assert!(std::fs::read(&got.path).unwrap() == data);
    }
}
