use bytes::Bytes;
use serde_json::json;

use super::*;
use crate::ids::mint_id;
use crate::media::MediaServer;
use onebot_gateway_domain::model::MediaKind;

const ACCOUNT: &str = "acc";

fn media(kind: MediaKind, bytes: &'static [u8]) -> MediaPayload {
    MediaPayload::inline(
        kind,
        "application/octet-stream".into(),
        "x".into(),
        Bytes::from_static(bytes),
    )
}

fn parsed(body: &Body) -> Value {
    let text = body.to_vec();
    assert_eq!(text.len() as u64, body.len());
    serde_json::from_slice(&text).unwrap()
}

/// Every request the adapter sends, by API, as it sends them.
fn every_request() -> Vec<(&'static str, Value)> {
    let group_key = MessageKey {
        scene: Scene::Group,
        peer: 20000003,
        seq: 77,
    };
    let friend_key = MessageKey {
        scene: Scene::Friend,
        peer: 10002,
        seq: 5,
    };
    let quoted = mint_id(ACCOUNT, group_key);
    let image = media(MediaKind::Image, b"\x89PNG....");
    let video = media(MediaKind::Video, b"\0\0\0 ftypmp42");
    let file = media(MediaKind::File, b"hello");
    let segments = [
        OutSegment::Reply(quoted),
        OutSegment::At(10002),
        OutSegment::AtAll,
        OutSegment::Text("你好"),
        OutSegment::Image(&image),
        OutSegment::Video(&video),
    ];
    let b64 = &mut MediaUris::Base64;
    let (group_send, group_body) = send(ACCOUNT, ChatRef::Group(20000003), &segments, b64).unwrap();
    let (private_send, private_body) = send(
        ACCOUNT,
        ChatRef::Private(10002),
        &[OutSegment::Text("hi")],
        b64,
    )
    .unwrap();
    let (group_upload, group_upload_body) =
        upload(ChatRef::Group(20000003), &file, "a \"b\".txt", b64);
    let (private_upload, private_upload_body) =
        upload(ChatRef::Private(10002), &file, "a.txt", b64);
    // The same by one-time URLs (their random tokens written as zeros).
    let (server, _runtime) = media_server();
    let mut http = server.uris();
    let (_, http_send) = send(ACCOUNT, ChatRef::Group(20000003), &segments, &mut http).unwrap();
    let (_, http_private_send) = send(
        ACCOUNT,
        ChatRef::Private(10002),
        &[OutSegment::Image(&image)],
        &mut http,
    )
    .unwrap();
    let (_, http_group_upload) = upload(ChatRef::Group(20000003), &file, "a.txt", &mut http);
    let (_, http_private_upload) = upload(ChatRef::Private(10002), &file, "a.txt", &mut http);
    let (recall_group, recall_group_body) = recall(group_key);
    let (recall_private, recall_private_body) = recall(friend_key);
    vec![
        ("get_login_info", json!({})),
        ("get_impl_info", json!({})),
        (
            "get_history_messages",
            history(Scene::Group, 20000003, None, 30),
        ),
        (
            "get_history_messages",
            history(Scene::Friend, 10002, Some(76), 12),
        ),
        ("get_group_member_list", member_list(20000003, None)),
        ("get_group_member_list", member_list(20000003, Some(true))),
        ("get_group_list", json!({})),
        ("get_message", get_message(group_key)),
        ("get_message", get_message(friend_key)),
        (recall_group, recall_group_body),
        (recall_private, recall_private_body),
        ("get_forwarded_messages", forwarded("fw-1")),
        ("send_group_nudge", group_nudge(20000003, 10002)),
        ("get_resource_temp_url", resource_temp_url("img-1")),
        (
            "get_group_file_download_url",
            group_file_url(20000003, "f-1"),
        ),
        (
            "get_private_file_download_url",
            private_file_url(10002, "f-2", "abc"),
        ),
        (group_send, parsed(&group_body)),
        (private_send, parsed(&private_body)),
        (group_upload, parsed(&group_upload_body)),
        (private_upload, parsed(&private_upload_body)),
        (group_send, zero_tokens(parsed(&http_send))),
        (private_send, zero_tokens(parsed(&http_private_send))),
        (group_upload, zero_tokens(parsed(&http_group_upload))),
        (private_upload, zero_tokens(parsed(&http_private_upload))),
    ]
}

/// A media server whose URLs start with `http://127.0.0.1:8900`, and the
/// runtime it runs on.
fn media_server() -> (MediaServer, tokio::runtime::Runtime) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = {
        let _in = runtime.enter();
        MediaServer::start(
            "127.0.0.1:0".parse().unwrap(),
            Some("http://127.0.0.1:8900/"),
            tokio_util::sync::CancellationToken::new(),
        )
        .unwrap()
    };
    (server, runtime)
}

/// `v` with the token of every one-time URL in it written as 32 zeros.
fn zero_tokens(v: Value) -> Value {
    match v {
        Value::String(s) => match s.split_once("/media/") {
            Some((base, token))
                if token.len() == 32 && token.bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                Value::String(format!("{base}/media/{}", "0".repeat(32)))
            }
            _ => Value::String(s),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(zero_tokens).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, zero_tokens(v))).collect())
        }
        other => other,
    }
}

#[test]
fn one_time_urls_are_named_per_item_and_gone_when_the_request_drops() {
    let (server, _runtime) = media_server();
    let image = media(MediaKind::Image, b"\x89PNG....");
    let mut uris = server.uris();
    let (_, body) = send(
        ACCOUNT,
        ChatRef::Group(20000003),
        &[OutSegment::Image(&image), OutSegment::Image(&image)],
        &mut uris,
    )
    .unwrap();
    let v = parsed(&body);
    let first = v["message"][0]["data"]["uri"].as_str().unwrap();
    let second = v["message"][1]["data"]["uri"].as_str().unwrap();
    assert!(first.starts_with("http://127.0.0.1:8900/media/"), "{first}");
    assert_ne!(first, second, "each item has its own token");
    assert_eq!(server.pending(), 2);
    drop(uris);
    assert_eq!(server.pending(), 0);
}

#[test]
fn requests_have_the_schema_shapes() {
    let all = every_request();
    let b64 = |b: &[u8]| format!("base64://{}", base64_simd::STANDARD.encode_to_string(b));
    let url = format!("http://127.0.0.1:8900/media/{}", "0".repeat(32));
    let expect = [
        json!({"message_scene": "group", "peer_id": 20000003, "limit": 30}),
        json!({"message_scene": "friend", "peer_id": 10002, "limit": 12, "start_message_seq": 76}),
        json!({"group_id": 20000003}),
        json!({"group_id": 20000003, "no_cache": true}),
        json!({}),
        json!({"message_scene": "group", "peer_id": 20000003, "message_seq": 77}),
        json!({"message_scene": "friend", "peer_id": 10002, "message_seq": 5}),
        json!({"group_id": 20000003, "message_seq": 77}),
        json!({"user_id": 10002, "message_seq": 5}),
        json!({"forward_id": "fw-1"}),
        json!({"group_id": 20000003, "user_id": 10002}),
        json!({"resource_id": "img-1"}),
        json!({"group_id": 20000003, "file_id": "f-1"}),
        json!({"user_id": 10002, "file_id": "f-2", "file_hash": "abc"}),
        json!({"group_id": 20000003, "message": [
            {"type": "reply", "data": {"message_seq": 77}},
            {"type": "mention", "data": {"user_id": 10002}},
            {"type": "mention_all", "data": {}},
            {"type": "text", "data": {"text": "你好"}},
            {"type": "image", "data": {"uri": b64(b"\x89PNG...."), "sub_type": "normal"}},
            {"type": "video", "data": {"uri": b64(b"\0\0\0 ftypmp42")}}
        ]}),
        json!({"user_id": 10002, "message": [{"type": "text", "data": {"text": "hi"}}]}),
        json!({"group_id": 20000003, "file_uri": b64(b"hello"), "file_name": "a \"b\".txt"}),
        json!({"user_id": 10002, "file_uri": b64(b"hello"), "file_name": "a.txt"}),
        json!({"group_id": 20000003, "message": [
            {"type": "reply", "data": {"message_seq": 77}},
            {"type": "mention", "data": {"user_id": 10002}},
            {"type": "mention_all", "data": {}},
            {"type": "text", "data": {"text": "你好"}},
            {"type": "image", "data": {"uri": url, "sub_type": "normal"}},
            {"type": "video", "data": {"uri": url}}
        ]}),
        json!({"user_id": 10002, "message": [
            {"type": "image", "data": {"uri": url, "sub_type": "normal"}}
        ]}),
        json!({"group_id": 20000003, "file_uri": url, "file_name": "a.txt"}),
        json!({"user_id": 10002, "file_uri": url, "file_name": "a.txt"}),
    ];
    let got: Vec<&Value> = all.iter().skip(2).map(|(_, v)| v).collect();
    assert_eq!(got, expect.iter().collect::<Vec<_>>());
    assert_eq!(history(Scene::Group, 1, None, 100)["limit"], 30);
    assert_eq!(
        recall(MessageKey {
            scene: Scene::Temp,
            peer: 10005,
            seq: 1
        })
        .0,
        "recall_private_message"
    );
}

#[test]
fn a_quote_of_another_accounts_id_is_not_found() {
    let other = mint_id(
        "other",
        MessageKey {
            scene: Scene::Group,
            peer: 20000003,
            seq: 1,
        },
    );
    let e = send(
        ACCOUNT,
        ChatRef::Group(20000003),
        &[OutSegment::Reply(other)],
        &mut MediaUris::Base64,
    )
    .err()
    .unwrap();
    assert_eq!(e.kind, Kind::MessageNotFound);
}

/// The requests as the schema check reads them
/// (`tests/milky-schema/fixtures/adapter-requests.jsonl`, validated by
/// `node validate.mjs`): the file must hold exactly these;
/// `MILKY_WRITE_FIXTURES=1` writes it.
#[test]
fn the_schema_fixture_holds_every_request() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/milky-schema/fixtures/adapter-requests.jsonl");
    let lines: String = every_request()
        .into_iter()
        .chain(group_action_requests())
        .map(|(api, request)| {
            format!(
                "{}\n",
                json!({"kind": "call", "api": api, "request": request, "response": null})
            )
        })
        .collect();
    if std::env::var_os("MILKY_WRITE_FIXTURES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &lines).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        on_disk,
        lines,
        "run with MILKY_WRITE_FIXTURES=1 to rewrite {}",
        path.display()
    );
}

/// The requests of the group actions, by API, as they are sent (in the
/// schema fixture after [`every_request`]'s).
fn group_action_requests() -> Vec<(&'static str, Value)> {
    let (face, no_type) = reaction_of("76").unwrap();
    let (emoji, emoji_type) = reaction_of("128076").unwrap();
    vec![
        (
            "send_group_message_reaction",
            group_reaction(20000003, 77, &face, no_type, true),
        ),
        (
            "send_group_message_reaction",
            group_reaction(20000003, 77, &emoji, emoji_type, false),
        ),
        (
            "set_group_essence_message",
            group_essence(20000003, 77, true),
        ),
        (
            "set_group_essence_message",
            group_essence(20000003, 77, false),
        ),
        (
            "get_group_essence_messages",
            group_essence_list(20000003, 0, 20),
        ),
        (
            "get_group_essence_messages",
            group_essence_list(20000003, 3, 50),
        ),
        ("get_group_files", group_files(20000003, None)),
        ("get_group_files", group_files(20000003, Some(""))),
        ("get_group_files", group_files(20000003, Some("/folder-1"))),
        ("set_group_member_mute", member_mute(20000003, 10002, 600)),
        ("set_group_member_mute", member_mute(20000003, 10002, 0)),
        ("set_group_whole_mute", whole_mute(20000003, true)),
        ("set_group_whole_mute", whole_mute(20000003, false)),
        ("kick_group_member", kick_member(20000003, 10002, false)),
        ("kick_group_member", kick_member(20000003, 10002, true)),
        (
            "set_group_member_card",
            member_card(20000003, 10002, "三哥"),
        ),
        ("set_group_member_card", member_card(20000003, 10002, "")),
    ]
}

#[test]
fn group_action_requests_have_the_schema_shapes() {
    let expect = [
        (
            "send_group_message_reaction",
            json!({"group_id": 20000003, "message_seq": 77, "reaction": "76", "is_add": true}),
        ),
        (
            "send_group_message_reaction",
            json!({"group_id": 20000003, "message_seq": 77, "reaction": "128076",
                "reaction_type": "emoji", "is_add": false}),
        ),
        (
            "set_group_essence_message",
            json!({"group_id": 20000003, "message_seq": 77, "is_set": true}),
        ),
        (
            "set_group_essence_message",
            json!({"group_id": 20000003, "message_seq": 77, "is_set": false}),
        ),
        (
            "get_group_essence_messages",
            json!({"group_id": 20000003, "page_index": 0, "page_size": 20}),
        ),
        (
            "get_group_essence_messages",
            json!({"group_id": 20000003, "page_index": 3, "page_size": 50}),
        ),
        (
            "get_group_files",
            json!({"group_id": 20000003, "parent_folder_id": "/"}),
        ),
        (
            "get_group_files",
            json!({"group_id": 20000003, "parent_folder_id": "/"}),
        ),
        (
            "get_group_files",
            json!({"group_id": 20000003, "parent_folder_id": "/folder-1"}),
        ),
        (
            "set_group_member_mute",
            json!({"group_id": 20000003, "user_id": 10002, "duration": 600}),
        ),
        (
            "set_group_member_mute",
            json!({"group_id": 20000003, "user_id": 10002, "duration": 0}),
        ),
        (
            "set_group_whole_mute",
            json!({"group_id": 20000003, "is_mute": true}),
        ),
        (
            "set_group_whole_mute",
            json!({"group_id": 20000003, "is_mute": false}),
        ),
        (
            "kick_group_member",
            json!({"group_id": 20000003, "user_id": 10002, "reject_add_request": false}),
        ),
        (
            "kick_group_member",
            json!({"group_id": 20000003, "user_id": 10002, "reject_add_request": true}),
        ),
        (
            "set_group_member_card",
            json!({"group_id": 20000003, "user_id": 10002, "card": "三哥"}),
        ),
        (
            "set_group_member_card",
            json!({"group_id": 20000003, "user_id": 10002, "card": ""}),
        ),
    ];
    let got = group_action_requests();
    assert_eq!(got.len(), expect.len());
    for ((api, request), (want_api, want)) in got.iter().zip(expect.iter()) {
        assert_eq!((*api, request), (*want_api, want));
    }
}

#[test]
fn reaction_ids_are_faces_below_the_first_emoji_code_point() {
    assert_eq!(reaction_of("76"), Some(("76".into(), None)));
    assert_eq!(reaction_of(" 0 "), Some(("0".into(), None)));
    assert_eq!(reaction_of("8251"), Some(("8251".into(), None)));
    assert_eq!(reaction_of("8252"), Some(("8252".into(), Some("emoji"))));
    // ☀ U+2600, a BMP emoji QQ offers as a reaction.
    assert_eq!(reaction_of("9728"), Some(("9728".into(), Some("emoji"))));
    assert_eq!(
        reaction_of("128076"),
        Some(("128076".into(), Some("emoji")))
    );
    // The emoji itself goes as its code point.
    assert_eq!(reaction_of("👌"), Some(("128076".into(), Some("emoji"))));
    assert_eq!(
        reaction_of("❤\u{FE0F}"),
        Some(("10084".into(), Some("emoji")))
    );
    // Not a code point, not one emoji, not an id.
    assert_eq!(reaction_of("55296"), None);
    assert_eq!(reaction_of("1114112"), None);
    assert_eq!(reaction_of("99999999999"), None);
    assert_eq!(reaction_of(""), None);
    assert_eq!(reaction_of("ok"), None);
    assert_eq!(reaction_of("👌👌"), None);
    assert_eq!(reaction_of("-1"), None);
}

#[test]
fn voice_goes_as_a_record_segment_by_uri() {
    let voice = media(MediaKind::Voice, b"#!SILK_V3");
    let (api, body) = send(
        ACCOUNT,
        ChatRef::Group(20000003),
        &[OutSegment::Voice(&voice)],
        &mut MediaUris::Base64,
    )
    .unwrap();
    let uri = format!(
        "base64://{}",
        base64_simd::STANDARD.encode_to_string(b"#!SILK_V3")
    );
    assert_eq!(
        (api, parsed(&body)),
        (
            "send_group_message",
            json!({"group_id": 20000003, "message": [{"type": "record", "data": {"uri": uri}}]})
        )
    );
}
