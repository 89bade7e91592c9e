//! Streamed uploads: chunks of any size, checked against the kind's limit
//! and the staging quota before they are accepted, hashed and written on
//! the blocking pool while the next chunk arrives.

use std::io::Write as _;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use super::kind::{SNIFF_BYTES, check_kind, sanitize_file_name, sniff, too_large};
use super::staging::{
    ActiveUpload, MediaOwner, MediaRecord, MediaStore, QuotaLease, StagedMedia, TempFile,
    TransientMedia,
};
use crate::clock::now_ms;
use crate::error::{Error, Kind, Result};
use crate::model::MediaKind;
use crate::shares;

/// Bytes of an upload that may wait in memory for the disk writer.
pub const WRITE_BUDGET_BYTES: usize = 8 * 1024 * 1024;

/// What a client declares before streaming bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UploadHeader {
    /// Kind of media.
    pub kind: MediaKind,
    /// File name (may be empty).
    pub file_name: String,
    /// Declared size in bytes.
    pub size: Option<u64>,
    /// Declared SHA-256, lowercase hex.
    pub sha256: Option<String>,
}

impl MediaStore {
    /// Starts an upload for the client of `owner`'s token (see
    /// [`MediaStore::begin_as`]).
    pub fn begin(&self, owner: MediaOwner, header: UploadHeader) -> Result<Upload> {
        let client = owner.token.as_deref().map(shares::token_client);
        self.begin_as(owner, client, header)
    }

    /// Starts an upload whose bytes count against `client`'s share of the
    /// quota. Fails at once when the declared size is over the kind's limit
    /// or does not fit the quota (or the client's share) now, or the
    /// declared SHA-256 is malformed. Quota is leased as the bytes arrive,
    /// never for what the header declares.
    pub fn begin_as(
        &self,
        owner: MediaOwner,
        client: Option<Arc<str>>,
        header: UploadHeader,
    ) -> Result<Upload> {
        let limit = self.limit(header.kind);
        if let Some(sha) = &header.sha256
            && (sha.len() != 64 || !sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        {
            return Err(Error::invalid(
                "header.sha256",
                "sha256 must be 64 lowercase hex digits",
            ));
        }
        if let Some(size) = header.size
            && size > limit
        {
            return Err(too_large(header.kind, limit).with("declared", size));
        }
        let quota = QuotaLease::new(self, client);
        if let Some(size) = header.size {
            quota.check_room(size)?;
        }
        let (temp, file) = self.create_temp()?;
        let active = ActiveUpload::new(self);
        let budget = Arc::new(Semaphore::new(WRITE_BUDGET_BYTES));
        let (tx, rx) = mpsc::unbounded_channel();
        let writer = tokio::task::spawn_blocking(move || write_loop(file, rx));
        Ok(Upload {
            media: self.clone(),
            owner,
            header: UploadHeader {
                file_name: sanitize_file_name(&header.file_name),
                ..header
            },
            limit,
            received: 0,
            prefix: Vec::new(),
            sniffed: None,
            tx: Some(tx),
            budget,
            writer: Some(writer),
            temp,
            quota,
            _active: active,
        })
    }
}

type Chunk = (Vec<u8>, Option<OwnedSemaphorePermit>);

/// The blocking writer: hashes and writes chunks in order.
fn write_loop(
    file: std::fs::File,
    mut rx: mpsc::UnboundedReceiver<Chunk>,
) -> std::io::Result<[u8; 32]> {
    let mut out = std::io::BufWriter::with_capacity(256 * 1024, file);
    let mut hasher = Sha256::new();
    while let Some((buf, permit)) = rx.blocking_recv() {
        hasher.update(&buf);
        out.write_all(&buf)?;
        drop(permit);
    }
    out.flush()?;
    Ok(hasher.finalize().into())
}

/// An upload in progress. Dropping it (client cancel, error) removes the
/// temporary file and returns the quota.
#[derive(Debug)]
pub struct Upload {
    media: MediaStore,
    owner: MediaOwner,
    header: UploadHeader,
    limit: u64,
    received: u64,
    prefix: Vec<u8>,
    sniffed: Option<String>,
    tx: Option<mpsc::UnboundedSender<Chunk>>,
    budget: Arc<Semaphore>,
    writer: Option<tokio::task::JoinHandle<std::io::Result<[u8; 32]>>>,
    temp: TempFile,
    quota: QuotaLease,
    // Declared last: dropped after the temporary file is removed.
    _active: ActiveUpload,
}

impl Upload {
    /// Bytes accepted so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// Accepts the next chunk. Fails (and the upload must be dropped) when
    /// the kind's limit, the declared size or the quota would be passed, or
    /// the first bytes are not of the declared kind.
    pub async fn write(&mut self, chunk: Vec<u8>) -> Result<()> {
        if chunk.is_empty() {
            return Ok(());
        }
        let len = chunk.len() as u64;
        let total = self.received.saturating_add(len);
        if total > self.limit {
            return Err(too_large(self.header.kind, self.limit).with("received", total));
        }
        if let Some(declared) = self.header.size
            && total > declared
        {
            return Err(size_mismatch(declared, total));
        }
        self.quota.grow_to(total)?;
        if self.prefix.len() < SNIFF_BYTES {
            let take = (SNIFF_BYTES - self.prefix.len()).min(chunk.len());
            self.prefix
                .extend_from_slice(chunk.get(..take).unwrap_or(&[]));
            if self.prefix.len() == SNIFF_BYTES {
                self.sniffed = Some(check_kind(self.header.kind, sniff(&self.prefix))?);
            }
        }
        let want = chunk.len().min(WRITE_BUDGET_BYTES) as u32;
        let permit = self
            .budget
            .clone()
            .acquire_many_owned(want)
            .await
            .map_err(|_| Error::internal("the staging writer stopped"))?;
        let sent = self
            .tx
            .as_ref()
            .is_some_and(|tx| tx.send((chunk, Some(permit))).is_ok());
        if !sent {
            return Err(self.writer_error().await);
        }
        self.received = total;
        Ok(())
    }

    async fn writer_error(&mut self) -> Error {
        self.tx = None;
        match self.writer.take() {
            Some(w) => match w.await {
                Ok(Err(e)) => Error::internal(format!("writing the staging file: {e}")),
                Ok(Ok(_)) => Error::internal("the staging writer stopped early"),
                Err(e) => Error::internal(format!("the staging writer failed: {e}")),
            },
            None => Error::internal("the staging writer is gone"),
        }
    }

    async fn complete(&mut self) -> Result<(String, String)> {
        self.tx = None;
        let digest = match self.writer.take() {
            Some(w) => w
                .await
                .map_err(|e| Error::internal(format!("the staging writer failed: {e}")))?
                .map_err(|e| Error::internal(format!("writing the staging file: {e}")))?,
            None => return Err(Error::internal("the upload was already finished")),
        };
        if let Some(declared) = self.header.size
            && declared != self.received
        {
            return Err(size_mismatch(declared, self.received));
        }
        if self.received == 0 {
            return Err(Error::invalid("chunk", "the upload has no content"));
        }
        let sha = hex::encode(digest);
        if let Some(declared) = &self.header.sha256
            && *declared != sha
        {
            return Err(Error::new(
                Kind::MediaChecksumMismatch,
                "the content's SHA-256 differs from the declared one",
            )
            .with("declared", declared)
            .with("actual", &sha));
        }
        let mime = match self.sniffed.take() {
            Some(m) => m,
            None => check_kind(self.header.kind, sniff(&self.prefix))?,
        };
        Ok((sha, mime))
    }

    /// Verifies size, checksum and type, and stages the bytes for the TTL.
    pub async fn finish(mut self) -> Result<StagedMedia> {
        let (sha256, mime) = self.complete().await?;
        let now = now_ms();
        let ttl_ms = i64::try_from(self.media.ttl_secs().saturating_mul(1000)).unwrap_or(i64::MAX);
        let rec = MediaRecord {
            owner: self.owner.clone(),
            kind: self.header.kind.name().to_string(),
            file_name: self.header.file_name.clone(),
            size: self.received,
            sha256,
            mime,
            created_ms: now,
            expires_ms: now.saturating_add(ttl_ms),
            client: self.quota.client(),
        };
        let Upload {
            media,
            quota,
            temp,
            _active,
            ..
        } = self;
        let id = media.commit(&temp, rec.clone(), _active).await?;
        quota.keep();
        media
            .staged(&id, &rec)
            .ok_or_else(|| Error::internal("staged media has an unknown kind"))
    }

    /// Verifies size, checksum and type, and keeps the bytes only as long as
    /// the returned value lives.
    pub async fn finish_transient(mut self) -> Result<TransientMedia> {
        let (sha256, mime) = self.complete().await?;
        let Upload {
            temp,
            quota,
            received,
            ..
        } = self;
        Ok(TransientMedia {
            size: received,
            sha256,
            mime,
            path: temp.path.clone(),
            _temp: temp,
            _quota: quota,
        })
    }
}

fn size_mismatch(declared: u64, actual: u64) -> Error {
    Error::new(
        Kind::MediaSizeMismatch,
        format!("the content is {actual} bytes, not the declared {declared}"),
    )
    .with("declared", declared)
    .with("received", actual)
}
