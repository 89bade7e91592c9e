//! Mention names: an `at` segment as NapCat sends it carries only the QQ
//! number; GetHistory, GetMessage, GetForwardMessages, SearchMessages and
//! message events fill in the mentioned person's name, so every rendering
//! shows `@名字` (and `AtSegment.name` carries it).
//!
//! Where a name comes from, in order:
//! 1. the name the peer attached to the segment (kept as it is);
//! 2. the senders of the same messages (a page, the message itself, the
//!    messages they quote) in the same chat, when they carry a group card
//!    (or the chat is private: no card there);
//! 3. in a group, the account's cached member list of that group
//!    ([`MemberCache`]);
//! 4. in a group, the group's member list read from the peer: at most one
//!    read per group per call, one at a time per group across calls (a call
//!    that needs a list being read waits for it and reads the cache), within
//!    a per-call time budget ([`BUDGET`], shortened by the caller's
//!    deadline). The list is cached as ListGroupMembers caches it
//!    (`member_cache_ttl_secs`);
//! 5. a sender's nickname: a sender record without a card may only lack
//!    it (some peers leave cards out of history), so the member list is
//!    asked first.
//!
//! A quoted message whose sender record carries no name (Milky's inline
//! quotes name only the QQ number) gets its sender's name the same way, as
//! the sender's nickname, so `[回复 名字: 文本]` shows a name.
//!
//! The name is the member's group card, else nickname, sanitized as
//! [`render::sanitize_name`] does. A mention whose name is not found (not a
//! member, out of time, a peer failure) keeps none and renders as the QQ
//! number: naming never fails a call. `@全体成员` needs no name.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use parking_lot::Mutex;
use tokio::time::Instant;

use super::account::Account;
use super::call::Deadline;
use super::member_cache::{Cached, Key, MemberCache};
use super::model::{ChatRef, GroupMember, Message, Segment};
use super::render;

/// Longest time one call spends reading member lists for names.
pub const BUDGET: Duration = Duration::from_secs(2);

/// The mention namer, over the gateway's member cache.
#[derive(Debug)]
pub struct Mentions {
    members: Arc<MemberCache>,
    /// One member-list read at a time per (account, group).
    reading: Mutex<HashMap<Key, Arc<tokio::sync::Mutex<()>>>>,
    budget: Duration,
}

impl Default for Mentions {
    fn default() -> Self {
        Self::new(Arc::default(), BUDGET)
    }
}

/// Names found, by (chat, QQ number).
type Names = HashMap<(ChatRef, i64), String>;

/// What the messages themselves tell: the mentions still unnamed, the names
/// their senders give for sure (a card, or a private chat's nickname), and
/// nicknames of group senders without a card (used when no member list
/// names them).
#[derive(Debug, Default)]
struct Found {
    wanted: HashSet<(ChatRef, i64)>,
    sure: Names,
    nicknames: Names,
}

/// The QQ number of a mention that still needs a name.
fn unnamed(seg: &Segment) -> Option<i64> {
    match seg {
        Segment::At {
            user_id: Some(id),
            all: false,
            name,
        } if name.as_deref().is_none_or(|n| n.trim().is_empty()) => Some(*id),
        _ => None,
    }
}

/// The sender of a quoted message that needs a name: a QQ number and
/// neither card nor nickname.
fn unnamed_sender(m: &Message) -> Option<i64> {
    (m.sender.user_id != 0 && render::display_name(&m.sender.card, &m.sender.nickname).is_none())
        .then_some(m.sender.user_id)
}

/// Calls `f` with every quoted message of `message` (one level).
fn each_quoted(message: &Message, f: &mut impl FnMut(&Message)) {
    for seg in &message.segments {
        if let Segment::Reply {
            quoted: Some(q), ..
        } = seg
        {
            f(q);
        }
    }
}

/// Calls `f` with every segment of `message` and of the messages it quotes
/// (one level), each with its message's chat.
fn each_segment(message: &Message, f: &mut impl FnMut(ChatRef, &Segment)) {
    for seg in &message.segments {
        if let Segment::Reply {
            quoted: Some(q), ..
        } = seg
        {
            for inner in &q.segments {
                f(q.chat, inner);
            }
        }
        f(message.chat, seg);
    }
}

/// Gives every unnamed mention of `message` (and of what it quotes) the
/// name `names` holds for it.
fn apply(message: &mut Message, names: &Names) {
    let chat = message.chat;
    for seg in &mut message.segments {
        if let Segment::Reply {
            quoted: Some(q), ..
        } = seg
        {
            let inner_chat = q.chat;
            for inner in &mut q.segments {
                name_segment(inner, inner_chat, names);
            }
            if let Some(id) = unnamed_sender(q)
                && let Some(found) = names.get(&(inner_chat, id))
            {
                q.sender.nickname = found.clone();
            }
        }
        name_segment(seg, chat, names);
    }
}

fn name_segment(seg: &mut Segment, chat: ChatRef, names: &Names) {
    if let Some(id) = unnamed(seg)
        && let Some(found) = names.get(&(chat, id))
        && let Segment::At { name, .. } = seg
    {
        *name = Some(found.clone());
    }
}

/// True when some mention of `message` (or of what it quotes) needs a
/// name.
pub fn wants_names(message: &Message) -> bool {
    let mut wants = false;
    each_segment(message, &mut |_, seg| wants |= unnamed(seg).is_some());
    each_quoted(message, &mut |q| wants |= unnamed_sender(q).is_some());
    wants
}

/// What `messages` (and what they quote) tell, the newest sender record
/// last.
fn found_in(messages: &[&mut Message]) -> Found {
    let mut found = Found::default();
    for m in messages {
        each_segment(m, &mut |chat, seg| {
            if let Some(id) = unnamed(seg) {
                found.wanted.insert((chat, id));
            }
        });
        each_quoted(m, &mut |q| {
            if let Some(id) = unnamed_sender(q) {
                found.wanted.insert((q.chat, id));
            }
        });
    }
    if found.wanted.is_empty() {
        return found;
    }
    let Found {
        wanted,
        sure,
        nicknames,
    } = &mut found;
    let mut sender = |m: &Message| {
        let key = (m.chat, m.sender.user_id);
        if !wanted.contains(&key) {
            return;
        }
        let Some(name) = render::display_name(&m.sender.card, &m.sender.nickname) else {
            return;
        };
        let carded = render::display_name(&m.sender.card, "").is_some();
        if carded || matches!(m.chat, ChatRef::Private(_)) {
            sure.insert(key, name);
        } else {
            nicknames.insert(key, name);
        }
    };
    for m in messages {
        for seg in &m.segments {
            if let Segment::Reply {
                quoted: Some(q), ..
            } = seg
            {
                sender(q);
            }
        }
        sender(m);
    }
    found
}

/// Names the mentions of `messages` from their own senders only (a
/// forward bundle: its nodes' chat is not one the caller was checked for).
pub fn name_from_senders(messages: &mut [Message]) {
    let mut refs: Vec<&mut Message> = messages.iter_mut().collect();
    let Found {
        sure: mut names,
        nicknames,
        ..
    } = found_in(&refs);
    for (key, name) in nicknames {
        names.entry(key).or_insert(name);
    }
    if names.is_empty() {
        return;
    }
    for m in &mut refs {
        apply(m, &names);
    }
}

impl Mentions {
    /// A namer over `members`, spending at most `budget` of one call on
    /// reading member lists.
    pub fn new(members: Arc<MemberCache>, budget: Duration) -> Self {
        Self {
            members,
            reading: Mutex::new(HashMap::new()),
            budget,
        }
    }

    /// The member cache it reads and fills.
    pub fn members(&self) -> &Arc<MemberCache> {
        &self.members
    }

    /// Names the mentions of `messages` (see the module docs) for
    /// `account`, reading member lists until the budget or `deadline` runs
    /// out. Never fails: what is not named stays a number.
    pub async fn name<'a>(
        &self,
        account: &Account,
        messages: impl IntoIterator<Item = &'a mut Message>,
        deadline: Deadline,
    ) {
        let mut messages: Vec<&mut Message> = messages.into_iter().collect();
        let Found {
            wanted,
            sure: mut names,
            nicknames,
        } = found_in(&messages);
        if wanted.is_empty() {
            return;
        }
        let mut groups: Vec<i64> = wanted
            .iter()
            .filter(|key| !names.contains_key(key))
            .filter_map(|(chat, _)| match chat {
                ChatRef::Group(g) => Some(*g),
                ChatRef::Private(_) => None,
            })
            .collect();
        groups.sort_unstable();
        groups.dedup();
        if !groups.is_empty() {
            let mut until = Instant::now() + self.budget;
            if let Some(d) = deadline.instant() {
                until = until.min(d);
            }
            for group in groups {
                let Some(list) = self.member_list(account, group, until).await else {
                    continue;
                };
                let chat = ChatRef::Group(group);
                for member in list.iter() {
                    let Some(id) = member.user_id else { continue };
                    let key = (chat, id);
                    if wanted.contains(&key)
                        && !names.contains_key(&key)
                        && let Some(name) = render::display_name(&member.card, &member.nickname)
                    {
                        names.insert(key, name);
                    }
                }
            }
        }
        for (key, name) in nicknames {
            names.entry(key).or_insert(name);
        }
        if names.is_empty() {
            return;
        }
        for m in &mut messages {
            apply(m, &names);
        }
    }

    /// `group`'s member list: the cache's, else the peer's (read once at a
    /// time per group, cached when the account caches lists), until
    /// `until`. `None` when out of time or the peer failed.
    async fn member_list(
        &self,
        account: &Account,
        group: i64,
        until: Instant,
    ) -> Option<Arc<Vec<GroupMember>>> {
        let ttl = Duration::from_secs(account.config.member_cache_ttl_secs);
        let caching = !ttl.is_zero();
        let key: Key = (account.id.clone(), group);
        if caching && let Ok((list, _)) = self.members.lookup(&key, true) {
            return Some(list);
        }
        let gate = self.reading.lock().entry(key.clone()).or_default().clone();
        let read = async {
            let _turn = gate.lock().await;
            // The read before this one may have filled the cache.
            let generation = match self.members.lookup(&key, caching) {
                Ok((list, _)) => return Some(list),
                Err(generation) => generation,
            };
            match account
                .peer
                .get_group_members(group, None, Deadline::at(until))
                .await
            {
                Ok(list) => {
                    let list = Arc::new(list);
                    if caching {
                        self.members.store(
                            key.clone(),
                            generation,
                            Cached {
                                members: list.clone(),
                                fetched_at: SystemTime::now(),
                                expires: Instant::now() + ttl,
                            },
                        );
                    }
                    Some(list)
                }
                Err(e) => {
                    tracing::debug!(account_id = %account.id, group_id = group, error = %e, "a member list for mention names could not be read");
                    None
                }
            }
        };
        let list = tokio::time::timeout_at(until, read).await.ok().flatten();
        // The map holds one handle and this call another: no one else waits.
        let mut reading = self.reading.lock();
        if Arc::strong_count(&gate) == 2 {
            reading.remove(&key);
        }
        list
    }
}
