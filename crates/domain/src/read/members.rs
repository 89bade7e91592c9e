//! `ListGroupMembers`: a group's members in the peer's order, through the
//! per-(account, group) cache ([`crate::member_cache`]).
//! `no_cache = true` bypasses and refreshes it.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::time::Instant;

use crate::account::Account;
use crate::call::{CallCtx, Deadline};
use crate::error::{Error, Result};
use crate::gateway::Gateway;
use crate::member_cache::Cached;
use crate::model::{ChatRef, GroupMember};
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

impl Gateway {
    /// Lists a group's members. The group id, the account and the caller's
    /// scope are checked before anything reaches the peer; a group the bot
    /// is not in fails with `GroupNotFound`.
    pub async fn list_group_members(&self, req: MembersRequest, ctx: CallCtx) -> Result<Members> {
        if req.group_id <= 0 {
            return Err(Error::invalid(
                "group_id",
                format!("group_id must be positive, got {}", req.group_id),
            )
            .with("group_id", req.group_id));
        }
        let account = self.account(&req.account_id, &ctx)?;
        ctx.caller.check_group(req.group_id)?;
        onebot_gateway_telemetry::record_chat(&ChatRef::Group(req.group_id).target());
        self.require_joined(&account, req.group_id, ctx.deadline)
            .await?;
        let limit = clamp_limit(req.limit) as usize;
        let (all, fetched_at, from_cache) = self
            .members_of(&account, req.group_id, req.no_cache, ctx.deadline)
            .await?;
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

    /// `group_id`'s member list: the cached one when the account caches
    /// lists (and `no_cache` is not set), else the peer's, cached; with
    /// when it was read and whether it came from the cache.
    pub async fn members_of(
        &self,
        account: &Account,
        group_id: i64,
        no_cache: Option<bool>,
        deadline: Deadline,
    ) -> Result<(Arc<Vec<GroupMember>>, SystemTime, bool)> {
        let ttl = Duration::from_secs(account.config.member_cache_ttl_secs);
        let caching = !ttl.is_zero();
        let key = (account.id.clone(), group_id);
        let use_cache = caching && no_cache != Some(true);
        match self.member_cache.lookup(&key, use_cache) {
            Ok((members, fetched_at)) => Ok((members, fetched_at, true)),
            Err(generation) => {
                let members = Arc::new(
                    account
                        .peer
                        .get_group_members(group_id, no_cache, deadline)
                        .await?,
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
                Ok((members, fetched_at, false))
            }
        }
    }
}
