//! New bytes on their way into the received-media store: written to a
//! temporary file under the store's directory, bounded and hashed as they
//! come; the store moves the file in when it commits them.

use std::path::Path;

use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt as _;

use super::kind::SNIFF_BYTES;
use super::staging::{TEMP_PREFIX, TempFile, random_hex};
use crate::error::{Error, Kind, Result};
use crate::ports::MediaSink;

/// New bytes on their way into the store: bounded, hashed as written. The
/// temporary file is removed when the writer is dropped uncommitted.
#[derive(Debug)]
pub struct BlobWriter {
    temp: TempFile,
    file: Option<tokio::fs::File>,
    hasher: Sha256,
    size: u64,
    limit: u64,
    prefix: Vec<u8>,
}

impl BlobWriter {
    /// A writer into a new temporary file under `dir`, bounded by `limit`.
    pub(super) async fn create(dir: &Path, limit: u64) -> Result<Self> {
        let path = dir.join(format!("{TEMP_PREFIX}{}", random_hex(12)));
        let file = tokio::fs::OpenOptions::from(crate::store::private_file_options())
            .write(true)
            .create_new(true)
            .open(&path)
            .await
            .map_err(|e| {
                Error::internal(format!("creating a received-media file: {e}"))
                    .with("path", path.display())
            })?;
        Ok(Self {
            temp: TempFile { path },
            file: Some(file),
            hasher: Sha256::new(),
            size: 0,
            limit,
            prefix: Vec::new(),
        })
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.size
    }

    /// The first bytes written (for content checks).
    pub fn prefix(&self) -> &[u8] {
        &self.prefix
    }

    /// Flushes the file; its temporary file, SHA-256 (lowercase hex), size and first bytes.
    pub(super) async fn finish(mut self) -> Result<(TempFile, String, u64, Vec<u8>)> {
        if let Some(mut file) = self.file.take() {
            file.flush()
                .await
                .map_err(|e| Error::internal(format!("writing received media: {e}")))?;
            file.sync_all()
                .await
                .map_err(|e| Error::internal(format!("writing received media: {e}")))?;
        }
        if self.size == 0 {
            return Err(Error::new(
                Kind::MediaDownloadFailed,
                "the media has no content",
            ));
        }
        let sha = hex::encode(self.hasher.finalize_reset());
        let prefix = std::mem::take(&mut self.prefix);
        let BlobWriter { temp, size, .. } = self;
        Ok((temp, sha, size, prefix))
    }
}

#[async_trait::async_trait]
impl MediaSink for BlobWriter {
    async fn write(&mut self, chunk: &[u8]) -> Result<()> {
        let total = self.size.saturating_add(chunk.len() as u64);
        if total > self.limit {
            return Err(Error::new(
                Kind::MediaTooLarge,
                format!("the media is larger than {} bytes", self.limit),
            )
            .with("limit_bytes", self.limit));
        }
        if self.prefix.len() < SNIFF_BYTES {
            let take = (SNIFF_BYTES - self.prefix.len()).min(chunk.len());
            self.prefix.extend_from_slice(&chunk[..take]);
        }
        self.hasher.update(chunk);
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| Error::internal("the writer is finished"))?;
        file.write_all(chunk)
            .await
            .map_err(|e| Error::internal(format!("writing received media: {e}")))?;
        self.size = total;
        Ok(())
    }

    fn limit(&self) -> u64 {
        self.limit
    }
}
