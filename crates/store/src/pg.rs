//! What every PostgreSQL store of the crate shares: how a connection is
//! opened (TLS by [`RustlsConnect`], the connection's task spawned), how
//! its errors map, and how a schema is migrated.

use tokio_postgres::Client;

use super::pg_tls::RustlsConnect;
use onebot_gateway_domain::error::{Error, Result};

/// Maps an error of the store `what` at `shown` (the redacted URL) to an
/// internal error naming both (metadata `url`), with the server's SQLSTATE
/// when it sent one.
pub(crate) fn pg_err<'a>(
    what: &'static str,
    shown: &'a str,
) -> impl Fn(tokio_postgres::Error) -> Error + 'a {
    move |e| {
        let detail = match e.as_db_error() {
            Some(db) => format!("{}: {}", db.code().code(), db.message()),
            None => e.to_string(),
        };
        Error::internal(format!("{what} {shown}: {detail}")).with("url", shown)
    }
}

/// Opens a connection to `url` for the store `what` and drives it on a
/// task of its own; its end is logged (the next call of the store opens a
/// new one). Errors name `shown`, never `url`.
pub(crate) async fn connect(
    what: &'static str,
    url: &str,
    shown: &str,
    tls: &RustlsConnect,
) -> Result<Client> {
    let (client, connection) = tokio_postgres::connect(url, tls.clone())
        .await
        .map_err(pg_err(what, shown))?;
    let shown = shown.to_string();
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(store = what, url = %shown, error = %e, "a PostgreSQL connection ended");
        }
    });
    Ok(client)
}

/// Applies the `migrations` the database lacks, in one transaction under
/// the advisory lock `lock` (so several gateways sharing a database migrate
/// it once), recording the version in the one-row table `schema_table`.
/// Returns the version the database was at; when it is newer than
/// `migrations.len()` nothing is applied (the caller refuses it).
pub(crate) async fn migrate(
    client: &mut Client,
    lock: i64,
    schema_table: &str,
    migrations: &[&str],
) -> std::result::Result<i32, tokio_postgres::Error> {
    let latest = migrations.len() as i32;
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&lock])
        .await?;
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS {schema_table} (version INTEGER NOT NULL)"
    ))
    .await?;
    let version: i32 = tx
        .query_opt(&format!("SELECT version FROM {schema_table}"), &[])
        .await?
        .map_or(0, |r| r.get(0));
    if version >= latest {
        tx.rollback().await?;
        return Ok(version);
    }
    for migration in migrations.iter().skip(version as usize) {
        tx.batch_execute(migration).await?;
    }
    tx.execute(&format!("DELETE FROM {schema_table}"), &[])
        .await?;
    tx.execute(
        &format!("INSERT INTO {schema_table} (version) VALUES ($1)"),
        &[&latest],
    )
    .await?;
    tx.commit().await?;
    Ok(version)
}

/// One connection of the store `what`, shared by its calls (statements are
/// pipelined) and opened again by the first call after it broke.
pub(crate) struct Conn {
    what: &'static str,
    url: String,
    shown: String,
    tls: RustlsConnect,
    client: tokio::sync::RwLock<Option<std::sync::Arc<Client>>>,
}

impl Conn {
    /// Connects to `url` for the store `what` (TLS verified by `tls`) and
    /// applies the `migrations` the database lacks (under the advisory lock
    /// `lock`, the version in `schema_table`); a database at a newer version
    /// than this gateway's is refused. Errors name the redacted URL.
    pub(crate) async fn open(
        what: &'static str,
        url: &str,
        tls: std::sync::Arc<rustls::ClientConfig>,
        lock: i64,
        schema_table: &str,
        migrations: &[&str],
    ) -> Result<Self> {
        let shown = onebot_gateway_config::redact_url(url);
        let tls = RustlsConnect::new(tls);
        let mut client = connect(what, url, &shown, &tls).await?;
        let version = migrate(&mut client, lock, schema_table, migrations)
            .await
            .map_err(pg_err(what, &shown))?;
        if version as usize > migrations.len() {
            return Err(onebot_gateway_domain::error::Error::internal(format!(
                "{what} {shown}: its schema version {version} is newer than this gateway's {}; run a newer gateway",
                migrations.len()
            ))
            .with("url", &shown));
        }
        Ok(Self::new(what, url, &shown, tls, client))
    }

    /// Wraps `client`, opened to `url` (shown as `shown`) over `tls`.
    pub(crate) fn new(
        what: &'static str,
        url: &str,
        shown: &str,
        tls: RustlsConnect,
        client: Client,
    ) -> Self {
        Self {
            what,
            url: url.to_owned(),
            shown: shown.to_owned(),
            tls,
            client: tokio::sync::RwLock::new(Some(std::sync::Arc::new(client))),
        }
    }

    /// The URL without credentials.
    pub(crate) fn shown(&self) -> &str {
        &self.shown
    }

    /// The connection, opened again when it broke.
    pub(crate) async fn client(&self) -> Result<std::sync::Arc<Client>> {
        if let Some(c) = self.client.read().await.as_ref()
            && !c.is_closed()
        {
            return Ok(c.clone());
        }
        let mut slot = self.client.write().await;
        if let Some(c) = slot.as_ref()
            && !c.is_closed()
        {
            return Ok(c.clone());
        }
        let client =
            std::sync::Arc::new(connect(self.what, &self.url, &self.shown, &self.tls).await?);
        *slot = Some(client.clone());
        Ok(client)
    }
}

/// `postgres host:port/database` of `url`, without credentials.
pub(crate) fn describe_url(url: &str, shown: &str) -> String {
    let Ok(config) = url.parse::<tokio_postgres::Config>() else {
        return format!("postgres {shown}");
    };
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let host = match host {
                tokio_postgres::config::Host::Tcp(h) => h.clone(),
                #[cfg(unix)]
                tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
            };
            let port = config
                .get_ports()
                .get(i)
                .or(config.get_ports().first())
                .copied()
                .unwrap_or(5432);
            format!("{host}:{port}")
        })
        .collect();
    format!(
        "postgres {}/{}",
        hosts.join(","),
        config.get_dbname().unwrap_or_default()
    )
}
