//! The groups each account's bot is in, from the peer's group list
//! ([`PeerApi::get_groups`], the list ListGroups reads), so a request that
//! names a group the bot is not in fails with `GroupNotFound` before it
//! reaches the peer.
//!
//! Rules:
//! - A group in the held list is joined. A group not in it, or any group
//!   while no list is held, makes the list read again, so a group joined a
//!   minute ago works.
//! - Reads are rate-limited per account: at most one every
//!   [`REREAD_INTERVAL`]; within it a miss is answered from the held list.
//!   Concurrent misses wait for the one read in flight and share its
//!   answer.
//! - A check waits for a read at most half the caller's time left, and at
//!   most [`READ_BUDGET`], so the request itself keeps time for its own
//!   call to the peer.
//! - A peer that cannot be asked (offline), or whose read fails or is out
//!   of time, answers from the held list; with no list held the answer is
//!   unknown, and the caller goes on as if the check did not exist
//!   (nothing is invented).
//! - Events keep the list current: the bot joining a group adds it, the
//!   bot leaving or being removed drops it, and a (re)connection marks the
//!   list stale (the next check reads again, rate-limited, even for a group
//!   the list holds, since events may have been missed meanwhile).
//! - Bounded: one list per configured account, each at most
//!   [`MAX_GROUPS`] groups; a longer list is not held (the answer stays
//!   unknown).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::time::Instant;

use super::call::Deadline;
use super::model::{ConnState, GroupInfo, InboundEvent};
use super::ports::PeerApi;
use crate::error::{Error, Kind, Result};

/// Shortest time between two reads of one account's group list.
pub const REREAD_INTERVAL: Duration = Duration::from_secs(5);
/// Longest a check waits for a group-list read (its own or one in flight).
pub const READ_BUDGET: Duration = Duration::from_secs(5);
/// Most groups held per account.
pub const MAX_GROUPS: usize = 100_000;

/// What the gateway knows about the bot and one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Membership {
    /// The peer lists the group.
    Joined,
    /// The peer's list does not have the group.
    NotJoined,
    /// No list to decide from (the peer could not be asked).
    Unknown,
}

#[derive(Debug, Default)]
struct Held {
    /// The last list read (adjusted by events since).
    groups: Option<HashSet<i64>>,
    /// When the last read began.
    read_at: Option<Instant>,
    /// Reads finished so far; a waiter that sees it change shares that read.
    reads: u64,
    /// A (re)connection since the last read: the next check reads again.
    stale: bool,
}

impl Held {
    fn decide(&self, group_id: i64) -> Membership {
        match &self.groups {
            Some(g) if g.contains(&group_id) => Membership::Joined,
            Some(_) => Membership::NotJoined,
            None => Membership::Unknown,
        }
    }

    fn may_read(&self, now: Instant) -> bool {
        self.read_at
            .is_none_or(|at| now.saturating_duration_since(at) >= REREAD_INTERVAL)
    }
}

#[derive(Debug, Default)]
struct Slot {
    held: Mutex<Held>,
    /// Held while a read is in flight.
    reading: tokio::sync::Mutex<()>,
}

impl Slot {}

/// The joined groups of every account.
#[derive(Debug, Default)]
pub struct JoinedGroups {
    slots: Mutex<HashMap<String, Arc<Slot>>>,
}

/// The `GroupNotFound` error of `group_id`.
pub fn group_not_found(group_id: i64) -> Error {
    Error::new(
        Kind::GroupNotFound,
        format!(
            "the bot is not a member of group {group_id} (the peer's group list does not have it): check the group number, or ListGroups"
        ),
    )
    .with("group_id", group_id)
}

impl JoinedGroups {
    fn slot(&self, account_id: &str) -> Arc<Slot> {
        let mut slots = self.slots.lock();
        slots.entry(account_id.to_owned()).or_default().clone()
    }

    fn existing(&self, account_id: &str) -> Option<Arc<Slot>> {
        let slots = self.slots.lock();
        slots.get(account_id).cloned()
    }

    /// Fails with `GroupNotFound` when the bot is not in `group_id` (see
    /// the module docs for when the peer is asked); an unknown answer
    /// passes.
    pub async fn require(
        &self,
        account_id: &str,
        peer: &dyn PeerApi,
        group_id: i64,
        deadline: Deadline,
    ) -> Result<()> {
        match self.check(account_id, peer, group_id, deadline).await {
            Membership::NotJoined => Err(group_not_found(group_id)),
            Membership::Joined | Membership::Unknown => Ok(()),
        }
    }

    /// Whether the bot is in `group_id` (see the module docs).
    pub async fn check(
        &self,
        account_id: &str,
        peer: &dyn PeerApi,
        group_id: i64,
        deadline: Deadline,
    ) -> Membership {
        let slot = self.slot(account_id);
        let seen = {
            let held = slot.held.lock();
            if !held.stale && held.decide(group_id) == Membership::Joined {
                return Membership::Joined;
            }
            held.reads
        };
        if !peer.status().online {
            return slot.held.lock().decide(group_id);
        }
        let budget = deadline
            .remaining()
            .map_or(READ_BUDGET, |left| (left / 2).min(READ_BUDGET));
        let until = Instant::now() + budget;
        let Ok(reading) = tokio::time::timeout_at(until, slot.reading.lock()).await else {
            return slot.held.lock().decide(group_id);
        };
        {
            let mut held = slot.held.lock();
            // A read finished while this one waited: its answer is shared.
            if held.reads != seen || !held.may_read(Instant::now()) {
                return held.decide(group_id);
            }
            held.read_at = Some(Instant::now());
            held.stale = false;
        }
        let listed =
            match tokio::time::timeout_at(until, peer.get_groups(Deadline::at(until))).await {
                Ok(listed) => listed,
                Err(_) => Err(Error::new(
                    Kind::DeadlineExceeded,
                    "no group list within the check's time",
                )),
            };
        let mut held = slot.held.lock();
        held.reads += 1;
        match listed {
            Ok(list) => store(&mut held, &list),
            Err(e) => {
                tracing::debug!(account_id, error = %e, "reading the group list failed; the groups held answer");
            }
        }
        drop(reading);
        held.decide(group_id)
    }

    /// Takes a group list read elsewhere (ListGroups) as the account's.
    pub fn saw_list(&self, account_id: &str, list: &[GroupInfo]) {
        let slot = self.slot(account_id);
        let mut held = slot.held.lock();
        store(&mut held, list);
        held.stale = false;
    }

    /// Applies an inbound event of `account_id` (see the module docs);
    /// `self_id` is the bot's QQ number (0 when unknown).
    pub fn observe(&self, account_id: &str, self_id: i64, event: &InboundEvent) {
        let bot = |user_id: i64| self_id != 0 && user_id == self_id;
        match event {
            InboundEvent::MemberJoined {
                group_id, user_id, ..
            } if bot(*user_id) => {
                if let Some(slot) = self.existing(account_id)
                    && let Some(groups) = &mut slot.held.lock().groups
                    && groups.len() < MAX_GROUPS
                {
                    groups.insert(*group_id);
                }
            }
            InboundEvent::MemberLeft {
                group_id,
                user_id,
                sub_type,
                ..
            } if bot(*user_id) || sub_type == "kick_me" => {
                if let Some(slot) = self.existing(account_id)
                    && let Some(groups) = &mut slot.held.lock().groups
                {
                    groups.remove(group_id);
                }
            }
            InboundEvent::Connection {
                state: ConnState::Connected,
                ..
            } => {
                if let Some(slot) = self.existing(account_id) {
                    let mut held = slot.held.lock();
                    held.stale = true;
                    held.read_at = None;
                }
            }
            _ => {}
        }
    }
}

fn store(held: &mut Held, list: &[GroupInfo]) {
    held.groups = if list.len() > MAX_GROUPS {
        None
    } else {
        Some(list.iter().map(|g| g.group_id).collect())
    };
}
