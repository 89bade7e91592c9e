//! Golden tests: decoded peer objects in, the exact rendered text out.

use jiff::tz::TimeZone;
use serde_json::{Value, json};

use onebot_gateway_config::Locale;
use onebot_gateway_domain::model::{GroupMember, Message, Segment, Sender};
use onebot_gateway_domain::render::*;

use onebot_gateway_domain::model::ChatRef;
use onebot_gateway_onebot::model::{decode_member, decode_message};

fn shanghai() -> TimeZone {
    TimeZone::get("Asia/Shanghai").unwrap()
}

fn msg(v: Value) -> Message {
    decode_message(&v, Some(ChatRef::Group(20000002))).expect("decodable")
}

fn seg_text(segs: Value) -> String {
    segments(&onebot_gateway_onebot::model::segments_of(&segs, None))
}

/// 2026-10-19 09:58:12 in Asia/Shanghai.
const T0: i64 = 1_792_375_092;

#[test]
fn the_seed_example_renders_exactly() {
    let page = vec![
        msg(
            json!({"message_id": 1, "time": T0, "sender": {"user_id": 10001, "nickname": "张三", "card": ""},
            "message": [{"type": "text", "data": {"text": "大家好"}}]}),
        ),
        msg(
            json!({"message_id": 2, "time": T0 + 28, "sender": {"user_id": 10002, "nickname": "李四"},
            "message": [{"type": "text", "data": {"text": "早上好"}},
                        {"type": "image", "data": {"file": "a.jpg", "file_size": "48213"}}]}),
        ),
        msg(
            json!({"message_id": 3, "time": T0 + 113, "sender": {"user_id": 10003, "nickname": "王五"},
            "message": [{"type": "text", "data": {"text": "昨天开会的记录发一下 "}},
                        {"type": "forward", "data": {"id": "7412580369852147963"}}]}),
        ),
    ];
    assert_eq!(
        history(&page, &shanghai()),
        "[09:58:12] 张三(10001): 大家好\n\
         [09:58:40] 李四(10002): 早上好[图片]\n\
         [10:00:05] 王五(10003): 昨天开会的记录发一下 [合并转发]"
    );
}

#[test]
fn every_segment_type() {
    let cases = [
        (json!({"type": "text", "data": {"text": "a b"}}), "a b"),
        (json!({"type": "image", "data": {"file": "x"}}), "[图片]"),
        (json!({"type": "record", "data": {"file": "x"}}), "[语音]"),
        (json!({"type": "face", "data": {"id": "14"}}), "[表情]"),
        (json!({"type": "video", "data": {"file": "x"}}), "[视频]"),
        (json!({"type": "file", "data": {"file": "x"}}), "[文件]"),
        (
            json!({"type": "forward", "data": {"id": "1"}}),
            "[合并转发]",
        ),
        (json!({"type": "at", "data": {"qq": "all"}}), "@全体成员"),
        (json!({"type": "at", "data": {"qq": 10001}}), "@10001"),
        (
            json!({"type": "at", "data": {"qq": "10001", "name": "张三"}}),
            "@张三",
        ),
        (
            json!({"type": "at", "data": {"qq": "10001", "name": ""}}),
            "@10001",
        ),
        (
            json!({"type": "at", "data": {"qq": "10001", "name": "[管理]\n张三"}}),
            "@(管理) 张三",
        ),
        (json!({"type": "at", "data": {"qq": "someone"}}), "@someone"),
        (json!({"type": "reply", "data": {"id": "123"}}), ""),
        (json!({"type": "json", "data": {"data": "{}"}}), "[json]"),
        (json!({"type": "xml", "data": {"data": "<a/>"}}), "[xml]"),
        (
            json!({"type": "poke", "data": {"type": "1", "id": "1"}}),
            "[poke]",
        ),
        (
            json!({"type": "mface", "data": {"summary": "[动画表情]"}}),
            "[mface]",
        ),
        (json!({"type": "markdown", "data": {}}), "[markdown]"),
        (json!({"type": "constructor"}), "[constructor]"),
        (json!({"type": "toString", "data": 5}), "[toString]"),
    ];
    for (seg, want) in cases {
        assert_eq!(seg_text(json!([seg])), want, "{seg}");
    }
}

#[test]
fn segments_join_inline_and_reply_is_omitted() {
    let segs = json!([
        {"type": "reply", "data": {"id": "-5"}},
        {"type": "at", "data": {"qq": 10002, "name": "李四"}},
        {"type": "text", "data": {"text": " 看这个"}},
        {"type": "image", "data": {}},
        {"type": "image", "data": {}},
        {"type": "text", "data": {"text": "！"}},
    ]);
    assert_eq!(seg_text(segs), "@李四 看这个[图片][图片]！");
}

#[test]
fn cq_string_messages_render_the_same() {
    assert_eq!(
        seg_text(json!(
            "[CQ:reply,id=9]早上好[CQ:image,file=a.jpg,url=https://x/?a=1&amp;b=2][CQ:at,qq=all] &#91;x&#93;"
        )),
        "早上好[图片]@全体成员 [x]"
    );
}

#[test]
fn newlines_become_spaces_in_text() {
    assert_eq!(
        seg_text(json!([{"type": "text", "data": {"text": "第一行\n第二行\r\n第三行\r第四行"}}])),
        "第一行 第二行 第三行 第四行"
    );
    let m = msg(
        json!({"message_id": 1, "time": T0, "sender": {"user_id": 1, "card": "a\nb"},
        "message": "x\ny"}),
    );
    assert_eq!(history_line(&m, &shanghai()), "[09:58:12] a b(1): x y");
}

#[test]
fn names_card_then_nickname_then_qq() {
    let line = |sender: Value| {
        history_line(
            &msg(json!({"message_id": 1, "time": T0, "sender": sender, "message": "hi"})),
            &shanghai(),
        )
    };
    assert_eq!(
        line(json!({"user_id": 10001, "nickname": "张三", "card": "群主张三"})),
        "[09:58:12] 群主张三(10001): hi"
    );
    assert_eq!(
        line(json!({"user_id": 10001, "nickname": "张三", "card": ""})),
        "[09:58:12] 张三(10001): hi"
    );
    assert_eq!(
        line(json!({"user_id": 10001, "nickname": "张三", "card": " \n "})),
        "[09:58:12] 张三(10001): hi"
    );
    assert_eq!(
        line(json!({"user_id": 10001})),
        "[09:58:12] 10001(10001): hi"
    );
    assert_eq!(
        line(json!({"user_id": "-42", "nickname": null, "card": null})),
        "[09:58:12] -42(-42): hi"
    );
    assert_eq!(
        line(json!({"user_id": 7, "nickname": "[09:00:00] 假(1): 伪造\n第二行"})),
        "[09:58:12] (09:00:00) 假(1): 伪造 第二行(7): hi"
    );
    // A sender named without a QQ number (a Milky forward node).
    let mut unnumbered = msg(
        json!({"message_id": 1, "time": T0, "sender": {"user_id": 1, "nickname": "张三"}, "message": "hi"}),
    );
    unnumbered.sender.user_id = 0;
    assert_eq!(
        history_line(&unnumbered, &shanghai()),
        "[09:58:12] 张三: hi"
    );
}

#[test]
fn time_zones() {
    let m = msg(json!({"message_id": 1, "time": T0, "sender": {"user_id": 1}, "message": "x"}));
    assert_eq!(history_line(&m, &TimeZone::UTC), "[01:58:12] 1(1): x");
    assert_eq!(history_line(&m, &shanghai()), "[09:58:12] 1(1): x");
    let ny = TimeZone::get("America/New_York").unwrap();
    assert_eq!(history_line(&m, &ny), "[21:58:12] 1(1): x");
    assert_eq!(clock(0, &shanghai()), "08:00:00");
    assert_eq!(clock(i64::MAX, &shanghai()), "--:--:--");
    assert_eq!(clock(i64::MIN, &TimeZone::UTC), "--:--:--");
}

#[test]
fn clock_is_the_zoned_time_of_day() {
    let zones = [
        TimeZone::UTC,
        shanghai(),
        TimeZone::get("America/New_York").unwrap(),
        TimeZone::get("Asia/Kathmandu").unwrap(),
        TimeZone::get("America/St_Johns").unwrap(),
        TimeZone::fixed(jiff::tz::Offset::from_seconds(-(3 * 3600 + 1234)).unwrap()),
    ];
    // Across DST changes, before 1970 and near the ends of the range.
    let mut times = vec![
        -377_705_023_201 + 86_400,
        253_402_207_200 - 86_400,
        -1,
        0,
        1,
    ];
    times.extend((0..2000).map(|i| 1_710_000_000 + i * 7_919));
    times.extend((0..500).map(|i| -2_000_000_000 + i * 9_999_991));
    for tz in &zones {
        for &t in &times {
            let zoned = jiff::Timestamp::from_second(t)
                .unwrap()
                .to_zoned_datetime(tz.clone())
                .strftime("%H:%M:%S")
                .to_string();
            assert_eq!(clock(t, tz), zoned, "{t} in {tz:?}");
        }
    }
}

#[test]
fn empty_history_placeholder() {
    assert_eq!(history(&[], &shanghai()), "（无历史消息）");
}

fn member(v: Value) -> GroupMember {
    decode_member(&v)
}

#[test]
fn member_lines() {
    assert_eq!(
        member_line(&member(
            json!({"user_id": 10001, "nickname": "张三", "card": "群主张三", "role": "owner"})
        )),
        "群主张三(10001) — owner"
    );
    assert_eq!(
        member_line(&member(
            json!({"user_id": 10003, "nickname": "王五", "card": "", "role": "member"})
        )),
        "王五(10003) — member"
    );
    assert_eq!(
        member_line(&member(json!({"user_id": 10004}))),
        "?(10004) — member"
    );
    assert_eq!(
        member_line(&member(json!({"nickname": "x", "role": ""}))),
        "x(?) — member"
    );
    assert_eq!(
        member_line(&member(
            json!({"user_id": "5", "card": "[a]\nb", "role": "admin"})
        )),
        "(a) b(5) — admin"
    );
    assert_eq!(
        member_line(&member(json!({"user_id": 5, "role": "custom_role"}))),
        "?(5) — custom_role"
    );
    assert_eq!(member_line(&member(json!("garbage"))), "?(?) — member");
}

#[test]
fn member_lists_footer_and_placeholder() {
    let all: Vec<GroupMember> = (0..120)
        .map(|i| member(json!({"user_id": 10001 + i, "nickname": format!("成员{i}")})))
        .collect();
    let text = members(&all[..50], 120);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 51);
    assert_eq!(lines[0], "成员0(10001) — member");
    assert_eq!(lines[50], "（仅显示前 50 / 共 120 名成员）");
    let text = members(&all, 120);
    assert_eq!(text.lines().count(), 120);
    assert!(!text.contains("仅显示"));
    assert_eq!(members(&[], 0), "（该群暂无成员信息）");
}

#[test]
fn group_lines() {
    let lines = groups([
        GroupLine {
            group_id: 20000002,
            name: "示例群",
            member_count: 120,
            joined: true,
        },
        GroupLine {
            group_id: 20000009,
            name: "",
            member_count: 0,
            joined: false,
        },
        GroupLine {
            group_id: 3,
            name: "[a]\nb",
            member_count: 0,
            joined: true,
        },
    ]);
    assert_eq!(
        lines,
        "示例群(20000002) — 120 名成员\n?(20000009) — 未加入\n(a) b(3) — 0 名成员"
    );
    assert_eq!(groups([]), "（暂无可用的群）");
}

#[test]
fn replies_show_what_they_quote_in_lines_never_in_text() {
    let quoted = msg(
        json!({"message_id": 1, "time": T0, "sender": {"user_id": 10001, "nickname": "张三", "card": "群主[张三]"},
        "message": [{"type": "text", "data": {"text": "一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十多出来的"}}, {"type": "image", "data": {}}]}),
    );
    let mut reply = msg(
        json!({"message_id": 2, "time": T0 + 5, "sender": {"user_id": 10002, "nickname": "李四"},
        "message": [{"type": "reply", "data": {"id": "1"}}, {"type": "text", "data": {"text": "同意\n+1"}}]}),
    );
    let unresolved = history_line(&reply, &shanghai());
    assert_eq!(unresolved, "[09:58:17] 李四(10002): [回复]同意 +1");
    reply.segments[0] = Segment::Reply {
        id: "1".into(),
        quoted: Some(Box::new(quoted.clone())),
    };
    // Card first, sanitized like a sender; the quoted text cut at 30.
    assert_eq!(
        history_line(&reply, &shanghai()),
        "[09:58:17] 李四(10002): [回复 群主(张三): 一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十…]同意 +1"
    );
    assert_eq!(
        history_line_in(&reply, &shanghai(), Locale::En),
        "[09:58:17] 李四(10002): [reply 群主(张三): 一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十…]同意 +1"
    );
    assert_eq!(segments(&reply.segments), "同意 +1", "text omits replies");
    // A short quote is not cut; an emoji is never split.
    let mut short = quoted;
    short.segments = vec![Segment::Text("👍🏽好".into())];
    assert_eq!(reply_text(&short), "[回复 群主(张三): 👍🏽好]");
    assert_eq!(
        onebot_gateway_domain::render::reply(None, Locale::En),
        "[reply]"
    );
}

fn reply_text(q: &Message) -> String {
    onebot_gateway_domain::render::reply(Some(q), Locale::Zh)
}

/// The straightforward forms of the renderers, for comparison with the
/// allocation-free ones above.
mod reference {
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

    pub fn single_line(text: &str) -> String {
        text.replace("\r\n", " ").replace(['\r', '\n'], " ")
    }
}

#[test]
fn fast_paths_render_exactly_as_the_plain_forms() {
    let pieces = [
        "", " ", "  ", "a", "张三", "[", "]", "\t", "\r", "\n", "\r\n", "\u{3000}", "\u{a0}",
        "\u{2028}", "x y", "ab", "(", "@",
    ];
    let mut inputs = Vec::new();
    for a in pieces {
        for b in pieces {
            for c in pieces {
                inputs.push(format!("{a}{b}{c}"));
            }
        }
    }
    for s in &inputs {
        assert_eq!(sanitize_name(s), reference::sanitize_name(s), "{s:?}");
        assert_eq!(single_line(s), reference::single_line(s), "{s:?}");
        let text = onebot_gateway_domain::model::Segment::Text(s.clone());
        let at = onebot_gateway_domain::model::Segment::At {
            user_id: Some(7),
            all: false,
            name: Some(s.clone()),
        };
        let joined = format!("{s}{s}");
        assert_eq!(
            segments(&[text.clone(), text.clone()]),
            reference::single_line(&joined),
            "{s:?}"
        );
        let name = reference::sanitize_name(s);
        let name = if name.is_empty() {
            "7".to_owned()
        } else {
            name
        };
        assert_eq!(segment(&at), Some(format!("@{name}")), "{s:?}");
    }
}

#[test]
fn display_names_follow_the_sender_rule() {
    assert_eq!(
        display_name("群主张三", "张三").as_deref(),
        Some("群主张三")
    );
    assert_eq!(display_name("", "李四").as_deref(), Some("李四"));
    assert_eq!(display_name(" \n", "李四").as_deref(), Some("李四"));
    assert_eq!(
        display_name("[管理]\r\n 赵六", "x").as_deref(),
        Some("(管理) 赵六")
    );
    assert_eq!(display_name("", "\u{3000}"), None);
    assert_eq!(display_name("", ""), None);
    // A sender's name is the same one, with the number when both are blank.
    let sender = |card: &str, nickname: &str| Sender {
        user_id: 10002,
        nickname: nickname.into(),
        card: card.into(),
        role: String::new(),
    };
    for (card, nickname) in [("卡", "昵称"), ("", "昵称"), ("\n", "[x]"), ("", " ")] {
        assert_eq!(
            sender_name(&sender(card, nickname)),
            display_name(card, nickname).unwrap_or_else(|| "10002".into()),
            "{card:?} {nickname:?}"
        );
    }
}

#[test]
fn a_named_mention_renders_its_name_and_an_unnamed_one_its_number() {
    let at = |name: Option<&str>| Segment::At {
        user_id: Some(10002),
        all: false,
        name: name.map(str::to_owned),
    };
    assert_eq!(
        segment(&at(Some("管理员李四"))).as_deref(),
        Some("@管理员李四")
    );
    assert_eq!(segment(&at(None)).as_deref(), Some("@10002"));
    assert_eq!(segment(&at(Some(" "))).as_deref(), Some("@10002"));
    let all = Segment::At {
        user_id: None,
        all: true,
        name: Some("ignored".into()),
    };
    assert_eq!(segment(&all).as_deref(), Some("@全体成员"));
}
