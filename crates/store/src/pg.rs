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
