//! Group actions per flavor over real sockets: reactions, essence, typing, group files,
//! moderation, voice sends, their notices and the user-side control endpoints.

mod common;

use base64::Engine as _;
use common::*;
use onebot_sandbox::{
    ChatRef, EXAMPLE_GROUP, Flavor, MediaKind, SANDBOX_ESSENCE_SEQS, SANDBOX_FOLDER, SANDBOX_GROUP,
    SANDBOX_GROUP_FILES, Sandbox, sample_media,
};
use serde_json::{Value, json};

/// The id of 沙盒群's message `seq`.
fn msg_id(sb: &Sandbox, seq: usize) -> i64 {
    sb.control().messages(ChatRef::Group(SANDBOX_GROUP))[seq - 1]["message_id"]
        .as_i64()
        .unwrap()
}

/// Asserts that no notice was pushed since the last event read: a message injected now is the
/// next event.
async fn no_notice(sb: &Sandbox, c: &mut TcpClient) {
    let id = sb
        .control()
        .inject_group_message(SANDBOX_GROUP, 10003, json!("sentinel"));
    let ev = c.recv_event().await.unwrap();
    assert_eq!(ev["post_type"], "message", "unexpected notice {ev}");
    assert_eq!(ev["message_id"], id);
}

async fn unknown(c: &mut TcpClient, action: &str, params: Value) {
    let r = c.call(action, params).await;
    assert_eq!(r["status"], "failed", "{action}: {r}");
    assert!(r["retcode"] == 1404 || r["retcode"] == 404, "{action}: {r}");
}

async fn download(url: &str) -> (u16, Vec<u8>) {
    let resp = reqwest::get(url).await.expect("download");
    let status = resp.status().as_u16();
    (status, resp.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn reactions_per_flavor() {
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let self_id = sb.control().config().self_id;
        let id = msg_id(&sb, 16);
        match flavor {
            Flavor::NapCat => {
                let d = c
                    .ok(
                        "set_msg_emoji_like",
                        json!({"message_id": id, "emoji_id": 76}),
                    )
                    .await;
                assert_eq!(d, json!({"result": true}));
                let ev = c.recv_event().await.unwrap();
                assert_eq!(ev["notice_type"], "group_msg_emoji_like");
                assert_eq!(ev["group_id"], SANDBOX_GROUP);
                assert_eq!(ev["user_id"], self_id);
                assert_eq!(ev["message_id"], id);
                assert_eq!(ev["likes"], json!([{"emoji_id": "76", "count": 1}]));
                assert_eq!(ev["is_add"], true);
                assert!(ev.get("message_seq").is_none());
                c.ok(
                    "set_msg_emoji_like",
                    json!({"message_id": id, "emoji_id": "76", "set": "false"}),
                )
                .await;
                let ev = c.recv_event().await.unwrap();
                assert_eq!(ev["is_add"], false);
                let r = c
                    .call(
                        "set_msg_emoji_like",
                        json!({"message_id": 1, "emoji_id": "76"}),
                    )
                    .await;
                assert_eq!(
                    (r["retcode"].as_i64(), r["message"].as_str()),
                    (Some(1200), Some("msg not found"))
                );
                unknown(
                    &mut c,
                    "set_group_reaction",
                    json!({"group_id": SANDBOX_GROUP, "message_id": id, "code": "76"}),
                )
                .await;
            }
            Flavor::LlOneBot => {
                let d = c
                    .ok(
                        "set_msg_emoji_like",
                        json!({"message_id": id, "emoji_id": "76", "set": false}),
                    )
                    .await;
                assert_eq!(d, Value::Null);
                // `set` is ignored: it added.
                let ev = c.recv_event().await.unwrap();
                assert_eq!(ev["notice_type"], "group_msg_emoji_like");
                assert_eq!(ev["is_add"], true);
                c.ok(
                    "unset_msg_emoji_like",
                    json!({"message_id": id, "emoji_id": "76"}),
                )
                .await;
                let ev = c.recv_event().await.unwrap();
                assert_eq!(ev["is_add"], false);
                assert_eq!(ev["likes"][0]["count"], 1);
                unknown(
                    &mut c,
                    "set_group_reaction",
                    json!({"group_id": SANDBOX_GROUP, "message_id": id, "code": "76"}),
                )
                .await;
            }
            Flavor::Lagrange => {
                unknown(
                    &mut c,
                    "set_msg_emoji_like",
                    json!({"message_id": id, "emoji_id": "76"}),
                )
                .await;
                let d = c
                    .ok(
                        "set_group_reaction",
                        json!({"group_id": SANDBOX_GROUP, "message_id": id, "code": "76"}),
                    )
                    .await;
                assert_eq!(d, Value::Null);
                let ev = c.recv_event().await.unwrap();
                assert_eq!(ev["notice_type"], "reaction");
                assert_eq!(ev["sub_type"], "add");
                assert_eq!(ev["code"], "76");
                assert_eq!(ev["operator_id"], self_id);
                assert_eq!(ev["message_id"], id);
                assert_eq!(ev["count"], 1);
                c.ok(
                    "set_group_reaction",
                    json!({"group_id": SANDBOX_GROUP, "message_id": id, "code": "76", "is_add": false}),
                )
                .await;
                assert_eq!(c.recv_event().await.unwrap()["sub_type"], "remove");
                let r = c
                    .call(
                        "set_group_reaction",
                        json!({"group_id": SANDBOX_GROUP, "message_id": 1, "code": "76"}),
                    )
                    .await;
                assert_eq!(
                    (r["status"].as_str(), r["retcode"].as_i64()),
                    (Some("failed"), Some(1))
                );
            }
            Flavor::SnowLuma => {
                c.ok(
                    "set_msg_emoji_like",
                    json!({"message_id": id, "emoji_id": "76"}),
                )
                .await;
                let ev = c.recv_event().await.unwrap();
                assert_eq!(ev["notice_type"], "group_msg_emoji_like");
                assert_eq!(ev["sub_type"], "add");
                assert!(ev.get("is_add").is_none());
                assert_eq!(ev["operator_id"], self_id);
                assert_eq!(ev["message_seq"], 16);
                // `is_set`, not Lagrange's `is_add`.
                c.ok(
                    "set_group_reaction",
                    json!({"group_id": SANDBOX_GROUP, "message_id": id, "code": "76", "is_set": false}),
                )
                .await;
                assert_eq!(c.recv_event().await.unwrap()["sub_type"], "remove");
                let r = c
                    .call(
                        "set_group_reaction",
                        json!({"group_id": EXAMPLE_GROUP, "message_id": id, "code": "76"}),
                    )
                    .await;
                assert_eq!(r["retcode"], 1400);
                assert_eq!(r["wording"], "group_id does not match message session");
            }
            Flavor::GoCqhttp => {
                unknown(
                    &mut c,
                    "set_msg_emoji_like",
                    json!({"message_id": id, "emoji_id": "76"}),
                )
                .await;
                unknown(
                    &mut c,
                    "set_group_reaction",
                    json!({"group_id": SANDBOX_GROUP, "message_id": id, "code": "76"}),
                )
                .await;
                no_notice(&sb, &mut c).await;
            }
        }
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn essence_lists_and_changes_per_flavor() {
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let list = c
            .ok("get_essence_msg_list", json!({"group_id": SANDBOX_GROUP}))
            .await;
        let list = list.as_array().unwrap().clone();
        assert_eq!(list.len(), 3, "{flavor}");
        let first = &list[0];
        let newest = msg_id(&sb, SANDBOX_ESSENCE_SEQS[0] as usize);
        match flavor {
            Flavor::NapCat => {
                assert_eq!(first["msg_seq"], SANDBOX_ESSENCE_SEQS[0]);
                assert!(first["msg_random"].is_i64());
                assert_eq!(first["message_id"], newest);
                assert_eq!(first["operator_id"], 10001);
                assert!(first.get("sender_time").is_none());
                assert_eq!(first["content"][0]["type"], "image");
                assert_eq!(list[2]["content"][0]["data"]["text"], "第16条消息");
            }
            Flavor::LlOneBot | Flavor::GoCqhttp => {
                assert_eq!(first["message_id"], newest);
                assert!(first["sender_time"].is_i64());
                assert!(first.get("content").is_none());
            }
            Flavor::Lagrange => {
                assert_eq!(first["message_id"], newest);
                assert!(first["sender_time"].is_i64());
                assert_eq!(list[1]["content"][0]["type"], "face");
            }
            Flavor::SnowLuma => {
                assert_eq!(first["msg_seq"], SANDBOX_ESSENCE_SEQS[0]);
                assert_eq!(first["add_digest_uin"], "10001");
                assert!(first["sender_uin"].is_string());
                assert_eq!(first["msg_content"][0]["msg_type"], 3);
                assert!(first.get("message_id").is_none());
            }
        }
        // The bot (an admin) marks message #32 (text).
        let id = msg_id(&sb, 32);
        c.ok("set_essence_msg", json!({"message_id": id})).await;
        let list = c
            .ok("get_essence_msg_list", json!({"group_id": SANDBOX_GROUP}))
            .await;
        assert_eq!(list.as_array().unwrap().len(), 4);
        if flavor == Flavor::GoCqhttp {
            // Not reported when the bot is the operator.
            no_notice(&sb, &mut c).await;
        } else {
            let ev = c.recv_event().await.unwrap();
            assert_eq!(ev["notice_type"], "essence", "{flavor}");
            assert_eq!(ev["sub_type"], "add");
            assert_eq!(ev["message_id"], id);
            assert_eq!(ev["operator_id"], sb.control().config().self_id);
        }
        c.ok("delete_essence_msg", json!({"message_id": id})).await;
        match flavor {
            // Removals are never reported.
            Flavor::NapCat | Flavor::LlOneBot | Flavor::GoCqhttp => no_notice(&sb, &mut c).await,
            _ => {
                let ev = c.recv_event().await.unwrap();
                assert_eq!(ev["sub_type"], "delete", "{flavor}");
                if flavor == Flavor::SnowLuma {
                    assert_eq!(ev["message_seq"], 32);
                }
            }
        }
        if flavor == Flavor::Lagrange {
            // An essence message with a segment Lagrange cannot map (an @) fails its whole list.
            c.ok("set_essence_msg", json!({"message_id": msg_id(&sb, 1)}))
                .await;
            let r = c
                .call("get_essence_msg_list", json!({"group_id": SANDBOX_GROUP}))
                .await;
            assert_eq!(
                (r["status"].as_str(), r["retcode"].as_i64()),
                (Some("failed"), Some(1))
            );
        }
        // The bot is no admin in 示例群.
        let example = sb.control().messages(ChatRef::Group(EXAMPLE_GROUP))[0]["message_id"].clone();
        let r = c
            .call("set_essence_msg", json!({"message_id": example}))
            .await;
        assert_eq!(r["status"], "failed", "{flavor}");
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn typing_status_on_napcat_and_snowluma_only() {
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        match flavor {
            Flavor::NapCat => {
                let r = c.call("set_input_status", json!({"user_id": 10001})).await;
                assert_eq!(r["retcode"], 1400);
                c.ok(
                    "set_input_status",
                    json!({"user_id": 10001, "event_type": 1}),
                )
                .await;
            }
            Flavor::SnowLuma => {
                let d = c.ok("set_input_status", json!({"user_id": 10001})).await;
                assert_eq!(d, json!({}));
            }
            _ => {
                unknown(
                    &mut c,
                    "set_input_status",
                    json!({"user_id": 10001, "event_type": 1}),
                )
                .await
            }
        }
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn group_files_list_and_download_byte_exact() {
    let (folder_id, folder_name) = SANDBOX_FOLDER;
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let root = c
            .ok("get_group_root_files", json!({"group_id": SANDBOX_GROUP}))
            .await;
        let files = root["files"].as_array().unwrap();
        assert_eq!(files.len(), 3, "{flavor}");
        assert_eq!(files[0]["file_id"], SANDBOX_GROUP_FILES[0].0);
        assert_eq!(files[0]["file_name"], SANDBOX_GROUP_FILES[0].1);
        assert_eq!(files[0]["file_size"], SANDBOX_GROUP_FILES[0].2);
        let folder = &root["folders"][0];
        assert_eq!(folder["folder_id"], folder_id);
        assert_eq!(folder["folder_name"], folder_name);
        assert_eq!(folder["total_file_count"], 1);
        let by_folder = json!({"group_id": SANDBOX_GROUP, "folder_id": folder_id});
        match flavor {
            Flavor::NapCat => {
                assert_eq!(files[0]["size"], SANDBOX_GROUP_FILES[0].2);
                assert_eq!(folder["folder"], folder_id);
                let capped = c
                    .ok(
                        "get_group_root_files",
                        json!({"group_id": SANDBOX_GROUP, "file_count": 2}),
                    )
                    .await;
                assert_eq!(capped["folders"].as_array().unwrap().len(), 1);
                assert_eq!(capped["files"].as_array().unwrap().len(), 1);
                let inner = c
                    .ok(
                        "get_group_files_by_folder",
                        json!({"group_id": SANDBOX_GROUP, "folder": folder_id}),
                    )
                    .await;
                assert_eq!(inner["files"][0]["file_id"], SANDBOX_GROUP_FILES[3].0);
                assert_eq!(inner["folders"], json!([]));
            }
            Flavor::LlOneBot => {
                assert!(files[0].get("size").is_none());
                let r = c
                    .call(
                        "get_group_files_by_folder",
                        json!({"group_id": SANDBOX_GROUP}),
                    )
                    .await;
                assert_eq!(r["retcode"], 1400);
                let inner = c.ok("get_group_files_by_folder", by_folder.clone()).await;
                assert_eq!(inner["files"][0]["file_id"], SANDBOX_GROUP_FILES[3].0);
            }
            Flavor::Lagrange => {
                assert_eq!(files[0]["busid"], 0);
                // Root and by-folder are one handler.
                let inner = c.ok("get_group_root_files", by_folder.clone()).await;
                assert_eq!(inner["files"][0]["file_id"], SANDBOX_GROUP_FILES[3].0);
            }
            Flavor::SnowLuma => {
                assert_eq!(folder["create_name"], "张三");
                assert!(folder.get("creator_name").is_none());
                let inner = c.ok("get_group_files_by_folder", by_folder.clone()).await;
                assert_eq!(inner["files"][0]["file_id"], SANDBOX_GROUP_FILES[3].0);
            }
            Flavor::GoCqhttp => {
                assert_eq!(folder["creator_name"], "张三");
                let inner = c.ok("get_group_files_by_folder", by_folder.clone()).await;
                assert_eq!(inner["files"][0]["file_id"], SANDBOX_GROUP_FILES[3].0);
            }
        }
        for (file_id, name, size, _) in SANDBOX_GROUP_FILES {
            let u = c
                .ok(
                    "get_group_file_url",
                    json!({"group_id": SANDBOX_GROUP, "file_id": file_id, "busid": 102}),
                )
                .await;
            let url = u["url"].as_str().unwrap();
            if flavor == Flavor::LlOneBot {
                assert!(url.ends_with(&format!("&fname={}", percent(name))), "{url}");
            }
            let (status, bytes) = download(url).await;
            assert_eq!(status, 200, "{flavor} {file_id}");
            assert_eq!(bytes.len() as u64, size);
            assert_eq!(bytes, sample_media(MediaKind::File, size as usize));
        }
        let r = c
            .call(
                "get_group_file_url",
                json!({"group_id": SANDBOX_GROUP, "file_id": "/nope"}),
            )
            .await;
        assert_eq!(r["status"], "failed", "{flavor}");
        if flavor == Flavor::NapCat {
            assert_eq!(r["message"], "real fileUUID not found!");
        }
        // 示例群 has no files.
        let empty = c
            .ok("get_group_root_files", json!({"group_id": EXAMPLE_GROUP}))
            .await;
        assert_eq!(empty, json!({"files": [], "folders": []}));
        sb.shutdown().await;
    }
}

fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[tokio::test]
async fn bot_upload_joins_the_group_files() {
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_001).collect();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    for flavor in [Flavor::NapCat, Flavor::Lagrange] {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        c.ok(
            "upload_group_file",
            json!({"group_id": SANDBOX_GROUP, "file": format!("base64://{b64}"), "name": "数据.bin", "folder_id": SANDBOX_FOLDER.0}),
        )
        .await;
        let ev = c.recv_event().await.unwrap();
        assert_eq!(ev["notice_type"], "group_upload");
        assert_eq!(ev["file"]["name"], "数据.bin");
        assert_eq!(ev["file"]["size"], 70_001);
        // Lagrange's notice carries the URL.
        assert_eq!(ev["file"].get("url").is_some(), flavor == Flavor::Lagrange);
        let file_id = ev["file"]["id"].clone();
        let inner = c
            .ok(
                "get_group_files_by_folder",
                json!({"group_id": SANDBOX_GROUP, "folder_id": SANDBOX_FOLDER.0}),
            )
            .await;
        assert_eq!(inner["files"][1]["file_id"], file_id);
        let u = c
            .ok(
                "get_group_file_url",
                json!({"group_id": SANDBOX_GROUP, "file_id": file_id}),
            )
            .await;
        assert_eq!(
            download(u["url"].as_str().unwrap()).await,
            (200, bytes.clone())
        );
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn mute_defaults_and_notices_per_flavor() {
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let self_id = sb.control().config().self_id;
        // No duration: NapCat and Lagrange lift (0), the others mute for 1800 s.
        c.ok(
            "set_group_ban",
            json!({"group_id": SANDBOX_GROUP, "user_id": 10003}),
        )
        .await;
        let ev = c.recv_event().await.unwrap();
        assert_eq!(ev["notice_type"], "group_ban", "{flavor}");
        assert_eq!(ev["user_id"], 10003);
        assert_eq!(ev["operator_id"], self_id);
        let lifts = matches!(flavor, Flavor::NapCat | Flavor::Lagrange);
        assert_eq!(ev["duration"], if lifts { 0 } else { 1800 }, "{flavor}");
        assert_eq!(ev["sub_type"], if lifts { "lift_ban" } else { "ban" });
        c.ok(
            "set_group_ban",
            json!({"group_id": SANDBOX_GROUP, "user_id": 10004, "duration": 600}),
        )
        .await;
        let ev = c.recv_event().await.unwrap();
        assert_eq!(
            (ev["sub_type"].as_str(), ev["duration"].as_i64()),
            (Some("ban"), Some(600))
        );
        let info = c
            .ok(
                "get_group_member_info",
                json!({"group_id": SANDBOX_GROUP, "user_id": 10004}),
            )
            .await;
        assert!(info["shut_up_timestamp"].as_i64().unwrap() > 0);

        // Whole group: no `enable` turns it on, except on Lagrange.
        c.ok("set_group_whole_ban", json!({"group_id": SANDBOX_GROUP}))
            .await;
        match flavor {
            // Lagrange's default is false: nothing to lift. SnowLuma reports none.
            Flavor::Lagrange | Flavor::SnowLuma => no_notice(&sb, &mut c).await,
            _ => {
                let ev = c.recv_event().await.unwrap();
                assert_eq!(ev["notice_type"], "group_ban");
                assert_eq!(ev["user_id"], 0);
                assert_eq!(ev["sub_type"], "ban");
                let raw = if flavor == Flavor::GoCqhttp {
                    268_435_455
                } else {
                    -1
                };
                assert_eq!(ev["duration"], raw, "{flavor}");
                if flavor == Flavor::NapCat {
                    let g = c
                        .ok("get_group_info", json!({"group_id": SANDBOX_GROUP}))
                        .await;
                    assert_eq!(g["group_all_shut"], -1);
                }
            }
        }
        c.ok(
            "set_group_whole_ban",
            json!({"group_id": SANDBOX_GROUP, "enable": true}),
        )
        .await;
        c.ok(
            "set_group_whole_ban",
            json!({"group_id": SANDBOX_GROUP, "enable": false}),
        )
        .await;
        match flavor {
            Flavor::SnowLuma => no_notice(&sb, &mut c).await,
            Flavor::Lagrange => {
                assert_eq!(c.recv_event().await.unwrap()["duration"], -1);
                let ev = c.recv_event().await.unwrap();
                assert_eq!(
                    (ev["user_id"].as_i64(), ev["duration"].as_i64()),
                    (Some(0), Some(0))
                );
            }
            _ => {
                let ev = c.recv_event().await.unwrap();
                assert_eq!(
                    (ev["user_id"].as_i64(), ev["duration"].as_i64()),
                    (Some(0), Some(0))
                );
                assert_eq!(ev["sub_type"], "lift_ban");
            }
        }
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn moderation_refusals_per_flavor() {
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        // The bot is no admin in 示例群.
        let ban = json!({"group_id": EXAMPLE_GROUP, "user_id": 10003, "duration": 60});
        let whole = json!({"group_id": EXAMPLE_GROUP, "enable": true});
        let kick = json!({"group_id": EXAMPLE_GROUP, "user_id": 10003});
        let card = json!({"group_id": EXAMPLE_GROUP, "user_id": 10003, "card": "x"});
        let r_ban = c.call("set_group_ban", ban).await;
        let r_whole = c.call("set_group_whole_ban", whole).await;
        let r_kick = c.call("set_group_kick", kick).await;
        let r_card = c.call("set_group_card", card).await;
        let status = |r: &Value| r["status"].as_str().unwrap().to_owned();
        match flavor {
            Flavor::Lagrange => {
                // Always ok, whatever happened.
                for r in [&r_ban, &r_whole, &r_kick, &r_card] {
                    assert_eq!(r["status"], "ok", "{r}");
                }
            }
            Flavor::NapCat => {
                assert_eq!(r_ban["retcode"], 1200);
                assert!(
                    r_whole["message"]
                        .as_str()
                        .unwrap()
                        .starts_with("SetGroupWholeBan failed")
                );
                assert_eq!(status(&r_kick), "ok");
                assert_eq!(r_card["message"], "设置群名片未生效");
            }
            Flavor::GoCqhttp => {
                assert_eq!(
                    (r_ban["retcode"].as_i64(), r_ban["msg"].as_str()),
                    (Some(100), Some("NOT_MANAGEABLE"))
                );
                assert_eq!(status(&r_whole), "ok");
                assert_eq!(r_kick["msg"], "NOT_MANAGEABLE");
                assert_eq!(status(&r_card), "ok");
            }
            Flavor::LlOneBot | Flavor::SnowLuma => {
                for r in [&r_ban, &r_whole, &r_kick, &r_card] {
                    assert_eq!(r["status"], "failed", "{flavor} {r}");
                }
            }
        }
        // Nothing changed, nothing was reported.
        no_notice(&sb, &mut c).await;
        let m = c
            .ok(
                "get_group_member_info",
                json!({"group_id": EXAMPLE_GROUP, "user_id": 10003}),
            )
            .await;
        assert_eq!(
            (m["card"].as_str(), m["shut_up_timestamp"].as_i64()),
            (Some(""), Some(0))
        );
        // In 沙盒群 the bot is an admin, but not over the owner or another admin.
        let r = c
            .call(
                "set_group_ban",
                json!({"group_id": SANDBOX_GROUP, "user_id": 10001, "duration": 60}),
            )
            .await;
        let r2 = c
            .call(
                "set_group_ban",
                json!({"group_id": SANDBOX_GROUP, "user_id": 10002, "duration": 60}),
            )
            .await;
        match flavor {
            Flavor::NapCat => {
                assert_eq!(r["message"], "cannot ban owner");
                assert_eq!(r2["message"], "cannot ban admin");
            }
            Flavor::Lagrange => assert_eq!((status(&r), status(&r2)), ("ok".into(), "ok".into())),
            _ => assert_eq!(
                (status(&r), status(&r2)),
                ("failed".into(), "failed".into())
            ),
        }
        no_notice(&sb, &mut c).await;
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn kick_and_card_change_the_member_list() {
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let self_id = sb.control().config().self_id;
        c.ok(
            "set_group_kick",
            json!({"group_id": SANDBOX_GROUP, "user_id": 10003, "reject_add_request": false}),
        )
        .await;
        let ev = c.recv_event().await.unwrap();
        assert_eq!(ev["notice_type"], "group_decrease", "{flavor}");
        assert_eq!(ev["sub_type"], "kick");
        assert_eq!(
            (ev["user_id"].as_i64(), ev["operator_id"].as_i64()),
            (Some(10003), Some(self_id))
        );
        let members = c
            .ok("get_group_member_list", json!({"group_id": SANDBOX_GROUP}))
            .await;
        assert_eq!(members.as_array().unwrap().len(), 35);
        assert!(
            members
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["user_id"] != 10003)
        );

        c.ok(
            "set_group_card",
            json!({"group_id": SANDBOX_GROUP, "user_id": 10005, "card": "新名片"}),
        )
        .await;
        let ev = c.recv_event().await.unwrap();
        assert_eq!(ev["notice_type"], "group_card");
        assert_eq!(
            (ev["card_new"].as_str(), ev["card_old"].as_str()),
            (Some("新名片"), Some(""))
        );
        // No `card`: cleared.
        c.ok(
            "set_group_card",
            json!({"group_id": SANDBOX_GROUP, "user_id": 10005}),
        )
        .await;
        assert_eq!(c.recv_event().await.unwrap()["card_new"], "");
        let m = c
            .ok(
                "get_group_member_info",
                json!({"group_id": SANDBOX_GROUP, "user_id": 10005}),
            )
            .await;
        assert_eq!(m["card"], "");
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn record_segments_are_kept_in_every_flavor() {
    let voice = sample_media(MediaKind::Record, 5_000);
    let b64 = base64::engine::general_purpose::STANDARD.encode(&voice);
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let d = c
            .ok(
                "send_group_msg",
                json!({"group_id": SANDBOX_GROUP, "message": [{"type": "record", "data": {"file": format!("base64://{b64}")}}]}),
            )
            .await;
        let last = sb
            .control()
            .messages(ChatRef::Group(SANDBOX_GROUP))
            .pop()
            .unwrap();
        assert_eq!(last["message_id"], d["message_id"], "{flavor}");
        let seg = &last["message"][0];
        assert_eq!(seg["type"], "record", "{flavor}");
        let file = seg["data"]["file"].as_str().unwrap();
        assert_eq!(
            sb.control().media_bytes(file),
            Some(voice.clone()),
            "{flavor}"
        );
        if let Some(url) = seg["data"]["url"]
            .as_str()
            .filter(|u| u.starts_with("http://"))
        {
            assert_eq!(download(url).await, (200, voice.clone()), "{flavor}");
        }
        let got = c
            .ok("get_msg", json!({"message_id": d["message_id"]}))
            .await;
        assert_eq!(got["message"][0]["type"], "record", "{flavor}");
        // As received records are: get_record converts to "MP3" (an ID3 header before the bytes).
        if matches!(flavor, Flavor::NapCat | Flavor::SnowLuma) {
            let rec = c
                .ok("get_record", json!({"file": file, "out_format": "mp3"}))
                .await;
            let mp3 = base64::engine::general_purpose::STANDARD
                .decode(rec["base64"].as_str().unwrap())
                .unwrap();
            assert_eq!(&mp3[..3], b"ID3");
            assert!(mp3.ends_with(&voice), "{flavor}");
        }
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn control_endpoints_make_users_act() {
    let bytes = b"%PDF-1.7 uploaded by a user".to_vec();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    for flavor in [Flavor::NapCat, Flavor::Lagrange, Flavor::LlOneBot] {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let addr = sb.addr();
        let id = msg_id(&sb, 2);
        let ok = |r: (u16, Value)| {
            assert_eq!(r.0, 200);
            assert_eq!(r.1["status"], "ok", "{}", r.1);
            r.1["data"].clone()
        };

        ok(post(
            addr,
            "/sandbox_react",
            json!({"user_id": 10003, "message_id": id, "emoji_id": "128077"}),
        )
        .await);
        let ev = c.recv_event().await.unwrap();
        if flavor == Flavor::Lagrange {
            assert_eq!(
                (ev["notice_type"].as_str(), ev["operator_id"].as_i64()),
                (Some("reaction"), Some(10003))
            );
        } else {
            assert_eq!(
                (ev["notice_type"].as_str(), ev["user_id"].as_i64()),
                (Some("group_msg_emoji_like"), Some(10003))
            );
        }
        // By seq, too.
        ok(post(addr, "/sandbox_react", json!({"user_id": 10004, "group_id": SANDBOX_GROUP, "message_seq": 2, "emoji_id": "128077"})).await);
        let ev = c.recv_event().await.unwrap();
        assert_eq!(ev["message_id"], id);

        ok(post(
            addr,
            "/sandbox_set_essence",
            json!({"operator_id": 10002, "message_id": id}),
        )
        .await);
        let ev = c.recv_event().await.unwrap();
        assert_eq!(
            (ev["notice_type"].as_str(), ev["operator_id"].as_i64()),
            (Some("essence"), Some(10002))
        );
        // A member may not.
        let (_, r) = post(
            addr,
            "/sandbox_set_essence",
            json!({"operator_id": 10004, "message_id": msg_id(&sb, 3)}),
        )
        .await;
        assert_eq!(r["status"], "failed");

        ok(post(addr, "/sandbox_mute", json!({"group_id": SANDBOX_GROUP, "operator_id": 10002, "user_id": 10003, "duration": 120})).await);
        let ev = c.recv_event().await.unwrap();
        assert_eq!(
            (
                ev["notice_type"].as_str(),
                ev["operator_id"].as_i64(),
                ev["duration"].as_i64()
            ),
            (Some("group_ban"), Some(10002), Some(120))
        );
        let (_, r) = post(addr, "/sandbox_mute", json!({"group_id": SANDBOX_GROUP, "operator_id": 10003, "user_id": 10002, "duration": 120})).await;
        assert_eq!(r["status"], "failed");

        ok(post(
            addr,
            "/sandbox_whole_mute",
            json!({"group_id": SANDBOX_GROUP, "operator_id": 10001}),
        )
        .await);
        let ev = c.recv_event().await.unwrap();
        assert_eq!(
            (ev["user_id"].as_i64(), ev["duration"].as_i64()),
            (Some(0), Some(-1))
        );

        ok(post(
            addr,
            "/sandbox_set_admin",
            json!({"group_id": SANDBOX_GROUP, "user_id": 10003}),
        )
        .await);
        let ev = c.recv_event().await.unwrap();
        assert_eq!(
            (
                ev["notice_type"].as_str(),
                ev["sub_type"].as_str(),
                ev["user_id"].as_i64()
            ),
            (Some("group_admin"), Some("set"), Some(10003))
        );
        let m = c
            .ok(
                "get_group_member_info",
                json!({"group_id": SANDBOX_GROUP, "user_id": 10003}),
            )
            .await;
        assert_eq!(m["role"], "admin");
        ok(post(
            addr,
            "/sandbox_set_admin",
            json!({"group_id": SANDBOX_GROUP, "user_id": 10003, "is_set": false}),
        )
        .await);
        assert_eq!(c.recv_event().await.unwrap()["sub_type"], "unset");

        let d = ok(post(addr, "/sandbox_upload_group_file", json!({"group_id": SANDBOX_GROUP, "user_id": 10003, "name": "用户文件.pdf", "file": format!("base64://{b64}")})).await);
        assert_eq!(d["size"], bytes.len());
        let ev = c.recv_event().await.unwrap();
        assert_eq!(ev["notice_type"], "group_upload");
        assert_eq!(
            (ev["user_id"].as_i64(), ev["file"]["id"].as_str()),
            (Some(10003), d["file_id"].as_str())
        );
        let u = c
            .ok(
                "get_group_file_url",
                json!({"group_id": SANDBOX_GROUP, "file_id": d["file_id"]}),
            )
            .await;
        assert_eq!(
            download(u["url"].as_str().unwrap()).await,
            (200, bytes.clone())
        );
        let root = c
            .ok("get_group_root_files", json!({"group_id": SANDBOX_GROUP}))
            .await;
        let last = root["files"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(
            (last["file_name"].as_str(), last["uploader"].as_i64()),
            (Some("用户文件.pdf"), Some(10003))
        );

        ok(post(
            addr,
            "/sandbox_rename_group",
            json!({"group_id": SANDBOX_GROUP, "operator_id": 10001, "name": "新群名"}),
        )
        .await);
        match flavor {
            Flavor::NapCat => {
                let ev = c.recv_event().await.unwrap();
                assert_eq!(
                    (ev["notice_type"].as_str(), ev["sub_type"].as_str()),
                    (Some("notify"), Some("group_name"))
                );
                assert_eq!(
                    (ev["name_new"].as_str(), ev["user_id"].as_i64()),
                    (Some("新群名"), Some(10001))
                );
            }
            Flavor::Lagrange => {
                let ev = c.recv_event().await.unwrap();
                assert_eq!(
                    (ev["notice_type"].as_str(), ev["name"].as_str()),
                    (Some("group_name_change"), Some("新群名"))
                );
            }
            _ => no_notice(&sb, &mut c).await,
        }
        let g = c
            .ok("get_group_info", json!({"group_id": SANDBOX_GROUP}))
            .await;
        assert_eq!(g["group_name"], "新群名");
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn control_handle_makes_users_act() {
    let sb = start(Flavor::GoCqhttp).await;
    let mut c = universal(&sb).await;
    let control = sb.control();
    let id = msg_id(&sb, 40);
    // go-cqhttp reports essence set by someone else than the bot.
    control.set_essence(id, 10002, true).unwrap();
    let ev = c.recv_event().await.unwrap();
    assert_eq!(
        (ev["notice_type"].as_str(), ev["sender_id"].as_i64()),
        (Some("essence"), msg_sender(&sb, 40))
    );
    assert!(control.set_essence(id, 10005, false).is_err());
    // go-cqhttp has no reaction notice, but the reaction is kept and a second one is no change.
    control.react(id, 10003, "76", true).unwrap();
    control.react(id, 10003, "76", true).unwrap();
    no_notice(&sb, &mut c).await;
    assert!(control.react(1, 10003, "76", true).is_err());
    assert_eq!(
        control.mute_member(SANDBOX_GROUP, 10003, 10001, 60),
        Err("不能对群主操作".to_owned())
    );
    control.mute_group(SANDBOX_GROUP, 10002, true).unwrap();
    let ev = c.recv_event().await.unwrap();
    assert_eq!(
        (ev["user_id"].as_i64(), ev["operator_id"].as_i64()),
        (Some(0), Some(10002))
    );
    control.set_admin(SANDBOX_GROUP, 10004, true).unwrap();
    assert_eq!(c.recv_event().await.unwrap()["notice_type"], "group_admin");
    assert!(control.set_admin(SANDBOX_GROUP, 10001, false).is_err());
    let bytes = vec![7u8; 1234];
    let file_id = control
        .upload_group_file(SANDBOX_GROUP, 10004, "七.bin", bytes.clone())
        .unwrap();
    let ev = c.recv_event().await.unwrap();
    assert_eq!(ev["notice_type"], "group_upload");
    // go-cqhttp's notice carries the URL.
    let (status, got) = download(ev["file"]["url"].as_str().unwrap()).await;
    assert_eq!((status, got), (200, bytes));
    assert_eq!(ev["file"]["id"], file_id.as_str());
    control.rename_group(SANDBOX_GROUP, 10001, "新名").unwrap();
    // go-cqhttp reports no rename.
    no_notice(&sb, &mut c).await;
    sb.shutdown().await;
}

fn msg_sender(sb: &Sandbox, seq: usize) -> Option<i64> {
    sb.control().messages(ChatRef::Group(SANDBOX_GROUP))[seq - 1]["sender"]["user_id"].as_i64()
}
