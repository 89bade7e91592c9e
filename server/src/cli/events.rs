//! `events`: follows an account's event stream.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use onebot_gateway_client::{Error, pb};

use super::connection::Connection;
use super::history::parse_target;
use super::output::{self, outln};

/// Event kinds accepted by `--kind`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Kind {
    /// Group and private messages.
    Message,
    /// Pokes.
    Poke,
    /// Members joining.
    MemberJoined,
    /// Members leaving.
    MemberLeft,
    /// Group card changes.
    CardChanged,
    /// Lifecycle events of the implementation.
    Lifecycle,
    /// Connection state changes.
    Connection,
    /// Other events.
    Unknown,
    /// Recalled messages.
    MessageRecalled,
    /// Approvals changing state.
    Approval,
    /// Emoji reactions added or removed.
    Reaction,
    /// Messages marked or unmarked as essence.
    Essence,
    /// Mutes of members or the whole group.
    Mute,
    /// Admins set or unset.
    AdminChanged,
    /// Files uploaded to a group's files.
    GroupFileUploaded,
    /// Group name changes.
    GroupNameChanged,
}

impl From<Kind> for pb::EventKind {
    fn from(k: Kind) -> Self {
        match k {
            Kind::Message => pb::EventKind::Message,
            Kind::Poke => pb::EventKind::Poke,
            Kind::MemberJoined => pb::EventKind::MemberJoined,
            Kind::MemberLeft => pb::EventKind::MemberLeft,
            Kind::CardChanged => pb::EventKind::CardChanged,
            Kind::Lifecycle => pb::EventKind::Lifecycle,
            Kind::Connection => pb::EventKind::Connection,
            Kind::Unknown => pb::EventKind::Unknown,
            Kind::MessageRecalled => pb::EventKind::MessageRecalled,
            Kind::Approval => pb::EventKind::Approval,
            Kind::Reaction => pb::EventKind::Reaction,
            Kind::Essence => pb::EventKind::Essence,
            Kind::Mute => pb::EventKind::Mute,
            Kind::AdminChanged => pb::EventKind::AdminChanged,
            Kind::GroupFileUploaded => pb::EventKind::GroupFileUploaded,
            Kind::GroupNameChanged => pb::EventKind::GroupNameChanged,
        }
    }
}

/// Arguments of `events`.
#[derive(Args, Debug)]
pub struct EventsArgs {
    /// Only events of this chat (`group:<id>` / `private:<id>`); repeatable.
    #[arg(long = "chat", value_parser = parse_target)]
    pub chats: Vec<pb::Chat>,
    /// Only events of this kind; repeatable.
    #[arg(long = "kind", value_enum)]
    pub kinds: Vec<Kind>,
    /// Resume: first replay the buffered events after this sequence number.
    #[arg(long)]
    pub after: Option<u64>,
    /// Stop after this many events (default: follow until interrupted).
    #[arg(long)]
    pub count: Option<u64>,
    #[command(flatten)]
    pub conn: Connection,
}

/// Runs `events`.
pub async fn run(args: EventsArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let request = pb::StreamEventsRequest {
        account_id: String::new(),
        chats: args.chats,
        kinds: args
            .kinds
            .into_iter()
            .map(|k| pb::EventKind::from(k) as i32)
            .collect(),
        after_sequence: args.after,
    };
    let mut stream = client.events(request).await?;
    let mut seen = 0u64;
    while args.count.is_none_or(|max| seen < max) {
        let Some(event) = stream.next().await? else {
            break;
        };
        seen += 1;
        if args.conn.json {
            output::print_message(&event)?;
        } else {
            outln!("{}", render(&event));
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn clock(time: Option<&prost_types::Timestamp>) -> String {
    time.and_then(|t| jiff::Timestamp::from_second(t.seconds).ok())
        .map(|t| {
            t.to_zoned_datetime(jiff::tz::TimeZone::system())
                .strftime("%H:%M:%S")
                .to_string()
        })
        .unwrap_or_else(|| "--:--:--".into())
}

fn chat(c: Option<&pb::Chat>) -> String {
    match c.and_then(|c| c.kind.as_ref()) {
        Some(pb::chat::Kind::GroupId(id)) => format!("group:{id}"),
        Some(pb::chat::Kind::UserId(id)) => format!("private:{id}"),
        None => "?".into(),
    }
}

/// What a message line says about the message besides its text: ` (self)`
/// for the bot's own, ` (backfilled)` for one read back after a gap.
fn marks(m: &pb::MessageEvent) -> String {
    let mut out = String::new();
    if m.self_sent {
        out.push_str(" (self)");
    }
    if m.backfilled {
        out.push_str(" (backfilled)");
    }
    out
}

/// One line per event. A message: `#<sequence> <chat> <line>`, the line
/// exactly as the gateway renders it for `history` (`[HH:mm:ss] 名字(QQ号):
/// 文本` in the gateway's time zone; [`marks`] after the chat); from a gateway that sends no line, `#<sequence> [HH:MM:SS] <chat>
/// 名字(QQ号): <text>` in the local time zone. Any other event:
/// `#<sequence> [HH:MM:SS] <what happened>`, local time.
pub fn render(e: &pb::Event) -> String {
    use pb::event::Kind as K;
    if let Some(K::Message(m)) = &e.kind
        && !m.rendered.is_empty()
    {
        let chat = chat(m.message.as_ref().and_then(|msg| msg.chat.as_ref()));
        return format!("#{} {chat}{} {}", e.sequence, marks(m), m.rendered);
    }
    let what = match &e.kind {
        Some(K::Message(m)) => match &m.message {
            Some(msg) => {
                let sender = msg.sender.clone().unwrap_or_default();
                let name = [&sender.card, &sender.nickname]
                    .into_iter()
                    .find(|n| !n.is_empty())
                    .cloned()
                    .unwrap_or_else(|| sender.user_id.to_string());
                format!(
                    "{} {name}({}){}: {}",
                    chat(msg.chat.as_ref()),
                    sender.user_id,
                    marks(m),
                    msg.text
                )
            }
            None => "message".into(),
        },
        Some(K::Poke(p)) => format!(
            "poke in group {}: {} poked {}",
            p.group_id, p.user_id, p.target_id
        ),
        Some(K::MemberJoined(j)) => format!("{} joined group {}", j.user_id, j.group_id),
        Some(K::MemberLeft(l)) => {
            format!("{} left group {} ({})", l.user_id, l.group_id, l.sub_type)
        }
        Some(K::CardChanged(c)) => format!(
            "card of {} in group {}: {:?} -> {:?}",
            c.user_id, c.group_id, c.card_old, c.card_new
        ),
        Some(K::Lifecycle(l)) => format!("lifecycle {}", l.sub_type),
        Some(K::Connection(c)) => {
            let state = pb::ConnectionState::try_from(c.state)
                .map(|s| s.as_str_name())
                .unwrap_or("?");
            format!("connection {state} {}", c.detail)
                .trim_end()
                .to_owned()
        }
        Some(K::Unknown(u)) => format!("{} {}", u.post_type, u.raw_json),
        Some(K::MessageRecalled(r)) => format!(
            "{} message {} recalled by {}",
            chat(r.chat.as_ref()),
            r.message_id,
            r.operator_id
        ),
        Some(K::Approval(a)) => {
            let state = a.state().as_str_name();
            let state = state
                .strip_prefix("APPROVAL_STATE_")
                .unwrap_or(state)
                .to_ascii_lowercase();
            let mut line = format!(
                "approval {} {state}: {} in {}",
                a.approval_id,
                a.actions.join("+"),
                a.target
            );
            if !a.decided_by.is_empty() {
                line.push_str(&format!(" (by {})", a.decided_by));
            }
            line
        }
        Some(K::Reaction(r)) => format!(
            "reaction {} {} by {} on message {} in group {}",
            r.emoji_id,
            if r.added { "added" } else { "removed" },
            r.user_id,
            r.message_id,
            r.group_id
        ),
        Some(K::Essence(e)) => format!(
            "message {} in group {} {} essence by {}",
            e.message_id,
            e.group_id,
            if e.is_set { "marked" } else { "unmarked" },
            e.operator_id
        ),
        Some(K::Mute(m)) => {
            let who = if m.whole_group {
                "the whole group".to_owned()
            } else {
                m.user_id.to_string()
            };
            let what = match (m.muted, m.whole_group) {
                (false, _) => "unmuted".to_owned(),
                (true, true) => "muted".to_owned(),
                (true, false) => format!("muted for {}s", m.duration_secs),
            };
            format!("{who} {what} in group {} by {}", m.group_id, m.operator_id)
        }
        Some(K::AdminChanged(a)) => format!(
            "{} {} admin of group {}",
            a.user_id,
            if a.is_admin { "made" } else { "no longer" },
            a.group_id
        ),
        Some(K::GroupFileUploaded(f)) => format!(
            "{} uploaded {:?} ({} bytes, file id {}) to group {}",
            f.user_id, f.name, f.size, f.file_id, f.group_id
        ),
        Some(K::GroupNameChanged(n)) => {
            format!(
                "group {} renamed to {:?} by {}",
                n.group_id, n.name, n.operator_id
            )
        }
        None => "(empty event)".into(),
    };
    format!("#{} [{}] {what}", e.sequence, clock(e.time.as_ref()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_messages_and_pokes() {
        let message = pb::Event {
            sequence: 7,
            kind: Some(pb::event::Kind::Message(pb::MessageEvent {
                message: Some(pb::ChatMessage {
                    sender: Some(pb::Sender {
                        user_id: 10001,
                        nickname: "张三".into(),
                        ..Default::default()
                    }),
                    text: "大家好".into(),
                    chat: Some(pb::Chat::group(20000003)),
                    ..Default::default()
                }),
                self_sent: false,
                rendered: String::new(),
                backfilled: false,
            })),
            ..Default::default()
        };
        assert_eq!(
            render(&message),
            "#7 [--:--:--] group:20000003 张三(10001): 大家好"
        );
        let poke = pb::Event {
            sequence: 8,
            kind: Some(pb::event::Kind::Poke(pb::PokeEvent {
                group_id: 1,
                user_id: 2,
                target_id: 3,
            })),
            ..Default::default()
        };
        assert_eq!(render(&poke), "#8 [--:--:--] poke in group 1: 2 poked 3");
    }

    #[test]
    fn a_message_prints_the_gateways_line() {
        let event = |self_sent, backfilled| pb::Event {
            sequence: 9,
            time: Some(prost_types::Timestamp {
                seconds: 1_792_375_092,
                nanos: 0,
            }),
            kind: Some(pb::event::Kind::Message(pb::MessageEvent {
                message: Some(pb::ChatMessage {
                    text: "@李四 收到".into(),
                    chat: Some(pb::Chat::group(20000003)),
                    ..Default::default()
                }),
                self_sent,
                rendered: "[09:58:12] 群主张三(10001): [回复 王五: 好]@管理员李四 收到".into(),
                backfilled,
            })),
            ..Default::default()
        };
        assert_eq!(
            render(&event(false, false)),
            "#9 group:20000003 [09:58:12] 群主张三(10001): [回复 王五: 好]@管理员李四 收到"
        );
        assert_eq!(
            render(&event(true, false)),
            "#9 group:20000003 (self) [09:58:12] 群主张三(10001): [回复 王五: 好]@管理员李四 收到"
        );
        assert_eq!(
            render(&event(false, true)),
            "#9 group:20000003 (backfilled) [09:58:12] 群主张三(10001): [回复 王五: 好]@管理员李四 收到"
        );
    }
}
