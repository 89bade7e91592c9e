//! What the shared stores' tests stand on: a fresh database with the lease
//! table, a lease taken, and a fence the test controls.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use super::Shared;
use crate::lease::PgLeases;
use crate::tests::{fresh_database, test_tls};
use onebot_gateway_domain::lease::{Claimant, Fence, Holder, LeaseStore};

/// A fence whose epochs the test sets, and which records what was lost.
#[derive(Default)]
pub(crate) struct TestFence {
    pub epochs: Mutex<HashMap<String, u64>>,
    pub lost: Mutex<HashSet<String>>,
}

impl Fence for TestFence {
    fn epoch(&self, account: &str) -> Option<u64> {
        self.epochs.lock().get(account).copied()
    }

    fn lost(&self, account: &str) {
        self.lost.lock().insert(account.to_owned());
        self.epochs.lock().remove(account);
    }
}

/// One gateway of a test: its shared store, its fence and who it is.
pub(crate) struct TestGateway {
    pub shared: Arc<Shared>,
    pub fence: Arc<TestFence>,
    pub me: Claimant,
}

/// A database with the leases, where tests make gateways.
pub(crate) struct TestDb {
    pub url: url::Url,
    pub leases: PgLeases,
}

impl TestDb {
    /// A fresh database for `test`; `None` when no PostgreSQL is given
    /// (never in CI).
    pub(crate) async fn fresh(test: &str) -> Option<TestDb> {
        let url = fresh_database("shared stores", "onebot_shared", test).await?;
        let leases = PgLeases::open(url.as_str(), test_tls()).await.unwrap();
        Some(TestDb { url, leases })
    }

    /// A gateway named `name`, with its own connections and fence.
    pub(crate) async fn gateway(&self, name: &str) -> TestGateway {
        let fence = Arc::new(TestFence::default());
        let shared = Shared::open(self.url.as_str(), test_tls(), fence.clone())
            .await
            .unwrap();
        TestGateway {
            shared,
            fence,
            me: Claimant {
                holder: Holder {
                    instance: name.to_owned(),
                    advertise: String::new(),
                },
                token: format!("token-{name}"),
            },
        }
    }

    /// `gw` takes the lease of `account` (free, or let go by its holder)
    /// and fences its writes with the new epoch.
    pub(crate) async fn lead(&self, gw: &TestGateway, account: &str) {
        let view = self
            .leases
            .claim(account, &gw.me, Duration::from_secs(60))
            .await
            .unwrap();
        assert!(
            view.mine,
            "{} could not take {account}: {view:?}",
            gw.me.holder.instance
        );
        gw.fence
            .epochs
            .lock()
            .insert(account.to_owned(), view.epoch);
    }

    /// `gw` lets the lease of `account` go (its fence still holds the old
    /// epoch, as a paused gateway's would).
    pub(crate) async fn let_go(&self, gw: &TestGateway, account: &str) {
        self.leases.release(account, &gw.me).await.unwrap();
    }
}
