//! Opening the journal and the archive the configuration names.

use std::path::Path;
use std::sync::Arc;

use super::journal::SqliteJournal;
use super::postgres::PgArchive;
use super::sqlite::SqliteArchive;
use onebot_gateway_config::ArchiveConfig;
use onebot_gateway_domain::archive::store::ArchiveStore;
use onebot_gateway_domain::error::Result;

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
        Some(url) => {
            let tls =
                onebot_gateway_tls::PeerTls::new(config.ca_file.as_deref(), "archive.ca_file")
                    .map_err(|e| onebot_gateway_domain::error::Error::internal(e.to_string()))?;
            Arc::new(PgArchive::open(url.expose(), tls.client_config()).await?)
        }
        None => Arc::new(SqliteArchive::open(data_dir)?),
    };
    Ok(Some(store))
}
