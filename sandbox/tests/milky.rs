//! The Milky 1.2 face over real HTTP, WebSocket and SSE.

mod milky_common;

use base64::Engine as _;
use milky_common::*;
use onebot_sandbox::{
    EXAMPLE_FORWARD, EXAMPLE_GROUP, FRIEND_WITH_HISTORY, MediaKind, SANDBOX_GROUP,
    SANDBOX_GROUP_MESSAGES, SandboxConfig, sample_media,
};
use serde_json::{Value, json};

#[tokio::test]
async fn info_apis_answer_the_seeded_world() {
    let sb = start().await;
    let login = ok(&sb, "get_login_info", json!({})).await;
    assert_eq!(login["uin"], onebot_sandbox::DEFAULT_SELF_ID);
    let implementation = ok(&sb, "get_impl_info", json!({})).await;
    assert_eq!(implementation["impl_name"], "onebot-sandbox");
    assert_eq!(implementation["milky_version"], "1.2");
    let groups = ok(&sb, "get_group_list", json!({"no_cache": true})).await;
    let ids: Vec<i64> = groups["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![EXAMPLE_GROUP, SANDBOX_GROUP]);
    let info = ok(&sb, "get_group_info", json!({"group_id": EXAMPLE_GROUP})).await;
    assert_eq!(info["group"]["group_name"], "示例群");
    assert_eq!(info["group"]["member_count"], 120);
    let members = ok(
        &sb,
        "get_group_member_list",
        json!({"group_id": EXAMPLE_GROUP}),
    )
    .await;
    let members = members["members"].as_array().unwrap();
    assert_eq!(members.len(), 120);
    assert_eq!(members[0]["user_id"], 10001);
    assert_eq!(members[0]["role"], "owner");
    assert_eq!(members[0]["card"], "群主张三");
    let member = ok(
        &sb,
        "get_group_member_info",
        json!({"group_id": EXAMPLE_GROUP, "user_id": 10002}),
    )
    .await;
    assert_eq!(member["member"]["role"], "admin");
    let friends = ok(&sb, "get_friend_list", json!({})).await;
    assert_eq!(friends["friends"][0]["user_id"], FRIEND_WITH_HISTORY);
    assert_eq!(friends["friends"][0]["remark"], "老张");
    let friend = ok(&sb, "get_friend_info", json!({"user_id": 10002})).await;
    assert_eq!(friend["friend"]["nickname"], "李四");
    failed(&sb, "get_friend_info", json!({"user_id": 10003}), -404).await;

    failed(&sb, "get_group_info", json!({"group_id": 30000000}), -404).await;
    failed(
        &sb,
        "get_group_member_info",
        json!({"group_id": EXAMPLE_GROUP, "user_id": 99999}),
        -404,
    )
    .await;
    let m = failed(&sb, "get_group_info", json!({"group_id": "20000002"}), -400).await;
    assert!(m.contains("group_id"), "{m}");
    let m = failed(&sb, "get_group_info", json!({"group_id": 10000}), -400).await;
    assert!(m.contains("group_id"), "{m}");
    let m = failed(&sb, "get_group_info", json!({}), -400).await;
    assert!(m.contains("group_id"), "{m}");
    let m = failed(&sb, "get_group_list", json!({"no_cache": "yes"}), -400).await;
    assert!(m.contains("no_cache"), "{m}");
}

#[test]
fn protocol_names_parse() {
    use onebot_sandbox::Protocol;
    assert_eq!("Milky".parse::<Protocol>(), Ok(Protocol::Milky));
    assert_eq!("onebot11".parse::<Protocol>(), Ok(Protocol::OneBot));
    assert!("satori".parse::<Protocol>().is_err());
    assert_eq!(Protocol::Milky.to_string(), "milky");
    assert_eq!(SandboxConfig::default().protocol, Protocol::OneBot);
}

#[tokio::test]
async fn http_statuses_follow_the_transport() {
    let sb = start_with(SandboxConfig {
        access_token: Some("secret".into()),
        ..SandboxConfig::milky()
    })
    .await;
    let url = format!("{}/api/get_login_info", sb.milky_url());
    let client = reqwest::Client::new();
    let status = |r: reqwest::Response| r.status().as_u16();
    let r = client.post(&url).json(&json!({})).send().await.unwrap();
    assert_eq!(status(r), 401, "no token");
    let r = client
        .post(&url)
        .bearer_auth("wrong")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(status(r), 401, "wrong token");
    let r = client
        .post(&url)
        .bearer_auth("secret")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(status(r), 200);
    let r = client
        .post(format!("{url}?access_token=secret"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(status(r), 200, "query token");
    let r = client
        .post(format!("{}/api/no_such_api", sb.milky_url()))
        .bearer_auth("secret")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(status(r), 404);
    let r = client
        .post(&url)
        .bearer_auth("secret")
        .header("Content-Type", "text/plain")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(status(r), 415);
    // A body that is not an object is a -400, not a crash.
    let r = client
        .post(&url)
        .bearer_auth("secret")
        .header("Content-Type", "application/json")
        .body("[1,2")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let env: Value = r.json().await.unwrap();
    assert_eq!(env["retcode"], -400);
}

#[tokio::test]
async fn history_pages_walk_back_without_gaps_or_duplicates() {
    let sb = start().await;
    let all: Vec<i64> = (1..=SANDBOX_GROUP_MESSAGES as i64).collect();
    assert_eq!(walk(&sb, "group", SANDBOX_GROUP, 30).await, all);
    assert_eq!(walk(&sb, "group", SANDBOX_GROUP, 100).await, all, "capped");
    assert_eq!(walk(&sb, "group", SANDBOX_GROUP, 7).await, all);
    assert_eq!(
        walk(&sb, "friend", FRIEND_WITH_HISTORY, 20).await,
        (1..=48).collect::<Vec<i64>>()
    );
    let page = ok(
        &sb,
        "get_history_messages",
        json!({"message_scene": "group", "peer_id": SANDBOX_GROUP, "limit": 50}),
    )
    .await;
    assert_eq!(page["messages"].as_array().unwrap().len(), 30);
    assert_eq!(page["next_message_seq"], 270);

    // Message 8 of 沙盒群 quotes message 7, inline.
    let m = ok(
        &sb,
        "get_message",
        json!({"message_scene": "group", "peer_id": SANDBOX_GROUP, "message_seq": 8}),
    )
    .await;
    let m = &m["message"];
    assert_eq!(m["message_scene"], "group");
    assert_eq!(m["group"]["group_id"], SANDBOX_GROUP);
    assert_eq!(m["group_member"]["user_id"], m["sender_id"]);
    let reply = &m["segments"][0];
    assert_eq!(reply["type"], "reply");
    assert_eq!(reply["data"]["message_seq"], 7);
    assert_eq!(reply["data"]["segments"][0]["type"], "file");
    failed(
        &sb,
        "get_message",
        json!({"message_scene": "group", "peer_id": SANDBOX_GROUP, "message_seq": 301}),
        -404,
    )
    .await;
    failed(
        &sb,
        "get_history_messages",
        json!({"message_scene": "channel", "peer_id": SANDBOX_GROUP}),
        -400,
    )
    .await;
}

#[tokio::test]
async fn sends_join_history_and_media_temp_urls_expire() {
    let sb = start().await;
    let png = sample_media(MediaKind::Image, 3000);
    let b64 = base64::engine::general_purpose::STANDARD.encode(&png);
    let sent = ok(
        &sb,
        "send_group_message",
        json!({"group_id": SANDBOX_GROUP, "message": [
            {"type": "reply", "data": {"message_seq": 299}},
            {"type": "mention", "data": {"user_id": 10002}},
            {"type": "text", "data": {"text": " 看图"}},
            {"type": "image", "data": {"uri": format!("base64://{b64}")}},
        ]}),
    )
    .await;
    assert_eq!(sent["message_seq"], 301);
    assert!(sent["time"].as_i64().unwrap() > 0);
    let got = ok(
        &sb,
        "get_message",
        json!({"message_scene": "group", "peer_id": SANDBOX_GROUP, "message_seq": 301}),
    )
    .await;
    let segs = got["message"]["segments"].as_array().unwrap().clone();
    assert_eq!(segs[0]["data"]["message_seq"], 299);
    assert_eq!(segs[1]["type"], "mention");
    assert_eq!(segs[1]["data"]["name"], "管理员李四");
    assert_eq!(segs[2]["data"]["text"], " 看图");
    // A recalled message stays quoted, with its content.
    ok(
        &sb,
        "recall_group_message",
        json!({"group_id": SANDBOX_GROUP, "message_seq": 299}),
    )
    .await;
    let again = ok(
        &sb,
        "get_message",
        json!({"message_scene": "group", "peer_id": SANDBOX_GROUP, "message_seq": 301}),
    )
    .await;
    assert_eq!(again["message"]["segments"][0]["type"], "reply");
    assert_eq!(again["message"]["segments"][0]["data"]["message_seq"], 299);
    assert_eq!(
        again["message"]["segments"][0]["data"]["segments"],
        segs[0]["data"]["segments"]
    );
    let image = &segs[3]["data"];
    let url = image["temp_url"].as_str().unwrap().to_owned();
    assert_eq!(download(&url).await, (200, png.clone()));

    // The same bytes again, by http:// (the temp URL) and by file://.
    let by_url = ok(
        &sb,
        "send_private_message",
        json!({"user_id": FRIEND_WITH_HISTORY, "message": [
            {"type": "image", "data": {"uri": url}},
        ]}),
    )
    .await;
    assert_eq!(by_url["message_seq"], 49);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("voice.amr");
    std::fs::write(&path, b"#!AMR\nvoice").unwrap();
    ok(
        &sb,
        "send_private_message",
        json!({"user_id": FRIEND_WITH_HISTORY, "message": [
            {"type": "record", "data": {"uri": format!("file://{}", path.display())}},
        ]}),
    )
    .await;
    let media = sb.control().received_media();
    assert_eq!(media.len(), 3);
    assert_eq!(media[0].sha256, media[1].sha256);
    assert_eq!(media[2].len, Some(11));

    // Expired: the old URL fails, get_resource_temp_url signs a fresh one.
    sb.control().expire_media_urls();
    let (status, _) = download(&url).await;
    assert_eq!(status, 400);
    let fresh = ok(
        &sb,
        "get_resource_temp_url",
        json!({"resource_id": image["resource_id"]}),
    )
    .await;
    let fresh = fresh["url"].as_str().unwrap();
    assert_ne!(fresh, url);
    assert_eq!(download(fresh).await, (200, png));
    failed(
        &sb,
        "get_resource_temp_url",
        json!({"resource_id": "nope"}),
        -404,
    )
    .await;
}

#[tokio::test]
async fn temp_urls_expire_with_the_configured_ttl() {
    let sb = start_with(SandboxConfig {
        media_url_ttl: std::time::Duration::from_millis(1),
        ..SandboxConfig::milky()
    })
    .await;
    let m = ok(
        &sb,
        "get_message",
        json!({"message_scene": "group", "peer_id": EXAMPLE_GROUP, "message_seq": 2}),
    )
    .await;
    let url = m["message"]["segments"][1]["data"]["temp_url"]
        .as_str()
        .unwrap()
        .to_owned();
    // The key rolls over every millisecond: wait until this URL is refused.
    let mut status = 200;
    while status == 200 {
        status = download(&url).await.0;
    }
    assert_eq!(status, 400);
}

#[tokio::test]
async fn bad_messages_fail_with_the_field_named() {
    let sb = start().await;
    let cases = [
        (
            json!({"group_id": SANDBOX_GROUP, "message": "hi"}),
            "message",
        ),
        (json!({"group_id": SANDBOX_GROUP}), "message"),
        (
            json!({"group_id": SANDBOX_GROUP, "message": [{"type": "mention", "data": {"user_id": 5}}]}),
            "message[0].data.user_id",
        ),
        (
            json!({"group_id": SANDBOX_GROUP, "message": [{"type": "text", "data": {"text": 1}}]}),
            "message[0].data.text",
        ),
        (
            json!({"group_id": SANDBOX_GROUP, "message": [{"type": "shake", "data": {}}]}),
            "message[0].type",
        ),
        (
            json!({"group_id": SANDBOX_GROUP, "message": [{"type": "image", "data": {"uri": "ftp://x"}}]}),
            "message[0].data.uri",
        ),
        (
            json!({"group_id": SANDBOX_GROUP, "message": [{"type": "image", "data": {"uri": "base64://***"}}]}),
            "message[0].data.uri",
        ),
    ];
    for (body, field) in cases {
        let m = failed(&sb, "send_group_message", body.clone(), -400).await;
        assert!(m.starts_with(field), "{body}: {m}");
    }
    failed(
        &sb,
        "send_group_message",
        json!({"group_id": SANDBOX_GROUP, "message": [{"type": "reply", "data": {"message_seq": 999}}]}),
        -404,
    )
    .await;
    failed(
        &sb,
        "send_group_message",
        json!({"group_id": 30000000, "message": [{"type": "text", "data": {"text": "x"}}]}),
        -404,
    )
    .await;
    // The bot is a plain member of 示例群: no @全体成员.
    failed(
        &sb,
        "send_group_message",
        json!({"group_id": EXAMPLE_GROUP, "message": [{"type": "mention_all", "data": {}}]}),
        -406,
    )
    .await;
}

#[tokio::test]
async fn forwards_and_files() {
    let sb = start().await;
    let m = ok(
        &sb,
        "get_message",
        json!({"message_scene": "group", "peer_id": EXAMPLE_GROUP, "message_seq": 3}),
    )
    .await;
    let fwd = &m["message"]["segments"][1];
    assert_eq!(fwd["type"], "forward");
    assert_eq!(fwd["data"]["forward_id"], EXAMPLE_FORWARD);
    assert_eq!(fwd["data"]["preview"].as_array().unwrap().len(), 3);
    let nodes = ok(
        &sb,
        "get_forwarded_messages",
        json!({"forward_id": EXAMPLE_FORWARD}),
    )
    .await;
    let nodes = nodes["messages"].as_array().unwrap();
    assert_eq!(nodes.len(), 3);
    assert_eq!(nodes[0]["sender_name"], "张三");
    assert_eq!(nodes[2]["segments"][0]["type"], "forward");
    failed(
        &sb,
        "get_forwarded_messages",
        json!({"forward_id": "x"}),
        -404,
    )
    .await;

    // A sent bundle: stored, shown as a forward segment, opened by get_forwarded_messages.
    let node = |user_id: i64, name: &str, text: &str| {
        json!({"user_id": user_id, "sender_name": name,
               "segments": [{"type": "text", "data": {"text": text}}]})
    };
    let sent = ok(
        &sb,
        "send_group_message",
        json!({"group_id": SANDBOX_GROUP, "message": [{"type": "forward", "data": {"messages": [
            node(10001, "张三", "一"), node(10002, "李四", "二"),
        ]}}]}),
    )
    .await;
    let m = ok(
        &sb,
        "get_message",
        json!({"message_scene": "group", "peer_id": SANDBOX_GROUP, "message_seq": sent["message_seq"]}),
    )
    .await;
    let fwd = &m["message"]["segments"][0]["data"];
    assert_eq!(fwd["preview"][1], "李四: 二");
    let nodes = ok(
        &sb,
        "get_forwarded_messages",
        json!({"forward_id": fwd["forward_id"]}),
    )
    .await;
    assert_eq!(nodes["messages"][1]["segments"][0]["data"]["text"], "二");
    let m = failed(
        &sb,
        "send_group_message",
        json!({"group_id": SANDBOX_GROUP, "message": [{"type": "forward", "data": {"messages": [
            {"user_id": 10001, "sender_name": "张三", "segments": [{"type": "reply", "data": {"message_seq": 1}}]},
        ]}}]}),
        -400,
    )
    .await;
    assert!(
        m.starts_with("message[0].data.messages[0].segments[0]"),
        "{m}"
    );

    let bytes = b"%PDF-1.4 minutes".to_vec();
    let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let up = ok(
        &sb,
        "upload_group_file",
        json!({"group_id": SANDBOX_GROUP, "file_uri": format!("base64://{b64}"), "file_name": "m.pdf"}),
    )
    .await;
    let file_id = up["file_id"].as_str().unwrap();
    let url = ok(
        &sb,
        "get_group_file_download_url",
        json!({"group_id": SANDBOX_GROUP, "file_id": file_id}),
    )
    .await;
    assert_eq!(
        download(url["download_url"].as_str().unwrap()).await,
        (200, bytes.clone())
    );
    let up = ok(
        &sb,
        "upload_private_file",
        json!({"user_id": FRIEND_WITH_HISTORY, "file_uri": format!("base64://{b64}"), "file_name": "m.pdf"}),
    )
    .await;
    let url = ok(
        &sb,
        "get_private_file_download_url",
        json!({"user_id": FRIEND_WITH_HISTORY, "file_id": up["file_id"], "file_hash": "x"}),
    )
    .await;
    assert_eq!(
        download(url["download_url"].as_str().unwrap()).await,
        (200, bytes)
    );
    // A seeded file of 沙盒群 (message 7).
    let m = ok(
        &sb,
        "get_message",
        json!({"message_scene": "group", "peer_id": SANDBOX_GROUP, "message_seq": 7}),
    )
    .await;
    let file = &m["message"]["segments"][0]["data"];
    assert_eq!(file["file_size"], 200_007);
    let url = ok(
        &sb,
        "get_group_file_download_url",
        json!({"group_id": SANDBOX_GROUP, "file_id": file["file_id"]}),
    )
    .await;
    let (status, body) = download(url["download_url"].as_str().unwrap()).await;
    assert_eq!((status, body.len()), (200, 200_007));
    failed(
        &sb,
        "get_group_file_download_url",
        json!({"group_id": SANDBOX_GROUP, "file_id": "/none"}),
        -404,
    )
    .await;
}
