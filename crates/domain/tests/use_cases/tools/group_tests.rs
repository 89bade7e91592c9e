//! The group-action tools over the fake peer: qq_react, qq_set_essence,
//! qq_list_essence, qq_list_group_files, qq_get_group_file, qq_mute,
//! qq_kick, qq_set_card, and voices in qq_send. Each: its schema's
//! strictness, a success with what reached the peer, and failure texts
//! with nothing sent.

use serde_json::{Value, json};

use super::*;
use onebot_gateway_config::{Approval, PolicyRule};
use onebot_gateway_domain::model::{
    EssenceEntry, GroupFile, GroupFiles, GroupFolder, GroupMember, Segment, Sender,
};
use onebot_gateway_testkit::{FileServer, member, png, sample};

/// The bot's QQ number in these tests.
const BOT: i64 = 10_200;

/// The example group's members (张三 owner, 李四 admin, 王五 ...) with the
/// bot in `role`; the fake's self id is the bot.
fn with_bot(fake: &Fake, role: &'static str) {
    fake.update_status(|s| s.self_id = BOT);
    fake.set_members_by(move |group_id| {
        if group_id != GROUP {
            return Vec::new();
        }
        let mut members: Vec<GroupMember> = decode_members(seed_members());
        members.push(member(BOT, role));
        members
    });
}

fn rules(actions: &[&str], approval: Approval) -> impl FnOnce(&mut Config) {
    let actions: Vec<String> = actions.iter().map(|s| s.to_string()).collect();
    move |c: &mut Config| {
        c.policy.owners = vec![9_001];
        c.policy.rules = vec![PolicyRule {
            actions,
            chats: Vec::new(),
            allow_requesters: None,
            approval,
        }];
    }
}

fn schema_accepts(tool: ToolName, args: Value) -> bool {
    let validator = jsonschema::draft202012::new(&ToolSpec::of(tool).input_schema).unwrap();
    validator.is_valid(&args)
}

#[test]
fn group_tool_schemas_say_what_the_tools_take() {
    let cases: &[(ToolName, Value, bool)] = &[
        (
            ToolName::React,
            json!({"messageId": 101, "emojiId": "76"}),
            true,
        ),
        (
            ToolName::React,
            json!({"messageId": "-5", "emojiId": 128077, "remove": true}),
            true,
        ),
        (ToolName::React, json!({"messageId": 101}), false),
        (
            ToolName::React,
            json!({"messageId": 0, "emojiId": "76"}),
            false,
        ),
        (
            ToolName::React,
            json!({"messageId": 1, "emojiId": "76", "groupId": 1}),
            false,
        ),
        (
            ToolName::SetEssence,
            json!({"messageId": 101, "remove": false}),
            true,
        ),
        (ToolName::SetEssence, json!({"remove": true}), false),
        (ToolName::ListEssence, json!({}), true),
        (
            ToolName::ListEssence,
            json!({"groupId": "20000002", "pageSize": 5, "pageToken": "e1.5"}),
            true,
        ),
        (ToolName::ListEssence, json!({"pageSize": "5"}), false),
        (ToolName::ListEssence, json!({"userId": 1}), false),
        (
            ToolName::ListGroupFiles,
            json!({"target": "group:1", "folderId": "/a"}),
            true,
        ),
        (ToolName::ListGroupFiles, json!({"fileId": "x"}), false),
        (
            ToolName::GetGroupFile,
            json!({"fileId": "abc", "groupId": 1}),
            true,
        ),
        (ToolName::GetGroupFile, json!({"groupId": 1}), false),
        (ToolName::GetGroupFile, json!({"fileId": ""}), false),
        (
            ToolName::Mute,
            json!({"userId": 10003, "durationSecs": 600}),
            true,
        ),
        (ToolName::Mute, json!({"all": true}), true),
        (
            ToolName::Mute,
            json!({"userId": 10003, "durationSecs": 2_592_001}),
            false,
        ),
        (
            ToolName::Mute,
            json!({"userId": 10003, "durationSecs": -1}),
            false,
        ),
        (ToolName::Mute, json!({"all": "yes"}), false),
        (
            ToolName::Kick,
            json!({"userId": "10003", "rejectRejoin": true}),
            true,
        ),
        (ToolName::Kick, json!({"rejectRejoin": true}), false),
        (
            ToolName::SetCard,
            json!({"userId": 10003, "card": ""}),
            true,
        ),
        (ToolName::SetCard, json!({"userId": 10003}), false),
        (ToolName::Send, json!({"voices": ["media:abc"]}), true),
        (
            ToolName::Send,
            json!({"voices": ["media:a", "media:b"]}),
            false,
        ),
    ];
    for (tool, args, valid) in cases {
        assert_eq!(
            schema_accepts(*tool, args.clone()),
            *valid,
            "{tool:?} {args}"
        );
    }
    // The hints: the group writes may remove or overwrite; the listings
    // only read.
    for tool in [
        ToolName::React,
        ToolName::SetEssence,
        ToolName::Mute,
        ToolName::Kick,
        ToolName::SetCard,
    ] {
        let spec = ToolSpec::of(tool);
        assert!(
            !spec.read_only && spec.destructive && spec.deletes,
            "{tool:?}"
        );
        assert!(spec.open_world, "{tool:?}");
        assert!(
            spec.description.contains("pending_approval"),
            "{tool:?}: the held shape is described"
        );
    }
    assert!(!ToolSpec::of(ToolName::Mute).idempotent);
    assert!(ToolSpec::of(ToolName::Kick).idempotent);
    for tool in [
        ToolName::ListEssence,
        ToolName::ListGroupFiles,
        ToolName::GetGroupFile,
    ] {
        let spec = ToolSpec::of(tool);
        assert!(
            spec.read_only && !spec.deletes && spec.idempotent,
            "{tool:?}"
        );
    }
}

#[tokio::test]
async fn qq_react_adds_and_removes_a_reaction() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let out = call(&gw, "qq_react", r#"{"messageId":101,"emojiId":76}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.details,
        json!({"status": "ok", "messageId": 101, "groupId": GROUP, "emojiId": "76", "removed": false})
    );
    assert_eq!(out.text, "已对群 20000002 的消息 101 添加表情回应 76。");
    let out = call(
        &gw,
        "qq_react",
        r#"{"messageId":"101","emojiId":" 128077 ","remove":true}"#,
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        fake.take_calls(),
        [
            Call::GetMessage { message_id: 101 },
            Call::React {
                group_id: GROUP,
                message_id: 101,
                emoji_id: "76".into(),
                add: true
            },
            Call::GetMessage { message_id: 101 },
            Call::React {
                group_id: GROUP,
                message_id: 101,
                emoji_id: "128077".into(),
                add: false
            },
        ]
    );
    for (args, text) in [
        (r#"{"messageId":101}"#, "参数不合法：缺少必填参数 emojiId。"),
        (
            r#"{"emojiId":"76"}"#,
            "参数不合法：缺少必填参数 messageId。",
        ),
        (
            r#"{"messageId":101,"emojiId":"  "}"#,
            "参数不合法：缺少必填参数 emojiId。",
        ),
        (
            r#"{"messageId":101,"emojiId":true}"#,
            "参数不合法：emojiId 必须是字符串。",
        ),
        (
            r#"{"messageId":101,"emojiId":"76","groupId":20000002}"#,
            "参数不合法：qq_react 不接受参数 groupId。它接受的参数：accountId、emojiId、messageId、onBehalfOf、remove。",
        ),
    ] {
        assert_failed(&call(&gw, "qq_react", args).await, text, args);
    }
    assert_eq!(fake.calls(), vec![], "nothing reached the peer");
    // A private message is no group message: read, then refused.
    let out = call(&gw, "qq_react", r#"{"messageId":-7,"emojiId":"76"}"#).await;
    assert!(out.is_error, "{out:?}");
    assert!(
        out.text.starts_with("参数不合法（message_id）："),
        "{}",
        out.text
    );
    assert_eq!(fake.take_calls(), [Call::GetMessage { message_id: -7 }]);
    // An implementation without reactions says so.
    fake.set_unsupported("react");
    let out = call(&gw, "qq_react", r#"{"messageId":101,"emojiId":"76"}"#).await;
    assert_failed(
        &out,
        "napcat 不支持 react，未执行任何操作。请换一种方式（例如回复文字）。",
        "unsupported",
    );
    assert!(fake.group_actions().is_empty());
}

#[tokio::test]
async fn qq_set_essence_needs_an_admin_bot() {
    let fake = Fake::new();
    with_bot(&fake, "member");
    let gw = gateway(&fake);
    let out = call(&gw, "qq_set_essence", r#"{"messageId":102}"#).await;
    assert_failed(
        &out,
        "机器人在群 20000002 的身份是 member，此操作需要 admin，未执行。请让群主给机器人相应权限，或请群管理员自己操作。",
        "member bot",
    );
    assert!(fake.group_actions().is_empty(), "nothing reached the peer");
    with_bot(&fake, "admin");
    let out = call(&gw, "qq_set_essence", r#"{"messageId":102}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.details,
        json!({"status": "ok", "messageId": 102, "groupId": GROUP, "removed": false})
    );
    assert_eq!(out.text, "已将群 20000002 的消息 102 设为精华。");
    let en = gateway_with(&fake, |c| c.tools.locale = Locale::En);
    let out = call(&en, "qq_set_essence", r#"{"messageId":102,"remove":true}"#).await;
    assert_eq!(
        out.text,
        "removed message 102 in group 20000002 from the essence messages."
    );
    assert_eq!(
        fake.group_actions(),
        [
            Call::Essence {
                group_id: GROUP,
                message_id: 102,
                set: true
            },
            Call::Essence {
                group_id: GROUP,
                message_id: 102,
                set: false
            }
        ]
    );
}

fn essence_entry(id: i64, hms: &str, text: &str) -> EssenceEntry {
    EssenceEntry {
        message: onebot_gateway_domain::model::Message {
            message_id: id,
            message_seq: None,
            peer_seq: None,
            time: if hms.is_empty() { 0 } else { shanghai(hms) },
            sender: Sender {
                user_id: 10003,
                nickname: "王五".into(),
                ..Sender::default()
            },
            segments: if text.is_empty() {
                Vec::new()
            } else {
                vec![Segment::Text(text.into())]
            },
            chat: ChatRef::Group(GROUP),
            raw: Default::default(),
        },
        operator_id: 10002,
        operator_name: "李四".into(),
        operation_time: shanghai("12:00:00"),
    }
}

#[tokio::test]
async fn qq_list_essence_renders_entries_and_pages() {
    let fake = Fake::new();
    fake.set_essence(vec![
        essence_entry(101, "09:58:12", "大家好"),
        essence_entry(0, "", ""),
        essence_entry(103, "10:00:05", "会议纪要"),
    ]);
    let gw = gateway(&fake);
    let out = call(&gw, "qq_list_essence", r#"{"pageSize":2}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.text,
        "[09:58:12] 王五(10003): 大家好 （设精：李四(10002)）\n王五(10003): （内容未提供） （设精：李四(10002)）\n（还有更多精华消息：pageToken = e1.2）"
    );
    assert_eq!(out.details["count"], 2);
    assert_eq!(out.details["nextPageToken"], "e1.2");
    assert_eq!(
        out.details["entries"][0],
        json!({
            "message": {"messageId": 101, "time": "2026-10-19T09:58:12+08:00", "sender": {"userId": 10003}, "text": "大家好"},
            "operatorId": 10002,
            "operatorName": "李四",
            "operationTime": "2026-10-19T12:00:00+08:00"
        })
    );
    assert_eq!(out.details["senders"][0]["nickname"], "王五");
    let out = call(
        &gw,
        "qq_list_essence",
        r#"{"groupId":20000002,"pageToken":"e1.2"}"#,
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.text,
        "[10:00:05] 王五(10003): 会议纪要 （设精：李四(10002)）"
    );
    assert_eq!(out.details.get("nextPageToken"), None);
    let asked: Vec<Call> = fake
        .take_calls()
        .into_iter()
        .filter(|c| matches!(c, Call::ListEssence { .. }))
        .collect();
    assert_eq!(
        asked,
        [
            Call::ListEssence {
                group_id: GROUP,
                page: 0,
                page_size: 2
            },
            Call::ListEssence {
                group_id: GROUP,
                page: 1,
                page_size: 2
            }
        ]
    );
    // Empty, a foreign token, a private chat, a group not whitelisted.
    fake.set_essence(Vec::new());
    let out = call(&gw, "qq_list_essence", "{}").await;
    assert_eq!(out.text, "（该群暂无精华消息）");
    fake.take_calls();
    for (args, text) in [
        (
            r#"{"pageToken":"f2.50"}"#,
            "参数不合法（page_token）：page_token is not a next_page_token of this listing: pass it back unchanged, or leave it empty for the first page",
        ),
        (
            r#"{"target":"private:10001"}"#,
            "参数不合法：private:10001 是私聊，qq_list_essence 只适用于群，请用 group:<群号>。",
        ),
        (
            r#"{"groupId":123}"#,
            "群 123 不在账号「default」的白名单中。",
        ),
    ] {
        assert_failed(&call(&gw, "qq_list_essence", args).await, text, args);
    }
    assert_eq!(fake.calls(), vec![], "nothing reached the peer");
}

fn folder(id: &str, name: &str, count: i64) -> GroupFolder {
    GroupFolder {
        folder_id: id.into(),
        name: name.into(),
        file_count: count,
        ..GroupFolder::default()
    }
}

fn group_file(id: &str, name: &str, size: u64) -> GroupFile {
    GroupFile {
        file_id: id.into(),
        name: name.into(),
        size,
        uploader_id: 10002,
        upload_time: shanghai("09:00:00"),
        ..GroupFile::default()
    }
}

#[tokio::test]
async fn qq_list_group_files_lists_folders_then_files() {
    let fake = Fake::new();
    fake.set_group_files(
        None,
        GroupFiles {
            folders: vec![folder("/f1", "资料", 2)],
            files: vec![
                group_file("a1", "议程.txt", 12),
                group_file("a2", "照片.png", 2048),
            ],
        },
    );
    let gw = gateway(&fake);
    let out = call(&gw, "qq_list_group_files", r#"{"pageSize":2}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.text,
        "[文件夹] 资料（folderId /f1，2 个文件）\n[文件] 议程.txt（fileId a1，12 字节，上传者 10002，2026-10-19 09:00 上传）\n（还有更多：pageToken = f2.2.8a5edab2）"
    );
    assert_eq!(
        out.details["folders"],
        json!([{"folderId": "/f1", "name": "资料", "fileCount": 2}])
    );
    assert_eq!(
        out.details["files"],
        json!([{"fileId": "a1", "name": "议程.txt", "size": 12, "uploaderId": 10002, "uploadTime": "2026-10-19T09:00:00+08:00"}])
    );
    let out = call(
        &gw,
        "qq_list_group_files",
        r#"{"pageToken":"f2.2.8a5edab2","folderId":"/"}"#,
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.details["files"][0]["fileId"], "a2");
    assert_eq!(out.details["folders"], json!([]));
    let out = call(&gw, "qq_list_group_files", r#"{"folderId":"/f1"}"#).await;
    assert_eq!(out.text, "（该文件夹为空）");
    let listed: Vec<Call> = fake
        .take_calls()
        .into_iter()
        .filter(|c| matches!(c, Call::ListFiles { .. }))
        .collect();
    assert_eq!(
        listed,
        [
            Call::ListFiles {
                group_id: GROUP,
                folder_id: None
            },
            Call::ListFiles {
                group_id: GROUP,
                folder_id: None
            },
            Call::ListFiles {
                group_id: GROUP,
                folder_id: Some("/f1".into())
            },
        ]
    );
    let out = call(&gw, "qq_list_group_files", r#"{"pageToken":"e1.20"}"#).await;
    assert!(
        out.is_error && out.text.starts_with("参数不合法（page_token）"),
        "{out:?}"
    );
    fake.set_unsupported("list_group_files");
    let out = call(&gw, "qq_list_group_files", "{}").await;
    assert_failed(
        &out,
        "napcat 不支持 list_group_files，未执行任何操作。请换一种方式（例如回复文字）。",
        "unsupported",
    );
}

#[tokio::test]
async fn qq_get_group_file_gives_text_images_and_summaries() {
    let fake = Fake::new();
    let notes = "第一行\nsecond line\n".repeat(3).into_bytes();
    let picture = png(4096);
    let video = sample("mp4", 3000);
    let long = "长".repeat(30_000).into_bytes();
    let server = FileServer::start(vec![
        ("/notes.txt".into(), notes.clone()),
        ("/p.png".into(), picture.clone()),
        ("/v.mp4".into(), video.clone()),
        ("/long.txt".into(), long.clone()),
    ])
    .await;
    for (id, path) in [
        ("t1", "/notes.txt"),
        ("i1", "/p.png"),
        ("v1", "/v.mp4"),
        ("l1", "/long.txt"),
        ("gone", "/missing"),
    ] {
        fake.set_file_url(id, &server.url(path));
    }
    let gw = gateway_with(&fake, |c| {
        c.media.allow_private_urls = true;
        c.media.peer_url_hosts.push("127.0.0.1".into());
    });
    // A text file: its text after the line.
    let out = call(&gw, "qq_get_group_file", r#"{"fileId":"t1"}"#).await;
    assert!(!out.is_error, "{out:?}");
    let text = String::from_utf8(notes.clone()).unwrap();
    assert_eq!(
        out.text,
        format!(
            "[文件] 群文件 t1：text/plain; charset=utf-8，{} 字节，文件名 notes.txt\n\n{text}",
            notes.len()
        )
    );
    assert_eq!(out.details["content"], "text");
    assert_eq!(out.details["truncated"], false);
    assert_eq!(out.details["groupId"], GROUP);
    assert_eq!(
        out.details["sha256"],
        onebot_gateway_testkit::sha_hex(&notes)
    );
    assert_eq!(out.images().count(), 0);
    // An image: image content with exactly its bytes.
    let out = call(
        &gw,
        "qq_get_group_file",
        r#"{"fileId":"i1","groupId":20000002}"#,
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.details["content"], "image");
    let images: Vec<_> = out.images().collect();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].0, "image/png");
    assert_eq!(images[0].1.as_ref(), picture.as_slice());
    // Anything else: the line only.
    let out = call(&gw, "qq_get_group_file", r#"{"fileId":"v1"}"#).await;
    assert_eq!(
        out.text,
        format!(
            "[文件] 群文件 v1：video/mp4，{} 字节，文件名 v.mp4",
            video.len()
        )
    );
    assert_eq!(out.details["content"], "summary");
    assert_eq!(out.images().count(), 0);
    // Long text is cut at 64 KiB on a character boundary, and says so.
    let out = call(&gw, "qq_get_group_file", r#"{"fileId":"l1"}"#).await;
    assert_eq!(out.details["truncated"], true);
    assert!(
        out.text.contains("（文本过长，仅显示前 64 KiB）"),
        "{}",
        &out.text[..200]
    );
    let body = out.text.split_once("\n\n").unwrap().1;
    assert!(body.len() <= 64 * 1024 && body.chars().all(|c| c == '长'));
    assert_eq!(server.hits(), 4);
    // An unknown file, a file whose link is dead, no fileId.
    let out = call(&gw, "qq_get_group_file", r#"{"fileId":"nope"}"#).await;
    assert!(out.is_error, "{out:?}");
    let out = call(&gw, "qq_get_group_file", r#"{"fileId":"gone"}"#).await;
    assert!(out.is_error, "{out:?}");
    fake.take_calls();
    assert_failed(
        &call(&gw, "qq_get_group_file", r#"{"groupId":20000002}"#).await,
        "参数不合法：缺少必填参数 fileId。",
        "no fileId",
    );
    assert_failed(
        &call(&gw, "qq_get_group_file", r#"{"fileId":"t1","userId":1}"#).await,
        "参数不合法：qq_get_group_file 不接受参数 userId。它接受的参数：accountId、fileId、groupId、target。",
        "userId",
    );
    assert_eq!(fake.calls(), vec![]);
}

#[tokio::test]
async fn qq_mute_members_and_the_whole_group() {
    let fake = Fake::new();
    with_bot(&fake, "admin");
    // Without a rule, moderation is refused, naming what the operator adds.
    let off = gateway(&fake);
    let out = call(&off, "qq_mute", r#"{"userId":10003,"durationSecs":60}"#).await;
    assert_failed(
        &out,
        "mute 属于群管理操作，没有任何策略规则允许它，未执行。需要运营者在 [[policy.rules]] 中加入 actions = [\"mute\"] 的规则。",
        "no rule",
    );
    assert!(fake.group_actions().is_empty());
    let gw = gateway_with(&fake, rules(&["mute", "mute_all"], Approval::None));
    let out = call(&gw, "qq_mute", r#"{"userId":"10003","durationSecs":600}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.details,
        json!({"status": "ok", "groupId": GROUP, "userId": 10003, "durationSecs": 600})
    );
    assert_eq!(out.text, "已在群 20000002 禁言 10003 600 秒。");
    let out = call(&gw, "qq_mute", r#"{"userId":10003,"durationSecs":0}"#).await;
    assert_eq!(out.text, "已解除群 20000002 中 10003 的禁言。");
    let out = call(&gw, "qq_mute", r#"{"all":true,"groupId":20000002}"#).await;
    assert_eq!(
        out.details,
        json!({"status": "ok", "groupId": GROUP, "all": true})
    );
    assert_eq!(out.text, "已开启群 20000002 的全员禁言。");
    let out = call(&gw, "qq_mute", r#"{"all":false}"#).await;
    assert_eq!(out.text, "已关闭群 20000002 的全员禁言。");
    assert_eq!(
        fake.group_actions(),
        [
            Call::Mute {
                group_id: GROUP,
                user_id: 10003,
                duration_secs: 600
            },
            Call::Mute {
                group_id: GROUP,
                user_id: 10003,
                duration_secs: 0
            },
            Call::MuteAll {
                group_id: GROUP,
                enable: true
            },
            Call::MuteAll {
                group_id: GROUP,
                enable: false
            },
        ]
    );
    fake.take_calls();
    for (args, text) in [
        ("{}", "参数不合法：缺少必填参数 userId。"),
        (
            r#"{"userId":10003}"#,
            "参数不合法：缺少必填参数 durationSecs。",
        ),
        (
            r#"{"userId":10003,"all":true}"#,
            "参数不合法：userId 和 all 只能给一个。",
        ),
        (
            r#"{"all":true,"durationSecs":60}"#,
            "参数不合法：all 和 durationSecs 只能给一个。",
        ),
        (
            r#"{"all":"yes"}"#,
            "参数不合法：all 必须是布尔值（true 或 false）。",
        ),
        (
            r#"{"userId":10003,"durationSecs":1.5}"#,
            "参数不合法：durationSecs 必须是数字或数字字符串。",
        ),
        (
            r#"{"userId":10003,"durationSecs":2592001}"#,
            "参数不合法（duration_secs）：duration_secs must be 0 (lift) to 2592000 (30 days, the platform's limit), got 2592001",
        ),
        (
            r#"{"userId":10003,"durationSecs":60,"target":"private:10003"}"#,
            "参数不合法：private:10003 是私聊，qq_mute 只适用于群，请用 group:<群号>。",
        ),
    ] {
        assert_failed(&call(&gw, "qq_mute", args).await, text, args);
    }
    assert_eq!(fake.calls(), vec![], "nothing reached the peer");
    // The owner and the bot are protected; an admin needs an owner bot.
    for (user, text) in [
        (
            "10001",
            "不能对 10001 执行此操作（the group's owner），未执行。",
        ),
        (
            "10200",
            "不能对 10200 执行此操作（the bot itself），未执行。",
        ),
        (
            "10002",
            "机器人在群 20000002 的身份是 admin，此操作需要 owner，未执行。请让群主给机器人相应权限，或请群管理员自己操作。",
        ),
    ] {
        let args = format!(r#"{{"userId":{user},"durationSecs":60}}"#);
        assert_failed(&call(&gw, "qq_mute", &args).await, text, &args);
    }
    assert!(fake.group_actions().is_empty());
}

#[tokio::test]
async fn qq_kick_and_qq_set_card() {
    let fake = Fake::new();
    with_bot(&fake, "admin");
    let gw = gateway_with(&fake, rules(&["kick", "set_card"], Approval::None));
    let out = call(&gw, "qq_kick", r#"{"userId":10003,"rejectRejoin":true}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.details,
        json!({"status": "ok", "groupId": GROUP, "userId": 10003, "rejectRejoin": true})
    );
    assert_eq!(out.text, "已将 10003 移出群 20000002，并拒绝其再次加群。");
    let out = call(&gw, "qq_set_card", r#"{"userId":10004,"card":"新人"}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.text, "已将 10004 在群 20000002 的群名片设为「新人」。");
    let out = call(&gw, "qq_set_card", r#"{"userId":10004,"card":""}"#).await;
    assert_eq!(out.details["card"], "");
    assert_eq!(
        fake.group_actions(),
        [
            Call::Kick {
                group_id: GROUP,
                user_id: 10003,
                reject_rejoin: true
            },
            Call::SetCard {
                group_id: GROUP,
                user_id: 10004,
                card: "新人".into()
            },
            Call::SetCard {
                group_id: GROUP,
                user_id: 10004,
                card: String::new()
            },
        ]
    );
    fake.take_calls();
    let long = "名".repeat(21);
    for (tool, args, text) in [
        ("qq_kick", r#"{}"#.to_owned(), "参数不合法：缺少必填参数 userId。".to_owned()),
        (
            "qq_kick",
            r#"{"userId":10001}"#.to_owned(),
            "不能对 10001 执行此操作（the group's owner），未执行。".to_owned(),
        ),
        ("qq_set_card", r#"{"userId":10004}"#.to_owned(), "参数不合法：缺少必填参数 card。".to_owned()),
        (
            "qq_set_card",
            format!(r#"{{"userId":10004,"card":"{long}"}}"#),
            "参数不合法（card）：card is 63 bytes; the platform allows at most 60 bytes of UTF-8".to_owned(),
        ),
        (
            "qq_set_card",
            r#"{"userId":10004,"card":"x","nick":"y"}"#.to_owned(),
            "参数不合法：qq_set_card 不接受参数 nick。它接受的参数：accountId、card、groupId、onBehalfOf、target、userId。".to_owned(),
        ),
    ] {
        assert_failed(&call(&gw, tool, &args).await, &text, &args);
    }
    assert!(fake.group_actions().is_empty(), "nothing reached the peer");
    // A bot that is a plain member is refused before QQ is asked.
    with_bot(&fake, "member");
    let out = call(&gw, "qq_kick", r#"{"userId":10003}"#).await;
    assert_failed(
        &out,
        "机器人在群 20000002 的身份是 member，此操作需要 admin，未执行。请让群主给机器人相应权限，或请群管理员自己操作。",
        "member bot",
    );
    assert!(fake.group_actions().is_empty());
}

#[tokio::test]
async fn a_held_moderation_tool_returns_the_pending_approval_shape() {
    let fake = Fake::new();
    with_bot(&fake, "admin");
    let gw = gateway_with(&fake, rules(&["kick"], Approval::BotOwner));
    let out = call(
        &gw,
        "qq_kick",
        r#"{"userId":10003,"onBehalfOf":{"userId":10002}}"#,
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.details["status"], "pending_approval", "{out:?}");
    assert_eq!(out.details["actions"], json!(["kick"]));
    let id = out.details["approvalId"].as_str().unwrap().to_owned();
    assert!(
        out.text.contains(&id) && out.text.contains("qq_get_approval"),
        "{}",
        out.text
    );
    assert!(fake.group_actions().is_empty(), "held: nothing sent");
    // Approved, it runs once.
    gw.decide_approval(&id, true, "api").await.unwrap();
    let out = call(
        &gw,
        "qq_get_approval",
        &format!(r#"{{"approvalId":"{id}"}}"#),
    )
    .await;
    assert_eq!(out.details["state"], "executed", "{out:?}");
    assert_eq!(
        fake.group_actions(),
        [Call::Kick {
            group_id: GROUP,
            user_id: 10003,
            reject_rejoin: false
        }]
    );
}

#[tokio::test]
async fn qq_send_sends_a_voice() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let voice = sample("mp3", 1024);
    let path = gw.dir.path().join("media").join("hello.mp3");
    std::fs::write(&path, &voice).unwrap();
    let args = json!({"voices": [path.to_str().unwrap()]}).to_string();
    let out = call(&gw, "qq_send", &args).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.details["media"],
        json!({"images": 0, "videos": 0, "voices": 1, "file": ""})
    );
    assert!(out.text.contains("语音 1 条"), "{}", out.text);
    let calls = fake.take_calls();
    let [Call::Send { group_id, message }] = calls.as_slice() else {
        panic!("one group send: {calls:?}");
    };
    assert_eq!(*group_id, GROUP);
    assert_eq!(message[0]["type"], "record", "{message}");
    // Two voices, or a voice that is no audio, are refused; nothing sent.
    let two = json!({"voices": ["media:a", "media:b"]}).to_string();
    let out = call(&gw, "qq_send", &two).await;
    assert_failed(
        &out,
        "参数不合法（voices）：2 voices; at most 1",
        "two voices",
    );
    let picture = gw.dir.path().join("media").join("p.png");
    std::fs::write(&picture, png(512)).unwrap();
    let out = call(
        &gw,
        "qq_send",
        &json!({"voices": [picture.to_str().unwrap()]}).to_string(),
    )
    .await;
    assert!(out.is_error, "{out:?}");
    assert_eq!(fake.calls(), vec![]);
}
