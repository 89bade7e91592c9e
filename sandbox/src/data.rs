//! Deterministic seed data (same on every start, whatever the flavor; only ids differ).
//!
//! - Group `20000002` 示例群: 120 members in peer order 10001 (张三, card 群主张三, owner),
//!   10002 (李四, card 管理员李四, admin), 10003 (王五, no card), 10004‥10119 (成员N, every third
//!   with a card), then the bot. History: exactly three example messages
//!   (2026-10-19 09:58:12 / 09:58:40 / 10:00:05 Asia/Shanghai), sender records without cards.
//!   Its third message carries the merged-forward bundle [`EXAMPLE_FORWARD`] (three nodes, the
//!   last a nested bundle, [`EXAMPLE_NESTED_FORWARD`]).
//! - Group `20000003` 沙盒群: 36 members, 300 messages cycling through every segment type; every
//!   16th quotes the message before it, every forward is a bundle of two nodes.
//!   Three of them are essence messages ([`SANDBOX_ESSENCE_SEQS`]); its file system has three
//!   files at the root and a folder with one more ([`SANDBOX_GROUP_FILES`], [`SANDBOX_FOLDER`]).
//! - Friends 10001 (48 messages both directions; the bot's answers quote the question, one of
//!   them a message that no longer exists, [`MISSING_QUOTE`]) and 10002 (no messages).

use serde_json::{Value, json};

use crate::media::MediaKind;
use crate::state::{
    ChatRef, Essence, ForwardNode, Friend, Group, GroupFile, GroupFolder, Member, NewMessage, Role,
    Sender, World,
};

/// The example group: three messages and 120 members.
pub const EXAMPLE_GROUP: i64 = 20_000_002;
/// The large paging group.
pub const SANDBOX_GROUP: i64 = 20_000_003;
/// Friend with a long private history.
pub const FRIEND_WITH_HISTORY: i64 = 10_001;
/// Friend with no private history.
pub const FRIEND_WITHOUT_HISTORY: i64 = 10_002;
/// Number of messages seeded in [`SANDBOX_GROUP`].
pub const SANDBOX_GROUP_MESSAGES: usize = 300;
/// Number of messages seeded in the private chat with [`FRIEND_WITH_HISTORY`].
pub const FRIEND_MESSAGES: usize = 48;
/// The forward bundle of the example group's third message.
pub const EXAMPLE_FORWARD: &str = "7412580369852147963";
/// The bundle nested in [`EXAMPLE_FORWARD`].
pub const EXAMPLE_NESTED_FORWARD: &str = "7412580369852147964";
/// A message id the private chat quotes but no flavor has (a quote that cannot be resolved).
pub const MISSING_QUOTE: i64 = 123_456_789;
/// Index (0-based) of the private message quoting [`MISSING_QUOTE`].
const MISSING_QUOTE_AT: usize = 43;

/// The seqs (1-based, in [`SANDBOX_GROUP`]) of the seeded essence messages, newest mark first:
/// #20 (an image, marked by 10001), #19 (a face and text, by 10002), #16 (text, by 10002).
pub const SANDBOX_ESSENCE_SEQS: [i64; 3] = [20, 19, 16];
/// The folder of [`SANDBOX_GROUP`]'s file system: `(folder_id, name)`.
pub const SANDBOX_FOLDER: (&str, &str) = ("/sandbox-folder-1", "资料");
/// The seeded files of [`SANDBOX_GROUP`]: `(file_id, name, size, folder_id)`; `/` is the root.
/// Their bytes are generated (a PDF header, then deterministic filler) at exactly `size`.
pub const SANDBOX_GROUP_FILES: [(&str, &str, u64, &str); 4] = [
    ("/sandbox-gf-1", "活动安排.pdf", 20_480, "/"),
    ("/sandbox-gf-2", "成员名单.pdf", 9_731, "/"),
    ("/sandbox-gf-3", "年度总结.pdf", 131_072, "/"),
    ("/sandbox-gf-4", "群规.pdf", 4_096, "/sandbox-folder-1"),
];

/// Unix seconds of a wall-clock time in Asia/Shanghai (UTC+8, no DST since 1991).
pub fn shanghai_time(y: i64, m: i64, d: i64, hh: i64, mm: i64, ss: i64) -> i64 {
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    days * 86_400 + hh * 3600 + mm * 60 + ss - 8 * 3600
}

/// A member who joined at `join_time`, level 1, no title.
pub(crate) fn member(
    user_id: i64,
    nickname: &str,
    card: &str,
    role: Role,
    join_time: i64,
) -> Member {
    Member {
        user_id,
        nickname: nickname.to_owned(),
        card: card.to_owned(),
        role,
        join_time,
        last_sent_time: join_time,
        level: 1,
        title: String::new(),
        sex: "unknown",
        age: 0,
        shut_up_until: 0,
    }
}

fn core_members(join: i64) -> Vec<Member> {
    vec![
        member(10001, "张三", "群主张三", Role::Owner, join),
        member(10002, "李四", "管理员李四", Role::Admin, join + 60),
        member(10003, "王五", "", Role::Member, join + 120),
    ]
}

fn generated_member(user_id: i64, join: i64) -> Member {
    let n = user_id - 10000;
    let card = if n % 3 == 0 {
        format!("群名片{n}")
    } else {
        String::new()
    };
    let mut m = member(
        user_id,
        &format!("成员{n}"),
        &card,
        Role::Member,
        join + n * 3600,
    );
    m.level = (n % 7) as u32 + 1;
    m.sex = match n % 3 {
        0 => "male",
        1 => "female",
        _ => "unknown",
    };
    m
}

fn text(s: &str) -> Value {
    json!({"type": "text", "data": {"text": s}})
}

fn sender(user_id: i64, nickname: &str, role: Role) -> Sender {
    Sender {
        user_id,
        nickname: nickname.to_owned(),
        card: String::new(),
        role,
    }
}

/// Builds the seeded world.
pub(crate) fn seed(world: &mut World) {
    let join = shanghai_time(2024, 1, 1, 12, 0, 0);
    seed_example_group(world, join);
    seed_example_forwards(world);
    seed_sandbox_group(world, join);
    seed_sandbox_essence(world);
    seed_sandbox_files(world);
    seed_friends(world);
}

/// 沙盒群's essence messages ([`SANDBOX_ESSENCE_SEQS`]), each marked an hour after it was sent.
fn seed_sandbox_essence(world: &mut World) {
    let operators = [10001, 10002, 10002];
    let mut marks: Vec<Essence> = SANDBOX_ESSENCE_SEQS
        .iter()
        .zip(operators)
        .filter_map(|(&seq, operator_id)| {
            let m = world.by_seq(SANDBOX_GROUP, seq)?;
            Some(Essence {
                group_id: SANDBOX_GROUP,
                message_id: m.message_id,
                operator_id,
                time: m.time + 3600,
            })
        })
        .collect();
    // Stored oldest mark first.
    marks.sort_by_key(|e| e.time);
    world.essence.extend(marks);
}

/// 沙盒群's file system ([`SANDBOX_FOLDER`], [`SANDBOX_GROUP_FILES`]), uploaded by 10001 and
/// 10002 on 2026-10-10.
fn seed_sandbox_files(world: &mut World) {
    let t = shanghai_time(2026, 10, 10, 9, 0, 0);
    world.group_folders.push(GroupFolder {
        group_id: SANDBOX_GROUP,
        folder_id: SANDBOX_FOLDER.0.to_owned(),
        name: SANDBOX_FOLDER.1.to_owned(),
        create_time: t,
        creator: 10001,
        creator_name: "张三".to_owned(),
    });
    for (i, (file_id, name, size, folder)) in SANDBOX_GROUP_FILES.iter().enumerate() {
        let (uploader, uploader_name) = if i % 2 == 0 {
            (10001, "张三")
        } else {
            (10002, "李四")
        };
        let key = file_id.trim_start_matches('/').to_owned();
        world
            .files
            .generated(MediaKind::File, &key, Some(file_id), *size as usize);
        world.group_files.push(GroupFile {
            group_id: SANDBOX_GROUP,
            file_id: (*file_id).to_owned(),
            name: (*name).to_owned(),
            size: *size,
            folder_id: (*folder).to_owned(),
            upload_time: t + 600 * (i as i64 + 1),
            uploader,
            uploader_name: uploader_name.to_owned(),
            downloads: i as i64,
            key,
        });
    }
}

/// 示例群: 3 named + 116 generated + the bot = 120 members (joined from
/// `join`), and its three messages.
fn seed_example_group(world: &mut World, join: i64) {
    let self_id = world.self_id;
    let bot_nick = world.nickname.clone();
    let mut members = core_members(join);
    members.extend((10004..=10119).map(|id| generated_member(id, join)));
    members.push(member(self_id, &bot_nick, "", Role::Member, join + 30));
    world.groups.push(Group {
        group_id: EXAMPLE_GROUP,
        name: "示例群".to_owned(),
        max_member_count: 500,
        members,
    });
    let g = ChatRef::Group(EXAMPLE_GROUP);
    world.push(
        g,
        NewMessage {
            time: shanghai_time(2026, 10, 19, 9, 58, 12),
            sender: sender(10001, "张三", Role::Owner),
            segments: vec![text("大家好")],
            self_sent: false,
        },
    );
    world.push(
        g,
        NewMessage {
            time: shanghai_time(2026, 10, 19, 9, 58, 40),
            sender: sender(10002, "李四", Role::Admin),
            segments: vec![
                text("早上好"),
                json!({"type": "image", "data": {
                    "file": "5f3c9a1e0b7d4e2a.jpg",
                    "url": "https://multimedia.nt.qq.com.cn/download?appid=1407&fileid=sandbox-morning",
                    "summary": "",
                    "sub_type": 0,
                    "file_size": "48213"
                }}),
            ],
            self_sent: false,
        },
    );
    world.push(
        g,
        NewMessage {
            time: shanghai_time(2026, 10, 19, 10, 0, 5),
            sender: sender(10003, "王五", Role::Member),
            segments: vec![
                text("昨天开会的记录发一下 "),
                json!({"type": "forward", "data": {"id": EXAMPLE_FORWARD}}),
            ],
            self_sent: false,
        },
    );
}

/// The bundle of the example group's third message and the one nested in it.
fn seed_example_forwards(world: &mut World) {
    let meeting = shanghai_time(2026, 10, 18, 16, 0, 0);
    let node = |user_id: i64, nickname: &str, at: i64, segments: Vec<Value>| ForwardNode {
        user_id,
        nickname: nickname.to_owned(),
        time: meeting + at,
        segments,
    };
    world.forwards.insert(
        EXAMPLE_FORWARD.to_owned(),
        vec![
            node(10001, "张三", 0, vec![text("会议纪要：周五发布 1.2 版")]),
            node(10002, "李四", 30, vec![text("收到，测试周四前完成")]),
            node(
                10003,
                "王五",
                60,
                vec![json!({"type": "forward", "data": {"id": EXAMPLE_NESTED_FORWARD}})],
            ),
        ],
    );
    world.forwards.insert(
        EXAMPLE_NESTED_FORWARD.to_owned(),
        vec![
            node(10003, "王五", 90, vec![text("上次会议的遗留问题：")]),
            node(10003, "王五", 95, vec![text("1. 登录偶尔超时")]),
        ],
    );
}

/// 沙盒群: 3 named + the bot + 32 generated = 36 members (joined from
/// `join`), its messages and their forward bundles.
fn seed_sandbox_group(world: &mut World, join: i64) {
    let self_id = world.self_id;
    let bot_nick = world.nickname.clone();
    let mut members = core_members(join);
    members.push(member(self_id, &bot_nick, "沙盒", Role::Admin, join + 30));
    members.extend((10004..=10035).map(|id| generated_member(id, join)));
    let speakers: Vec<Sender> = members
        .iter()
        .take(12)
        .map(|m| Sender {
            user_id: m.user_id,
            nickname: m.nickname.clone(),
            card: m.card.clone(),
            role: m.role,
        })
        .collect();
    world.groups.push(Group {
        group_id: SANDBOX_GROUP,
        name: "沙盒群".to_owned(),
        max_member_count: 200,
        members,
    });
    let g = ChatRef::Group(SANDBOX_GROUP);
    let base = shanghai_time(2026, 10, 18, 8, 0, 0);
    let mut time = base;
    let mut prev_id = 0;
    for i in 0..SANDBOX_GROUP_MESSAGES {
        // Distinct increasing times, except every 50th message shares its predecessor's second.
        if i > 0 && i % 50 != 49 {
            time += 37 + (i as i64 % 5) * 11;
        }
        let sender = speakers[i % speakers.len()].clone();
        let segments = sandbox_segments(i + 1, prev_id);
        if (i + 1) % 16 == 9 {
            let a = &speakers[(i + 1) % speakers.len()];
            let b = &speakers[(i + 2) % speakers.len()];
            world.forwards.insert(
                format!("sandbox-forward-{}", i + 1),
                vec![
                    ForwardNode {
                        user_id: a.user_id,
                        nickname: a.nickname.clone(),
                        time: time - 600,
                        segments: vec![text(&format!("转发内容 {} 之一", i + 1))],
                    },
                    ForwardNode {
                        user_id: b.user_id,
                        nickname: b.nickname.clone(),
                        time: time - 540,
                        segments: vec![text(&format!("转发内容 {} 之二", i + 1))],
                    },
                ],
            );
        }
        let self_sent = sender.user_id == self_id;
        prev_id = world
            .push(
                g,
                NewMessage {
                    time,
                    sender,
                    segments,
                    self_sent,
                },
            )
            .message_id;
    }
}

/// The two friends and the private history with the first.
fn seed_friends(world: &mut World) {
    let self_id = world.self_id;
    let bot_nick = world.nickname.clone();
    world.friends.push(Friend {
        user_id: FRIEND_WITH_HISTORY,
        nickname: "张三".to_owned(),
        remark: "老张".to_owned(),
    });
    world.friends.push(Friend {
        user_id: FRIEND_WITHOUT_HISTORY,
        nickname: "李四".to_owned(),
        remark: String::new(),
    });
    let p = ChatRef::Private(FRIEND_WITH_HISTORY);
    let base = shanghai_time(2026, 10, 17, 20, 0, 0);
    let mut prev_id = 0;
    for i in 0..FRIEND_MESSAGES {
        let from_friend = i % 2 == 0;
        let n = i + 1;
        let segments = match i % 6 {
            // The bot's answers quote the question before them.
            1 => {
                let quoted = if i == MISSING_QUOTE_AT {
                    MISSING_QUOTE
                } else {
                    prev_id
                };
                vec![
                    json!({"type": "reply", "data": {"id": quoted.to_string()}}),
                    text(&format!("在的，这是第{n}条回复")),
                ]
            }
            3 => vec![
                text(&format!("私聊图片 {n}")),
                json!({"type": "image", "data": {
                    "file": format!("private{n}.jpg"),
                    "url": format!("https://multimedia.nt.qq.com.cn/download?appid=1406&fileid=private{n}"),
                    "summary": "",
                    "sub_type": 0
                }}),
            ],
            5 => vec![json!({"type": "face", "data": {"id": "14"}})],
            _ if from_friend => vec![text(&format!("在吗？第{n}条"))],
            _ => vec![text(&format!("在的，这是第{n}条回复"))],
        };
        let sender = if from_friend {
            sender(FRIEND_WITH_HISTORY, "张三", Role::Member)
        } else {
            sender(self_id, &bot_nick, Role::Member)
        };
        prev_id = world
            .push(
                p,
                NewMessage {
                    time: base + i as i64 * 90,
                    sender,
                    segments,
                    self_sent: !from_friend,
                },
            )
            .message_id;
    }
}

/// Segments of the `n`-th (1-based) message of 沙盒群; `prev_id` is the previous message's id.
fn sandbox_segments(n: usize, prev_id: i64) -> Vec<Value> {
    match n % 16 {
        0 => vec![text(&format!("第{n}条消息"))],
        1 => vec![
            json!({"type": "at", "data": {"qq": "10002"}}),
            text(&format!(" 看一下第{n}条")),
        ],
        2 => vec![
            json!({"type": "at", "data": {"qq": "all"}}),
            text(&format!(" 通知 {n}")),
        ],
        3 => vec![
            json!({"type": "face", "data": {"id": "178"}}),
            text(&format!("表情 {n}")),
        ],
        4 => vec![json!({"type": "image", "data": {
            "file": format!("sandbox{n}.jpg"),
            "url": format!("https://multimedia.nt.qq.com.cn/download?appid=1407&fileid=sandbox{n}"),
            "summary": "",
            "sub_type": 0,
            "file_size": (10_000 + n * 37).to_string()
        }})],
        5 => vec![json!({"type": "record", "data": {
            "file": format!("voice{n}.amr"),
            "url": format!("https://grouptalk.c2c.qq.com/sandbox/voice{n}.amr"),
            "file_size": (3_000 + n).to_string()
        }})],
        6 => vec![json!({"type": "video", "data": {
            "file": format!("video{n}.mp4"),
            "url": format!("https://multimedia.nt.qq.com.cn/download?appid=1415&fileid=video{n}"),
            "file_size": (1_000_000 + n).to_string()
        }})],
        7 => vec![json!({"type": "file", "data": {
            "file": format!("会议纪要{n}.pdf"),
            "name": format!("会议纪要{n}.pdf"),
            "file_id": format!("/sandbox-file-{n}"),
            "file_size": (200_000 + n).to_string()
        }})],
        8 => vec![
            json!({"type": "reply", "data": {"id": prev_id.to_string()}}),
            text(&format!("回复上一条 {n}")),
        ],
        9 => vec![json!({"type": "forward", "data": {"id": format!("sandbox-forward-{n}")}})],
        10 => vec![json!({"type": "json", "data": {
            "data": format!(
                "{{\"app\":\"com.tencent.miniapp_01\",\"prompt\":\"[QQ小程序]沙盒{n}\",\"ver\":\"1.0.0.19\"}}"
            )
        }})],
        11 => vec![json!({"type": "xml", "data": {
            "data": format!("<?xml version='1.0' encoding='UTF-8'?><msg serviceID=\"1\" brief=\"沙盒{n}\"></msg>")
        }})],
        12 => {
            vec![json!({"type": "poke", "data": {"type": "126", "id": "2003", "name": "戳一戳"}})]
        }
        13 => vec![json!({"type": "mface", "data": {
            "emoji_package_id": 235125,
            "emoji_id": format!("sandbox{n}"),
            "key": "0123456789abcdef",
            "summary": "[沙盒表情]"
        }})],
        14 => vec![json!({"type": "markdown", "data": {"content": format!("# 标题 {n}\n正文")}})],
        _ => vec![text(&format!("特殊字符 [方括号] & 逗号, 第{n}条\n第二行"))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flavor::Flavor;

    #[test]
    fn seed_times_are_shanghai() {
        // 2026-10-19T09:58:12+08:00 == 2026-10-19T01:58:12Z.
        assert_eq!(shanghai_time(2026, 10, 19, 9, 58, 12), 1_792_375_092);
        assert_eq!(shanghai_time(1970, 1, 1, 8, 0, 0), 0);
    }

    #[test]
    fn seed_shape() {
        let mut w = World::new(Flavor::NapCat, 3_889_000_000, "沙盒机器人".into());
        seed(&mut w);
        let g = w.group(EXAMPLE_GROUP).unwrap();
        assert_eq!(g.members.len(), 120);
        assert_eq!(g.members[0].user_id, 10001);
        let g = w.group(SANDBOX_GROUP).unwrap();
        assert_eq!(g.members.len(), 36);
        let c = w.chat(ChatRef::Group(SANDBOX_GROUP)).unwrap();
        assert_eq!(c.messages.len(), 300);
        assert!(c.messages.windows(2).all(|p| p[0].time <= p[1].time));
        let c = w.chat(ChatRef::Private(FRIEND_WITH_HISTORY)).unwrap();
        assert_eq!(c.messages.len(), FRIEND_MESSAGES);
        // The quotes: the question before, except one that cannot be resolved.
        let quoted = |m: &crate::state::Stored| {
            m.segments[0]["data"]["id"]
                .as_str()
                .and_then(|id| id.parse::<i64>().ok())
        };
        assert_eq!(quoted(&c.messages[1]), Some(c.messages[0].message_id));
        assert_eq!(quoted(&c.messages[MISSING_QUOTE_AT]), Some(MISSING_QUOTE));
        assert!(w.forwards.contains_key(EXAMPLE_FORWARD));
        assert!(w.forwards.contains_key("sandbox-forward-9"));
    }

    #[test]
    fn the_missing_quote_is_missing_in_every_flavor() {
        for flavor in Flavor::ALL {
            let mut w = World::new(flavor, 3_889_000_000, "沙盒机器人".into());
            seed(&mut w);
            assert!(w.find(MISSING_QUOTE).is_none(), "{flavor}");
        }
    }
}
