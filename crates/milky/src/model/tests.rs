use serde_json::json;

use super::*;
use crate::ids::key_of;

fn message(account: &str, v: &Value) -> Option<Message> {
    super::message(account, &v.to_string())
}

fn member(v: &Value) -> GroupMember {
    let mut all = members(Data::from_text(&json!({ "members": [v] }).to_string()));
    assert_eq!(all.len(), 1);
    all.remove(0)
}

fn group(v: &Value) -> Option<GroupInfo> {
    groups(Data::from_text(&json!({ "groups": [v] }).to_string())).pop()
}

fn forwarded(account: &str, v: &Value) -> Message {
    let mut all = forwarded_list(
        account,
        Data::from_text(&json!({ "messages": [v] }).to_string()),
    );
    assert_eq!(all.len(), 1);
    all.remove(0)
}

fn member_entity() -> Value {
    json!({"user_id": 10002, "nickname": "张三", "sex": "male", "group_id": 20000003,
        "card": "三哥", "title": "头衔", "level": 12, "role": "admin",
        "join_time": 1700000000, "last_sent_time": 1700000500, "shut_up_end_time": null})
}

fn group_entity() -> Value {
    json!({"group_id": 20000003, "group_name": "测试群", "member_count": 3,
        "max_member_count": 200, "remark": "", "created_time": 1600000000,
        "description": "", "question": "", "announcement": ""})
}

fn friend_entity() -> Value {
    json!({"user_id": 10002, "nickname": "张三", "sex": "unknown", "qid": "", "remark": "",
        "category": {"category_id": 0, "category_name": "我的好友"}})
}

/// A group message with every incoming segment kind and an inline reply.
fn group_message() -> Value {
    json!({
        "message_scene": "group", "peer_id": 20000003, "message_seq": 77,
        "sender_id": 10002, "time": 1700000100,
        "segments": [
            {"type": "reply", "data": {"message_seq": 70, "sender_id": 10003, "time": 1700000000,
                "segments": [{"type": "text", "data": {"text": "被引用的话"}},
                    {"type": "reply", "data": {"message_seq": 60, "sender_id": 10004, "time": 1, "segments": []}}]}},
            {"type": "mention", "data": {"user_id": 10003, "name": "李四"}},
            {"type": "mention_all", "data": {}},
            {"type": "text", "data": {"text": " 你好"}},
            {"type": "face", "data": {"face_id": "14", "is_large": false}},
            {"type": "image", "data": {"resource_id": "img-1", "temp_url": "https://cdn/i1",
                "width": 10, "height": 20, "summary": "[图片]", "sub_type": "normal"}},
            {"type": "record", "data": {"resource_id": "rec-1", "temp_url": "https://cdn/r1", "duration": 3}},
            {"type": "video", "data": {"resource_id": "vid-1", "temp_url": "https://cdn/v1",
                "width": 1, "height": 1, "duration": 9}},
            {"type": "file", "data": {"file_id": "f-1", "file_name": "a.txt", "file_size": 12}},
            {"type": "forward", "data": {"forward_id": "fw-1", "title": "t", "preview": ["a"], "summary": "s"}},
            {"type": "market_face", "data": {"emoji_package_id": 1, "emoji_id": "e", "key": "k",
                "summary": "[表情]", "url": "https://m"}},
            {"type": "light_app", "data": {"app_name": "a", "json_payload": "{\"app\":1}"}},
            {"type": "xml", "data": {"service_id": 1, "xml_payload": "<a/>"}}
        ],
        "group": group_entity(),
        "group_member": member_entity()
    })
}

#[test]
fn a_group_message_decodes_with_its_sender_segments_and_inline_quote() {
    let m = message("acc", &group_message()).unwrap();
    assert_eq!(m.chat, ChatRef::Group(20000003));
    assert_eq!(m.message_seq, Some(77));
    assert_eq!(m.time, 1700000100);
    let key = key_of("acc", m.message_id).unwrap();
    assert_eq!((key.scene, key.peer, key.seq), (Scene::Group, 20000003, 77));
    assert_eq!(
        m.sender,
        Sender {
            user_id: 10002,
            nickname: "张三".into(),
            card: "三哥".into(),
            role: "admin".into()
        }
    );
    assert_eq!(m.segments.len(), 13);
    let Segment::Reply { id, quoted } = &m.segments[0] else {
        panic!("{:?}", m.segments[0]);
    };
    let q = quoted.as_deref().unwrap();
    assert_eq!(id, &q.message_id.to_string());
    assert_eq!(key_of("acc", q.message_id).unwrap().seq, 70);
    assert_eq!(q.chat, m.chat);
    assert_eq!(q.sender.user_id, 10003);
    assert_eq!(q.segments[0], Segment::Text("被引用的话".into()));
    // One level deep: the quote's own quote stays unresolved.
    assert!(matches!(
        &q.segments[1],
        Segment::Reply { quoted: None, .. }
    ));
    assert_eq!(
        m.segments[1],
        Segment::At {
            user_id: Some(10003),
            all: false,
            name: Some("李四".into())
        }
    );
    assert_eq!(
        m.segments[2],
        Segment::At {
            user_id: None,
            all: true,
            name: None
        }
    );
    assert_eq!(m.segments[3], Segment::Text(" 你好".into()));
    assert_eq!(m.segments[4], Segment::Face { id: "14".into() });
    assert_eq!(
        m.segments[5],
        Segment::Image {
            file: "img-1".into(),
            url: "https://cdn/i1".into(),
            file_size: 0,
            summary: "[图片]".into()
        }
    );
    assert_eq!(
        m.segments[6],
        Segment::Record {
            file: "rec-1".into(),
            url: "https://cdn/r1".into()
        }
    );
    assert_eq!(
        m.segments[7],
        Segment::Video {
            file: "vid-1".into(),
            url: "https://cdn/v1".into()
        }
    );
    assert_eq!(
        m.segments[8],
        Segment::File {
            file: "f-1".into(),
            name: "a.txt".into(),
            file_size: 12,
            url: String::new()
        }
    );
    assert_eq!(m.segments[9], Segment::Forward { id: "fw-1".into() });
    assert!(
        matches!(&m.segments[10], Segment::Unknown { kind, data_json } if kind == "market_face" && data_json.contains("emoji_id"))
    );
    assert_eq!(
        m.segments[11],
        Segment::Json {
            data: "{\"app\":1}".into()
        }
    );
    assert_eq!(
        m.segments[12],
        Segment::Xml {
            data: "<a/>".into()
        }
    );
    assert_eq!(
        serde_json::from_str::<Value>(m.raw.text()).unwrap(),
        group_message()
    );
    // Media keep their index: the raw segment at it is theirs.
    let media = onebot_gateway_domain::model::ReceivedMedia::all(&m);
    assert_eq!(
        media.iter().map(|r| r.index).collect::<Vec<_>>(),
        [5, 6, 7, 8]
    );
}

#[test]
fn friend_and_temp_messages_decode() {
    let friend = json!({"message_scene": "friend", "peer_id": 10002, "message_seq": 5,
        "sender_id": 10002, "time": 1, "segments": [{"type": "text", "data": {"text": "hi"}}],
        "friend": friend_entity()});
    let m = message("acc", &friend).unwrap();
    assert_eq!(m.chat, ChatRef::Private(10002));
    assert_eq!(m.sender.nickname, "张三");
    // The bot's own message in the same chat: the friend entity is not its sender.
    let mut own = friend.clone();
    own["sender_id"] = json!(10001);
    assert_eq!(message("acc", &own).unwrap().sender.nickname, "");
    let temp = json!({"message_scene": "temp", "peer_id": 10005, "message_seq": 2,
        "sender_id": 10005, "time": 1, "segments": [], "group": null});
    let t = message("acc", &temp).unwrap();
    assert_eq!(t.chat, ChatRef::Private(10005));
    assert_eq!(key_of("acc", t.message_id).unwrap().scene, Scene::Temp);
    assert!(
        message(
            "acc",
            &json!({"message_scene": "channel", "peer_id": 1, "message_seq": 1})
        )
        .is_none()
    );
    assert!(message("acc", &json!({"message_scene": "group"})).is_none());
}

#[test]
fn members_groups_and_forwarded_messages_decode() {
    let m = member(&member_entity());
    assert_eq!(m.user_id, Some(10002));
    assert_eq!(
        (
            m.card.as_str(),
            m.role.as_str(),
            m.title.as_str(),
            m.level.as_str()
        ),
        ("三哥", "admin", "头衔", "12")
    );
    assert_eq!(
        (m.join_time, m.last_sent_time),
        (Some(1700000000), Some(1700000500))
    );
    let g = group(&group_entity()).unwrap();
    assert_eq!(
        (
            g.group_id,
            g.group_name.as_str(),
            g.member_count,
            g.max_member_count
        ),
        (20000003, "测试群", 3, 200)
    );
    assert!(group(&json!({"group_name": "x"})).is_none());
    let f = forwarded(
        "acc",
        &json!({"message_seq": 3, "sender_name": "王五",
        "avatar_url": "https://a", "time": 9, "segments": [{"type": "text", "data": {"text": "x"}}]}),
    );
    assert_eq!(
        (f.message_id, f.sender.user_id, f.sender.nickname.as_str()),
        (0, 0, "王五")
    );
    assert_eq!(f.segments, vec![Segment::Text("x".into())]);
}

#[test]
fn quoted_senders_are_named_from_the_page() {
    let quoted_by = |seq: i64, sender: i64| {
        json!({"message_scene": "group", "peer_id": 20000003, "message_seq": seq, "sender_id": sender,
            "time": 1, "segments": [{"type": "reply", "data": {"message_seq": 1, "sender_id": 10002,
                "time": 0, "segments": [{"type": "text", "data": {"text": "x"}}]}}],
            "group": group_entity(), "group_member": member_entity()})
    };
    let mut page = vec![
        message("acc", &quoted_by(2, 10002)).unwrap(),
        message("acc", &quoted_by(3, 10002)).unwrap(),
    ];
    page[1].sender.user_id = 10009;
    name_quotes(&mut page);
    for m in &page {
        let Segment::Reply {
            quoted: Some(q), ..
        } = &m.segments[0]
        else {
            panic!()
        };
        assert_eq!(
            (q.sender.card.as_str(), q.sender.nickname.as_str()),
            ("三哥", "张三")
        );
    }
}

#[test]
fn a_page_decodes_in_order_and_each_message_keeps_its_own_text() {
    let first = group_message();
    let second = json!({"message_scene": "group", "peer_id": 20000003, "message_seq": 78,
        "sender_id": 10003, "time": 1700000200, "segments": [{"data": {"text": "后"}, "type": "text"}]});
    let text = format!(
        r#"{{"messages":[{first}, 7, {second}],"next_message_seq":41,"next_message_seq":40}}"#
    );
    let decoded = page("acc", Data::from_text(&text));
    assert_eq!(
        decoded.next_message_seq,
        Some(40),
        "the last duplicate wins"
    );
    assert_eq!(
        decoded.messages.len(),
        2,
        "an entry that is no message is left out"
    );
    assert_eq!(decoded.messages[0].message_seq, Some(77));
    assert_eq!(
        decoded.messages[1].segments,
        vec![Segment::Text("后".into())]
    );
    assert_eq!(
        serde_json::from_str::<Value>(decoded.messages[0].raw.text()).unwrap(),
        first
    );
    assert_eq!(decoded.messages[1].raw.text(), second.to_string());
    assert!(page("acc", Data::from_text("null")).messages.is_empty());
    assert!(
        page("acc", Data::from_text(r#"{"messages":{}}"#))
            .messages
            .is_empty()
    );
}

#[test]
fn mistyped_fields_read_as_empty() {
    let m = message(
        "acc",
        &json!({"message_scene": "group", "peer_id": 20000003, "message_seq": 5,
            "sender_id": "10002", "time": 1.5, "group_member": [1],
            "segments": [{"type": "text", "data": {"text": 3}}, {"type": 9, "data": "x"}, 4]}),
    )
    .unwrap();
    assert_eq!((m.sender.user_id, m.time), (0, 0));
    assert_eq!(m.sender.nickname, "");
    assert_eq!(m.segments.len(), 3);
    assert_eq!(m.segments[0], Segment::Text(String::new()));
    assert!(
        matches!(&m.segments[1], Segment::Unknown { kind, data_json } if kind.is_empty() && data_json == "{}")
    );
    let quote = message(
        "acc",
        &json!({"message_scene": "group", "peer_id": 1, "message_seq": 2,
            "segments": [{"type": "reply", "data": {"message_seq": 1, "segments": {"x": 1}}}]}),
    )
    .unwrap();
    assert!(matches!(
        &quote.segments[0],
        Segment::Reply { quoted: None, .. }
    ));
}

mod fuzz {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::super::{forwarded_list, groups, members, message_answer, page};
    use crate::api::envelope;

    /// Keys of Milky objects, so generated JSON reaches the decoders' fields.
    const KEYS: &[&str] = &[
        "messages",
        "members",
        "groups",
        "message",
        "next_message_seq",
        "message_scene",
        "peer_id",
        "message_seq",
        "sender_id",
        "sender_name",
        "time",
        "segments",
        "type",
        "data",
        "text",
        "user_id",
        "name",
        "reply",
        "group_member",
        "friend",
        "nickname",
        "card",
        "role",
        "level",
        "group_id",
        "group_name",
        "resource_id",
        "temp_url",
        "file_size",
        "status",
        "retcode",
    ];

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            prop_oneof![any::<i64>(), 0i64..400].prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>()
                .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            proptest::sample::select(vec![
                "group", "friend", "temp", "reply", "text", "image", "mention"
            ])
            .prop_map(|w| Value::String(w.to_string())),
            ".{0,12}".prop_map(Value::String),
        ]
    }

    fn milky_json() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(6, 128, 8, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::vec(
                    (
                        prop_oneof![
                            4 => proptest::sample::select(KEYS).prop_map(str::to_string),
                            1 => "[a-z_]{1,8}",
                        ],
                        inner
                    ),
                    0..8
                )
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    /// An object with `fixed` fields and random others (a fixed key wins).
    fn object_with(
        fixed: impl Strategy<Value = Vec<(&'static str, Value)>>,
    ) -> impl Strategy<Value = Value> {
        (fixed, milky_json()).prop_map(|(fixed, extra)| {
            let mut map = match extra {
                Value::Object(map) => map,
                _ => Map::new(),
            };
            for (k, v) in fixed {
                map.insert(k.to_string(), v);
            }
            Value::Object(map)
        })
    }

    fn segment() -> impl Strategy<Value = Value> {
        let kind = proptest::sample::select(vec![
            "text",
            "mention",
            "mention_all",
            "face",
            "reply",
            "image",
            "record",
            "video",
            "file",
            "forward",
            "light_app",
            "xml",
            "market_face",
        ]);
        object_with((kind, milky_json()).prop_map(|(k, d)| vec![("type", json!(k)), ("data", d)]))
    }

    fn message() -> impl Strategy<Value = Value> {
        let scene = proptest::sample::select(vec!["group", "friend", "temp", "channel"]);
        object_with(
            (
                scene,
                1i64..5_000_000_000,
                0i64..400,
                proptest::collection::vec(segment(), 0..5),
            )
                .prop_map(|(scene, peer, seq, segs)| {
                    vec![
                        ("message_scene", json!(scene)),
                        ("peer_id", json!(peer)),
                        ("message_seq", json!(seq)),
                        ("segments", Value::Array(segs)),
                    ]
                }),
        )
    }

    /// `data` of a list answer: messages, members and groups that decode,
    /// mixed with entries that are anything.
    fn list_data() -> impl Strategy<Value = Value> {
        let entries = |valid: BoxedStrategy<Value>| {
            proptest::collection::vec(prop_oneof![4 => valid, 1 => milky_json()], 0..6)
        };
        let member =
            object_with((10001i64..20000).prop_map(|id| vec![("user_id", json!(id))])).boxed();
        let group =
            object_with((1i64..1_000_000_000).prop_map(|id| vec![("group_id", json!(id))])).boxed();
        (
            entries(message().boxed()),
            entries(member),
            entries(group),
            any::<Option<i64>>(),
        )
            .prop_map(|(messages, members, groups, next)| {
                json!({"messages": messages, "members": members, "groups": groups,
                    "message": messages.first(), "next_message_seq": next})
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any answer decodes without a panic, and every decoded message's
        /// raw JSON is its own entry of the shared text.
        #[test]
        fn any_answer_decodes_and_raw_entries_are_their_own(
            data in prop_oneof![milky_json(), list_data()]
        ) {
            let text = json!({"status": "ok", "retcode": 0, "data": data}).to_string();
            let answer = || envelope(text.as_bytes()).expect("an envelope").data;
            for m in page("acc", answer()).messages {
                let raw: Value = serde_json::from_str(m.raw.text()).expect("raw is JSON");
                prop_assert_eq!(raw.get("message_seq").and_then(Value::as_i64), m.message_seq);
            }
            for m in members(answer()) {
                let raw: Value = serde_json::from_str(m.raw.text()).expect("raw is JSON");
                prop_assert_eq!(raw.get("user_id").and_then(Value::as_i64), m.user_id);
            }
            for g in groups(answer()) {
                let raw: Value = serde_json::from_str(g.raw.text()).expect("raw is JSON");
                prop_assert_eq!(raw.get("group_id").and_then(Value::as_i64), Some(g.group_id));
            }
            forwarded_list("acc", answer());
            message_answer("acc", answer());
            let event = json!({"event_type": "message_receive", "time": 1, "data": data}).to_string();
            prop_assert!(crate::events::decode::decode("acc", 1, &event).is_some());
        }
    }
}

/// A `get_group_essence_messages` answer as the schema has it.
fn essence_answer(is_end: bool) -> Value {
    json!({
        "messages": [
            {"group_id": 20000003, "message_seq": 77, "message_time": 1700000100,
                "sender_id": 10002, "sender_name": "张三", "operator_id": 10003,
                "operator_name": "李四", "operation_time": 1700000200,
                "segments": [
                    {"type": "reply", "data": {"message_seq": 70, "sender_id": 10003,
                        "time": 1700000000, "segments": [{"type": "text", "data": {"text": "q"}}]}},
                    {"type": "text", "data": {"text": "精华"}},
                    {"type": "image", "data": {"resource_id": "img-1", "temp_url": "https://cdn/i1",
                        "width": 1, "height": 1, "summary": "[图片]", "sub_type": "normal"}}
                ]},
            {"group_id": 20000003, "message_seq": 78, "message_time": 1700000300,
                "sender_id": 10004, "sender_name": "王五", "operator_id": 10003,
                "operator_name": "李四", "operation_time": 1700000400, "segments": []}
        ],
        "is_end": is_end
    })
}

#[test]
fn essence_pages_decode_with_ids_minted_as_for_history() {
    let answer = essence_answer(false);
    let page = essence_page("acc", 20000003, Data::from_text(&answer.to_string()));
    assert!(!page.is_end);
    assert_eq!(page.entries.len(), 2);
    let first = &page.entries[0];
    let key = MessageKey {
        scene: Scene::Group,
        peer: 20000003,
        seq: 77,
    };
    assert_eq!(first.message.message_id, mint_id("acc", key));
    assert_eq!(key_of("acc", first.message.message_id), Some(key));
    assert_eq!(first.message.chat, ChatRef::Group(20000003));
    assert_eq!(
        (
            first.message.message_seq,
            first.message.peer_seq,
            first.message.time
        ),
        (Some(77), Some(77), 1700000100)
    );
    assert_eq!(
        (
            first.message.sender.user_id,
            first.message.sender.nickname.as_str()
        ),
        (10002, "张三")
    );
    assert_eq!(
        (
            first.operator_id,
            first.operator_name.as_str(),
            first.operation_time
        ),
        (10003, "李四", 1700000200)
    );
    let quoted = mint_id(
        "acc",
        MessageKey {
            scene: Scene::Group,
            peer: 20000003,
            seq: 70,
        },
    );
    match &first.message.segments[..] {
        [
            Segment::Reply {
                id,
                quoted: Some(q),
            },
            Segment::Text(t),
            Segment::Image { file, url, .. },
        ] => {
            assert_eq!(id, &quoted.to_string());
            assert_eq!(q.segments, vec![Segment::Text("q".into())]);
            assert_eq!(
                (t.as_str(), file.as_str(), url.as_str()),
                ("精华", "img-1", "https://cdn/i1")
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        serde_json::from_str::<Value>(first.message.raw.text()).unwrap(),
        answer["messages"][0]
    );
    let second = &page.entries[1];
    assert_eq!(key_of("acc", second.message.message_id).unwrap().seq, 78);
    assert!(second.message.segments.is_empty());
    assert_eq!(
        serde_json::from_str::<Value>(second.message.raw.text()).unwrap(),
        answer["messages"][1]
    );
    let last = essence_page(
        "acc",
        20000003,
        Data::from_text(&essence_answer(true).to_string()),
    );
    assert!(last.is_end);
    // An entry without its seq names no message: left out.
    let broken = json!({"messages": [{"group_id": 20000003, "sender_id": 1}], "is_end": true});
    let page = essence_page("acc", 20000003, Data::from_text(&broken.to_string()));
    assert!(page.entries.is_empty() && page.is_end);
}

#[test]
fn group_files_decode_under_the_domain_names() {
    let answer = json!({
        "files": [
            {"group_id": 20000003, "file_id": "/f-1", "file_name": "a.txt",
                "parent_folder_id": "/", "file_size": 5, "uploaded_time": 1700000000,
                "expire_time": 1800000000, "uploader_id": 10002, "downloaded_times": 3},
            {"group_id": 20000003, "file_id": "/f-2", "file_name": "b.txt",
                "parent_folder_id": "/", "file_size": 6, "uploaded_time": 1700000001,
                "expire_time": null, "uploader_id": 10003, "downloaded_times": 0},
            {"group_id": 20000003, "file_name": "no id"}
        ],
        "folders": [
            {"group_id": 20000003, "folder_id": "/d-1", "parent_folder_id": "/",
                "folder_name": "资料", "created_time": 1600000000,
                "last_modified_time": 1650000000, "creator_id": 10004, "file_count": 12}
        ]
    });
    let files = group_files(&answer);
    assert_eq!(
        files.files,
        vec![
            GroupFile {
                file_id: "/f-1".into(),
                name: "a.txt".into(),
                size: 5,
                folder_id: "/".into(),
                uploader_id: 10002,
                uploader_name: String::new(),
                upload_time: 1700000000,
                expire_time: 1800000000,
                download_count: 3,
            },
            GroupFile {
                file_id: "/f-2".into(),
                name: "b.txt".into(),
                size: 6,
                folder_id: "/".into(),
                uploader_id: 10003,
                uploader_name: String::new(),
                upload_time: 1700000001,
                expire_time: 0,
                download_count: 0,
            },
        ]
    );
    assert_eq!(
        files.folders,
        vec![GroupFolder {
            folder_id: "/d-1".into(),
            name: "资料".into(),
            creator_id: 10004,
            create_time: 1600000000,
            file_count: 12,
        }]
    );
    assert_eq!(group_files(&json!({})), GroupFiles::default());
}
