//! `ListGroups`: the groups an account may use.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use crate::call::CallCtx;
use crate::error::Result;
use crate::gateway::Gateway;
use crate::model::{GroupInfo, RawJson};
use crate::render::{self, GroupLine};

/// One group of the list.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupEntry {
    /// Group number.
    pub group_id: i64,
    /// Group name; empty when the bot is not in the group.
    pub group_name: String,
    /// Current member count; 0 when unknown.
    pub member_count: i64,
    /// Maximum member count; 0 when unknown.
    pub max_member_count: i64,
    /// In the account's whitelist.
    pub whitelisted: bool,
    /// The peer lists the bot in this group.
    pub joined: bool,
    /// The peer's own group object, when it listed the group.
    pub raw: Option<RawJson>,
}

/// The groups of an account.
#[derive(Debug, Clone, PartialEq)]
pub struct Groups {
    /// Whitelisted groups in whitelist order, or (without a whitelist) every
    /// group in the peer's order.
    pub groups: Vec<GroupEntry>,
    /// One `群名(群号) — N 名成员` line per group.
    pub rendered: String,
}

impl GroupEntry {
    fn joined(info: &GroupInfo, whitelisted: bool) -> Self {
        Self {
            group_id: info.group_id,
            group_name: info.group_name.clone(),
            member_count: info.member_count,
            max_member_count: info.max_member_count,
            whitelisted,
            joined: true,
            raw: Some(info.raw.clone()),
        }
    }
}

impl Gateway {
    /// Lists the account's whitelisted groups (names and member counts from
    /// `get_group_list`; whitelisted groups the bot is not in are listed
    /// with `joined` false), or every group when no whitelist is set.
    pub async fn list_groups(&self, account_id: &str, ctx: CallCtx) -> Result<Groups> {
        let account = self.account(account_id, &ctx)?;
        let listed = account.peer.get_groups(ctx.deadline).await?;
        self.joined.saw_list(&account.id, &listed);
        // The peer's groups in its order, the first of any duplicate kept.
        let mut known: Vec<GroupInfo> = Vec::new();
        let mut index: HashMap<i64, usize> = HashMap::new();
        for info in listed {
            if let Entry::Vacant(e) = index.entry(info.group_id) {
                e.insert(known.len());
                known.push(info);
            }
        }
        let whitelist = &account.config.groups;
        let groups: Vec<GroupEntry> = if whitelist.is_empty() {
            known.iter().map(|g| GroupEntry::joined(g, false)).collect()
        } else {
            let mut seen = HashSet::new();
            whitelist
                .iter()
                .filter(|id| seen.insert(**id))
                .map(|id| match index.get(id).and_then(|i| known.get(*i)) {
                    Some(info) => GroupEntry::joined(info, true),
                    None => GroupEntry {
                        group_id: *id,
                        group_name: String::new(),
                        member_count: 0,
                        max_member_count: 0,
                        whitelisted: true,
                        joined: false,
                        raw: None,
                    },
                })
                .collect()
        };
        // A token limited to some groups sees only those.
        let groups: Vec<GroupEntry> = groups
            .into_iter()
            .filter(|g| ctx.caller.allows_group(g.group_id))
            .collect();
        let rendered = render::groups(groups.iter().map(|g| GroupLine {
            group_id: g.group_id,
            name: &g.group_name,
            member_count: g.member_count,
            joined: g.joined,
        }));
        Ok(Groups { groups, rendered })
    }
}
