//! The write use cases: SendMessage, PokeMember, RecallMessage, the small
//! group actions (group_actions.rs: ReactToMessage, SetEssence, SetTyping)
//! and moderation (moderation.rs: MuteMember, MuteAll, KickMember,
//! SetMemberCard); see [`crate::delivery`] for what sends stand on.

pub mod chunk;
pub mod group_actions;
pub mod moderation;
pub mod poke;
pub mod recall;
pub mod send;
pub mod send_checks;
