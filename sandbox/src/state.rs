//! The fake QQ account: groups, members, friends and per-chat message history.
//!
//! [`World`] is plain data behind one mutex in [`Shared`](crate::shared::Shared); handlers lock
//! it briefly and never across an `.await`.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::behaviour::IdForm;
use crate::cq;
use crate::files::Files;
use crate::flavor::Flavor;
use crate::ids;
use crate::media::MediaKind;

/// A conversation: a group or a private chat with one user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChatRef {
    /// Group chat, by group number.
    Group(i64),
    /// Private chat, by the peer's QQ number.
    Private(i64),
}

/// Member role in a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// 群主.
    Owner,
    /// 管理员.
    Admin,
    /// Ordinary member.
    Member,
}

impl Role {
    /// The OneBot spelling (`owner`, `admin`, `member`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Member => "member",
        }
    }
}

/// A group member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Member {
    pub user_id: i64,
    pub nickname: String,
    pub card: String,
    pub role: Role,
    pub join_time: i64,
    pub last_sent_time: i64,
    pub level: u32,
    pub title: String,
    pub sex: &'static str,
    pub age: u32,
    /// Unix seconds the member's mute ends (0: not muted).
    pub shut_up_until: i64,
}

/// A group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Group {
    pub group_id: i64,
    pub name: String,
    pub max_member_count: i64,
    /// In peer order (the order `get_group_member_list` returns).
    pub members: Vec<Member>,
}

impl Group {
    pub(crate) fn member(&self, user_id: i64) -> Option<&Member> {
        self.members.iter().find(|m| m.user_id == user_id)
    }
}

/// A friend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Friend {
    pub user_id: i64,
    pub nickname: String,
    pub remark: String,
}

/// The sender record stored with a message (a snapshot, like the real peers keep).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sender {
    pub user_id: i64,
    pub nickname: String,
    pub card: String,
    pub role: Role,
}

/// A stored message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stored {
    /// Real per-chat sequence, from 1.
    pub seq: i64,
    /// Flavor-shaped public id.
    pub message_id: i64,
    /// Unix seconds.
    pub time: i64,
    pub sender: Sender,
    pub segments: Vec<Value>,
    pub raw_message: String,
    /// Sent by the bot itself.
    pub self_sent: bool,
    /// Recalled (撤回): gone from history and `get_msg`, kept so its id
    /// stays taken.
    pub recalled: bool,
}

/// One message of a merged-forward bundle.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ForwardNode {
    /// Who said it (QQ number).
    pub user_id: i64,
    /// Their name as the bundle shows it.
    pub nickname: String,
    /// Unix seconds.
    pub time: i64,
    /// The node's segments (a nested bundle is a `forward` segment).
    pub segments: Vec<Value>,
}

/// History of one chat. `messages[i].seq == i + 1`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Chat {
    pub messages: Vec<Stored>,
    /// SnowLuma: the chat had live traffic during this process's life; until then an
    /// unanchored history request for it answers `[]`.
    pub observed: bool,
}

impl Chat {
    pub(crate) fn last_seq(&self) -> i64 {
        self.messages.len() as i64
    }
}

/// A message about to be stored.
#[derive(Debug, Clone)]
pub(crate) struct NewMessage {
    pub time: i64,
    pub sender: Sender,
    pub segments: Vec<Value>,
    pub self_sent: bool,
}

/// One user's reaction to a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reaction {
    pub user_id: i64,
    /// A QQ face id (digits) or an emoji's code point as text.
    pub emoji: String,
}

/// A group's essence (精华) message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Essence {
    pub group_id: i64,
    pub message_id: i64,
    pub operator_id: i64,
    /// Unix seconds it was marked.
    pub time: i64,
}

/// A file of a group's file system (群文件).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GroupFile {
    pub group_id: i64,
    pub file_id: String,
    pub name: String,
    pub size: u64,
    /// `/` for the root, else the folder's id.
    pub folder_id: String,
    pub upload_time: i64,
    pub uploader: i64,
    pub uploader_name: String,
    pub downloads: i64,
    /// The name its bytes are stored under in [`Files`].
    pub key: String,
}

/// A folder of a group's file system (one level under the root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GroupFolder {
    pub group_id: i64,
    pub folder_id: String,
    pub name: String,
    pub create_time: i64,
    pub creator: i64,
    pub creator_name: String,
}

/// Everything the fake account knows.
#[derive(Debug, Clone)]
pub(crate) struct World {
    pub flavor: Flavor,
    /// Whose message ids and seq fields messages get ([`Behaviour::ids`](crate::Behaviour)).
    pub ids_flavor: Flavor,
    /// Whose history paging the history actions follow.
    pub history_flavor: Flavor,
    /// How ids are written on the wire.
    pub id_form: IdForm,
    pub self_id: i64,
    pub nickname: String,
    pub groups: Vec<Group>,
    pub friends: Vec<Friend>,
    chats: HashMap<ChatRef, Chat>,
    ids: HashMap<i64, (ChatRef, usize)>,
    /// Media files and the media host's download key.
    pub files: Files,
    /// Merged-forward bundles by id.
    pub forwards: HashMap<String, Vec<ForwardNode>>,
    /// Reactions by message id, in the order they were added.
    pub reactions: HashMap<i64, Vec<Reaction>>,
    /// Essence messages of every group, in the order they were marked.
    pub essence: Vec<Essence>,
    /// Group files, in upload order.
    pub group_files: Vec<GroupFile>,
    /// Group folders, in creation order.
    pub group_folders: Vec<GroupFolder>,
    /// Groups under a whole-group mute (全员禁言).
    pub whole_muted: HashSet<i64>,
}

impl World {
    pub(crate) fn new(flavor: Flavor, self_id: i64, nickname: String) -> World {
        World {
            flavor,
            ids_flavor: flavor,
            history_flavor: flavor,
            id_form: IdForm::Number,
            self_id,
            nickname,
            groups: Vec::new(),
            friends: Vec::new(),
            chats: HashMap::new(),
            ids: HashMap::new(),
            files: Files::new(std::time::Duration::from_secs(2 * 3600)),
            forwards: HashMap::new(),
            reactions: HashMap::new(),
            essence: Vec::new(),
            group_files: Vec::new(),
            group_folders: Vec::new(),
            whole_muted: HashSet::new(),
        }
    }

    /// Registers generated bytes for every stored media segment that has
    /// none yet (the seed's media), at its reported size.
    pub(crate) fn register_media(&mut self) {
        let mut found = Vec::new();
        for chat in self.chats.values() {
            for m in &chat.messages {
                for seg in &m.segments {
                    let Some(kind) = seg
                        .get("type")
                        .and_then(Value::as_str)
                        .and_then(MediaKind::from_segment_type)
                    else {
                        continue;
                    };
                    let data = &seg["data"];
                    let Some(name) = data["file"].as_str() else {
                        continue;
                    };
                    let size = data["file_size"]
                        .as_str()
                        .and_then(|s| s.parse().ok())
                        .or_else(|| data["file_size"].as_u64())
                        .unwrap_or(4096) as usize;
                    found.push((
                        kind,
                        name.to_owned(),
                        data["file_id"].as_str().map(str::to_owned),
                        size,
                    ));
                }
            }
        }
        for (kind, name, id, size) in found {
            self.files.generated(kind, &name, id.as_deref(), size);
        }
    }

    pub(crate) fn group(&self, group_id: i64) -> Option<&Group> {
        self.groups.iter().find(|g| g.group_id == group_id)
    }

    pub(crate) fn group_mut(&mut self, group_id: i64) -> Option<&mut Group> {
        self.groups.iter_mut().find(|g| g.group_id == group_id)
    }

    pub(crate) fn friend(&self, user_id: i64) -> Option<&Friend> {
        self.friends.iter().find(|f| f.user_id == user_id)
    }

    pub(crate) fn chat(&self, chat: ChatRef) -> Option<&Chat> {
        self.chats.get(&chat)
    }

    /// Marks a chat as having live traffic (SnowLuma's "observed").
    pub(crate) fn observe(&mut self, chat: ChatRef) {
        self.chats.entry(chat).or_default().observed = true;
    }

    /// The sender record for `user_id` speaking in `chat`, from the current member/friend lists.
    pub(crate) fn sender_for(&self, chat: ChatRef, user_id: i64) -> Sender {
        if user_id == self.self_id {
            let role = match chat {
                ChatRef::Group(g) => self
                    .group(g)
                    .and_then(|g| g.member(user_id))
                    .map_or(Role::Member, |m| m.role),
                ChatRef::Private(_) => Role::Member,
            };
            return Sender {
                user_id,
                nickname: self.nickname.clone(),
                card: String::new(),
                role,
            };
        }
        let member = match chat {
            ChatRef::Group(g) => self.group(g).and_then(|g| g.member(user_id)),
            ChatRef::Private(_) => None,
        };
        if let Some(m) = member {
            return Sender {
                user_id,
                nickname: m.nickname.clone(),
                card: m.card.clone(),
                role: m.role,
            };
        }
        let nickname = self
            .friend(user_id)
            .map(|f| f.nickname.clone())
            .or_else(|| {
                self.groups
                    .iter()
                    .find_map(|g| g.member(user_id))
                    .map(|m| m.nickname.clone())
            })
            .unwrap_or_else(|| format!("用户{user_id}"));
        Sender {
            user_id,
            nickname,
            card: String::new(),
            role: Role::Member,
        }
    }

    /// Appends a message to a chat, assigning its seq and flavor id.
    pub(crate) fn push(&mut self, chat: ChatRef, msg: NewMessage) -> &Stored {
        let flavor = self.ids_flavor;
        let entry = self.chats.entry(chat).or_default();
        let seq = entry.messages.len() as i64 + 1;
        let mut salt = 0;
        let message_id = loop {
            let id = ids::message_id(flavor, chat, seq, salt);
            if id != 0 && !self.ids.contains_key(&id) {
                break id;
            }
            salt += 1;
        };
        let raw_message = cq::render(&msg.segments);
        let idx = entry.messages.len();
        entry.messages.push(Stored {
            seq,
            message_id,
            time: msg.time,
            sender: msg.sender,
            segments: msg.segments,
            raw_message,
            self_sent: msg.self_sent,
            recalled: false,
        });
        self.ids.insert(message_id, (chat, idx));
        &entry.messages[idx]
    }

    /// Finds a message by its public id (recalled ones too).
    pub(crate) fn find_any(&self, message_id: i64) -> Option<(ChatRef, &Stored)> {
        let (chat, idx) = *self.ids.get(&message_id)?;
        let m = self.chats.get(&chat)?.messages.get(idx)?;
        Some((chat, m))
    }

    /// Finds a message that was not recalled by its public id.
    pub(crate) fn find(&self, message_id: i64) -> Option<(ChatRef, &Stored)> {
        self.find_any(message_id).filter(|(_, m)| !m.recalled)
    }

    /// A message by id, to change it.
    pub(crate) fn find_mut(&mut self, message_id: i64) -> Option<(ChatRef, &mut Stored)> {
        let (chat, idx) = *self.ids.get(&message_id)?;
        let m = self.chats.get_mut(&chat)?.messages.get_mut(idx)?;
        Some((chat, m))
    }

    /// A stored group message by its seq.
    pub(crate) fn by_seq(&self, group_id: i64, seq: i64) -> Option<&Stored> {
        let idx = usize::try_from(seq.checked_sub(1)?).ok()?;
        self.chats
            .get(&ChatRef::Group(group_id))?
            .messages
            .get(idx)
            .filter(|m| !m.recalled)
    }

    /// The display name of `user_id` in a group: card, else nickname.
    pub(crate) fn display_name(&self, group_id: i64, user_id: i64) -> String {
        let s = self.sender_for(ChatRef::Group(group_id), user_id);
        if s.card.is_empty() {
            s.nickname
        } else {
            s.card
        }
    }

    /// The role of `user_id` in group `group_id`, if a member.
    pub(crate) fn role(&self, group_id: i64, user_id: i64) -> Option<Role> {
        self.group(group_id)
            .and_then(|g| g.member(user_id))
            .map(|m| m.role)
    }
}
