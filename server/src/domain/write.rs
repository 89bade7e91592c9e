//! The write side's shared state: the durable store and the staging area,
//! opened once under the data directory.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::Account;
use super::media::MediaStore;
use super::store::Store;
use crate::config::Config;
use crate::error::Result;

/// Everything uploads, sends and pokes share.
#[derive(Debug)]
pub struct WriteSide {
    store: Store,
    media: MediaStore,
}

impl WriteSide {
    /// Opens the store and the staging area under `server.data_dir` and
    /// starts the background sweep, stopped by `shutdown`.
    pub fn open(
        config: &Config,
        _accounts: &[Arc<Account>],
        shutdown: CancellationToken,
    ) -> Result<Self> {
        let data_dir = &config.server.data_dir;
        let store = Store::open(data_dir)?;
        let media = MediaStore::open(data_dir, store.clone(), config.media.clone())?;
        media.spawn_sweeper(shutdown);
        Ok(Self { store, media })
    }

    /// The durable store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The staging area.
    pub fn media(&self) -> &MediaStore {
        &self.media
    }
}
