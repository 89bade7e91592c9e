//! The peer's objects → domain types: messages (`IncomingMessage`), their
//! segments, group members, groups and forwarded messages, decoded straight
//! from the answer's text by the lenient readers of [`wire`] (a missing or
//! mistyped field reads as empty; nothing here panics on peer input). The
//! objects of a list keep their place in the shared answer text as their
//! raw JSON instead of a copy.
//!
//! Every Milky segment becomes exactly one domain segment, so a media
//! segment's index is the same in both (received media look their fields up
//! by it). A `reply` carries the quoted message's own segments (Milky 1.2):
//! the domain segment's `quoted` is filled from them, so no `get_message`
//! is needed to render it.

pub(crate) mod wire;

use std::fmt;
use std::sync::Arc;

use compact_str::CompactString;
use serde::de::MapAccess;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::ids::{MessageKey, Scene, mint_id};
use onebot_gateway_domain::model::{
    ChatRef, EssenceEntry, EssencePage, GroupFile, GroupFiles, GroupFolder, GroupInfo, GroupMember,
    Message, RawJson, Segment, Sender,
};
use wire::{Fields, Int, List, Obj, Shared, Str, read, skip};

/// An integer field of a small answer (`None` when absent or not an
/// integer).
pub(crate) fn int(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

/// A string field of a small answer (empty when absent or not a string).
pub(crate) fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The lists and fields of an answer's `data` the adapter decodes: one
/// shape for every answer, read in the same pass as the envelope.
#[derive(Default)]
pub(crate) struct DataIn {
    messages: List<Obj<MessageIn>>,
    members: List<Obj<MemberIn>>,
    groups: List<Obj<GroupIn>>,
    message: Option<Obj<MessageIn>>,
    next_message_seq: Int,
}

impl<'de> Fields<'de> for DataIn {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "messages" => self.messages = map.next_value()?,
            "members" => self.members = map.next_value()?,
            "groups" => self.groups = map.next_value()?,
            "message" => self.message = Some(map.next_value()?),
            "next_message_seq" => self.next_message_seq = map.next_value()?,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// An answer's `data`, decoded in the same pass that read the answer,
/// with the whole answer's text: the objects of a list decoded from it
/// find their raw JSON there.
pub struct Data {
    text: Arc<str>,
    fields: DataIn,
}

impl Data {
    /// The `data` decoded from the answer `text`.
    pub(crate) fn new(text: Arc<str>, fields: DataIn) -> Data {
        Data { text, fields }
    }

    /// An answer whose `data` is the JSON text `data`.
    pub fn from_text(data: &str) -> Data {
        Data {
            fields: read(data).unwrap_or_default(),
            text: Arc::from(format!(r#"{{"data":{data}}}"#)),
        }
    }

    /// Its JSON text (`null` when the answer had none).
    pub fn text(&self) -> &str {
        wire::field_text(&self.text, "data").unwrap_or("null")
    }

    /// The value as a JSON tree (for small answers).
    pub fn value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or(Value::Null)
    }

    fn into_parts(self) -> (Arc<str>, DataIn) {
        (self.text, self.fields)
    }
}

impl PartialEq for Data {
    fn eq(&self, other: &Data) -> bool {
        self.text() == other.text()
    }
}

impl fmt::Debug for Data {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

/// An `IncomingMessage` (also the fields of a `GroupEssenceMessage`).
#[derive(Default)]
struct MessageIn {
    scene: Str,
    peer: Int,
    seq: Int,
    sender_id: Int,
    sender_name: Str,
    time: Int,
    segments: List<Obj<SegmentIn>>,
    member: Option<Obj<MemberIn>>,
    friend: Option<Obj<MemberIn>>,
    group_id: Int,
    message_time: Int,
    operator_id: Int,
    operator_name: Str,
    operation_time: Int,
}

impl<'de> Fields<'de> for MessageIn {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "message_scene" => self.scene = map.next_value()?,
            "peer_id" => self.peer = map.next_value()?,
            "message_seq" => self.seq = map.next_value()?,
            "sender_id" => self.sender_id = map.next_value()?,
            "sender_name" => self.sender_name = map.next_value()?,
            "time" => self.time = map.next_value()?,
            "segments" => self.segments = map.next_value()?,
            "group_member" => self.member = Some(map.next_value()?),
            "friend" => self.friend = Some(map.next_value()?),
            "group_id" => self.group_id = map.next_value()?,
            "message_time" => self.message_time = map.next_value()?,
            "operator_id" => self.operator_id = map.next_value()?,
            "operator_name" => self.operator_name = map.next_value()?,
            "operation_time" => self.operation_time = map.next_value()?,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// A segment: its type and its data's text (read once the type is known).
#[derive(Default)]
struct SegmentIn {
    kind: Str,
    data: Option<Box<RawValue>>,
}

impl<'de> Fields<'de> for SegmentIn {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "type" => self.kind = map.next_value()?,
            "data" => self.data = wire::owned_value(map)?,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// A segment's data: the fields of every kind the adapter reads.
#[derive(Default)]
struct SegData {
    text: Str,
    user_id: Int,
    name: Str,
    face_id: Str,
    message_seq: Int,
    sender_id: Int,
    sender_name: Str,
    time: Int,
    segments: Option<List<Obj<SegmentIn>>>,
    resource_id: Str,
    temp_url: Str,
    summary: Str,
    file_id: Str,
    file_name: Str,
    file_size: Int,
    forward_id: Str,
    json_payload: Str,
    xml_payload: Str,
}

impl<'de> Fields<'de> for SegData {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "text" => self.text = map.next_value()?,
            "user_id" => self.user_id = map.next_value()?,
            "name" => self.name = map.next_value()?,
            "face_id" => self.face_id = map.next_value()?,
            "message_seq" => self.message_seq = map.next_value()?,
            "sender_id" => self.sender_id = map.next_value()?,
            "sender_name" => self.sender_name = map.next_value()?,
            "time" => self.time = map.next_value()?,
            "segments" => self.segments = map.next_value::<wire::Array<_>>()?.0,
            "resource_id" => self.resource_id = map.next_value()?,
            "temp_url" => self.temp_url = map.next_value()?,
            "summary" => self.summary = map.next_value()?,
            "file_id" => self.file_id = map.next_value()?,
            "file_name" => self.file_name = map.next_value()?,
            "file_size" => self.file_size = map.next_value()?,
            "forward_id" => self.forward_id = map.next_value()?,
            "json_payload" => self.json_payload = map.next_value()?,
            "xml_payload" => self.xml_payload = map.next_value()?,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// A `GroupMemberEntity` (also the fields of a `FriendEntity` the adapter
/// reads).
#[derive(Default)]
struct MemberIn {
    user_id: Int,
    nickname: Str,
    card: Str,
    role: Str,
    title: Str,
    level: Int,
    join_time: Int,
    last_sent_time: Int,
}

impl<'de> Fields<'de> for MemberIn {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "user_id" => self.user_id = map.next_value()?,
            "nickname" => self.nickname = map.next_value()?,
            "card" => self.card = map.next_value()?,
            "role" => self.role = map.next_value()?,
            "title" => self.title = map.next_value()?,
            "level" => self.level = map.next_value()?,
            "join_time" => self.join_time = map.next_value()?,
            "last_sent_time" => self.last_sent_time = map.next_value()?,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// A `GroupEntity`.
#[derive(Default)]
struct GroupIn {
    group_id: Int,
    group_name: Str,
    member_count: Int,
    max_member_count: Int,
}

impl<'de> Fields<'de> for GroupIn {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "group_id" => self.group_id = map.next_value()?,
            "group_name" => self.group_name = map.next_value()?,
            "member_count" => self.member_count = map.next_value()?,
            "max_member_count" => self.max_member_count = map.next_value()?,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// A history page: its messages (oldest first, as sent) and the seq the
/// next older page starts at.
#[derive(Debug, Default)]
pub struct Page {
    /// The entries that are messages.
    pub messages: Vec<Message>,
    /// `next_message_seq`, when given.
    pub next_message_seq: Option<i64>,
}

/// Decodes a `get_history_messages` answer.
pub fn page(account: &str, data: Data) -> Page {
    let (text, d) = data.into_parts();
    let shared = Shared::new(text, "messages", d.messages.0.len());
    let messages = d
        .messages
        .0
        .into_iter()
        .enumerate()
        .filter_map(|(i, m)| message_of(account, m.0, shared.raw(i)))
        .collect();
    Page {
        messages,
        next_message_seq: d.next_message_seq.0,
    }
}

/// Decodes the `message` of a `get_message` answer.
pub fn message_answer(account: &str, data: Data) -> Option<Message> {
    let (text, d) = data.into_parts();
    let raw = RawJson::from_text(
        wire::field_text(&text, "data").and_then(|d| wire::field_text(d, "message"))?,
    );
    message_of(account, d.message?.0, raw)
}

/// Decodes the `members` of a `get_group_member_list` answer.
pub fn members(data: Data) -> Vec<GroupMember> {
    let (text, d) = data.into_parts();
    let shared = Shared::new(text, "members", d.members.0.len());
    d.members
        .0
        .into_iter()
        .enumerate()
        .map(|(i, m)| member(m.0, shared.raw(i)))
        .collect()
}

/// Decodes the `groups` of a `get_group_list` answer (entries without a
/// group number left out).
pub fn groups(data: Data) -> Vec<GroupInfo> {
    let (text, d) = data.into_parts();
    let shared = Shared::new(text, "groups", d.groups.0.len());
    d.groups
        .0
        .into_iter()
        .enumerate()
        .filter_map(|(i, g)| group(g.0, shared.raw(i)))
        .collect()
}

/// Decodes the `messages` of a `get_forwarded_messages` answer.
pub fn forwarded_list(account: &str, data: Data) -> Vec<Message> {
    let (text, d) = data.into_parts();
    let shared = Shared::new(text, "messages", d.messages.0.len());
    d.messages
        .0
        .into_iter()
        .enumerate()
        .map(|(i, m)| forwarded(account, m.0, shared.raw(i)))
        .collect()
}

/// Decodes a `get_group_essence_messages` answer of `group_id`: each
/// `GroupEssenceMessage` as the message (its id minted from the group and
/// its seq, as for history; the sender's name as its nickname) with who
/// marked it and when. Entries without a seq are left out.
pub fn essence_page(account: &str, group_id: i64, data: Data) -> EssencePage {
    let (text, d) = data.into_parts();
    let is_end = wire::field_text(&text, "data")
        .and_then(|d| wire::field_text(d, "is_end"))
        .is_none_or(|v| v != "false");
    let shared = Shared::new(text, "messages", d.messages.0.len());
    let entries = d
        .messages
        .0
        .into_iter()
        .enumerate()
        .filter_map(|(i, m)| essence_entry(account, group_id, m.0, shared.raw(i)))
        .collect();
    EssencePage { entries, is_end }
}

fn essence_entry(account: &str, group_id: i64, v: MessageIn, raw: RawJson) -> Option<EssenceEntry> {
    let group_id = v.group_id.0.unwrap_or(group_id);
    let key = MessageKey {
        scene: Scene::Group,
        peer: group_id,
        seq: v.seq.0?,
    };
    let message = Message {
        message_id: mint_id(account, key),
        message_seq: Some(key.seq),
        peer_seq: Some(key.seq),
        time: v.message_time.0.unwrap_or(0),
        sender: Sender {
            user_id: v.sender_id.0.unwrap_or(0),
            nickname: v.sender_name.0,
            ..Sender::default()
        },
        segments: segments(account, v.segments, Some((Scene::Group, group_id))),
        chat: key.chat(),
        raw,
    };
    Some(EssenceEntry {
        message,
        operator_id: v.operator_id.0.unwrap_or(0),
        operator_name: v.operator_name.0,
        operation_time: v.operation_time.0.unwrap_or(0),
    })
}

/// Decodes a `get_group_files` answer: `GroupFileEntity` and
/// `GroupFolderEntity` under the domain's names (`uploaded_time` →
/// `upload_time`, `expire_time` absent → 0 = never, `downloaded_times` →
/// `download_count`, `created_time` → `create_time`; Milky names no
/// uploader). Entries without an id are left out.
pub fn group_files(data: &Value) -> GroupFiles {
    let list = |key: &str| {
        data.get(key)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    };
    let count = |v: &Value, key: &str| int(v, key).filter(|n| *n > 0).unwrap_or(0);
    let files = list("files")
        .iter()
        .filter_map(|f| {
            let file_id = text(f, "file_id");
            (!file_id.is_empty()).then(|| GroupFile {
                file_id,
                name: text(f, "file_name"),
                size: count(f, "file_size").unsigned_abs(),
                folder_id: text(f, "parent_folder_id"),
                uploader_id: int(f, "uploader_id").unwrap_or(0),
                uploader_name: String::new(),
                upload_time: count(f, "uploaded_time"),
                expire_time: count(f, "expire_time"),
                download_count: count(f, "downloaded_times"),
            })
        })
        .collect();
    let folders = list("folders")
        .iter()
        .filter_map(|f| {
            let folder_id = text(f, "folder_id");
            (!folder_id.is_empty()).then(|| GroupFolder {
                folder_id,
                name: text(f, "folder_name"),
                creator_id: int(f, "creator_id").unwrap_or(0),
                create_time: count(f, "created_time"),
                file_count: count(f, "file_count"),
            })
        })
        .collect();
    GroupFiles { folders, files }
}

/// Decodes one `IncomingMessage` from its text (kept as its raw JSON);
/// `None` without a scene, peer or seq.
pub fn message(account: &str, text: &str) -> Option<Message> {
    message_of(account, read(text)?, RawJson::from_text(text))
}

fn message_of(account: &str, v: MessageIn, raw: RawJson) -> Option<Message> {
    let scene = Scene::from_name(&v.scene.0)?;
    let (peer, seq) = (v.peer.0?, v.seq.0?);
    let user_id = v.sender_id.0.unwrap_or(0);
    let sender = match scene {
        Scene::Group => {
            let member = v.member.map(|m| m.0).unwrap_or_default();
            Sender {
                user_id,
                nickname: member.nickname.0,
                card: member.card.0,
                role: member.role.0,
            }
        }
        Scene::Friend => {
            // The friend entity is the chat's peer; it names the sender only
            // when the peer sent the message.
            let friend = v.friend.map(|f| f.0).unwrap_or_default();
            Sender {
                user_id,
                nickname: if friend.user_id.0 == Some(user_id) {
                    friend.nickname.0
                } else {
                    String::new()
                },
                ..Sender::default()
            }
        }
        Scene::Temp => Sender {
            user_id,
            ..Sender::default()
        },
    };
    let key = MessageKey { scene, peer, seq };
    Some(Message {
        message_id: mint_id(account, key),
        message_seq: Some(seq),
        peer_seq: Some(seq),
        time: v.time.0.unwrap_or(0),
        sender,
        segments: segments(account, v.segments, Some((scene, peer))),
        chat: key.chat(),
        raw,
    })
}

/// Decodes segments in the chat `at` (`None`: a forwarded message, whose
/// quotes cannot be addressed).
fn segments(account: &str, list: List<Obj<SegmentIn>>, at: Option<(Scene, i64)>) -> Vec<Segment> {
    list.0
        .into_iter()
        .map(|s| segment(account, s.0, at))
        .collect()
}

/// One Milky segment as the domain's.
fn segment(account: &str, seg: SegmentIn, at: Option<(Scene, i64)>) -> Segment {
    let data_text = seg.data.as_deref().map_or("{}", RawValue::get);
    let data: SegData = read(data_text).unwrap_or_default();
    match seg.kind.0.as_str() {
        "text" => Segment::Text(data.text.0),
        "mention" => Segment::At {
            user_id: data.user_id.0,
            all: false,
            name: Some(data.name.0).filter(|n| !n.is_empty()),
        },
        "mention_all" => Segment::At {
            user_id: None,
            all: true,
            name: None,
        },
        "face" => Segment::Face { id: data.face_id.0 },
        "reply" => reply(account, data, data_text, at),
        "image" => Segment::Image {
            file: data.resource_id.0,
            url: data.temp_url.0,
            file_size: 0,
            summary: data.summary.0,
        },
        "record" => Segment::Record {
            file: data.resource_id.0,
            url: data.temp_url.0,
        },
        "video" => Segment::Video {
            file: data.resource_id.0,
            url: data.temp_url.0,
        },
        "file" => Segment::File {
            file: data.file_id.0,
            name: data.file_name.0,
            file_size: data.file_size.0.filter(|n| *n > 0).unwrap_or(0),
            url: String::new(),
        },
        "forward" => Segment::Forward {
            id: data.forward_id.0,
        },
        "light_app" => Segment::Json {
            data: data.json_payload.0,
        },
        "xml" => Segment::Xml {
            data: data.xml_payload.0,
        },
        other => Segment::Unknown {
            kind: other.to_string(),
            data_json: if data_text.starts_with('{') {
                data_text.to_string()
            } else {
                "{}".into()
            },
        },
    }
}

/// A `reply` segment: the quoted message's id, and the quoted message
/// itself when the peer sent its segments.
fn reply(account: &str, data: SegData, text: &str, at: Option<(Scene, i64)>) -> Segment {
    let key = match (at, data.message_seq.0) {
        (Some((scene, peer)), Some(seq)) => Some(MessageKey { scene, peer, seq }),
        _ => None,
    };
    let id = key.map_or(0, |k| mint_id(account, k));
    let quoted = match (key, data.segments) {
        (Some(key), Some(list)) => Some(Box::new(Message {
            message_id: id,
            message_seq: Some(key.seq),
            peer_seq: Some(key.seq),
            time: data.time.0.unwrap_or(0),
            sender: Sender {
                user_id: data.sender_id.0.unwrap_or(0),
                nickname: data.sender_name.0,
                ..Sender::default()
            },
            // The quote's own quotes stay ids (one level deep).
            segments: segments(account, list, None)
                .into_iter()
                .map(|s| match s {
                    Segment::Reply { id, .. } => Segment::reply(id),
                    other => other,
                })
                .collect(),
            chat: key.chat(),
            raw: RawJson::from_text(text),
        })),
        _ => None,
    };
    Segment::Reply {
        id: id.to_string(),
        quoted,
    }
}

/// Names the senders of inline quotes that came without a name (Milky
/// names a quoted sender only inside forwards) from the senders of
/// `messages` themselves, by QQ number.
pub fn name_quotes(messages: &mut [Message]) {
    let known: foldhash::HashMap<i64, Sender> = messages
        .iter()
        .filter(|m| !m.sender.nickname.is_empty() || !m.sender.card.is_empty())
        .map(|m| (m.sender.user_id, m.sender.clone()))
        .collect();
    for m in messages.iter_mut() {
        for seg in &mut m.segments {
            if let Segment::Reply {
                quoted: Some(q), ..
            } = seg
                && q.sender.nickname.is_empty()
                && q.sender.card.is_empty()
                && let Some(s) = known.get(&q.sender.user_id)
            {
                q.sender = s.clone();
            }
        }
    }
}

/// An `IncomingForwardedMessage`: no sender number and no chat are
/// reported (both 0), the sender's name is its nickname.
fn forwarded(account: &str, v: MessageIn, raw: RawJson) -> Message {
    Message {
        message_id: 0,
        message_seq: v.seq.0,
        peer_seq: None,
        time: v.time.0.unwrap_or(0),
        sender: Sender {
            user_id: 0,
            nickname: v.sender_name.0,
            ..Sender::default()
        },
        segments: segments(account, v.segments, None),
        chat: ChatRef::Private(0),
        raw,
    }
}

/// A `GroupMemberEntity`.
fn member(v: MemberIn, raw: RawJson) -> GroupMember {
    let nonzero = |n: Int| n.0.filter(|n| *n != 0);
    GroupMember {
        user_id: v.user_id.0,
        nickname: CompactString::from(v.nickname.0),
        card: CompactString::from(v.card.0),
        role: if v.role.0.is_empty() {
            CompactString::const_new("member")
        } else {
            CompactString::from(v.role.0)
        },
        title: CompactString::from(v.title.0),
        level: v
            .level
            .0
            .map(|l| CompactString::from(l.to_string()))
            .unwrap_or_default(),
        join_time: nonzero(v.join_time),
        last_sent_time: nonzero(v.last_sent_time),
        raw,
    }
}

/// A `GroupEntity`; `None` without a group number.
fn group(v: GroupIn, raw: RawJson) -> Option<GroupInfo> {
    Some(GroupInfo {
        group_id: v.group_id.0?,
        group_name: v.group_name.0,
        member_count: v.member_count.0.unwrap_or(0),
        max_member_count: v.max_member_count.0.unwrap_or(0),
        raw,
    })
}

#[cfg(test)]
mod tests;
