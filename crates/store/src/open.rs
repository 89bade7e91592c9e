//! Opening the journal, the archive, the governance records, the leases and
//! the shared stores the configuration names.

use std::path::Path;
use std::sync::Arc;

use super::governance::postgres::PgGovernance;
use super::governance::sqlite::SqliteGovernance;
use super::journal::SqliteJournal;
use super::lease::PgLeases;
use super::postgres::PgArchive;
use super::shared::Shared;
use super::sqlite::SqliteArchive;
use onebot_gateway_config::{ArchiveConfig, HaConfig};
use onebot_gateway_domain::archive::store::ArchiveStore;
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::lease::Fence;
use onebot_gateway_domain::policy::store::GovernanceStore;

/// Opens `<data_dir>/journal.sqlite3`.
pub fn journal(data_dir: &Path) -> Result<Arc<SqliteJournal>> {
    SqliteJournal::open(data_dir).map(Arc::new)
}

/// Opens the archive `config` names: PostgreSQL at `archive.url`, else
/// `<data_dir>/archive.sqlite3`; `None` when the archive is off.
pub async fn archive(
    config: &ArchiveConfig,
    data_dir: &Path,
) -> Result<Option<Arc<dyn ArchiveStore>>> {
    if !config.enabled {
        return Ok(None);
    }
    let store: Arc<dyn ArchiveStore> = match &config.url {
        Some(url) => Arc::new(PgArchive::open(url.expose(), pg_tls(config)?).await?),
        None => Arc::new(SqliteArchive::open(data_dir)?),
    };
    Ok(Some(store))
}

/// Opens the governance records (approvals and the audit trail) where
/// `config` keeps the archive: PostgreSQL at `archive.url` when it is set
/// (whether or not the archive is enabled), else
/// `<data_dir>/governance.sqlite3`.
pub async fn governance(
    config: &ArchiveConfig,
    data_dir: &Path,
) -> Result<Arc<dyn GovernanceStore>> {
    Ok(match &config.url {
        Some(url) => Arc::new(PgGovernance::open(url.expose(), pg_tls(config)?).await?),
        None => Arc::new(SqliteGovernance::open(data_dir)?),
    })
}

/// Opens the leases of `[ha]` in PostgreSQL at `ha.url`, else
/// `archive.url` (TLS as the archive's: `archive.ca_file`).
pub async fn leases(ha: &HaConfig, archive: &ArchiveConfig) -> Result<Arc<PgLeases>> {
    let url = ha.lease_url(archive.url.as_ref()).ok_or_else(|| {
        Error::internal("[ha] needs PostgreSQL: set ha.url or archive.url".to_string())
    })?;
    Ok(Arc::new(
        PgLeases::open(url.expose(), pg_tls(archive)?).await?,
    ))
}

/// Opens the stores `[ha]` shares (in the database of the leases: `ha.url`,
/// else `archive.url`), whose writes `fence` fences.
pub async fn shared(
    ha: &HaConfig,
    archive: &ArchiveConfig,
    fence: Arc<dyn Fence>,
) -> Result<Arc<Shared>> {
    let url = ha.lease_url(archive.url.as_ref()).ok_or_else(|| {
        Error::internal("[ha] needs PostgreSQL: set ha.url or archive.url".to_string())
    })?;
    Shared::open(url.expose(), pg_tls(archive)?, fence).await
}

/// The TLS of the PostgreSQL connections: the system's roots and
/// `archive.ca_file`.
fn pg_tls(config: &ArchiveConfig) -> Result<Arc<rustls::ClientConfig>> {
    onebot_gateway_tls::PeerTls::new(config.ca_file.as_deref(), "archive.ca_file")
        .map(|tls| tls.client_config())
        .map_err(|e| Error::internal(e.to_string()))
}
