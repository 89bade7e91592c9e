//! The leases of `[ha]` in PostgreSQL (the domain's
//! [`LeaseStore`](onebot_gateway_domain::lease::LeaseStore)): one row per
//! account in `gateway_leases`.
//!
//! - A claim is one statement: it takes the row when it is missing or
//!   expired, or renews it when the claimant's process token holds it, and
//!   reports the holder otherwise. Expiry is decided by the server's clock
//!   (`clock_timestamp()`), so the gateways' clocks never have to agree.
//! - The epoch grows by one each time the row changes hands (a new process
//!   token), never on a renewal.
//! - Concurrent claims of one row are serialised by its row lock: at most
//!   one of them takes an expired lease.

use std::sync::Arc;
use std::time::Duration;

use crate::pg::{self, pg_err};
use onebot_gateway_domain::error::Result;
use onebot_gateway_domain::lease::{Claimant, Holder, LeaseStore, LeaseView};

/// What errors and logs call this store.
const WHAT: &str = "lease store";
/// The advisory lock its migrations hold (a constant of this program, not
/// another store's).
const MIGRATION_LOCK: i64 = 0x6f6e_6562_6f74_0003;

const MIGRATIONS: &[&str] = &["
CREATE TABLE IF NOT EXISTS gateway_leases (
    account_id TEXT PRIMARY KEY,
    instance TEXT NOT NULL,
    advertise TEXT NOT NULL,
    token TEXT NOT NULL,
    epoch BIGINT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
"];

/// Takes a missing or expired lease, renews one's own, else changes
/// nothing; then reads the row as it is.
const CLAIM: &str = "
WITH claimed AS (
    INSERT INTO gateway_leases AS l (account_id, instance, advertise, token, epoch, expires_at)
    VALUES ($1, $2, $3, $4, 1, clock_timestamp() + make_interval(secs => $5))
    ON CONFLICT (account_id) DO UPDATE SET
        instance = EXCLUDED.instance,
        advertise = EXCLUDED.advertise,
        token = EXCLUDED.token,
        epoch = CASE WHEN l.token = EXCLUDED.token THEN l.epoch ELSE l.epoch + 1 END,
        expires_at = EXCLUDED.expires_at
    WHERE l.token = EXCLUDED.token OR l.expires_at < clock_timestamp()
    RETURNING instance, advertise, epoch, token
)
SELECT instance, advertise, epoch, token FROM claimed
UNION ALL
SELECT instance, advertise, epoch, token FROM gateway_leases
    WHERE account_id = $1 AND NOT EXISTS (SELECT 1 FROM claimed)";

/// Ends the claimant's holding now.
const RELEASE: &str = "
UPDATE gateway_leases SET expires_at = clock_timestamp() - interval '1 millisecond'
    WHERE account_id = $1 AND token = $2";

/// The leases in PostgreSQL.
pub struct PgLeases {
    described: String,
    conn: pg::Conn,
}

impl std::fmt::Debug for PgLeases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgLeases")
            .field("url", &self.conn.shown())
            .finish_non_exhaustive()
    }
}

impl PgLeases {
    /// Connects to `url` (TLS verified by `tls`) and creates the table when
    /// it is missing. The error names the (redacted) URL.
    pub async fn open(url: &str, tls: Arc<rustls::ClientConfig>) -> Result<Self> {
        let conn = pg::Conn::open(
            WHAT,
            url,
            tls,
            MIGRATION_LOCK,
            "gateway_leases_schema",
            MIGRATIONS,
        )
        .await?;
        Ok(Self {
            described: pg::describe_url(url, conn.shown()),
            conn,
        })
    }
}

#[async_trait::async_trait]
impl LeaseStore for PgLeases {
    async fn claim(&self, account: &str, me: &Claimant, ttl: Duration) -> Result<LeaseView> {
        let client = self.conn.client().await?;
        let err = pg_err(WHAT, self.conn.shown());
        let row = client
            .query_one(
                CLAIM,
                &[
                    &account,
                    &me.holder.instance,
                    &me.holder.advertise,
                    &me.token,
                    &ttl.as_secs_f64(),
                ],
            )
            .await
            .map_err(err)?;
        let epoch: i64 = row.get(2);
        let token: String = row.get(3);
        Ok(LeaseView {
            holder: Holder {
                instance: row.get(0),
                advertise: row.get(1),
            },
            epoch: u64::try_from(epoch).unwrap_or_default(),
            mine: token == me.token,
        })
    }

    async fn release(&self, account: &str, me: &Claimant) -> Result<()> {
        let client = self.conn.client().await?;
        client
            .execute(RELEASE, &[&account, &me.token])
            .await
            .map_err(pg_err(WHAT, self.conn.shown()))?;
        Ok(())
    }

    fn describe(&self) -> String {
        self.described.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{fresh_database, test_tls};

    fn claimant(name: &str, token: &str) -> Claimant {
        Claimant {
            holder: Holder {
                instance: name.into(),
                advertise: format!("{name}:50051"),
            },
            token: token.into(),
        }
    }

    #[tokio::test]
    async fn claims_take_renew_refuse_and_take_over_with_a_new_epoch() {
        let Some(url) = fresh_database("leases", "onebot_lease", "claims").await else {
            return;
        };
        let a = PgLeases::open(url.as_str(), test_tls()).await.unwrap();
        let b = PgLeases::open(url.as_str(), test_tls()).await.unwrap();
        let (gw_a, gw_b) = (claimant("a", "ta"), claimant("b", "tb"));
        let long = Duration::from_secs(60);
        let first = a.claim("acc", &gw_a, long).await.unwrap();
        assert!(first.mine && first.epoch == 1, "{first:?}");
        // Renewing keeps the epoch; another claimant is told the holder.
        assert_eq!(a.claim("acc", &gw_a, long).await.unwrap(), first);
        let seen = b.claim("acc", &gw_b, long).await.unwrap();
        assert!(!seen.mine, "{seen:?}");
        assert_eq!(seen.holder.instance, "a");
        assert_eq!(seen.holder.advertise, "a:50051");
        // Another account is independent.
        assert!(b.claim("other", &gw_b, long).await.unwrap().mine);
        // Released: the other takes it at once, in the next epoch; the
        // former holder's renewal is then refused.
        a.release("acc", &gw_a).await.unwrap();
        let taken = b.claim("acc", &gw_b, long).await.unwrap();
        assert!(taken.mine && taken.epoch == 2, "{taken:?}");
        let refused = a.claim("acc", &gw_a, long).await.unwrap();
        assert!(!refused.mine && refused.holder.instance == "b");
        // A restarted process of the same instance (new token) waits too.
        let restarted = claimant("b", "tb2");
        assert!(!a.claim("acc", &restarted, long).await.unwrap().mine);
    }

    #[tokio::test]
    async fn an_expired_lease_is_taken_by_exactly_one_of_many_claimants() {
        let Some(url) = fresh_database("leases", "onebot_lease", "race").await else {
            return;
        };
        let store = Arc::new(PgLeases::open(url.as_str(), test_tls()).await.unwrap());
        // A lease held and let go: expired when the race starts.
        let gone = claimant("gone", "t-gone");
        assert!(
            store
                .claim("acc", &gone, Duration::from_secs(60))
                .await
                .unwrap()
                .mine
        );
        store.release("acc", &gone).await.unwrap();
        let claims = (0..16).map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let me = claimant(&format!("c{i}"), &format!("t{i}"));
                store.claim("acc", &me, Duration::from_secs(60)).await
            })
        });
        let mut winners = Vec::new();
        for c in claims {
            let view = c.await.unwrap().unwrap();
            if view.mine {
                winners.push(view);
            }
        }
        assert_eq!(winners.len(), 1, "{winners:?}");
        assert_eq!(winners[0].epoch, 2);
    }
}
