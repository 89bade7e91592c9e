//! Pure text rendering: history lines, member lines, segment placeholders,
//! in the formats agents and people read:
//!
//! - A message: `[HH:mm:ss] 名字(QQ号): 文本` in a given time zone; name =
//!   card, else nickname, else the QQ number.
//! - Segments: text as is; `image` [图片], `record` [语音], `face` [表情],
//!   `video` [视频], `file` [文件], `forward` [合并转发]; `at` as
//!   `@<name or QQ>` (`@全体成员` for all); `reply` omitted from a message's
//!   `text`; any other type `[<type>]`.
//! - In a history line a reply shows what it quotes: `[回复 名字: 文本]`
//!   (name by the sender rule below, the quoted text cut to
//!   [`QUOTE_CHARS`] characters and `…`), `[回复]` when the quote is not
//!   resolved; in the `en` locale `[reply 名字: text]` and `[reply]`.
//! - Names become one line (newlines to spaces, runs of white space to one
//!   space, trimmed) and `[`/`]` become `(`/`)`, so a name cannot forge a
//!   line or one of the placeholders. Message text keeps one line: newlines
//!   become spaces.
//! - A member: `名字(QQ号) — role`, name = card, else nickname, else `?`.

use jiff::tz::TimeZone;
use unicode_segmentation::UnicodeSegmentation as _;

use crate::config::Locale;
use crate::domain::model::{GroupMember, Message, Segment, Sender};

/// Longest quoted text in a rendered reply, in characters (graphemes).
pub const QUOTE_CHARS: usize = 30;

/// The text of an empty history page.
pub const NO_HISTORY: &str = "（无历史消息）";

/// The text of a member list without members.
pub const NO_MEMBERS: &str = "（该群暂无成员信息）";

/// The text of a group list without groups.
pub const NO_GROUPS: &str = "（暂无可用的群）";

/// The placeholder of a segment type that has one, if any.
pub fn placeholder(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "image" => "[图片]",
        "record" => "[语音]",
        "face" => "[表情]",
        "video" => "[视频]",
        "file" => "[文件]",
        "forward" => "[合并转发]",
        _ => return None,
    })
}

/// Flattens a display name to one safe line: `\r\n`, `\r` and `\n` become
/// spaces, runs of white space one space, `[`/`]` become `(`/`)`, trimmed.
pub fn sanitize_name(name: &str) -> String {
    let folded: String = name
        .chars()
        .map(|c| match c {
            '[' => '(',
            ']' => ')',
            c => c,
        })
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Replaces every line break (`\r\n`, `\r`, `\n`) with one space.
pub fn single_line(text: &str) -> String {
    text.replace("\r\n", " ").replace(['\r', '\n'], " ")
}

/// The rendered form of one segment; `None` for segments that render to
/// nothing (`reply`).
pub fn segment(seg: &Segment) -> Option<String> {
    Some(match seg {
        Segment::Text(text) => text.clone(),
        Segment::At { all: true, .. } => "@全体成员".to_owned(),
        Segment::At { user_id, name, .. } => {
            let name = name
                .as_deref()
                .map(sanitize_name)
                .filter(|n| !n.is_empty())
                .or_else(|| user_id.map(|id| id.to_string()))
                .unwrap_or_default();
            format!("@{name}")
        }
        Segment::Reply { .. } => return None,
        other => {
            let kind = other.kind();
            match placeholder(kind) {
                Some(p) => p.to_owned(),
                None => format!("[{kind}]"),
            }
        }
    })
}

/// The segments as one line of text (the `text` of a message).
pub fn segments(segs: &[Segment]) -> String {
    single_line(&segs.iter().filter_map(segment).collect::<String>())
}

/// The display name of a sender: card, else nickname (sanitized, the first
/// that is not blank), else the QQ number.
pub fn sender_name(sender: &Sender) -> String {
    [&sender.card, &sender.nickname]
        .into_iter()
        .map(|n| sanitize_name(n))
        .find(|n| !n.is_empty())
        .unwrap_or_else(|| sender.user_id.to_string())
}

/// `HH:mm:ss` of Unix seconds in `tz`; `--:--:--` for seconds outside the
/// representable range.
pub fn clock(time: i64, tz: &TimeZone) -> String {
    match jiff::Timestamp::from_second(time) {
        Ok(ts) => {
            // The local time of day: Unix days are 86400 s long, so it is the
            // offset-shifted seconds modulo a day (as `%H:%M:%S` of the
            // zoned time, without building it for every line).
            let local = time + i64::from(tz.to_offset(ts).seconds());
            let day = local.rem_euclid(86_400);
            format!("{:02}:{:02}:{:02}", day / 3600, day % 3600 / 60, day % 60)
        }
        Err(_) => "--:--:--".to_owned(),
    }
}

/// A reply as a history line shows it: `[回复 名字: 文本]` with the quoted
/// text cut to [`QUOTE_CHARS`] and `…`, `[回复]` unresolved (`reply` in the
/// `en` locale).
pub fn reply(quoted: Option<&Message>, locale: Locale) -> String {
    let word = match locale {
        Locale::Zh => "回复",
        Locale::En => "reply",
    };
    let Some(q) = quoted else {
        return format!("[{word}]");
    };
    let text = segments(&q.segments);
    let text = text.trim();
    let mut cut: String = text.graphemes(true).take(QUOTE_CHARS).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    format!("[{word} {}: {cut}]", sender_name(&q.sender))
}

/// The segments as a history line shows them: like [`segments`], with
/// replies in their [`reply`] form.
pub fn line_text(segs: &[Segment], locale: Locale) -> String {
    let text: String = segs
        .iter()
        .filter_map(|seg| match seg {
            Segment::Reply { quoted, .. } => Some(reply(quoted.as_deref(), locale)),
            other => segment(other),
        })
        .collect();
    single_line(&text)
}

/// One history line: `[HH:mm:ss] 名字(QQ号): 文本` (replies in the Chinese
/// form).
pub fn history_line(msg: &Message, tz: &TimeZone) -> String {
    history_line_in(msg, tz, Locale::Zh)
}

/// One history line with replies in `locale`'s form.
pub fn history_line_in(msg: &Message, tz: &TimeZone, locale: Locale) -> String {
    format!(
        "[{}] {}({}): {}",
        clock(msg.time, tz),
        sender_name(&msg.sender),
        msg.sender.user_id,
        line_text(&msg.segments, locale)
    )
}

/// A history page: one line per message in the given order, joined by
/// `\n`; [`NO_HISTORY`] when empty.
pub fn history(messages: &[Message], tz: &TimeZone) -> String {
    history_in(messages, tz, Locale::Zh)
}

/// [`history`] with replies in `locale`'s form.
pub fn history_in(messages: &[Message], tz: &TimeZone, locale: Locale) -> String {
    if messages.is_empty() {
        return NO_HISTORY.to_owned();
    }
    messages
        .iter()
        .map(|m| history_line_in(m, tz, locale))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One member line: `名字(QQ号) — role`.
pub fn member_line(member: &GroupMember) -> String {
    let name = [&member.card, &member.nickname]
        .into_iter()
        .map(|n| sanitize_name(n))
        .find(|n| !n.is_empty())
        .unwrap_or_else(|| "?".to_owned());
    let qq = member
        .user_id
        .map_or_else(|| "?".to_owned(), |id| id.to_string());
    let role = single_line(&member.role);
    let role = if role.trim().is_empty() {
        "member"
    } else {
        role.as_str()
    };
    format!("{name}({qq}) — {role}")
}

/// The truncation footer: `（仅显示前 <shown> / 共 <total> 名成员）`.
pub fn members_footer(shown: usize, total: usize) -> String {
    format!("（仅显示前 {shown} / 共 {total} 名成员）")
}

/// A member list: one line per shown member, plus [`members_footer`] when
/// `total` exceeds the number shown; [`NO_MEMBERS`] when none is shown.
pub fn members(shown: &[GroupMember], total: usize) -> String {
    if shown.is_empty() {
        return NO_MEMBERS.to_owned();
    }
    let mut lines: Vec<String> = shown.iter().map(member_line).collect();
    if total > shown.len() {
        lines.push(members_footer(shown.len(), total));
    }
    lines.join("\n")
}

/// One group of ListGroups, as rendering needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupLine<'a> {
    /// Group number.
    pub group_id: i64,
    /// Group name (may be empty).
    pub name: &'a str,
    /// Member count, 0 when unknown.
    pub member_count: i64,
    /// True when the peer lists the bot in this group.
    pub joined: bool,
}

/// One group line: `群名(群号) — N 名成员`; `群名` is `?` when the name is
/// blank, and a whitelisted group the bot is not in reads
/// `?(群号) — 未加入`.
pub fn group_line(group: GroupLine<'_>) -> String {
    let name = sanitize_name(group.name);
    let name = if name.is_empty() { "?" } else { name.as_str() };
    if group.joined {
        format!("{name}({}) — {} 名成员", group.group_id, group.member_count)
    } else {
        format!("{name}({}) — 未加入", group.group_id)
    }
}

/// A group list: one line per group; [`NO_GROUPS`] when empty.
pub fn groups<'a>(groups: impl IntoIterator<Item = GroupLine<'a>>) -> String {
    let lines: Vec<String> = groups.into_iter().map(group_line).collect();
    if lines.is_empty() {
        NO_GROUPS.to_owned()
    } else {
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests;
