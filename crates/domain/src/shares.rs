//! Budgets shared by clients, each client limited to a share: the
//! concurrency limit (gRPC calls and MCP tool calls), the MCP sessions and
//! listen streams, and the staging quota.
//!
//! A budget has a total and a share per client. Taking units fails when the
//! total would be passed ([`Refusal::Full`]) or when the client would hold
//! more than its share ([`Refusal::Share`]), so one client can never take
//! the whole budget from the others. A client is named by a key: its token
//! (`token:<name>`), or its remote address without authentication
//! (`addr:<ip>`); units taken without a key count against the total only.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

/// Why units were not given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The budget is spent: `used` of `total`.
    Full {
        /// Units in use.
        used: u64,
        /// The budget.
        total: u64,
    },
    /// The client holds `held` of its `share`.
    Share {
        /// Units the client holds.
        held: u64,
        /// The most one client may hold.
        share: u64,
    },
}

#[derive(Debug, Default)]
struct Tally {
    used: u64,
    clients: HashMap<Arc<str>, u64>,
}

/// One budget (see the module docs).
#[derive(Debug)]
pub struct Shares {
    total: u64,
    share: u64,
    tally: Mutex<Tally>,
}

impl Shares {
    /// A budget of `total` units of which one client holds at most `share`.
    pub fn new(total: u64, share: u64) -> Arc<Self> {
        Arc::new(Self {
            total,
            share: share.min(total),
            tally: Mutex::new(Tally::default()),
        })
    }

    /// The budget.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The most one client may hold.
    pub fn share(&self) -> u64 {
        self.share
    }

    /// Units in use over all clients.
    pub fn used(&self) -> u64 {
        self.tally.lock().used
    }

    /// Units `client` holds.
    pub fn held_by(&self, client: &str) -> u64 {
        self.tally.lock().clients.get(client).copied().unwrap_or(0)
    }

    /// Takes `n` units for `client` (`None`: against the total only).
    pub fn take(&self, client: Option<&Arc<str>>, n: u64) -> Result<(), Refusal> {
        let mut tally = self.tally.lock();
        let used = tally.used;
        if used.checked_add(n).is_none_or(|after| after > self.total) {
            return Err(Refusal::Full {
                used,
                total: self.total,
            });
        }
        if let Some(client) = client {
            let held = tally.clients.get(client).copied().unwrap_or(0);
            if held.checked_add(n).is_none_or(|after| after > self.share) {
                return Err(Refusal::Share {
                    held,
                    share: self.share,
                });
            }
            tally.clients.insert(client.clone(), held + n);
        }
        tally.used = used + n;
        Ok(())
    }

    /// Counts `n` units for `client` whatever the limits (units that were
    /// held before a restart).
    pub fn count(&self, client: Option<&Arc<str>>, n: u64) {
        let mut tally = self.tally.lock();
        tally.used = tally.used.saturating_add(n);
        if let Some(client) = client {
            *tally.clients.entry(client.clone()).or_insert(0) += n;
        }
    }

    /// Gives `n` units of `client` back.
    pub fn give_back(&self, client: Option<&Arc<str>>, n: u64) {
        let mut tally = self.tally.lock();
        tally.used = tally.used.saturating_sub(n);
        if let Some(client) = client
            && let Some(held) = tally.clients.get_mut(client)
        {
            *held = held.saturating_sub(n);
            if *held == 0 {
                tally.clients.remove(client);
            }
        }
    }

    /// Takes one unit for `client`, given back when the returned slot is
    /// dropped.
    pub fn slot(self: &Arc<Self>, client: Option<Arc<str>>) -> Result<Slot, Refusal> {
        self.take(client.as_ref(), 1)?;
        Ok(Slot {
            shares: self.clone(),
            client,
        })
    }
}

/// One unit of a budget, given back when dropped.
#[derive(Debug)]
pub struct Slot {
    shares: Arc<Shares>,
    client: Option<Arc<str>>,
}

impl Slot {
    /// The client holding it.
    pub fn client(&self) -> Option<&Arc<str>> {
        self.client.as_ref()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.shares.give_back(self.client.as_ref(), 1);
    }
}

/// The key of the client holding a token named `name`.
pub fn token_client(name: &str) -> Arc<str> {
    format!("token:{name}").into()
}

/// The key of an unauthenticated client at `ip`.
pub fn address_client(ip: std::net::IpAddr) -> Arc<str> {
    format!("addr:{ip}").into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_holds_at_most_its_share_and_the_rest_stays_for_others() {
        let shares = Shares::new(4, 2);
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        let a1 = shares.slot(Some(a.clone())).unwrap();
        let _a2 = shares.slot(Some(a.clone())).unwrap();
        assert_eq!(
            shares.slot(Some(a.clone())).unwrap_err(),
            Refusal::Share { held: 2, share: 2 }
        );
        let _b1 = shares.slot(Some(b.clone())).unwrap();
        let _free = shares.slot(None).unwrap();
        assert_eq!(
            shares.slot(Some(b.clone())).unwrap_err(),
            Refusal::Full { used: 4, total: 4 }
        );
        drop(a1);
        assert_eq!(shares.held_by("a"), 1);
        let _b2 = shares.slot(Some(b)).unwrap();
        assert_eq!(shares.used(), 4);
    }

    #[test]
    fn amounts_are_taken_and_given_back_whole() {
        let shares = Shares::new(100, 50);
        let a: Arc<str> = "a".into();
        shares.take(Some(&a), 30).unwrap();
        assert_eq!(
            shares.take(Some(&a), 21),
            Err(Refusal::Share {
                held: 30,
                share: 50
            })
        );
        shares.take(Some(&a), 20).unwrap();
        shares.give_back(Some(&a), 50);
        assert_eq!((shares.used(), shares.held_by("a")), (0, 0));
        assert!(shares.take(None, u64::MAX).is_err());
    }
}
