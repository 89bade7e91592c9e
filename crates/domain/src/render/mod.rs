//! Pure text rendering: history lines, member lines, segment placeholders,
//! in the formats agents and people read:
//!
//! - A message: `[HH:mm:ss] 名字(QQ号): 文本` in a given time zone; name =
//!   card, else nickname, else the QQ number.
//! - Segments: text as is; `image` [图片], `record` [语音], `face` [表情],
//!   `video` [视频], `file` [文件], `forward` [合并转发]; `at` as
//!   `@名字` (`@全体成员` for all): the name the segment carries (the use
//!   cases fill it in, see `crate::mentions`), else the QQ number;
//!   `reply` omitted from a message's `text`; any other type `[<type>]`.
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

use crate::model::{GroupMember, Message, Segment, Sender};
use onebot_gateway_config::Locale;

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
    let mut out = String::with_capacity(name.len());
    push_sanitized(&mut out, name);
    out
}

/// True when [`sanitize_name`] leaves `name` as it is: no brackets, and
/// white space only as single ASCII spaces between other characters.
fn is_clean_name(name: &str) -> bool {
    let mut prev_space = true;
    for c in name.chars() {
        match c {
            '[' | ']' => return false,
            ' ' if prev_space => return false,
            ' ' => prev_space = true,
            c if c.is_whitespace() => return false,
            _ => prev_space = false,
        }
    }
    !prev_space || name.is_empty()
}

/// Appends [`sanitize_name`] of `name` to `out`.
fn push_sanitized(out: &mut String, name: &str) {
    if is_clean_name(name) {
        out.push_str(name);
        return;
    }
    let mut first = true;
    for word in name.split_whitespace() {
        if !first {
            out.push(' ');
        }
        first = false;
        out.extend(word.chars().map(|c| match c {
            '[' => '(',
            ']' => ')',
            c => c,
        }));
    }
}

/// Replaces every line break (`\r\n`, `\r`, `\n`) with one space.
pub fn single_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_single_line(&mut out, text);
    out
}

/// Appends [`single_line`] of `text` to `out`.
fn push_single_line(out: &mut String, text: &str) {
    if !text.contains(['\r', '\n']) {
        out.push_str(text);
        return;
    }
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(' ');
            }
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
}

/// The rendered form of one segment; `None` for segments that render to
/// nothing (`reply`).
pub fn segment(seg: &Segment) -> Option<String> {
    let mut out = String::new();
    push_segment(&mut out, seg).then_some(out)
}

/// Appends the rendered form of `seg` to `out`; false for segments that
/// render to nothing (`reply`).
fn push_segment(out: &mut String, seg: &Segment) -> bool {
    match seg {
        Segment::Text(text) => out.push_str(text),
        Segment::At { all: true, .. } => out.push_str("@全体成员"),
        Segment::At { user_id, name, .. } => {
            out.push('@');
            let start = out.len();
            if let Some(name) = name {
                push_sanitized(out, name);
            }
            if out.len() == start
                && let Some(id) = user_id
            {
                push_int(out, *id);
            }
        }
        Segment::Reply { .. } => return false,
        other => {
            let kind = other.kind();
            match placeholder(kind) {
                Some(p) => out.push_str(p),
                None => {
                    out.push('[');
                    out.push_str(kind);
                    out.push(']');
                }
            }
        }
    }
    true
}

/// The segments as one line of text (the `text` of a message).
pub fn segments(segs: &[Segment]) -> String {
    let mut out = String::new();
    push_segments(&mut out, segs);
    out
}

/// Appends [`segments`] of `segs` to `out`.
fn push_segments(out: &mut String, segs: &[Segment]) {
    push_line_segments(out, segs, None);
}

/// Appends the segments as one line: replies omitted (`replies` `None`)
/// or in their [`reply`] form in that locale.
fn push_line_segments(out: &mut String, segs: &[Segment], replies: Option<Locale>) {
    let start = out.len();
    for seg in segs {
        match (seg, replies) {
            (Segment::Reply { quoted, .. }, Some(locale)) => {
                out.push_str(&reply(quoted.as_deref(), locale));
            }
            _ => {
                push_segment(out, seg);
            }
        }
    }
    // Segments rarely hold line breaks: fold them only when present.
    if out[start..].contains(['\r', '\n']) {
        let folded = single_line(&out[start..]);
        out.truncate(start);
        out.push_str(&folded);
    }
}

fn push_int(out: &mut String, n: i64) {
    use std::fmt::Write as _;
    let _ = write!(out, "{n}");
}

/// Appends the display name of a sender: card, else nickname (sanitized,
/// the first that is not blank), else the QQ number.
fn push_sender_name(out: &mut String, sender: &Sender) {
    let start = out.len();
    push_sanitized(out, &sender.card);
    if out.len() == start {
        push_sanitized(out, &sender.nickname);
    }
    if out.len() == start {
        push_int(out, sender.user_id);
    }
}

/// A person's display name from their group card and nickname: the card,
/// else the nickname (sanitized, the first that is not blank); `None` when
/// both are blank (the caller shows the QQ number).
pub fn display_name(card: &str, nickname: &str) -> Option<String> {
    let mut out = String::new();
    push_sanitized(&mut out, card);
    if out.is_empty() {
        push_sanitized(&mut out, nickname);
    }
    (!out.is_empty()).then_some(out)
}

/// The display name of a sender: card, else nickname (sanitized, the first
/// that is not blank), else the QQ number.
pub fn sender_name(sender: &Sender) -> String {
    let mut out = String::new();
    push_sender_name(&mut out, sender);
    out
}

/// `HH:mm:ss` of Unix seconds in `tz`; `--:--:--` for seconds outside the
/// representable range.
pub fn clock(time: i64, tz: &TimeZone) -> String {
    let mut out = String::with_capacity(8);
    push_clock(&mut out, time, tz);
    out
}

fn push_clock(out: &mut String, time: i64, tz: &TimeZone) {
    match jiff::Timestamp::from_second(time) {
        Ok(ts) => {
            // The local time of day: Unix days are 86400 s long, so it is the
            // offset-shifted seconds modulo a day (as `%H:%M:%S` of the
            // zoned time, without building it for every line).
            let local = time + i64::from(tz.to_offset(ts).seconds());
            let day = local.rem_euclid(86_400);
            let (h, m, s) = (day / 3600, day % 3600 / 60, day % 60);
            for (i, part) in [h, m, s].into_iter().enumerate() {
                if i > 0 {
                    out.push(':');
                }
                out.push(char::from(b'0' + (part / 10) as u8));
                out.push(char::from(b'0' + (part % 10) as u8));
            }
        }
        Err(_) => out.push_str("--:--:--"),
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
    let mut out = String::new();
    push_line_segments(&mut out, segs, Some(locale));
    out
}

/// Appends one history line: `[HH:mm:ss] 名字(QQ号): 文本`.
fn push_history_line(out: &mut String, msg: &Message, tz: &TimeZone, locale: Locale) {
    out.push('[');
    push_clock(out, msg.time, tz);
    out.push_str("] ");
    push_sender_name(out, &msg.sender);
    // A sender the peer names without a QQ number (a Milky forward node)
    // shows no number rather than a wrong one.
    if msg.sender.user_id != 0 {
        out.push('(');
        push_int(out, msg.sender.user_id);
        out.push(')');
    }
    out.push_str(": ");
    push_line_segments(out, &msg.segments, Some(locale));
}

/// One history line: `[HH:mm:ss] 名字(QQ号): 文本` (replies in the Chinese
/// form; `[HH:mm:ss] 名字: 文本` when the sender's QQ number is unknown).
pub fn history_line(msg: &Message, tz: &TimeZone) -> String {
    history_line_in(msg, tz, Locale::Zh)
}

/// One history line with replies in `locale`'s form.
pub fn history_line_in(msg: &Message, tz: &TimeZone, locale: Locale) -> String {
    let mut out = String::new();
    push_history_line(&mut out, msg, tz, locale);
    out
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
    let mut out = String::with_capacity(messages.len() * 48);
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        push_history_line(&mut out, m, tz, locale);
    }
    out
}

/// Appends one member line: `名字(QQ号) — role`.
fn push_member_line(out: &mut String, member: &GroupMember) {
    let start = out.len();
    push_sanitized(out, &member.card);
    if out.len() == start {
        push_sanitized(out, &member.nickname);
    }
    if out.len() == start {
        out.push('?');
    }
    out.push('(');
    match member.user_id {
        Some(id) => push_int(out, id),
        None => out.push('?'),
    }
    out.push_str(") — ");
    // Line breaks are white space too: a blank role stays blank on one line.
    if member.role.trim().is_empty() {
        out.push_str("member");
    } else {
        push_single_line(out, &member.role);
    }
}

/// One member line: `名字(QQ号) — role`.
pub fn member_line(member: &GroupMember) -> String {
    let mut out = String::new();
    push_member_line(&mut out, member);
    out
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
    let mut out = String::with_capacity(shown.len() * 32);
    for (i, m) in shown.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        push_member_line(&mut out, m);
    }
    if total > shown.len() {
        out.push('\n');
        out.push_str(&members_footer(shown.len(), total));
    }
    out
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
