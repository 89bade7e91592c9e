//! `ListGroupMembers`: a group's members in the peer's order, with a
//! per-(account, group) cache.
//!
//! The cache keeps the peer's whole list for `member_cache_ttl_secs` (0
//! disables it). `no_cache = true` bypasses and refreshes it; member events
//! (join, leave, card change) and reconnects invalidate it through
//! [`MemberCache::invalidate`] / [`MemberCache::observe`]. A fetch that was
//! already under way when its group was invalidated does not store its
//! (possibly stale) result.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use tokio::time::Instant;

use crate::domain::Gateway;
use crate::error::{Error, Result};
use crate::onebot::api::{CallCtx, ConnState, InboundEvent};
use crate::onebot::model::GroupMember;
use crate::render;

/// Members returned when the request asks for 0.
pub const DEFAULT_MEMBER_LIMIT: u32 = 100;
/// Most members returned; larger requests are clamped to this.
pub const MAX_MEMBER_LIMIT: u32 = 500;

/// The number of members to return for a requested `limit`: 0 means
/// [`DEFAULT_MEMBER_LIMIT`], anything else is clamped to
/// `[1, MAX_MEMBER_LIMIT]`.
pub fn clamp_limit(limit: i32) -> u32 {
    match limit {
        0 => DEFAULT_MEMBER_LIMIT,
        n => n.clamp(1, MAX_MEMBER_LIMIT as i32) as u32,
    }
}

/// What `ListGroupMembers` asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MembersRequest {
    /// Account id; empty means `default`.
    pub account_id: String,
    /// The group; must be positive.
    pub group_id: i64,
    /// `None`: use the cache when fresh, pass nothing to the peer. `Some`:
    /// passed to the peer as given; `Some(true)` also bypasses the cache.
    pub no_cache: Option<bool>,
    /// Requested limit, as the client sent it (see [`clamp_limit`]).
    pub limit: i32,
}

/// A group's members.
#[derive(Debug, Clone, PartialEq)]
pub struct Members {
    /// The group.
    pub group_id: i64,
    /// Number of members the peer reported.
    pub total: usize,
    /// The first `min(total, limit)` members in the peer's order.
    pub members: Vec<GroupMember>,
    /// One `名字(QQ号) — role` line per member, the truncation footer when
    /// `total` exceeds the members shown, or `（该群暂无成员信息）`.
    pub rendered: String,
    /// When the list was fetched from the peer.
    pub fetched_at: SystemTime,
    /// True when served from the cache.
    pub from_cache: bool,
}

impl Members {
    /// Number of members returned.
    pub fn shown(&self) -> usize {
        self.members.len()
    }
}

#[derive(Debug)]
struct Cached {
    members: Arc<Vec<GroupMember>>,
    fetched_at: SystemTime,
    expires: Instant,
}

#[derive(Debug, Default)]
struct Slot {
    cached: Option<Cached>,
    /// Bumped by every invalidation; a fetch stores only when unchanged.
    generation: u64,
}

type Key = (String, i64);

/// The per-(account, group) member list cache.
#[derive(Debug, Default)]
pub struct MemberCache {
    slots: Mutex<HashMap<Key, Slot>>,
}

impl MemberCache {
    fn lock(&self) -> MutexGuard<'_, HashMap<Key, Slot>> {
        // The map stays consistent even if a holder panicked.
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets the cached members of one group of one account.
    pub fn invalidate(&self, account_id: &str, group_id: i64) {
        let mut slots = self.lock();
        let slot = slots.entry((account_id.to_owned(), group_id)).or_default();
        slot.cached = None;
        slot.generation += 1;
    }

    /// Forgets every cached group of an account.
    pub fn invalidate_account(&self, account_id: &str) {
        for ((account, _), slot) in self.lock().iter_mut() {
            if account == account_id {
                slot.cached = None;
                slot.generation += 1;
            }
        }
    }

    /// Applies an inbound event of `account_id`: member joins, leaves and
    /// card changes invalidate their group; a (re)connection invalidates
    /// the account (events may have been missed while it was down).
    pub fn observe(&self, account_id: &str, event: &InboundEvent) {
        match event {
            InboundEvent::MemberJoined { group_id, .. }
            | InboundEvent::MemberLeft { group_id, .. }
            | InboundEvent::CardChanged { group_id, .. } => self.invalidate(account_id, *group_id),
            InboundEvent::Connection {
                state: ConnState::Connected,
                ..
            } => self.invalidate_account(account_id),
            _ => {}
        }
    }

    /// The fresh cached list, if any, else the generation a fetch must see
    /// unchanged to store its result.
    fn lookup(
        &self,
        key: &Key,
        use_cache: bool,
    ) -> std::result::Result<(Arc<Vec<GroupMember>>, SystemTime), u64> {
        // No slot is created here: slots exist only for groups that were
        // stored or invalidated, so unknown group ids cost no memory.
        let slots = self.lock();
        match slots.get(key) {
            Some(Slot {
                cached: Some(c), ..
            }) if use_cache && Instant::now() < c.expires => Ok((c.members.clone(), c.fetched_at)),
            Some(slot) => Err(slot.generation),
            None => Err(0),
        }
    }

    fn store(&self, key: Key, generation: u64, cached: Cached) {
        let mut slots = self.lock();
        let now = Instant::now();
        // Drop expired lists so memory follows the groups in active use.
        for slot in slots.values_mut() {
            if slot.cached.as_ref().is_some_and(|c| c.expires <= now) {
                slot.cached = None;
            }
        }
        let slot = slots.entry(key).or_default();
        if slot.generation == generation {
            slot.cached = Some(cached);
        }
    }
}

impl Gateway {
    /// Lists a group's members. The group id and the account are checked
    /// before anything reaches the peer.
    pub async fn list_group_members(&self, req: MembersRequest, ctx: CallCtx) -> Result<Members> {
        if req.group_id <= 0 {
            return Err(Error::invalid(
                "group_id",
                format!("group_id must be positive, got {}", req.group_id),
            )
            .with("group_id", req.group_id));
        }
        let account = self.account(&req.account_id)?;
        crate::auth::Caller::current().check_group(req.group_id)?;
        crate::telemetry::record_chat(crate::onebot::ChatRef::Group(req.group_id));
        let limit = clamp_limit(req.limit) as usize;
        let ttl = Duration::from_secs(account.config.member_cache_ttl_secs);
        let caching = !ttl.is_zero();
        let key = (account.id.clone(), req.group_id);

        let use_cache = caching && req.no_cache != Some(true);
        let (all, fetched_at, from_cache) = match self.member_cache.lookup(&key, use_cache) {
            Ok((members, fetched_at)) => (members, fetched_at, true),
            Err(generation) => {
                let raw = account
                    .api
                    .get_group_member_list(req.group_id, req.no_cache, ctx)
                    .await?;
                let members = Arc::new(
                    raw.into_iter()
                        .map(GroupMember::from_owned)
                        .collect::<Vec<_>>(),
                );
                let fetched_at = SystemTime::now();
                if caching {
                    self.member_cache.store(
                        key,
                        generation,
                        Cached {
                            members: members.clone(),
                            fetched_at,
                            expires: Instant::now() + ttl,
                        },
                    );
                }
                (members, fetched_at, false)
            }
        };
        let total = all.len();
        let members: Vec<GroupMember> = all.iter().take(limit).cloned().collect();
        Ok(Members {
            group_id: req.group_id,
            total,
            rendered: render::members(&members, total),
            members,
            fetched_at,
            from_cache,
        })
    }
}
