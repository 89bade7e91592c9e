//! Conversions between domain types and protobuf messages, at the edge.

use std::time::SystemTime;

use onebot_gateway_client::pb;

use onebot_gateway_config::{Locale, Protocol};
use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::error::Error;
use onebot_gateway_domain::events::{EventFilter, EventKind, StoredEvent};
use onebot_gateway_domain::media::ids::MediaIds;
use onebot_gateway_domain::model::{
    AccountStatus, ChatRef, ConnState, EssenceEntry, GroupFile, GroupFolder, GroupMember,
    InboundEvent, Message, MuteTarget, Segment, TransportKind,
};
use onebot_gateway_domain::read::forward::Forward;
use onebot_gateway_domain::read::group_content::{EssenceListing, FilesListing};
use onebot_gateway_domain::read::groups::{GroupEntry, Groups};
use onebot_gateway_domain::read::history::History;
use onebot_gateway_domain::read::members::Members;
use onebot_gateway_domain::read::message::MessageView;
use onebot_gateway_domain::read::search::SearchPage;
use onebot_gateway_domain::render;

/// A timestamp from Unix milliseconds.
pub fn timestamp_ms(ms: i64) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: ms.div_euclid(1000),
        nanos: (ms.rem_euclid(1000) * 1_000_000) as i32,
    }
}

/// A timestamp from Unix seconds.
pub fn timestamp_secs(secs: i64) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: secs,
        nanos: 0,
    }
}

/// The first whole second at or after a timestamp (messages carry second
/// precision: `since` 10.5 s starts at 11 s, `until` 10.5 s ends before
/// 11 s).
pub fn ceil_secs(t: &prost_types::Timestamp) -> i64 {
    t.seconds.saturating_add(i64::from(t.nanos > 0))
}

/// The proto connection state.
pub fn conn_state(state: ConnState) -> pb::ConnectionState {
    match state {
        ConnState::Connecting => pb::ConnectionState::Connecting,
        ConnState::Connected => pb::ConnectionState::Connected,
        ConnState::Backoff => pb::ConnectionState::Backoff,
        ConnState::AuthFailed => pb::ConnectionState::AuthFailed,
        ConnState::NotConfigured => pb::ConnectionState::NotConfigured,
    }
}

/// The proto flavor of an adapter's behaviour profile name; unknown names
/// (a profile the API has no value for yet) are unspecified.
pub fn flavor(profile: Option<&str>) -> pb::Flavor {
    match profile {
        Some("generic") => pb::Flavor::Generic,
        Some("napcat") => pb::Flavor::Napcat,
        Some("llonebot") => pb::Flavor::Llonebot,
        Some("lagrange") => pb::Flavor::Lagrange,
        Some("snowluma") => pb::Flavor::Snowluma,
        Some("go-cqhttp") => pb::Flavor::GoCqhttp,
        Some("milky") => pb::Flavor::Milky,
        _ => pb::Flavor::Unspecified,
    }
}

/// The proto transport.
pub fn transport(t: TransportKind) -> pb::Transport {
    match t {
        TransportKind::None => pb::Transport::Unspecified,
        TransportKind::ForwardWs => pb::Transport::ForwardWebsocket,
        TransportKind::Http => pb::Transport::Http,
        TransportKind::ReverseWs => pb::Transport::ReverseWebsocket,
    }
}

/// The proto upstream protocol.
pub fn upstream_protocol(p: Protocol) -> pb::UpstreamProtocol {
    match p {
        Protocol::OneBotV11 => pb::UpstreamProtocol::OnebotV11,
        Protocol::Milky => pb::UpstreamProtocol::Milky,
    }
}

/// An account with its status snapshot.
pub fn account(account: &Account, status: &AccountStatus, queue_depth: usize) -> pb::Account {
    let state = if account.config.has_transport() {
        status.state
    } else {
        ConnState::NotConfigured
    };
    pb::Account {
        account_id: account.id.clone(),
        self_id: status.self_id,
        nickname: status.nickname.clone(),
        implementation: status.implementation.clone(),
        implementation_version: status.implementation_version.clone(),
        flavor: flavor(status.profile) as i32,
        state: conn_state(state) as i32,
        transport: transport(status.transport) as i32,
        last_heartbeat: status.last_heartbeat_ms.map(timestamp_ms),
        queue_depth: i32::try_from(queue_depth).unwrap_or(i32::MAX),
        last_error: status.last_error.clone(),
        groups: account.config.groups.clone(),
        users: account.config.users.clone(),
        history_anchor: status.history.map_or("", |h| h.anchor).to_owned(),
        anchor_included: status.history.is_some_and(|h| h.anchor_included),
        history_anchor_source: status.history.map_or("", |h| h.basis).to_owned(),
        protocol: upstream_protocol(account.config.protocol()) as i32,
    }
}

/// A timestamp from a wall-clock time (before 1970 counts as 1970).
pub fn timestamp_system(t: SystemTime) -> prost_types::Timestamp {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    prost_types::Timestamp {
        seconds: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        nanos: d.subsec_nanos() as i32,
    }
}

/// A count as an `int32` field (saturating).
pub fn count_i32(n: impl TryInto<i32>) -> i32 {
    n.try_into().unwrap_or(i32::MAX)
}

/// The chat a request names; `None` when the oneof is unset. Ids are not
/// checked here (the domain validates them).
pub fn chat_ref(chat: Option<&pb::Chat>) -> Option<ChatRef> {
    match chat?.kind? {
        pb::chat::Kind::GroupId(id) => Some(ChatRef::Group(id)),
        pb::chat::Kind::UserId(id) => Some(ChatRef::Private(id)),
    }
}

/// The proto chat.
pub fn chat(chat: ChatRef) -> pb::Chat {
    pb::Chat {
        kind: Some(match chat {
            ChatRef::Group(id) => pb::chat::Kind::GroupId(id),
            ChatRef::Private(id) => pb::chat::Kind::UserId(id),
        }),
    }
}

/// The proto segment (every kind; unknown kinds keep type and data JSON).
pub fn segment(seg: Segment) -> pb::Segment {
    use pb::segment::Kind;
    let kind = match seg {
        Segment::Text(text) => Kind::Text(pb::TextSegment { text }),
        Segment::At { user_id, all, name } => Kind::At(pb::AtSegment {
            user_id: user_id.unwrap_or(0),
            all,
            name: name.unwrap_or_default(),
        }),
        Segment::Face { id } => Kind::Face(pb::FaceSegment { id }),
        Segment::Image {
            file,
            url,
            file_size,
            summary,
        } => Kind::Image(pb::ImageSegment {
            file,
            url,
            file_size,
            summary,
            media_id: String::new(),
        }),
        Segment::Record { file, url } => Kind::Record(pb::RecordSegment {
            file,
            url,
            media_id: String::new(),
        }),
        Segment::Video { file, url } => Kind::Video(pb::VideoSegment {
            file,
            url,
            media_id: String::new(),
        }),
        Segment::File {
            file,
            name,
            file_size,
            url,
        } => Kind::File(pb::FileSegment {
            file,
            name,
            file_size,
            url,
            media_id: String::new(),
        }),
        Segment::Reply { id, quoted } => Kind::Reply(pb::ReplySegment {
            id,
            quoted: quoted.map(|m| chat_message(*m)),
        }),
        Segment::Forward { id } => Kind::Forward(pb::ForwardSegment { id }),
        Segment::Json { data } => Kind::Json(pb::JsonSegment { data }),
        Segment::Xml { data } => Kind::Xml(pb::XmlSegment { data }),
        Segment::Poke { kind, id } => Kind::Poke(pb::PokeSegment { r#type: kind, id }),
        Segment::Unknown { kind, data_json } => Kind::Unknown(pb::UnknownSegment {
            r#type: kind,
            data_json,
        }),
    };
    pb::Segment { kind: Some(kind) }
}

/// The proto message, with its rendered `text`.
pub fn chat_message(msg: Message) -> pb::ChatMessage {
    let text = render::segments(&msg.segments);
    pb::ChatMessage {
        message_id: msg.message_id,
        message_seq: msg.message_seq,
        time: Some(timestamp_secs(msg.time)),
        sender: Some(pb::Sender {
            user_id: msg.sender.user_id,
            nickname: msg.sender.nickname,
            card: msg.sender.card,
            role: msg.sender.role,
        }),
        segments: msg.segments.into_iter().map(segment).collect(),
        text,
        chat: Some(chat(msg.chat)),
    }
}

/// A time that is 0 when unknown: absent then.
fn known_time(secs: i64) -> Option<prost_types::Timestamp> {
    (secs > 0).then(|| timestamp_secs(secs))
}

/// The ListEssence response (media ids are set by the caller).
pub fn essence(listing: EssenceListing) -> pb::ListEssenceResponse {
    pb::ListEssenceResponse {
        group_id: listing.group_id,
        messages: listing.entries.into_iter().map(essence_entry).collect(),
        next_page_token: listing.next_page_token,
    }
}

fn essence_entry(e: EssenceEntry) -> pb::EssenceMessage {
    let time = e.message.time;
    let mut message = chat_message(e.message);
    message.time = known_time(time);
    pb::EssenceMessage {
        message: Some(message),
        operator_id: e.operator_id,
        operator_name: e.operator_name,
        operation_time: known_time(e.operation_time),
    }
}

/// The ListGroupFiles response.
pub fn group_files(listing: FilesListing) -> pb::ListGroupFilesResponse {
    pb::ListGroupFilesResponse {
        group_id: listing.group_id,
        folders: listing.folders.into_iter().map(group_folder).collect(),
        files: listing.files.into_iter().map(group_file).collect(),
        next_page_token: listing.next_page_token,
    }
}

fn group_file(f: GroupFile) -> pb::GroupFile {
    pb::GroupFile {
        file_id: f.file_id,
        name: f.name,
        size: f.size,
        folder_id: f.folder_id,
        uploader_id: f.uploader_id,
        uploader_name: f.uploader_name,
        upload_time: known_time(f.upload_time),
        expire_time: known_time(f.expire_time),
        download_count: f.download_count,
    }
}

fn group_folder(f: GroupFolder) -> pb::GroupFolder {
    pb::GroupFolder {
        folder_id: f.folder_id,
        name: f.name,
        creator_id: f.creator_id,
        create_time: known_time(f.create_time),
        file_count: f.file_count,
    }
}

/// The proto group member.
pub fn group_member(m: GroupMember) -> pb::GroupMember {
    pb::GroupMember {
        user_id: m.user_id.unwrap_or(0),
        nickname: m.nickname.into_string(),
        card: m.card.into_string(),
        role: m.role.into_string(),
        title: m.title.into_string(),
        level: m.level.into_string(),
        join_time: m.join_time.map(timestamp_secs),
        last_sent_time: m.last_sent_time.map(timestamp_secs),
    }
}

/// The proto group.
pub fn group(g: &GroupEntry) -> pb::Group {
    pb::Group {
        group_id: g.group_id,
        group_name: g.group_name.clone(),
        member_count: count_i32(g.member_count),
        max_member_count: count_i32(g.max_member_count),
        whitelisted: g.whitelisted,
        joined: g.joined,
    }
}

/// The GetHistory response.
pub fn history(h: History) -> pb::GetHistoryResponse {
    pb::GetHistoryResponse {
        target: h.target,
        messages: h.messages.into_iter().map(chat_message).collect(),
        rendered: h.rendered,
        next_anchor_message_id: h.next_anchor_message_id,
    }
}

/// The GetMessage response.
pub fn message_view(v: MessageView) -> pb::GetMessageResponse {
    pb::GetMessageResponse {
        message: Some(chat_message(v.message)),
        rendered: v.rendered,
    }
}

/// The GetForwardMessages response.
pub fn forward(f: Forward) -> pb::GetForwardMessagesResponse {
    pb::GetForwardMessagesResponse {
        messages: f.messages.into_iter().map(chat_message).collect(),
        rendered: f.rendered,
    }
}

/// The SearchMessages response.
pub fn search(page: &SearchPage) -> pb::SearchMessagesResponse {
    pb::SearchMessagesResponse {
        messages: page
            .messages
            .iter()
            .map(|a| chat_message(a.message.clone()))
            .collect(),
        rendered: page.rendered.clone(),
        next_page_token: page.next_page_token.clone(),
        recalled_message_ids: page
            .messages
            .iter()
            .filter(|a| a.recalled)
            .map(|a| a.message.message_id)
            .collect(),
    }
}

/// The ListGroupMembers response.
pub fn members(m: Members) -> pb::ListGroupMembersResponse {
    pb::ListGroupMembersResponse {
        group_id: m.group_id,
        total: count_i32(m.total),
        shown: count_i32(m.shown()),
        members: m.members.into_iter().map(group_member).collect(),
        rendered: m.rendered,
        fetched_at: Some(timestamp_system(m.fetched_at)),
        from_cache: m.from_cache,
    }
}

/// The ListGroups response.
pub fn groups(g: &Groups) -> pb::ListGroupsResponse {
    pb::ListGroupsResponse {
        groups: g.groups.iter().map(group).collect(),
        rendered: g.rendered.clone(),
    }
}

/// The domain event kind of a proto filter value; `None` for
/// `EVENT_KIND_UNSPECIFIED` and unknown numbers.
pub fn event_kind(value: i32) -> Option<EventKind> {
    Some(match pb::EventKind::try_from(value).ok()? {
        pb::EventKind::Unspecified => return None,
        pb::EventKind::Message => EventKind::Message,
        pb::EventKind::Poke => EventKind::Poke,
        pb::EventKind::MemberJoined => EventKind::MemberJoined,
        pb::EventKind::MemberLeft => EventKind::MemberLeft,
        pb::EventKind::CardChanged => EventKind::CardChanged,
        pb::EventKind::Lifecycle => EventKind::Lifecycle,
        pb::EventKind::Connection => EventKind::Connection,
        pb::EventKind::Unknown => EventKind::Unknown,
        pb::EventKind::MessageRecalled => EventKind::MessageRecalled,
        pb::EventKind::Approval => EventKind::Approval,
        pb::EventKind::Reaction => EventKind::Reaction,
        pb::EventKind::Essence => EventKind::Essence,
        pb::EventKind::Mute => EventKind::Mute,
        pb::EventKind::AdminChanged => EventKind::AdminChanged,
        pb::EventKind::GroupFileUploaded => EventKind::GroupFileUploaded,
        pb::EventKind::GroupNameChanged => EventKind::GroupNameChanged,
    })
}

/// The event filter of a `StreamEvents` request; `BadRequest` on a chat
/// without a positive id or an unspecified kind.
pub fn event_filter(chats: &[pb::Chat], kinds: &[i32]) -> Result<EventFilter, Error> {
    let mut filter = EventFilter::default();
    for (i, c) in chats.iter().enumerate() {
        match chat_ref(Some(c)) {
            Some(chat @ (ChatRef::Group(id) | ChatRef::Private(id))) if id > 0 => {
                filter.chats.insert(chat);
            }
            _ => {
                return Err(Error::invalid(
                    &format!("chats[{i}]"),
                    "a chat needs a positive group_id or user_id",
                ));
            }
        }
    }
    for (i, k) in kinds.iter().enumerate() {
        let kind = event_kind(*k).ok_or_else(|| {
            Error::invalid(&format!("kinds[{i}]"), "unknown or unspecified event kind")
                .with("kind", k)
        })?;
        filter.kinds.insert(kind);
    }
    Ok(filter)
}

/// The proto event of a numbered inbound event; `self_id` is the account's
/// bot QQ number. A message event's `rendered` is its history line in `tz`
/// with quotes in `locale`'s form, as GetHistory renders it.
pub fn event(
    stored: &StoredEvent,
    self_id: i64,
    tz: &jiff::tz::TimeZone,
    locale: Locale,
) -> pb::Event {
    let (time, kind) = inbound_kind(&stored.event, tz, locale);
    // The peer's time when it gave one, else when the gateway received it.
    let time = if time > 0 {
        timestamp_secs(time)
    } else {
        timestamp_ms(stored.received_ms)
    };
    pb::Event {
        account_id: stored.account_id.to_string(),
        sequence: stored.sequence,
        time: Some(time),
        self_id,
        kind: Some(kind),
    }
}

/// The proto kind of an inbound event and the peer's time of it (0 when it gave none).
fn inbound_kind(
    event: &InboundEvent,
    tz: &jiff::tz::TimeZone,
    locale: Locale,
) -> (i64, pb::event::Kind) {
    use pb::event::Kind as K;
    match event {
        InboundEvent::Message {
            message,
            self_sent,
            backfilled,
        } => (
            message.time,
            K::Message(pb::MessageEvent {
                rendered: render::history_line_in(message, tz, locale),
                message: Some(chat_message(message.clone())),
                self_sent: *self_sent,
                backfilled: *backfilled,
            }),
        ),
        InboundEvent::Poke {
            group_id,
            user_id,
            target_id,
            time,
        } => (
            *time,
            K::Poke(pb::PokeEvent {
                group_id: *group_id,
                user_id: *user_id,
                target_id: *target_id,
            }),
        ),
        InboundEvent::MemberJoined {
            group_id,
            user_id,
            operator_id,
            time,
        } => (
            *time,
            K::MemberJoined(pb::MemberJoinedEvent {
                group_id: *group_id,
                user_id: *user_id,
                operator_id: *operator_id,
            }),
        ),
        InboundEvent::MemberLeft {
            group_id,
            user_id,
            operator_id,
            sub_type,
            time,
        } => (
            *time,
            K::MemberLeft(pb::MemberLeftEvent {
                group_id: *group_id,
                user_id: *user_id,
                operator_id: *operator_id,
                sub_type: sub_type.clone(),
            }),
        ),
        InboundEvent::CardChanged {
            group_id,
            user_id,
            card_new,
            card_old,
            time,
        } => (
            *time,
            K::CardChanged(pb::CardChangedEvent {
                group_id: *group_id,
                user_id: *user_id,
                card_new: card_new.clone(),
                card_old: card_old.clone(),
            }),
        ),
        InboundEvent::Lifecycle { sub_type, time } => (
            *time,
            K::Lifecycle(pb::LifecycleEvent {
                sub_type: sub_type.clone(),
            }),
        ),
        InboundEvent::Connection { state, detail } => (
            0,
            K::Connection(pb::ConnectionEvent {
                state: conn_state(*state) as i32,
                detail: detail.clone(),
            }),
        ),
        InboundEvent::MessageRecalled {
            chat: c,
            message_id,
            operator_id,
            time,
        } => (
            *time,
            K::MessageRecalled(pb::MessageRecalledEvent {
                chat: Some(chat(*c)),
                message_id: *message_id,
                operator_id: *operator_id,
            }),
        ),
        InboundEvent::Approval(record) => (
            record
                .decided_ms
                .unwrap_or(record.created_ms)
                .div_euclid(1000),
            K::Approval(crate::governance::approval(record)),
        ),
        InboundEvent::Reaction {
            group_id,
            message_id,
            user_id,
            emoji_id,
            added,
            time,
        } => (
            *time,
            K::Reaction(pb::ReactionEvent {
                group_id: *group_id,
                message_id: *message_id,
                user_id: *user_id,
                emoji_id: emoji_id.clone(),
                added: *added,
            }),
        ),
        InboundEvent::Essence {
            group_id,
            message_id,
            sender_id,
            operator_id,
            set,
            time,
        } => (
            *time,
            K::Essence(pb::EssenceEvent {
                group_id: *group_id,
                message_id: *message_id,
                sender_id: *sender_id,
                operator_id: *operator_id,
                is_set: *set,
            }),
        ),
        InboundEvent::Mute {
            group_id,
            target,
            operator_id,
            duration_secs,
            muted,
            time,
        } => (
            *time,
            K::Mute(pb::MuteEvent {
                group_id: *group_id,
                user_id: match target {
                    MuteTarget::Member(u) => *u,
                    MuteTarget::WholeGroup => 0,
                },
                whole_group: *target == MuteTarget::WholeGroup,
                operator_id: *operator_id,
                duration_secs: *duration_secs,
                muted: *muted,
            }),
        ),
        InboundEvent::AdminChanged {
            group_id,
            user_id,
            operator_id,
            set,
            time,
        } => (
            *time,
            K::AdminChanged(pb::AdminChangedEvent {
                group_id: *group_id,
                user_id: *user_id,
                operator_id: *operator_id,
                is_admin: *set,
            }),
        ),
        InboundEvent::GroupFileUploaded {
            group_id,
            user_id,
            file_id,
            name,
            size,
            time,
        } => (
            *time,
            K::GroupFileUploaded(pb::GroupFileUploadedEvent {
                group_id: *group_id,
                user_id: *user_id,
                file_id: file_id.clone(),
                name: name.clone(),
                size: *size,
            }),
        ),
        InboundEvent::GroupNameChanged {
            group_id,
            name,
            operator_id,
            time,
        } => (
            *time,
            K::GroupNameChanged(pb::GroupNameChangedEvent {
                group_id: *group_id,
                name: name.clone(),
                operator_id: *operator_id,
            }),
        ),
        InboundEvent::Unknown {
            post_type,
            time,
            raw,
            ..
        } => (
            *time,
            K::Unknown(pb::UnknownEvent {
                post_type: post_type.clone(),
                raw_json: raw.text().to_string(),
            }),
        ),
    }
}

/// Sets the `media_id` of every media segment of `msg` (a message of
/// `account_id`; none for a message without an id).
pub fn with_media_ids(ids: &MediaIds, account_id: &str, msg: &mut pb::ChatMessage) {
    use pb::segment::Kind;
    if msg.message_id == 0 {
        return;
    }
    let message_id = msg.message_id;
    for (index, seg) in msg.segments.iter_mut().enumerate() {
        let slot = match &mut seg.kind {
            Some(Kind::Image(s)) => &mut s.media_id,
            Some(Kind::Record(s)) => &mut s.media_id,
            Some(Kind::Video(s)) => &mut s.media_id,
            Some(Kind::File(s)) => &mut s.media_id,
            // A quoted message's media are its own (its id, its indexes).
            Some(Kind::Reply(r)) => {
                if let Some(quoted) = r.quoted.as_mut() {
                    with_media_ids(ids, account_id, quoted);
                }
                continue;
            }
            _ => continue,
        };
        *slot = ids.id(account_id, message_id, index);
    }
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
