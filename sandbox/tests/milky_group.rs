//! The Milky face's group actions and their events: reactions, essence (paged), group files
//! (byte-exact downloads), mutes, kicks, cards, voice sends, and the user-side control
//! endpoints; a recorded session through the schema validator.

mod milky_common;

use base64::Engine as _;
use milky_common::*;
use onebot_sandbox::{
    EXAMPLE_GROUP, MediaKind, SANDBOX_ESSENCE_SEQS, SANDBOX_FOLDER, SANDBOX_GROUP,
    SANDBOX_GROUP_FILES, Sandbox, SandboxConfig, sample_media,
};
use serde_json::{Value, json};

async fn control(sb: &Sandbox, endpoint: &str, body: Value) -> Value {
    let answer: Value = reqwest::Client::new()
        .post(format!("{}/{endpoint}", sb.milky_url()))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer
}

/// Asserts that no event was pushed since the last one read: a message injected now is next.
async fn no_event(sb: &Sandbox, sse: &mut Sse) {
    sb.control()
        .inject_group_message(SANDBOX_GROUP, 10003, json!("sentinel"));
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "message_receive", "unexpected event {ev}");
}

#[tokio::test]
async fn reactions_and_essence() {
    let sb = start().await;
    let mut sse = Sse::open(&sb).await;
    sb.control().wait_connections(1).await;
    let self_id = sb.control().config().self_id;
    let g = SANDBOX_GROUP;
    ok(
        &sb,
        "send_group_message_reaction",
        json!({"group_id": g, "message_seq": 16, "reaction": "76"}),
    )
    .await;
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "group_message_reaction");
    assert_eq!(
        ev["data"],
        json!({"group_id": g, "user_id": self_id, "message_seq": 16, "face_id": "76",
               "reaction_type": "face", "is_add": true})
    );
    ok(
        &sb,
        "send_group_message_reaction",
        json!({"group_id": g, "message_seq": 16, "reaction": "76", "is_add": false}),
    )
    .await;
    assert_eq!(sse.next().await["data"]["is_add"], false);
    failed(
        &sb,
        "send_group_message_reaction",
        json!({"group_id": g, "message_seq": 9999, "reaction": "76"}),
        -404,
    )
    .await;

    // Essence: three seeded, paged newest first.
    let page = ok(
        &sb,
        "get_group_essence_messages",
        json!({"group_id": g, "page_index": 0, "page_size": 2}),
    )
    .await;
    assert_eq!(page["is_end"], false);
    let msgs = page["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0]["message_seq"], SANDBOX_ESSENCE_SEQS[0]);
    assert_eq!(msgs[0]["operator_id"], 10001);
    assert_eq!(msgs[0]["operator_name"], "群主张三");
    assert_eq!(msgs[0]["segments"][0]["type"], "image");
    assert!(msgs[0]["operation_time"].as_i64() > msgs[0]["message_time"].as_i64());
    let page = ok(
        &sb,
        "get_group_essence_messages",
        json!({"group_id": g, "page_index": 1, "page_size": 2}),
    )
    .await;
    assert_eq!(page["is_end"], true);
    assert_eq!(page["messages"][0]["message_seq"], SANDBOX_ESSENCE_SEQS[2]);
    assert_eq!(
        page["messages"][0]["segments"][0]["data"]["text"],
        "第16条消息"
    );

    ok(
        &sb,
        "set_group_essence_message",
        json!({"group_id": g, "message_seq": 1}),
    )
    .await;
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "group_essence_message_change");
    assert_eq!(
        ev["data"],
        json!({"group_id": g, "message_seq": 1, "operator_id": self_id, "is_set": true})
    );
    let page = ok(
        &sb,
        "get_group_essence_messages",
        json!({"group_id": g, "page_index": 0, "page_size": 10}),
    )
    .await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 4);
    assert_eq!(page["messages"][0]["message_seq"], 1);
    ok(
        &sb,
        "set_group_essence_message",
        json!({"group_id": g, "message_seq": 1, "is_set": false}),
    )
    .await;
    assert_eq!(sse.next().await["data"]["is_set"], false);
    // The bot is no admin in 示例群.
    failed(
        &sb,
        "set_group_essence_message",
        json!({"group_id": EXAMPLE_GROUP, "message_seq": 1}),
        -406,
    )
    .await;
    no_event(&sb, &mut sse).await;
}

#[tokio::test]
async fn group_files_download_byte_exact() {
    let sb = start().await;
    let g = SANDBOX_GROUP;
    let root = ok(&sb, "get_group_files", json!({"group_id": g})).await;
    let files = root["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["file_id"], SANDBOX_GROUP_FILES[0].0);
    assert_eq!(files[0]["file_name"], SANDBOX_GROUP_FILES[0].1);
    assert_eq!(files[0]["file_size"], SANDBOX_GROUP_FILES[0].2);
    assert_eq!(files[0]["parent_folder_id"], "/");
    assert_eq!(files[0]["uploader_id"], 10001);
    let folder = &root["folders"][0];
    assert_eq!(folder["folder_id"], SANDBOX_FOLDER.0);
    assert_eq!(folder["folder_name"], SANDBOX_FOLDER.1);
    assert_eq!(folder["file_count"], 1);
    let inner = ok(
        &sb,
        "get_group_files",
        json!({"group_id": g, "parent_folder_id": SANDBOX_FOLDER.0}),
    )
    .await;
    assert_eq!(inner["files"][0]["file_id"], SANDBOX_GROUP_FILES[3].0);
    assert_eq!(inner["folders"], json!([]));
    failed(
        &sb,
        "get_group_files",
        json!({"group_id": g, "parent_folder_id": "/nope"}),
        -404,
    )
    .await;
    for (file_id, _, size, _) in SANDBOX_GROUP_FILES {
        let u = ok(
            &sb,
            "get_group_file_download_url",
            json!({"group_id": g, "file_id": file_id}),
        )
        .await;
        let (status, bytes) = download(u["download_url"].as_str().unwrap()).await;
        assert_eq!(status, 200);
        assert_eq!(bytes, sample_media(MediaKind::File, size as usize));
    }
    failed(
        &sb,
        "get_group_file_download_url",
        json!({"group_id": g, "file_id": "/nope"}),
        -404,
    )
    .await;
    // The bot's upload joins the list.
    let bytes: Vec<u8> = (0..=255u8).rev().cycle().take(4_321).collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let up = ok(
        &sb,
        "upload_group_file",
        json!({"group_id": g, "file_uri": format!("base64://{b64}"), "file_name": "新文件.bin",
               "parent_folder_id": SANDBOX_FOLDER.0}),
    )
    .await;
    let inner = ok(
        &sb,
        "get_group_files",
        json!({"group_id": g, "parent_folder_id": SANDBOX_FOLDER.0}),
    )
    .await;
    assert_eq!(inner["files"][1]["file_id"], up["file_id"]);
    assert_eq!(inner["files"][1]["file_size"], 4_321);
    let u = ok(
        &sb,
        "get_group_file_download_url",
        json!({"group_id": g, "file_id": up["file_id"]}),
    )
    .await;
    assert_eq!(
        download(u["download_url"].as_str().unwrap()).await,
        (200, bytes)
    );
}

#[tokio::test]
async fn moderation_and_its_events() {
    let sb = start().await;
    let mut sse = Sse::open(&sb).await;
    sb.control().wait_connections(1).await;
    let self_id = sb.control().config().self_id;
    let g = SANDBOX_GROUP;
    ok(
        &sb,
        "set_group_member_mute",
        json!({"group_id": g, "user_id": 10003, "duration": 600}),
    )
    .await;
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "group_mute");
    assert_eq!(
        ev["data"],
        json!({"group_id": g, "user_id": 10003, "operator_id": self_id, "duration": 600})
    );
    // No duration: 0 lifts.
    ok(
        &sb,
        "set_group_member_mute",
        json!({"group_id": g, "user_id": 10003}),
    )
    .await;
    assert_eq!(sse.next().await["data"]["duration"], 0);
    // No is_mute: true.
    ok(&sb, "set_group_whole_mute", json!({"group_id": g})).await;
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "group_whole_mute");
    assert_eq!(
        ev["data"],
        json!({"group_id": g, "operator_id": self_id, "is_mute": true})
    );
    ok(
        &sb,
        "set_group_whole_mute",
        json!({"group_id": g, "is_mute": false}),
    )
    .await;
    assert_eq!(sse.next().await["data"]["is_mute"], false);
    ok(
        &sb,
        "kick_group_member",
        json!({"group_id": g, "user_id": 10004, "reject_add_request": true}),
    )
    .await;
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "group_member_decrease");
    assert_eq!(
        ev["data"],
        json!({"group_id": g, "user_id": 10004, "operator_id": self_id})
    );
    failed(
        &sb,
        "get_group_member_info",
        json!({"group_id": g, "user_id": 10004}),
        -404,
    )
    .await;
    ok(
        &sb,
        "set_group_member_card",
        json!({"group_id": g, "user_id": 10005, "card": "新名片"}),
    )
    .await;
    let m = ok(
        &sb,
        "get_group_member_info",
        json!({"group_id": g, "user_id": 10005}),
    )
    .await;
    assert_eq!(m["member"]["card"], "新名片");
    // Milky has no card event.
    no_event(&sb, &mut sse).await;
    // Refused by QQ's rules: the owner, an admin, anything in 示例群.
    for (api, body) in [
        (
            "set_group_member_mute",
            json!({"group_id": g, "user_id": 10001, "duration": 60}),
        ),
        (
            "kick_group_member",
            json!({"group_id": g, "user_id": 10002}),
        ),
        (
            "set_group_member_mute",
            json!({"group_id": EXAMPLE_GROUP, "user_id": 10003, "duration": 60}),
        ),
        ("set_group_whole_mute", json!({"group_id": EXAMPLE_GROUP})),
        (
            "set_group_member_card",
            json!({"group_id": EXAMPLE_GROUP, "user_id": 10003, "card": "x"}),
        ),
    ] {
        failed(&sb, api, body, -406).await;
    }
    failed(
        &sb,
        "kick_group_member",
        json!({"group_id": g, "user_id": 99999}),
        -404,
    )
    .await;
    no_event(&sb, &mut sse).await;
    // No typing action in Milky.
    let resp = reqwest::Client::new()
        .post(format!("{}/api/set_input_status", sb.milky_url()))
        .json(&json!({"user_id": 10001, "event_type": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
}

#[tokio::test]
async fn record_segments_are_sent_and_kept() {
    let sb = start().await;
    let voice = sample_media(MediaKind::Record, 3_333);
    let b64 = base64::engine::general_purpose::STANDARD.encode(&voice);
    let sent = ok(
        &sb,
        "send_group_message",
        json!({"group_id": SANDBOX_GROUP, "message": [{"type": "record", "data": {"uri": format!("base64://{b64}")}}]}),
    )
    .await;
    let m = ok(
        &sb,
        "get_message",
        json!({"message_scene": "group", "peer_id": SANDBOX_GROUP, "message_seq": sent["message_seq"]}),
    )
    .await;
    let seg = &m["message"]["segments"][0];
    assert_eq!(seg["type"], "record");
    assert_eq!(
        download(seg["data"]["temp_url"].as_str().unwrap()).await,
        (200, voice)
    );
}

#[tokio::test]
async fn control_endpoints_push_milky_events() {
    let sb = start().await;
    let mut sse = Sse::open(&sb).await;
    sb.control().wait_connections(1).await;
    let g = SANDBOX_GROUP;
    let a = control(
        &sb,
        "sandbox_react",
        json!({"group_id": g, "message_seq": 5, "user_id": 10003, "emoji_id": "😀"}),
    )
    .await;
    assert_eq!(a["status"], "ok", "{a}");
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "group_message_reaction");
    assert_eq!(
        (
            ev["data"]["user_id"].as_i64(),
            ev["data"]["reaction_type"].as_str()
        ),
        (Some(10003), Some("emoji"))
    );
    control(
        &sb,
        "sandbox_set_essence",
        json!({"group_id": g, "message_seq": 5, "operator_id": 10002}),
    )
    .await;
    let ev = sse.next().await;
    assert_eq!(
        (
            ev["event_type"].as_str(),
            ev["data"]["operator_id"].as_i64()
        ),
        (Some("group_essence_message_change"), Some(10002))
    );
    control(
        &sb,
        "sandbox_mute",
        json!({"group_id": g, "operator_id": 10001, "user_id": 10002, "duration": 60}),
    )
    .await;
    let ev = sse.next().await;
    assert_eq!(
        (
            ev["event_type"].as_str(),
            ev["data"]["operator_id"].as_i64()
        ),
        (Some("group_mute"), Some(10001))
    );
    control(
        &sb,
        "sandbox_whole_mute",
        json!({"group_id": g, "operator_id": 10002, "is_mute": true}),
    )
    .await;
    assert_eq!(sse.next().await["event_type"], "group_whole_mute");
    control(
        &sb,
        "sandbox_set_admin",
        json!({"group_id": g, "user_id": 10003}),
    )
    .await;
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "group_admin_change");
    assert_eq!(
        ev["data"],
        json!({"group_id": g, "user_id": 10003, "operator_id": 10001, "is_set": true})
    );
    let bytes = b"user upload".to_vec();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let up = control(
        &sb,
        "sandbox_upload_group_file",
        json!({"group_id": g, "user_id": 10003, "name": "u.txt", "file": format!("base64://{b64}")}),
    )
    .await;
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "group_file_upload");
    assert_eq!(
        ev["data"],
        json!({"group_id": g, "user_id": 10003, "file_id": up["data"]["file_id"],
               "file_name": "u.txt", "file_size": bytes.len()})
    );
    let u = ok(
        &sb,
        "get_group_file_download_url",
        json!({"group_id": g, "file_id": up["data"]["file_id"]}),
    )
    .await;
    assert_eq!(
        download(u["download_url"].as_str().unwrap()).await,
        (200, bytes)
    );
    control(
        &sb,
        "sandbox_rename_group",
        json!({"group_id": g, "operator_id": 10002, "name": "改名了"}),
    )
    .await;
    let ev = sse.next().await;
    assert_eq!(ev["event_type"], "group_name_change");
    assert_eq!(
        ev["data"],
        json!({"group_id": g, "new_group_name": "改名了", "operator_id": 10002})
    );
    let info = ok(&sb, "get_group_info", json!({"group_id": g})).await;
    assert_eq!(info["group"]["group_name"], "改名了");
    // A member may not rename.
    let refused = control(
        &sb,
        "sandbox_rename_group",
        json!({"group_id": g, "operator_id": 10005, "name": "x"}),
    )
    .await;
    assert_eq!(refused["status"], "failed");
}

#[tokio::test]
async fn a_recorded_group_session_validates_against_the_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("milky.jsonl");
    let sb = start_with(SandboxConfig {
        milky_record: Some(record.clone()),
        ..SandboxConfig::milky()
    })
    .await;
    let mut sse = Sse::open(&sb).await;
    sb.control().wait_connections(1).await;
    let g = SANDBOX_GROUP;
    for (api, body) in [
        (
            "send_group_message_reaction",
            json!({"group_id": g, "message_seq": 3, "reaction": "76", "reaction_type": "face"}),
        ),
        (
            "set_group_essence_message",
            json!({"group_id": g, "message_seq": 3, "is_set": true}),
        ),
        (
            "get_group_essence_messages",
            json!({"group_id": g, "page_index": 0, "page_size": 10}),
        ),
        ("get_group_files", json!({"group_id": g})),
        (
            "get_group_file_download_url",
            json!({"group_id": g, "file_id": SANDBOX_GROUP_FILES[0].0}),
        ),
        (
            "set_group_member_mute",
            json!({"group_id": g, "user_id": 10003, "duration": 60}),
        ),
        (
            "set_group_whole_mute",
            json!({"group_id": g, "is_mute": true}),
        ),
        (
            "kick_group_member",
            json!({"group_id": g, "user_id": 10004, "reject_add_request": false}),
        ),
        (
            "set_group_member_card",
            json!({"group_id": g, "user_id": 10005, "card": "c"}),
        ),
    ] {
        ok(&sb, api, body).await;
    }
    control(
        &sb,
        "sandbox_set_admin",
        json!({"group_id": g, "user_id": 10003}),
    )
    .await;
    control(
        &sb,
        "sandbox_rename_group",
        json!({"group_id": g, "operator_id": 10001, "name": "n"}),
    )
    .await;
    control(
        &sb,
        "sandbox_upload_group_file",
        json!({"group_id": g, "user_id": 10002, "name": "f", "file": "base64://aGVsbG8="}),
    )
    .await;
    for _ in 0..8 {
        sse.next().await;
    }
    match validate(&record) {
        Some(out) => {
            let text = String::from_utf8_lossy(&out.stdout);
            println!("{text}");
            assert!(out.status.success(), "validator: {text}");
            assert!(text.contains(", 0 invalid"), "{text}");
        }
        None => println!("NOTICE: schema validation skipped: node or its modules missing"),
    }
}
