//! Group members and groups, as the peer lists them.

use compact_str::CompactString;

use super::raw::RawJson;

/// A group member. Its texts are [`CompactString`]s: names, roles and
/// levels are short, so they sit inside the member and a list of hundreds
/// is decoded, cached, copied out of the cache and dropped without one
/// allocation per text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupMember {
    /// QQ number; `None` when the peer sent none (rendered as `?`).
    pub user_id: Option<i64>,
    /// QQ nickname (may be empty).
    pub nickname: CompactString,
    /// Group card (may be empty).
    pub card: CompactString,
    /// Role as reported; `member` when the peer omits it.
    pub role: CompactString,
    /// Special title (may be empty).
    pub title: CompactString,
    /// Level as reported (numbers are kept as text).
    pub level: CompactString,
    /// Join time, Unix seconds, when reported (non-zero).
    pub join_time: Option<i64>,
    /// Last message time, Unix seconds, when reported (non-zero).
    pub last_sent_time: Option<i64>,
    /// The peer's own member object, verbatim (cached lists hand out copies
    /// of their members on every call: the text is shared, not copied).
    pub raw: RawJson,
}

/// A group the bot is in.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupInfo {
    /// Group number.
    pub group_id: i64,
    /// Group name (may be empty).
    pub group_name: String,
    /// Current member count, 0 when unknown.
    pub member_count: i64,
    /// Maximum member count, 0 when unknown.
    pub max_member_count: i64,
    /// The peer's own group object, verbatim.
    pub raw: RawJson,
}

impl GroupMember {
    /// About how many bytes of memory the member holds: its strings, its
    /// share of the peer's raw text and a fixed overhead.
    pub fn approx_bytes(&self) -> usize {
        const OVERHEAD: usize = 160;
        OVERHEAD
            + [
                &self.nickname,
                &self.card,
                &self.role,
                &self.title,
                &self.level,
            ]
            .iter()
            .map(|s| s.len())
            .sum::<usize>()
            + self.raw.approx_bytes()
    }
}
