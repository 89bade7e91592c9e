//! The stored form of messages and events: compact JSON, written and read
//! by both stores and the journal. The domain's types stay free of any
//! storage format; this file mirrors them field by field.

use serde::{Deserialize, Serialize};

use onebot_gateway_domain::archive::store::{chat_key, chat_of_key};
use onebot_gateway_domain::error::{Error, Result};
use onebot_gateway_domain::model::{
    ConnState, InboundEvent, Message, MuteTarget, RawJson, Segment, Sender,
};
use onebot_gateway_domain::policy::store::ApprovalRecord;

#[derive(Serialize, Deserialize)]
struct SenderRec {
    #[serde(rename = "u")]
    user_id: i64,
    #[serde(rename = "n", default, skip_serializing_if = "String::is_empty")]
    nickname: String,
    #[serde(rename = "c", default, skip_serializing_if = "String::is_empty")]
    card: String,
    #[serde(rename = "r", default, skip_serializing_if = "String::is_empty")]
    role: String,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "k", rename_all = "snake_case")]
enum SegmentRec {
    Text {
        t: String,
    },
    At {
        u: Option<i64>,
        a: bool,
        n: Option<String>,
    },
    Face {
        id: String,
    },
    Image {
        f: String,
        url: String,
        size: i64,
        s: String,
    },
    Record {
        f: String,
        url: String,
    },
    Video {
        f: String,
        url: String,
    },
    File {
        f: String,
        n: String,
        size: i64,
        url: String,
    },
    Reply {
        id: String,
        /// The quoted message as resolved (one level deep).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        q: Option<Box<MessageRec>>,
    },
    Forward {
        id: String,
    },
    Json {
        d: String,
    },
    Xml {
        d: String,
    },
    Poke {
        ty: String,
        id: String,
    },
    Unknown {
        ty: String,
        d: String,
    },
}

#[derive(Serialize, Deserialize)]
struct MessageRec {
    id: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seq: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pseq: Option<i64>,
    t: i64,
    s: SenderRec,
    g: Vec<SegmentRec>,
    ck: String,
    ci: i64,
    /// The peer's own object, as its JSON text.
    raw: String,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "e", rename_all = "snake_case")]
enum EventRec {
    Message {
        m: MessageRec,
        #[serde(default)]
        own: bool,
        /// Read back from history after a gap (absent in older rows).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        back: bool,
    },
    Poke {
        g: i64,
        u: i64,
        target: i64,
        t: i64,
    },
    MemberJoined {
        g: i64,
        u: i64,
        op: i64,
        t: i64,
    },
    MemberLeft {
        g: i64,
        u: i64,
        op: i64,
        sub: String,
        t: i64,
    },
    CardChanged {
        g: i64,
        u: i64,
        new: String,
        old: String,
        t: i64,
    },
    Lifecycle {
        sub: String,
        t: i64,
    },
    Connection {
        state: String,
        detail: String,
    },
    Unknown {
        post: String,
        g: Option<i64>,
        t: i64,
        raw: String,
    },
    MessageRecalled {
        ck: String,
        ci: i64,
        id: i64,
        op: i64,
        t: i64,
    },
    Approval {
        r: Box<ApprovalRecord>,
    },
    Reaction {
        g: i64,
        id: i64,
        u: i64,
        emoji: String,
        add: bool,
        t: i64,
    },
    Essence {
        g: i64,
        id: i64,
        sender: i64,
        op: i64,
        set: bool,
        t: i64,
    },
    Mute {
        g: i64,
        /// The member; absent for the whole group.
        u: Option<i64>,
        op: i64,
        secs: i64,
        on: bool,
        t: i64,
    },
    AdminChanged {
        g: i64,
        u: i64,
        op: i64,
        set: bool,
        t: i64,
    },
    GroupFileUploaded {
        g: i64,
        u: i64,
        id: String,
        name: String,
        size: u64,
        t: i64,
    },
    GroupNameChanged {
        g: i64,
        name: String,
        op: i64,
        t: i64,
    },
}

fn segment_rec(s: &Segment) -> SegmentRec {
    match s.clone() {
        Segment::Text(t) => SegmentRec::Text { t },
        Segment::At { user_id, all, name } => SegmentRec::At {
            u: user_id,
            a: all,
            n: name,
        },
        Segment::Face { id } => SegmentRec::Face { id },
        Segment::Image {
            file,
            url,
            file_size,
            summary,
        } => SegmentRec::Image {
            f: file,
            url,
            size: file_size,
            s: summary,
        },
        Segment::Record { file, url } => SegmentRec::Record { f: file, url },
        Segment::Video { file, url } => SegmentRec::Video { f: file, url },
        Segment::File {
            file,
            name,
            file_size,
            url,
        } => SegmentRec::File {
            f: file,
            n: name,
            size: file_size,
            url,
        },
        Segment::Reply { id, quoted } => SegmentRec::Reply {
            id,
            q: quoted.map(|m| Box::new(message_rec(&m))),
        },
        Segment::Forward { id } => SegmentRec::Forward { id },
        Segment::Json { data } => SegmentRec::Json { d: data },
        Segment::Xml { data } => SegmentRec::Xml { d: data },
        Segment::Poke { kind, id } => SegmentRec::Poke { ty: kind, id },
        Segment::Unknown { kind, data_json } => SegmentRec::Unknown {
            ty: kind,
            d: data_json,
        },
    }
}

fn segment(r: SegmentRec) -> Segment {
    match r {
        SegmentRec::Text { t } => Segment::Text(t),
        SegmentRec::At { u, a, n } => Segment::At {
            user_id: u,
            all: a,
            name: n,
        },
        SegmentRec::Face { id } => Segment::Face { id },
        SegmentRec::Image { f, url, size, s } => Segment::Image {
            file: f,
            url,
            file_size: size,
            summary: s,
        },
        SegmentRec::Record { f, url } => Segment::Record { file: f, url },
        SegmentRec::Video { f, url } => Segment::Video { file: f, url },
        SegmentRec::File { f, n, size, url } => Segment::File {
            file: f,
            name: n,
            file_size: size,
            url,
        },
        SegmentRec::Reply { id, q } => Segment::Reply {
            id,
            // A quote that cannot be read is left unresolved.
            quoted: q.and_then(|m| message(*m).ok()).map(Box::new),
        },
        SegmentRec::Forward { id } => Segment::Forward { id },
        SegmentRec::Json { d } => Segment::Json { data: d },
        SegmentRec::Xml { d } => Segment::Xml { data: d },
        SegmentRec::Poke { ty, id } => Segment::Poke { kind: ty, id },
        SegmentRec::Unknown { ty, d } => Segment::Unknown {
            kind: ty,
            data_json: d,
        },
    }
}

fn message_rec(m: &Message) -> MessageRec {
    let (kind, id) = chat_key(m.chat);
    MessageRec {
        id: m.message_id,
        seq: m.message_seq,
        pseq: m.peer_seq,
        t: m.time,
        s: SenderRec {
            user_id: m.sender.user_id,
            nickname: m.sender.nickname.clone(),
            card: m.sender.card.clone(),
            role: m.sender.role.clone(),
        },
        g: m.segments.iter().map(segment_rec).collect(),
        ck: kind.to_string(),
        ci: id,
        raw: m.raw.text().to_string(),
    }
}

fn undecodable(what: &str) -> Error {
    Error::internal(format!("a stored {what} cannot be read"))
}

fn message(r: MessageRec) -> Result<Message> {
    let chat = chat_of_key(&r.ck, r.ci).ok_or_else(|| undecodable("chat kind"))?;
    Ok(Message {
        message_id: r.id,
        message_seq: r.seq,
        peer_seq: r.pseq,
        time: r.t,
        sender: Sender {
            user_id: r.s.user_id,
            nickname: r.s.nickname,
            card: r.s.card,
            role: r.s.role,
        },
        segments: r.g.into_iter().map(segment).collect(),
        chat,
        raw: RawJson::from_text(r.raw),
    })
}

/// The stored form of a message.
pub fn encode_message(m: &Message) -> Vec<u8> {
    serde_json::to_vec(&message_rec(m)).unwrap_or_default()
}

/// A message from its stored form.
pub fn decode_message(bytes: &[u8]) -> Result<Message> {
    let rec: MessageRec = serde_json::from_slice(bytes)
        .map_err(|e| Error::internal(format!("a stored message cannot be read: {e}")))?;
    message(rec)
}

/// The stored form of an event.
pub fn encode_event(e: &InboundEvent) -> Vec<u8> {
    let rec = match e {
        InboundEvent::Message {
            message,
            self_sent,
            backfilled,
        } => EventRec::Message {
            m: message_rec(message),
            own: *self_sent,
            back: *backfilled,
        },
        InboundEvent::Poke {
            group_id,
            user_id,
            target_id,
            time,
        } => EventRec::Poke {
            g: *group_id,
            u: *user_id,
            target: *target_id,
            t: *time,
        },
        InboundEvent::MemberJoined {
            group_id,
            user_id,
            operator_id,
            time,
        } => EventRec::MemberJoined {
            g: *group_id,
            u: *user_id,
            op: *operator_id,
            t: *time,
        },
        InboundEvent::MemberLeft {
            group_id,
            user_id,
            operator_id,
            sub_type,
            time,
        } => EventRec::MemberLeft {
            g: *group_id,
            u: *user_id,
            op: *operator_id,
            sub: sub_type.clone(),
            t: *time,
        },
        InboundEvent::CardChanged {
            group_id,
            user_id,
            card_new,
            card_old,
            time,
        } => EventRec::CardChanged {
            g: *group_id,
            u: *user_id,
            new: card_new.clone(),
            old: card_old.clone(),
            t: *time,
        },
        InboundEvent::Lifecycle { sub_type, time } => EventRec::Lifecycle {
            sub: sub_type.clone(),
            t: *time,
        },
        InboundEvent::Connection { state, detail } => EventRec::Connection {
            state: state.name().to_string(),
            detail: detail.clone(),
        },
        InboundEvent::Unknown {
            post_type,
            group_id,
            time,
            raw,
        } => EventRec::Unknown {
            post: post_type.clone(),
            g: *group_id,
            t: *time,
            raw: raw.text().to_string(),
        },
        InboundEvent::MessageRecalled {
            chat,
            message_id,
            operator_id,
            time,
        } => {
            let (kind, id) = chat_key(*chat);
            EventRec::MessageRecalled {
                ck: kind.to_string(),
                ci: id,
                id: *message_id,
                op: *operator_id,
                t: *time,
            }
        }
        InboundEvent::Approval(record) => EventRec::Approval { r: record.clone() },
        InboundEvent::Reaction {
            group_id,
            message_id,
            user_id,
            emoji_id,
            added,
            time,
        } => EventRec::Reaction {
            g: *group_id,
            id: *message_id,
            u: *user_id,
            emoji: emoji_id.clone(),
            add: *added,
            t: *time,
        },
        InboundEvent::Essence {
            group_id,
            message_id,
            sender_id,
            operator_id,
            set,
            time,
        } => EventRec::Essence {
            g: *group_id,
            id: *message_id,
            sender: *sender_id,
            op: *operator_id,
            set: *set,
            t: *time,
        },
        InboundEvent::Mute {
            group_id,
            target,
            operator_id,
            duration_secs,
            muted,
            time,
        } => EventRec::Mute {
            g: *group_id,
            u: match target {
                MuteTarget::Member(u) => Some(*u),
                MuteTarget::WholeGroup => None,
            },
            op: *operator_id,
            secs: *duration_secs,
            on: *muted,
            t: *time,
        },
        InboundEvent::AdminChanged {
            group_id,
            user_id,
            operator_id,
            set,
            time,
        } => EventRec::AdminChanged {
            g: *group_id,
            u: *user_id,
            op: *operator_id,
            set: *set,
            t: *time,
        },
        InboundEvent::GroupFileUploaded {
            group_id,
            user_id,
            file_id,
            name,
            size,
            time,
        } => EventRec::GroupFileUploaded {
            g: *group_id,
            u: *user_id,
            id: file_id.clone(),
            name: name.clone(),
            size: *size,
            t: *time,
        },
        InboundEvent::GroupNameChanged {
            group_id,
            name,
            operator_id,
            time,
        } => EventRec::GroupNameChanged {
            g: *group_id,
            name: name.clone(),
            op: *operator_id,
            t: *time,
        },
    };
    serde_json::to_vec(&rec).unwrap_or_default()
}

/// An event from its stored form.
pub fn decode_event(bytes: &[u8]) -> Result<InboundEvent> {
    let rec: EventRec = serde_json::from_slice(bytes)
        .map_err(|e| Error::internal(format!("a stored event cannot be read: {e}")))?;
    Ok(match rec {
        EventRec::Message { m, own, back } => InboundEvent::Message {
            message: message(m)?,
            self_sent: own,
            backfilled: back,
        },
        EventRec::Poke { g, u, target, t } => InboundEvent::Poke {
            group_id: g,
            user_id: u,
            target_id: target,
            time: t,
        },
        EventRec::MemberJoined { g, u, op, t } => InboundEvent::MemberJoined {
            group_id: g,
            user_id: u,
            operator_id: op,
            time: t,
        },
        EventRec::MemberLeft { g, u, op, sub, t } => InboundEvent::MemberLeft {
            group_id: g,
            user_id: u,
            operator_id: op,
            sub_type: sub,
            time: t,
        },
        EventRec::CardChanged { g, u, new, old, t } => InboundEvent::CardChanged {
            group_id: g,
            user_id: u,
            card_new: new,
            card_old: old,
            time: t,
        },
        EventRec::Lifecycle { sub, t } => InboundEvent::Lifecycle {
            sub_type: sub,
            time: t,
        },
        EventRec::Connection { state, detail } => InboundEvent::Connection {
            state: ConnState::ALL
                .into_iter()
                .find(|s| s.name() == state)
                .ok_or_else(|| undecodable("connection state"))?,
            detail,
        },
        EventRec::Unknown { post, g, t, raw } => InboundEvent::Unknown {
            post_type: post,
            group_id: g,
            time: t,
            raw: RawJson::from_text(raw),
        },
        EventRec::MessageRecalled { ck, ci, id, op, t } => InboundEvent::MessageRecalled {
            chat: chat_of_key(&ck, ci).ok_or_else(|| undecodable("chat kind"))?,
            message_id: id,
            operator_id: op,
            time: t,
        },
        EventRec::Approval { r } => InboundEvent::Approval(r),
        EventRec::Reaction {
            g,
            id,
            u,
            emoji,
            add,
            t,
        } => InboundEvent::Reaction {
            group_id: g,
            message_id: id,
            user_id: u,
            emoji_id: emoji,
            added: add,
            time: t,
        },
        EventRec::Essence {
            g,
            id,
            sender,
            op,
            set,
            t,
        } => InboundEvent::Essence {
            group_id: g,
            message_id: id,
            sender_id: sender,
            operator_id: op,
            set,
            time: t,
        },
        EventRec::Mute {
            g,
            u,
            op,
            secs,
            on,
            t,
        } => InboundEvent::Mute {
            group_id: g,
            target: u.map_or(MuteTarget::WholeGroup, MuteTarget::Member),
            operator_id: op,
            duration_secs: secs,
            muted: on,
            time: t,
        },
        EventRec::AdminChanged { g, u, op, set, t } => InboundEvent::AdminChanged {
            group_id: g,
            user_id: u,
            operator_id: op,
            set,
            time: t,
        },
        EventRec::GroupFileUploaded {
            g,
            u,
            id,
            name,
            size,
            t,
        } => InboundEvent::GroupFileUploaded {
            group_id: g,
            user_id: u,
            file_id: id,
            name,
            size,
            time: t,
        },
        EventRec::GroupNameChanged { g, name, op, t } => InboundEvent::GroupNameChanged {
            group_id: g,
            name,
            operator_id: op,
            time: t,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use onebot_gateway_domain::model::ChatRef;

    fn sample() -> Message {
        Message {
            message_id: -5,
            message_seq: Some(9),
            peer_seq: None,
            time: 1_700_000_000,
            sender: Sender {
                user_id: 10001,
                nickname: "张三".into(),
                card: String::new(),
                role: "member".into(),
            },
            segments: vec![
                Segment::Text("明天开会".into()),
                Segment::At {
                    user_id: Some(1),
                    all: false,
                    name: None,
                },
                Segment::Image {
                    file: "a.png".into(),
                    url: "http://x".into(),
                    file_size: 3,
                    summary: String::new(),
                },
                Segment::Unknown {
                    kind: "mface".into(),
                    data_json: "{}".into(),
                },
            ],
            chat: ChatRef::Group(20000003),
            raw: RawJson::from_text("{\"message_id\":-5}"),
        }
    }

    #[test]
    fn messages_and_events_round_trip() {
        let mut m = sample();
        assert_eq!(decode_message(&encode_message(&m)).unwrap(), m);
        // A reply keeps the quote the gateway resolved.
        let quoted = sample();
        m.segments.insert(
            0,
            Segment::Reply {
                id: "-5".into(),
                quoted: Some(Box::new(quoted)),
            },
        );
        assert_eq!(decode_message(&encode_message(&m)).unwrap(), m);
        let events = [
            InboundEvent::Message {
                message: m.clone(),
                self_sent: true,
                backfilled: true,
            },
            InboundEvent::Poke {
                group_id: 1,
                user_id: 2,
                target_id: 3,
                time: 4,
            },
            InboundEvent::MemberLeft {
                group_id: 1,
                user_id: 2,
                operator_id: 3,
                sub_type: "kick".into(),
                time: 4,
            },
            InboundEvent::Connection {
                state: ConnState::Backoff,
                detail: "closed".into(),
            },
            InboundEvent::Unknown {
                post_type: "notice".into(),
                group_id: Some(5),
                time: 6,
                raw: RawJson::from_text("{\"a\":1}"),
            },
            InboundEvent::MessageRecalled {
                chat: ChatRef::Private(10001),
                message_id: 7,
                operator_id: 10001,
                time: 8,
            },
            InboundEvent::Reaction {
                group_id: 1,
                message_id: -2,
                user_id: 3,
                emoji_id: "128077".into(),
                added: false,
                time: 4,
            },
            InboundEvent::Essence {
                group_id: 1,
                message_id: 2,
                sender_id: 3,
                operator_id: 4,
                set: true,
                time: 5,
            },
            InboundEvent::Mute {
                group_id: 1,
                target: MuteTarget::WholeGroup,
                operator_id: 2,
                duration_secs: 0,
                muted: true,
                time: 3,
            },
            InboundEvent::Mute {
                group_id: 1,
                target: MuteTarget::Member(9),
                operator_id: 2,
                duration_secs: 600,
                muted: true,
                time: 3,
            },
            InboundEvent::AdminChanged {
                group_id: 1,
                user_id: 2,
                operator_id: 0,
                set: false,
                time: 3,
            },
            InboundEvent::GroupFileUploaded {
                group_id: 1,
                user_id: 2,
                file_id: "/abc".into(),
                name: "报告.pdf".into(),
                size: 1234,
                time: 3,
            },
            InboundEvent::GroupNameChanged {
                group_id: 1,
                name: "新群名".into(),
                operator_id: 2,
                time: 3,
            },
            InboundEvent::Approval(Box::new(
                onebot_gateway_domain::policy::store::ApprovalRecord {
                    id: "K7Q2M9".into(),
                    account_id: "default".into(),
                    created_ms: 1,
                    expires_ms: 2,
                    state: onebot_gateway_domain::policy::store::ApprovalState::Executed,
                    action: "send,mention_all".into(),
                    chat: "group:1".into(),
                    requester_id: Some(10002),
                    role: "admin".into(),
                    token: None,
                    rule: 0,
                    summary: "@全体成员 开会".into(),
                    payload: String::new(),
                    decided_by: Some("qq:10001".into()),
                    decided_ms: Some(3),
                    result: Some("{\"message_ids\":[5]}".into()),
                    owner_message_ids: vec![9],
                },
            )),
        ];
        for e in events {
            assert_eq!(decode_event(&encode_event(&e)).unwrap(), e);
        }
        assert!(decode_event(b"{\"e\":\"nope\"}").is_err());
    }
}
