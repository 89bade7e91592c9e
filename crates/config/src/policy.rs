//! `[policy]`: on whose behalf agents may act, which actions wait for the
//! bot owners' approval, and for how long.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::archive::parse_chat;
use super::check::{ConfigError, Key};

/// The action names rules may name. A SendMessage is `send` (a group) or
/// `send_private`, plus `send_media` (images or videos), `send_file` and
/// `mention_all` when it carries them, and `send_voice` with a voice.
/// Moderation (`mute`, `mute_all`, `kick`, `set_card`) is refused unless a
/// rule names it; every other action is allowed when no rule names it.
pub const POLICY_ACTIONS: &[&str] = &[
    "send",
    "send_private",
    "send_media",
    "send_file",
    "mention_all",
    "recall",
    "poke",
    "react",
    "essence",
    "typing",
    "send_voice",
    "mute",
    "mute_all",
    "kick",
    "set_card",
];

/// The requester roles rules may name: `bot_owner` (in `owners`), the
/// group roles `owner`, `admin` and `member`, `stranger` (not a member of
/// the chat) and `none` (the call names nobody).
pub const POLICY_ROLES: &[&str] = &["bot_owner", "owner", "admin", "member", "stranger", "none"];

/// Who must say yes before a matched action runs.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    /// Nobody: the action runs when the rule lets the requester ask for it.
    #[default]
    None,
    /// One of `policy.owners`, answering the bot's private message in QQ.
    BotOwner,
}

/// One rule: the first rule whose `actions` and `chats` match an action
/// decides it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyRule {
    /// The actions it governs (see [`POLICY_ACTIONS`]); at least one.
    pub actions: Vec<String>,
    /// Only these chats (`group:<id>`, `private:<id>`); empty: every chat.
    pub chats: Vec<String>,
    /// The roles that may ask for the actions (see [`POLICY_ROLES`]);
    /// absent: every role.
    pub allow_requesters: Option<Vec<String>>,
    /// Who approves an allowed request before it runs.
    pub approval: Approval,
}

/// The policy of agent actions.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// The bot's owners (QQ numbers): they approve, and count as the role
    /// `bot_owner`.
    pub owners: Vec<i64>,
    /// A pending approval not decided within this many seconds expires.
    pub approval_timeout_secs: u64,
    /// The rules, in order.
    pub rules: Vec<PolicyRule>,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        Self {
            owners: Vec::new(),
            approval_timeout_secs: 600,
            rules: Vec::new(),
        }
    }
}

impl PolicyConfig {
    /// Checks `[policy]`: positive owners, a timeout of 10 s to 7 days,
    /// and each rule's actions, chats and roles known; a rule that needs
    /// the owners' approval needs an owner.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        let key = Key::new("policy");
        for (i, owner) in self.owners.iter().enumerate() {
            key.field("owners")
                .index(i)
                .ensure(*owner > 0, format!("{owner} is not a QQ number"))?;
        }
        key.field("approval_timeout_secs")
            .in_range(self.approval_timeout_secs, 10..=7 * 24 * 3600)?;
        for (i, rule) in self.rules.iter().enumerate() {
            let rule_key = key.field("rules").index(i);
            rule.validate(&rule_key, !self.owners.is_empty())?;
        }
        Ok(())
    }
}

impl PolicyRule {
    fn validate(&self, key: &Key, has_owners: bool) -> Result<(), ConfigError> {
        key.field("actions")
            .ensure(!self.actions.is_empty(), "name at least one action")?;
        let mut seen = BTreeSet::new();
        for (i, action) in self.actions.iter().enumerate() {
            let k = key.field("actions").index(i);
            k.ensure(
                POLICY_ACTIONS.contains(&action.as_str()),
                format!(
                    "unknown action {action:?}; the actions are {}",
                    POLICY_ACTIONS.join(", ")
                ),
            )?;
            k.ensure(seen.insert(action), format!("{action:?} is named twice"))?;
        }
        for (i, chat) in self.chats.iter().enumerate() {
            key.field("chats").index(i).ensure(
                parse_chat(chat).is_some(),
                format!("{chat:?} is not group:<id> or private:<id> with a positive id"),
            )?;
        }
        if let Some(roles) = &self.allow_requesters {
            for (i, role) in roles.iter().enumerate() {
                key.field("allow_requesters").index(i).ensure(
                    POLICY_ROLES.contains(&role.as_str()),
                    format!(
                        "unknown role {role:?}; the roles are {}",
                        POLICY_ROLES.join(", ")
                    ),
                )?;
            }
        }
        key.field("approval").ensure(
            self.approval == Approval::None || has_owners,
            "approval = \"bot_owner\" needs at least one QQ number in policy.owners",
        )
    }
}
