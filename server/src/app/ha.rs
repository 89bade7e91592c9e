//! `[ha]`: the account leases this gateway keeps while it runs. Without
//! `[ha]` every configured account is this gateway's own.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use onebot_gateway_config::Config;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::lease::{self, Claimant, Holder, Leadership, LeaseStore, Role};

/// The leases of `[ha]`, before they are kept.
pub struct Ha {
    /// The roles of the accounts (every one standby until a claim).
    pub leadership: Arc<Leadership>,
    store: Arc<dyn LeaseStore>,
    me: Claimant,
    ttl: Duration,
}

impl Ha {
    /// Opens the lease store `config.ha` names (`None` without `[ha]`).
    /// Every account with a transport is led by one gateway at a time.
    pub async fn open(config: &Config) -> anyhow::Result<Option<Ha>> {
        let Some(ha) = &config.ha else {
            return Ok(None);
        };
        let store = onebot_gateway_store::open::leases(ha, &config.archive)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("opening the account leases of [ha]")?;
        let instance = ha.instance.clone().unwrap_or_else(default_instance);
        let me = Claimant {
            holder: Holder {
                instance,
                advertise: ha.advertise.clone().unwrap_or_default(),
            },
            token: hex::encode(rand::random::<[u8; 16]>()),
        };
        tracing::info!(
            leases = %store.describe(),
            instance = %me.holder.instance,
            ttl_secs = ha.ttl_secs,
            "[ha]: accounts are led by one gateway at a time"
        );
        let leadership = Arc::new(Leadership::new(
            config
                .accounts
                .iter()
                .filter(|(_, a)| a.has_transport())
                .map(|(id, _)| id.as_str()),
        ));
        let ttl = Duration::from_secs(ha.ttl_secs);
        // Before serving: a call to a standby names its leader from the
        // start, and a leader's adapters connect at once.
        lease::claim_once(&leadership, store.as_ref(), &me, ttl).await;
        Ok(Some(Ha {
            leadership,
            store,
            me,
            ttl,
        }))
    }

    /// This gateway's `ha.instance`.
    pub fn instance(&self) -> &str {
        &self.me.holder.instance
    }

    /// Keeps the leases until `cancel`, then releases those held.
    pub fn spawn(self, cancel: CancellationToken) -> tokio::task::JoinHandle<()> {
        tokio::spawn(lease::run(
            self.leadership,
            self.store,
            self.me,
            self.ttl,
            cancel,
        ))
    }
}

/// Under `[ha]`, what the gateway does as its accounts change hands:
/// before it serves an account it has come to lead, it reads back what the
/// former leader left in the shared stores (the account's events and
/// sequence, the captured and staged media indexes, the offline queue,
/// which it then flushes); when it stops leading one, it forgets the
/// account's captured items (it would expire or evict them under a lease
/// it no longer holds). Nothing without `[ha]`.
pub fn follow(gateway: &Arc<Gateway>, cancel: &CancellationToken) {
    let Some(leadership) = gateway.leadership() else {
        return;
    };
    let weak = Arc::downgrade(gateway);
    leadership.on_lead(Arc::new(move |account: String| {
        let weak = weak.clone();
        Box::pin(async move {
            let Some(gateway) = weak.upgrade() else {
                return Ok(());
            };
            gateway.events.take_over(&account).await?;
            gateway.received().store().reload().await?;
            gateway.write().media().reload().await?;
            gateway.write().take_over(&account).await
        })
    }));
    for account in leadership.accounts() {
        let Some(mut role) = leadership.watch(account) else {
            continue;
        };
        let (weak, cancel) = (Arc::downgrade(gateway), cancel.clone());
        let account = account.to_owned();
        gateway.write().track(tokio::spawn(async move {
            loop {
                tokio::select! {
                    changed = role.changed() => if changed.is_err() { return },
                    () = cancel.cancelled() => return,
                }
                let standby = matches!(*role.borrow_and_update(), Role::Standby { .. });
                let Some(gateway) = weak.upgrade().filter(|_| standby) else {
                    continue;
                };
                if let Err(e) = gateway.received().store().reload().await {
                    tracing::warn!(account_id = %account, error = %e, "forgetting the account's captured media failed");
                }
            }
        }));
    }
}

/// `<host name>-<process id>`.
fn default_instance() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "gateway".into());
    format!("{host}-{}", std::process::id())
}
