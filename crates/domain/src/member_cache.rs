//! The per-(account, group) member-list cache.
//!
//! It keeps the peer's whole list for `member_cache_ttl_secs` (0 disables
//! it). Member events (join, leave, card change) and reconnects invalidate
//! it through [`MemberCache::invalidate`] / [`MemberCache::observe`]. A
//! fetch that was already under way when its group was invalidated does not
//! store its (possibly stale) result.
//!
//! The lists held add up to at most [`MAX_BYTES`] (by
//! [`GroupMember::approx_bytes`]): storing one evicts the lists fetched
//! longest ago until they fit (the list just stored always stays).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::SystemTime;

use parking_lot::Mutex;
use tokio::time::Instant;

use super::model::{ConnState, GroupMember, InboundEvent};

/// Most bytes of member lists held, over every account and group.
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// A group's member list as fetched, with its expiry.
#[derive(Debug)]
pub struct Cached {
    /// The whole list in the peer's order.
    pub members: Arc<Vec<GroupMember>>,
    /// When it was fetched.
    pub fetched_at: SystemTime,
    /// When it stops being served.
    pub expires: Instant,
}

#[derive(Debug, Default)]
struct Slot {
    cached: Option<Cached>,
    /// The bytes of `cached`'s members (0 without a list).
    bytes: usize,
    /// Bumped by every invalidation; a fetch stores only when unchanged.
    generation: u64,
}

/// `(account id, group id)`.
pub type Key = (String, i64);

/// The per-(account, group) member list cache.
#[derive(Debug, Default)]
pub struct MemberCache {
    slots: Mutex<HashMap<Key, Slot>>,
}

impl MemberCache {
    /// Forgets the cached members of one group of one account.
    pub fn invalidate(&self, account_id: &str, group_id: i64) {
        let mut slots = self.slots.lock();
        let slot = slots.entry((account_id.to_owned(), group_id)).or_default();
        slot.cached = None;
        slot.bytes = 0;
        slot.generation += 1;
    }

    /// Forgets every cached group of an account.
    pub fn invalidate_account(&self, account_id: &str) {
        for ((account, _), slot) in self.slots.lock().iter_mut() {
            if account == account_id {
                slot.cached = None;
                slot.bytes = 0;
                slot.generation += 1;
            }
        }
    }

    /// Applies an inbound event of `account_id`: member joins, leaves,
    /// card and admin changes invalidate their group; a (re)connection invalidates
    /// the account (events may have been missed while it was down).
    pub fn observe(&self, account_id: &str, event: &InboundEvent) {
        match event {
            InboundEvent::MemberJoined { group_id, .. }
            | InboundEvent::MemberLeft { group_id, .. }
            | InboundEvent::CardChanged { group_id, .. }
            | InboundEvent::AdminChanged { group_id, .. } => self.invalidate(account_id, *group_id),
            InboundEvent::Connection {
                state: ConnState::Connected,
                ..
            } => self.invalidate_account(account_id),
            _ => {}
        }
    }

    /// The fresh cached list, if any, else the generation a fetch must see
    /// unchanged to store its result.
    pub fn lookup(
        &self,
        key: &Key,
        use_cache: bool,
    ) -> std::result::Result<(Arc<Vec<GroupMember>>, SystemTime), u64> {
        // No slot is created here: slots exist only for groups that were
        // stored or invalidated, so unknown group ids cost no memory.
        let slots = self.slots.lock();
        match slots.get(key) {
            Some(Slot {
                cached: Some(c), ..
            }) if use_cache && Instant::now() < c.expires => Ok((c.members.clone(), c.fetched_at)),
            Some(slot) => Err(slot.generation),
            None => Err(0),
        }
    }

    /// Stores a fetched list, unless its group was invalidated since the
    /// fetch began (`generation` is what [`MemberCache::lookup`] returned).
    pub fn store(&self, key: Key, generation: u64, cached: Cached) {
        let bytes: usize = cached.members.iter().map(GroupMember::approx_bytes).sum();
        let mut slots = self.slots.lock();
        let now = Instant::now();
        // Drop expired lists so memory follows the groups in active use.
        for slot in slots.values_mut() {
            if slot.cached.as_ref().is_some_and(|c| c.expires <= now) {
                slot.cached = None;
                slot.bytes = 0;
            }
        }
        let slot = slots.entry(key.clone()).or_default();
        if slot.generation != generation {
            return;
        }
        slot.cached = Some(cached);
        slot.bytes = bytes;
        let mut total: usize = slots.values().map(|s| s.bytes).sum();
        while total > MAX_BYTES {
            let oldest = slots
                .iter_mut()
                .filter(|(k, s)| **k != key && s.cached.is_some())
                .min_by_key(|(_, s)| s.cached.as_ref().map(|c| c.fetched_at))
                .map(|(_, s)| s);
            let Some(slot) = oldest else { break };
            total = total.saturating_sub(slot.bytes);
            slot.cached = None;
            slot.bytes = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::model::RawJson;

    fn list(members: usize, raw_bytes: usize) -> Arc<Vec<GroupMember>> {
        let member = GroupMember {
            user_id: Some(1),
            raw: RawJson::from_text("x".repeat(raw_bytes)),
            ..GroupMember::default()
        };
        Arc::new(vec![member; members])
    }

    fn cached(members: Arc<Vec<GroupMember>>, age_secs: u64) -> Cached {
        Cached {
            members,
            fetched_at: SystemTime::UNIX_EPOCH + Duration::from_secs(1_000 - age_secs),
            expires: Instant::now() + Duration::from_secs(3600),
        }
    }

    #[test]
    fn the_lists_held_are_bounded_by_bytes_oldest_fetch_first() {
        let cache = MemberCache::default();
        // Each list is a bit over a third of the bound.
        let third = list(1000, MAX_BYTES / 3000);
        let key = |g: i64| ("a".to_string(), g);
        cache.store(key(1), 0, cached(third.clone(), 30));
        cache.store(key(2), 0, cached(third.clone(), 20));
        cache.store(key(3), 0, cached(third.clone(), 10));
        let held = |g: i64| cache.lookup(&key(g), true).is_ok();
        assert_eq!((held(1), held(2), held(3)), (false, true, true));
        // A list above the bound on its own stays, alone.
        cache.store(key(4), 0, cached(list(1, MAX_BYTES + 1), 0));
        assert_eq!((held(2), held(3), held(4)), (false, false, true));
    }
}
