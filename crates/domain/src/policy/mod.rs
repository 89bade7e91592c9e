//! Governed actions: on whose behalf an agent acts ([`OnBehalfOf`]), the
//! requester's [`Role`] in the chat, and the `[policy]` rules that allow,
//! refuse or hold an [`Action`] for a bot owner's approval.
//!
//! Rules: the first rule whose actions and chats match an action decides
//! it; an action no rule names is allowed, except moderation (`mute`,
//! `mute_all`, `kick`, `set_card`), which is refused unless a rule names
//! it. A request that is several
//! actions at once passes only when each of them passes: a refusal of any
//! refuses the request, else an approval asked by any holds it.

pub mod approvals;
pub mod audit;
pub mod check;
pub mod held;
pub mod store;

use onebot_gateway_config::{Approval, PolicyConfig, parse_chat};

use crate::error::{Error, Kind};
use crate::model::ChatRef;

/// Who a call acts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnBehalfOf {
    /// The sender of this message (looked up, so a role cannot be claimed
    /// without a message to show for it).
    Message(i64),
    /// This QQ user.
    User(i64),
}

/// The requester's standing in the chat an action is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Listed in `policy.owners`.
    BotOwner,
    /// The group's owner.
    Owner,
    /// A group admin.
    Admin,
    /// A member of the group (in a private chat: that chat's user).
    Member,
    /// Not a member of the chat.
    Stranger,
    /// The call names nobody.
    None,
}

impl Role {
    /// The configuration name (`bot_owner`, `owner`, …).
    pub fn name(self) -> &'static str {
        match self {
            Role::BotOwner => "bot_owner",
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Member => "member",
            Role::Stranger => "stranger",
            Role::None => "none",
        }
    }

    /// The role a member list reports (`owner`, `admin`, else `member`).
    pub fn of_member(reported: &str) -> Role {
        match reported {
            "owner" => Role::Owner,
            "admin" => Role::Admin,
            _ => Role::Member,
        }
    }
}

/// One governed action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// A message to a group.
    Send,
    /// A message to a private chat.
    SendPrivate,
    /// A message with images or videos.
    SendMedia,
    /// A message with a group file.
    SendFile,
    /// A message that mentions everyone.
    MentionAll,
    /// A recall.
    Recall,
    /// A poke.
    Poke,
    /// An emoji reaction added or removed.
    React,
    /// A message marked or unmarked as essence.
    Essence,
    /// "正在输入" shown in a private chat.
    Typing,
    /// A message with a voice record.
    SendVoice,
    /// A member muted or unmuted.
    Mute,
    /// The whole-group mute turned on or off.
    MuteAll,
    /// A member removed from the group.
    Kick,
    /// A member's card set.
    SetCard,
}

impl Action {
    /// The configuration name.
    pub fn name(self) -> &'static str {
        match self {
            Action::Send => "send",
            Action::SendPrivate => "send_private",
            Action::SendMedia => "send_media",
            Action::SendFile => "send_file",
            Action::MentionAll => "mention_all",
            Action::Recall => "recall",
            Action::Poke => "poke",
            Action::React => "react",
            Action::Essence => "essence",
            Action::Typing => "typing",
            Action::SendVoice => "send_voice",
            Action::Mute => "mute",
            Action::MuteAll => "mute_all",
            Action::Kick => "kick",
            Action::SetCard => "set_card",
        }
    }

    /// Moderation: refused unless a rule names it.
    pub fn is_moderation(self) -> bool {
        matches!(
            self,
            Action::Mute | Action::MuteAll | Action::Kick | Action::SetCard
        )
    }

    /// The action a configuration name stands for.
    pub fn parse(name: &str) -> Option<Action> {
        [
            Action::Send,
            Action::SendPrivate,
            Action::SendMedia,
            Action::SendFile,
            Action::MentionAll,
            Action::Recall,
            Action::Poke,
            Action::React,
            Action::Essence,
            Action::Typing,
            Action::SendVoice,
            Action::Mute,
            Action::MuteAll,
            Action::Kick,
            Action::SetCard,
        ]
        .into_iter()
        .find(|a| a.name() == name)
    }
}

/// What the policy says of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// It may run now; `rule` is the first rule that matched, if any.
    Allowed {
        /// The index of the matching rule.
        rule: Option<usize>,
    },
    /// A rule refuses it.
    Denied {
        /// The rule's index in `policy.rules`.
        rule: usize,
        /// The refused action.
        action: Action,
        /// The requester's role.
        role: Role,
        /// The roles the rule lets ask.
        allowed: Vec<String>,
    },
    /// A moderation action no rule names.
    Unnamed {
        /// The refused action.
        action: Action,
    },
    /// A rule holds it for a bot owner's approval.
    NeedsApproval {
        /// The rule's index.
        rule: usize,
        /// The held action.
        action: Action,
    },
}

impl Decision {
    /// The index of the rule that decided, if any.
    pub fn rule(&self) -> Option<usize> {
        match self {
            Decision::Allowed { rule } => *rule,
            Decision::Unnamed { .. } => None,
            Decision::Denied { rule, .. } | Decision::NeedsApproval { rule, .. } => Some(*rule),
        }
    }

    /// The refusal of moderation no rule names (it does not depend on the
    /// requester); `None` for other decisions.
    pub fn unnamed(&self) -> Option<Error> {
        match self {
            Decision::Unnamed { .. } => self.denial(),
            _ => None,
        }
    }

    /// The `PolicyDenied` error of a refusal (`None` for other decisions).
    pub fn denial(&self) -> Option<Error> {
        if let Decision::Unnamed { action } = self {
            let name = action.name();
            return Some(
                Error::new(
                    Kind::PolicyDenied,
                    format!(
                        "{name} is moderation, refused unless a [[policy.rules]] entry names it; a rule with actions = [\"{name}\"] (and allow_requesters) would allow it. Nothing was done"
                    ),
                )
                .with("action", name)
                .with("rule", "none"),
            );
        }
        let Decision::Denied {
            rule,
            action,
            role,
            allowed,
        } = self
        else {
            return None;
        };
        let allowed = allowed.join(",");
        Some(
            Error::new(
                Kind::PolicyDenied,
                format!(
                    "policy.rules[{rule}] does not let a requester with role {} do {}; roles allowed: {allowed}. Nothing was done",
                    role.name(),
                    action.name()
                ),
            )
            .with("rule", rule)
            .with("action", action.name())
            .with("role", role.name())
            .with("allowed_roles", allowed),
        )
    }
}

/// One rule, parsed.
#[derive(Debug, Clone)]
struct Rule {
    actions: Vec<Action>,
    chats: Vec<ChatRef>,
    allow: Option<Vec<String>>,
    approval: bool,
}

/// The `[policy]` rules and owners.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    owners: Vec<i64>,
    rules: Vec<Rule>,
}

impl Policy {
    /// The policy of a validated `[policy]` section.
    pub fn new(config: &PolicyConfig) -> Policy {
        let rules = config
            .rules
            .iter()
            .map(|r| Rule {
                actions: r.actions.iter().filter_map(|a| Action::parse(a)).collect(),
                chats: r
                    .chats
                    .iter()
                    .filter_map(|c| parse_chat(c))
                    .map(|(kind, id)| match kind {
                        "group" => ChatRef::Group(id),
                        _ => ChatRef::Private(id),
                    })
                    .collect(),
                allow: r.allow_requesters.clone(),
                approval: r.approval == Approval::BotOwner,
            })
            .collect();
        Policy {
            owners: config.owners.clone(),
            rules,
        }
    }

    /// The bot's owners.
    pub fn owners(&self) -> &[i64] {
        &self.owners
    }

    /// Whether `user_id` is one of the bot's owners.
    pub fn is_owner(&self, user_id: i64) -> bool {
        self.owners.contains(&user_id)
    }

    fn rule_for(&self, action: Action, chat: ChatRef) -> Option<(usize, &Rule)> {
        self.rules.iter().enumerate().find(|(_, r)| {
            r.actions.contains(&action) && (r.chats.is_empty() || r.chats.contains(&chat))
        })
    }

    /// Decides `actions` in `chat` for a requester of `role` (see the module
    /// docs).
    pub fn decide(&self, actions: &[Action], chat: ChatRef, role: Role) -> Decision {
        let mut held = None;
        let mut first = None;
        for action in actions {
            let Some((i, rule)) = self.rule_for(*action, chat) else {
                if action.is_moderation() {
                    return Decision::Unnamed { action: *action };
                }
                continue;
            };
            first.get_or_insert(i);
            if let Some(allow) = &rule.allow
                && !allow.iter().any(|r| r == role.name())
            {
                return Decision::Denied {
                    rule: i,
                    action: *action,
                    role,
                    allowed: allow.clone(),
                };
            }
            if rule.approval && held.is_none() {
                held = Some(Decision::NeedsApproval {
                    rule: i,
                    action: *action,
                });
            }
        }
        held.unwrap_or(Decision::Allowed { rule: first })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onebot_gateway_config::PolicyRule;

    fn policy(rules: Vec<PolicyRule>) -> Policy {
        Policy::new(&PolicyConfig {
            owners: vec![10001],
            approval_timeout_secs: 600,
            rules,
        })
    }

    fn rule(
        actions: &[&str],
        chats: &[&str],
        allow: Option<&[&str]>,
        approval: bool,
    ) -> PolicyRule {
        PolicyRule {
            actions: actions.iter().map(|s| s.to_string()).collect(),
            chats: chats.iter().map(|s| s.to_string()).collect(),
            allow_requesters: allow.map(|a| a.iter().map(|s| s.to_string()).collect()),
            approval: if approval {
                Approval::BotOwner
            } else {
                Approval::None
            },
        }
    }

    const G: ChatRef = ChatRef::Group(123);

    #[test]
    fn an_action_no_rule_names_is_allowed() {
        let p = policy(vec![rule(&["mention_all"], &[], Some(&["admin"]), false)]);
        assert_eq!(
            p.decide(&[Action::Send], G, Role::None),
            Decision::Allowed { rule: None }
        );
    }

    #[test]
    fn moderation_no_rule_names_is_refused_and_a_rule_allows_it() {
        let p = policy(vec![]);
        let d = p.decide(&[Action::Mute], G, Role::BotOwner);
        assert_eq!(
            d,
            Decision::Unnamed {
                action: Action::Mute
            }
        );
        let e = d.denial().unwrap();
        assert_eq!(e.kind, Kind::PolicyDenied);
        assert_eq!(e.meta("action"), Some("mute"));
        assert!(e.message.contains("actions = [\"mute\"]"), "{}", e.message);
        let p = policy(vec![rule(&["mute", "kick"], &[], Some(&["admin"]), false)]);
        assert_eq!(
            p.decide(&[Action::Kick], G, Role::Admin),
            Decision::Allowed { rule: Some(0) }
        );
        assert!(matches!(
            p.decide(&[Action::SetCard], G, Role::Admin),
            Decision::Unnamed { .. }
        ));
        assert_eq!(
            p.decide(&[Action::React], G, Role::None),
            Decision::Allowed { rule: None }
        );
    }

    #[test]
    fn the_first_matching_rule_decides_and_chats_narrow_it() {
        let p = policy(vec![
            rule(
                &["mention_all"],
                &["group:999"],
                Some(&["bot_owner"]),
                false,
            ),
            rule(&["mention_all"], &[], Some(&["admin", "owner"]), false),
        ]);
        let d = p.decide(&[Action::Send, Action::MentionAll], G, Role::Member);
        assert!(
            matches!(
                d,
                Decision::Denied {
                    rule: 1,
                    action: Action::MentionAll,
                    role: Role::Member,
                    ..
                }
            ),
            "{d:?}"
        );
        let e = d.denial().unwrap();
        assert_eq!(e.meta("rule"), Some("1"));
        assert_eq!(e.meta("allowed_roles"), Some("admin,owner"));
        assert_eq!(
            p.decide(&[Action::MentionAll], G, Role::Admin),
            Decision::Allowed { rule: Some(1) }
        );
        let other = ChatRef::Group(999);
        assert!(matches!(
            p.decide(&[Action::MentionAll], other, Role::Admin),
            Decision::Denied { rule: 0, .. }
        ));
    }

    #[test]
    fn a_refusal_wins_over_an_approval_and_every_action_must_pass() {
        let p = policy(vec![
            rule(&["send_file"], &[], None, true),
            rule(&["mention_all"], &[], Some(&["admin"]), false),
        ]);
        assert_eq!(
            p.decide(&[Action::Send, Action::SendFile], G, Role::None),
            Decision::NeedsApproval {
                rule: 0,
                action: Action::SendFile
            }
        );
        assert!(matches!(
            p.decide(&[Action::SendFile, Action::MentionAll], G, Role::Member),
            Decision::Denied { rule: 1, .. }
        ));
    }
}
