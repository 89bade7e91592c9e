//! The workload every measurement shares: the calls the benchmark makes
//! (GetHistory of the benchmark group, ListGroupMembers of the 120-member
//! group), the OneBot actions and Milky API calls the gateway's adapters
//! send for them, and the concurrencies and page sizes they run at.
//!
//! A leaf: it imports nothing from the rest of bench but the benchmark
//! group's id.

use onebot_gateway_client::pb;
use onebot_gateway_domain::model::ChatRef;
use onebot_gateway_milky::ids::Scene;
use onebot_gateway_milky::requests as milky;
use onebot_gateway_onebot::history::profile::HistoryProfile;
use onebot_gateway_onebot::{Flavor, history};
use serde_json::json;

use crate::procs::BENCH_GROUP;

/// Messages asked for in GetHistory (and its direct counterpart).
pub const HISTORY_COUNT: u32 = 20;
/// The group whose members are listed (120 members, 100 shown).
pub const MEMBERS_GROUP: i64 = onebot_sandbox::EXAMPLE_GROUP;
/// The concurrencies measured.
pub const CONCURRENCIES: [usize; 2] = [1, 64];
/// Page sizes of the page-size scaling measurement.
pub const PAGE_SIZES: [u32; 3] = [1, 20, 100];

/// GetHistory of the benchmark group, 20 messages, no anchor.
pub fn history_request() -> pb::GetHistoryRequest {
    pb::GetHistoryRequest {
        account_id: String::new(),
        chat: Some(pb::Chat {
            kind: Some(pb::chat::Kind::GroupId(BENCH_GROUP)),
        }),
        count: HISTORY_COUNT as i32,
        anchor_message_id: None,
        until: None,
    }
}

/// ListGroupMembers of the 120-member group, bypassing the cache.
pub fn members_request() -> pb::ListGroupMembersRequest {
    pb::ListGroupMembersRequest {
        account_id: String::new(),
        group_id: MEMBERS_GROUP,
        no_cache: Some(true),
        limit: 0,
    }
}

/// The action the gateway's adapter sends for [`members_request`]: the
/// 120-member group's list, bypassing the peer's cache.
pub fn direct_members() -> (&'static str, serde_json::Value) {
    (
        "get_group_member_list",
        json!({ "group_id": MEMBERS_GROUP, "no_cache": true }),
    )
}

/// The action the gateway's adapter sends for [`history_request`] to a
/// NapCat peer (built by the adapter's own function).
pub fn direct_history() -> (&'static str, serde_json::Value) {
    direct_history_of(HISTORY_COUNT)
}

/// The action the gateway's adapter sends for a newest page of `count`
/// messages of the benchmark group to a NapCat peer.
pub fn direct_history_of(count: u32) -> (&'static str, serde_json::Value) {
    history::request(
        &HistoryProfile::assumed(Flavor::NapCat),
        ChatRef::Group(BENCH_GROUP),
        count,
        None,
    )
}

/// The `count`s of the Milky rows' GetHistory: one `get_history_messages`
/// call, and a count the adapter pages through (30 + 30 + 30 + 10).
pub const MILKY_HISTORY_COUNTS: [u32; 2] = [HISTORY_COUNT, 100];

/// Most messages the Milky adapter asks one `get_history_messages` for.
pub const MILKY_HISTORY_LIMIT: u32 = milky::HISTORY_LIMIT;

/// GetHistory of the benchmark group, `count` messages, no anchor.
pub fn history_request_of(count: u32) -> pb::GetHistoryRequest {
    pb::GetHistoryRequest {
        count: count as i32,
        ..history_request()
    }
}

/// The Milky API call the adapter makes for one page of the benchmark
/// group's history: `limit` messages from `start` back, or the newest
/// (built by the adapter's own `requests::history`).
pub fn milky_history(start: Option<i64>, limit: u32) -> (&'static str, serde_json::Value) {
    (
        "get_history_messages",
        milky::history(Scene::Group, BENCH_GROUP, start, limit),
    )
}

/// The Milky API call the adapter makes for [`members_request`] (built by
/// the adapter's own `requests::member_list`).
pub fn milky_members() -> (&'static str, serde_json::Value) {
    (
        "get_group_member_list",
        milky::member_list(MEMBERS_GROUP, Some(true)),
    )
}
