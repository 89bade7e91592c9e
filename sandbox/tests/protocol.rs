//! Protocol behaviour over real sockets: members, history per flavor, echo, HTTP, CQ strings,
//! media, events.

mod common;

use base64::Engine as _;
use common::*;
use onebot_sandbox::{
    ChatRef, EXAMPLE_GROUP, Flavor, MediaKind, MediaSource, SANDBOX_GROUP, SandboxConfig,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

#[tokio::test]
async fn member_list_has_120_members_in_peer_order() {
    let sb = start(Flavor::NapCat).await;
    let mut c = universal(&sb).await;
    let members = c
        .ok("get_group_member_list", json!({"group_id": 20000002}))
        .await;
    let members = members.as_array().unwrap();
    assert_eq!(members.len(), 120);
    assert_eq!(members[0]["user_id"], 10001);
    assert_eq!(members[0]["nickname"], "张三");
    assert_eq!(members[0]["card"], "群主张三");
    assert_eq!(members[0]["role"], "owner");
    assert_eq!(members[1]["card"], "管理员李四");
    assert_eq!(members[1]["role"], "admin");
    assert_eq!(members[2]["nickname"], "王五");
    assert_eq!(members[2]["card"], "");
    assert_eq!(members[2]["role"], "member");
    // Numeric strings are accepted as ids.
    let info = c
        .ok(
            "get_group_member_info",
            json!({"group_id": "20000002", "user_id": "10003"}),
        )
        .await;
    assert_eq!(info["nickname"], "王五");
    let r = c
        .call(
            "get_group_member_info",
            json!({"group_id": 20000002, "user_id": 1}),
        )
        .await;
    assert_eq!(r["retcode"], 1200);
    assert_eq!(r["message"], "群(20000002)成员1不存在");
    let g = c.ok("get_group_info", json!({"group_id": 20000003})).await;
    assert_eq!(g["group_name"], "沙盒群");
    assert_eq!(g["member_count"], 36);
    assert_eq!(
        c.ok("get_group_list", json!({}))
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let friends = c.ok("get_friend_list", json!({})).await;
    let ids: Vec<_> = friends
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["user_id"].clone())
        .collect();
    assert!(ids.contains(&json!(10001)) && ids.contains(&json!(10002)));
    let login = c.ok("get_login_info", json!(null)).await;
    assert_eq!(
        login,
        json!({"user_id": 3889000000i64, "nickname": "沙盒机器人"})
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn version_info_per_flavor() {
    for (flavor, name) in [
        (Flavor::NapCat, "NapCat.Onebot"),
        (Flavor::LlOneBot, "LLOneBot"),
        (Flavor::Lagrange, "Lagrange.OneBot"),
        (Flavor::SnowLuma, "SnowLuma"),
        (Flavor::GoCqhttp, "go-cqhttp"),
    ] {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let v = c.ok("get_version_info", json!({})).await;
        assert_eq!(v["app_name"], name);
        assert_eq!(v["protocol_version"], "v11");
        sb.shutdown().await;
    }
}

fn texts(messages: &Value) -> Vec<String> {
    messages["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["raw_message"].as_str().unwrap().to_owned())
        .collect()
}

fn seqs(messages: &Value, field: &str) -> Vec<i64> {
    messages["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m[field].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn napcat_history() {
    let sb = start(Flavor::NapCat).await;
    let mut c = universal(&sb).await;
    let h = c
        .ok("get_group_msg_history", json!({"group_id": 20000002}))
        .await;
    let msgs = h["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 3);
    assert_eq!(
        msgs[0]["sender"],
        json!({"user_id": 10001, "nickname": "张三", "card": "", "role": "owner"})
    );
    assert_eq!(
        msgs[0]["time"],
        onebot_sandbox::shanghai_time(2026, 10, 19, 9, 58, 12)
    );
    assert_eq!(msgs[0]["raw_message"], "大家好");
    assert_eq!(msgs[1]["message"][1]["type"], "image");
    assert_eq!(
        msgs[2]["message"][0]["data"]["text"],
        "昨天开会的记录发一下 "
    );
    assert_eq!(msgs[2]["message"][1]["type"], "forward");
    for m in msgs {
        let id = m["message_id"].as_i64().unwrap();
        assert!(id > 0 && id <= i64::from(i32::MAX));
        assert_eq!(m["message_seq"], m["message_id"]);
        assert_eq!(m["real_id"], m["message_id"]);
    }
    // Anchor (a short message_id) is included; window ends at it.
    let anchor = msgs[1]["message_id"].clone();
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": 20000002, "message_seq": anchor, "count": 2}),
        )
        .await;
    let t = texts(&h);
    assert_eq!(t.len(), 2);
    assert_eq!(t[0], "大家好");
    assert!(t[1].starts_with("早上好[CQ:image,"), "{}", t[1]);
    assert!(t[1].contains(
        "url=https://multimedia.nt.qq.com.cn/download?appid=1407&amp;fileid=sandbox-morning"
    ));
    assert_eq!(h["messages"][1]["message_id"], anchor);
    // reverse_order flips the order.
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": 20000002, "message_seq": anchor, "count": 2, "reverse_order": true}),
        )
        .await;
    assert_eq!(h["messages"][0]["message_id"], anchor);
    assert_eq!(h["messages"][1]["raw_message"], "大家好");
    // Paging the big group: latest 20, then 20 more ending at the oldest (overlap of one).
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "count": 20}),
        )
        .await;
    let real: Vec<String> = h["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["real_seq"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(real.first().unwrap(), "281");
    assert_eq!(real.last().unwrap(), "300");
    let oldest = h["messages"][0]["message_id"].clone();
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "message_seq": oldest.to_string(), "count": "20"}),
        )
        .await;
    assert_eq!(h["messages"][19]["message_id"], oldest);
    assert_eq!(h["messages"][0]["real_seq"], "262");
    // Unknown anchor and empty chat: failed 1200 `消息<seq>不存在`.
    let r = c
        .call(
            "get_group_msg_history",
            json!({"group_id": 20000002, "message_seq": 12345}),
        )
        .await;
    assert_eq!(
        (r["status"].as_str(), r["retcode"].as_i64()),
        (Some("failed"), Some(1200))
    );
    assert_eq!(r["message"], "消息12345不存在");
    assert_eq!(r["wording"], "消息12345不存在");
    let r = c
        .call("get_friend_msg_history", json!({"user_id": 10002}))
        .await;
    assert_eq!(r["retcode"], 1200);
    assert_eq!(r["message"], "消息undefined不存在");
    // Over HTTP the same failure is retcode 200.
    let (status, body) = post(
        sb.addr(),
        "/get_friend_msg_history",
        json!({"user_id": 10002}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["retcode"], 200);
    // Friend history with 10001 works.
    let h = c
        .ok(
            "get_friend_msg_history",
            json!({"user_id": 10001, "count": 5}),
        )
        .await;
    assert_eq!(h["messages"].as_array().unwrap().len(), 5);
    // get_msg by id.
    let m = c.ok("get_msg", json!({"message_id": anchor})).await;
    assert_eq!(m["sender"]["nickname"], "李四");
    assert_eq!(m["message_id"], anchor);
    sb.shutdown().await;
}

#[tokio::test]
async fn llonebot_history_uses_real_seq() {
    let sb = start(Flavor::LlOneBot).await;
    let mut c = universal(&sb).await;
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": 20000002, "message_seq": 2, "count": 20}),
        )
        .await;
    assert_eq!(seqs(&h, "message_seq"), vec![1, 2]);
    assert_eq!(texts(&h)[0], "大家好");
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "count": 3}),
        )
        .await;
    assert_eq!(seqs(&h, "message_seq"), vec![298, 299, 300]);
    // message_id is a short id, not the seq.
    assert_ne!(h["messages"][0]["message_id"], json!(298));
    let h = c
        .ok("get_friend_msg_history", json!({"user_id": 10002}))
        .await;
    assert_eq!(h, json!({"messages": []}));
    sb.shutdown().await;
}

#[tokio::test]
async fn lagrange_history_fetches_seq_minus_count_to_seq() {
    let sb = start(Flavor::Lagrange).await;
    let mut c = universal(&sb).await;
    let all = sb.control().messages(ChatRef::Group(SANDBOX_GROUP));
    let anchor = all[9]["message_id"].clone(); // seq 10
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "message_id": anchor, "count": 3}),
        )
        .await;
    assert_eq!(seqs(&h, "real_id"), vec![7, 8, 9, 10]);
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "message_id": 0, "count": 2}),
        )
        .await;
    assert_eq!(seqs(&h, "real_id"), vec![298, 299, 300]);
    sb.shutdown().await;
}

#[tokio::test]
async fn snowluma_history_needs_observation_or_anchor() {
    let sb = start(Flavor::SnowLuma).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    // Unanchored on a chat with no live traffic yet: [].
    let h = c
        .ok("get_group_msg_history", json!({"group_id": SANDBOX_GROUP}))
        .await;
    assert_eq!(h, json!({"messages": []}));
    // Anchored works; ids are signed hashes (some negative).
    let all = control.messages(ChatRef::Group(SANDBOX_GROUP));
    assert!(all.iter().any(|m| m["message_id"].as_i64().unwrap() < 0));
    let anchor = all[99]["message_id"].clone();
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "message_id": anchor, "count": 5}),
        )
        .await;
    assert_eq!(seqs(&h, "message_seq"), vec![96, 97, 98, 99, 100]);
    assert!(h["messages"][0].get("post_type").is_none());
    // count is clamped to 1..200.
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "message_id": anchor, "count": 0}),
        )
        .await;
    assert_eq!(seqs(&h, "message_seq"), vec![100]);
    // Once a message is observed, the unanchored call returns the latest.
    let id = control.inject_group_message(
        SANDBOX_GROUP,
        10002,
        json!([{"type": "text", "data": {"text": "新消息"}}]),
    );
    let ev = c.recv_event().await.unwrap();
    assert_eq!(ev["post_type"], "message");
    assert_eq!(ev["message_id"], id);
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "count": 2}),
        )
        .await;
    assert_eq!(seqs(&h, "message_seq"), vec![300, 301]);
    assert_eq!(h["messages"][1]["raw_message"], "新消息");
    let r = c
        .call(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "message_id": 5}),
        )
        .await;
    assert_eq!(r["retcode"], 100);
    assert!(r.get("message").is_none() && r["wording"].is_string());
    sb.shutdown().await;
}

#[tokio::test]
async fn gocqhttp_history_window_and_no_friend_history() {
    let sb = start(Flavor::GoCqhttp).await;
    let mut c = universal(&sb).await;
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "count": 5}),
        )
        .await;
    assert_eq!(seqs(&h, "message_seq"), (281..=300).collect::<Vec<_>>());
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "message_seq": 100}),
        )
        .await;
    assert_eq!(seqs(&h, "message_seq"), (81..=100).collect::<Vec<_>>());
    let h = c
        .ok(
            "get_group_msg_history",
            json!({"group_id": SANDBOX_GROUP, "message_seq": 10}),
        )
        .await;
    assert_eq!(seqs(&h, "message_seq"), (1..=10).collect::<Vec<_>>());
    let r = c
        .call("get_friend_msg_history", json!({"user_id": 10001}))
        .await;
    assert_eq!(r["status"], "failed");
    assert_eq!(r["retcode"], 404);
    assert_eq!(r["msg"], "API_NOT_FOUND");
    assert_eq!(r["wording"], "API不存在");
    let r = c
        .call(
            "group_poke",
            json!({"group_id": 20000002, "user_id": 10001}),
        )
        .await;
    assert_eq!(r["retcode"], 404);
    sb.shutdown().await;
}

async fn echo_round(c: &mut TcpClient, action: &str, echo: Option<Value>) -> Value {
    let mut frame = json!({"action": action, "params": {}});
    if let Some(e) = echo {
        frame["echo"] = e;
    }
    c.send_json(&frame).await;
    c.recv_reply().await.unwrap()
}

#[tokio::test]
async fn echo_types_per_flavor() {
    let obj = json!({"k": [1, "x"]});
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let s = echo_round(&mut c, "get_status", Some(json!("abc"))).await;
        let n = echo_round(&mut c, "get_status", Some(json!(7))).await;
        let o = echo_round(&mut c, "get_status", Some(obj.clone())).await;
        let none = echo_round(&mut c, "get_status", None).await;
        let unknown = echo_round(&mut c, "no_such_action", None).await;
        assert_eq!(s["echo"], "abc", "{flavor}");
        match flavor {
            Flavor::Lagrange => {
                assert_eq!(n["echo"], "7");
                assert_eq!(o["echo"], json!(obj.to_string()));
                assert!(none.get("echo").is_none());
            }
            Flavor::NapCat => {
                assert_eq!(n["echo"], 7);
                assert_eq!(o["echo"], obj);
                assert_eq!(none["echo"], "");
                assert_eq!(unknown["echo"], Value::Null);
                assert!(unknown.get("echo").is_some());
            }
            _ => {
                assert_eq!(n["echo"], 7, "{flavor}");
                assert_eq!(o["echo"], obj);
                assert!(none.get("echo").is_none(), "{flavor}");
                assert!(unknown.get("echo").is_none(), "{flavor}");
            }
        }
        let expected = match flavor {
            Flavor::GoCqhttp => 404,
            _ => 1404,
        };
        assert_eq!(unknown["retcode"], expected, "{flavor}");
        assert_eq!(unknown["status"], "failed");
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn error_fields_per_flavor() {
    for flavor in Flavor::ALL {
        let sb = start(flavor).await;
        let mut c = universal(&sb).await;
        let r = c.call("send_group_msg", json!({"message": "x"})).await;
        assert_eq!(r["status"], "failed");
        let (code, fields): (i64, &[&str]) = match flavor {
            Flavor::NapCat | Flavor::LlOneBot => (1400, &["message", "wording"]),
            Flavor::SnowLuma => (1400, &["wording"]),
            Flavor::GoCqhttp => (100, &["msg", "wording", "message"]),
            Flavor::Lagrange => (1, &[]),
        };
        assert_eq!(r["retcode"], code, "{flavor}");
        for f in ["message", "wording", "msg"] {
            assert_eq!(r.get(f).is_some(), fields.contains(&f), "{flavor} {f}: {r}");
        }
        sb.shutdown().await;
    }
}

#[tokio::test]
async fn http_api_paths() {
    let sb = start(Flavor::NapCat).await;
    let (status, body) = post(sb.addr(), "/get_login_info", json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["user_id"], 3889000000i64);
    assert!(body.get("echo").is_none());
    let (status, body) = post(
        sb.addr(),
        "/send_group_msg/",
        json!({"group_id": 20000003, "message": [{"type": "text", "data": {"text": "via http"}}]}),
    )
    .await;
    assert_eq!(status, 200);
    let id = body["data"]["message_id"].as_i64().unwrap();
    let (status, text) = http(
        sb.addr(),
        "GET",
        &format!("/get_msg?message_id={id}"),
        &[],
        "",
    )
    .await;
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["data"]["raw_message"], "via http");
    let (_, text) = http(
        sb.addr(),
        "GET",
        "/get_group_info?group_id=20000002",
        &[],
        "",
    )
    .await;
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["data"]["member_count"], 120);
    // Bad params over HTTP: retcode 400; unknown API: retcode 200 (NapCat).
    let (_, body) = post(sb.addr(), "/get_group_info", json!({})).await;
    assert_eq!(body["retcode"], 400);
    let (_, body) = post(sb.addr(), "/nope", json!({})).await;
    assert_eq!(body["retcode"], 200);
    assert_eq!(body["message"], "不支持的API nope");
    // Malformed body: HTTP 400.
    let (status, _) = http(
        sb.addr(),
        "POST",
        "/get_msg",
        &[("Content-Type", "application/json")],
        "{oops",
    )
    .await;
    assert_eq!(status, 400);
    // Urlencoded bodies.
    let (_, text) = http(
        sb.addr(),
        "POST",
        "/get_group_member_info",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        "group_id=20000002&user_id=10001",
    )
    .await;
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["data"]["card"], "群主张三");
    let actions = sb.control().actions();
    assert!(
        actions
            .iter()
            .all(|a| a.transport == onebot_sandbox::Transport::Http)
    );
    assert_eq!(actions[0].action, "get_login_info");
    sb.shutdown().await;

    // go-cqhttp: POST / with {action, params}; unknown API is HTTP 200 + retcode 404.
    let sb = start(Flavor::GoCqhttp).await;
    let (status, body) = post(
        sb.addr(),
        "/",
        json!({"action": "get_login_info_async", "params": {}}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["nickname"], "沙盒机器人");
    let (status, body) = post(sb.addr(), "/nope", json!({})).await;
    assert_eq!((status, body["retcode"].as_i64()), (200, Some(404)));
    sb.shutdown().await;
}

#[tokio::test]
async fn cq_string_messages_are_parsed_and_sends_land_in_history() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    let r = c
        .ok(
            "send_group_msg",
            json!({"group_id": "20000002", "message": "[CQ:at,qq=10001] 你好&#91;x&#93;[CQ:face,id=178]"}),
        )
        .await;
    let id = r["message_id"].as_i64().unwrap();
    // The message_sent event.
    let ev = c.recv_event().await.unwrap();
    assert_eq!(ev["post_type"], "message_sent");
    assert_eq!(ev["message_id"], id);
    let m = c.ok("get_msg", json!({"message_id": id})).await;
    assert_eq!(
        m["message"],
        json!([
            {"type": "at", "data": {"qq": "10001"}},
            {"type": "text", "data": {"text": " 你好[x]"}},
            {"type": "face", "data": {"id": "178"}}
        ])
    );
    assert_eq!(
        m["raw_message"],
        "[CQ:at,qq=10001] 你好&#91;x&#93;[CQ:face,id=178]"
    );
    assert_eq!(m["sender"]["user_id"], 3889000000i64);
    // It is the newest message of the group's history now.
    let h = c
        .ok("get_group_msg_history", json!({"group_id": 20000002}))
        .await;
    assert_eq!(h["messages"].as_array().unwrap().len(), 4);
    assert_eq!(h["messages"][3]["message_id"], id);
    // auto_escape keeps the string literal; a single segment object works too.
    let r = c
        .ok(
            "send_msg",
            json!({"user_id": 10001, "message": "[CQ:face,id=1]", "auto_escape": true}),
        )
        .await;
    let m = c
        .ok("get_msg", json!({"message_id": r["message_id"]}))
        .await;
    assert_eq!(m["message"][0]["data"]["text"], "[CQ:face,id=1]");
    assert_eq!(m["message_type"], "private");
    let r = c
        .ok(
            "send_private_msg",
            json!({"user_id": 10002, "message": {"type": "text", "data": {"text": "单段"}}}),
        )
        .await;
    assert_eq!(
        control.messages(ChatRef::Private(10002)).last().unwrap()["message_id"],
        r["message_id"]
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn gocqhttp_poke_segment_and_napcat_poke_actions() {
    let sb = start(Flavor::GoCqhttp).await;
    let mut c = universal(&sb).await;
    let before = sb.control().messages(ChatRef::Group(EXAMPLE_GROUP)).len();
    let r = c
        .ok(
            "send_group_msg",
            json!({"group_id": 20000002, "message": "[CQ:poke,qq=10002]"}),
        )
        .await;
    assert_eq!(r["message_id"], 0);
    let ev = c.recv_event().await.unwrap();
    assert_eq!(
        (ev["notice_type"].as_str(), ev["sub_type"].as_str()),
        (Some("notify"), Some("poke"))
    );
    assert_eq!(ev["target_id"], 10002);
    assert_eq!(
        sb.control().messages(ChatRef::Group(EXAMPLE_GROUP)).len(),
        before
    );
    sb.shutdown().await;

    let sb = start(Flavor::NapCat).await;
    let mut c = universal(&sb).await;
    let r = c
        .ok(
            "group_poke",
            json!({"group_id": 20000002, "user_id": 10003}),
        )
        .await;
    assert_eq!(r, Value::Null);
    let ev = c.recv_event().await.unwrap();
    assert_eq!(ev["group_id"], 20000002);
    assert_eq!(ev["user_id"], 3889000000i64);
    assert_eq!(ev["target_id"], 10003);
    sb.shutdown().await;

    let sb = start_with(SandboxConfig {
        packet_backend: false,
        ..SandboxConfig::for_flavor(Flavor::NapCat)
    })
    .await;
    let mut c = universal(&sb).await;
    let r = c
        .call(
            "group_poke",
            json!({"group_id": 20000002, "user_id": 10003}),
        )
        .await;
    assert_eq!(r["retcode"], 1400);
    assert_eq!(r["message"], "packetBackend发包能力不可用");
    sb.shutdown().await;
}

#[tokio::test]
async fn thirty_mib_base64_video_arrives_intact() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    let bytes: Vec<u8> = (0..30u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let sha = hex::encode(Sha256::digest(&bytes));
    let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    // Built by hand: serde's escaping scan over 40 MiB is slow in debug builds.
    let frame = format!(
        r#"{{"action":"send_group_msg","params":{{"group_id":20000002,"message":[{{"type":"video","data":{{"file":"base64://{b64}","name":"clip.mp4"}}}}]}},"echo":"big"}}"#
    );
    drop(b64);
    c.send_raw(tokio_tungstenite::tungstenite::Message::Text(frame.into()))
        .await;
    let r = c.recv_reply().await.unwrap();
    assert_eq!(
        (r["status"].as_str(), r["echo"].as_str()),
        (Some("ok"), Some("big")),
        "{r}"
    );
    let r = &r["data"];
    assert!(r["message_id"].as_i64().unwrap() > 0);
    let media = control.received_media();
    assert_eq!(media.len(), 1);
    assert_eq!(media[0].kind, MediaKind::Video);
    assert_eq!(media[0].source, MediaSource::Base64);
    assert_eq!(media[0].sha256.as_deref(), Some(sha.as_str()));
    assert_eq!(media[0].len, Some(30 << 20));
    assert_eq!(media[0].group_id, Some(20000002));
    assert_eq!(media[0].name.as_deref(), Some("clip.mp4"));
    // The action log keeps a digest, not the payload.
    let a = control.wait_for_action("send_group_msg").await;
    assert_eq!(
        a.params["message"][0]["data"]["file"],
        format!("base64://{sha}:{}", 30 << 20)
    );
    // History stores a name, not the payload.
    let last = control
        .messages(ChatRef::Group(EXAMPLE_GROUP))
        .pop()
        .unwrap();
    let file = last["message"][0]["data"]["file"].as_str().unwrap();
    assert!(file.len() < 64 && file.ends_with(".mp4"), "{file}");
    sb.shutdown().await;
}

#[tokio::test]
async fn media_sources_and_uploads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("报告.pdf");
    std::fs::write(&path, b"%PDF-1.4 sandbox").unwrap();
    let path = path.to_str().unwrap().to_owned();
    let sha = hex::encode(Sha256::digest(b"%PDF-1.4 sandbox"));

    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    c.ok(
        "send_group_msg",
        json!({"group_id": 20000003, "message": [
            {"type": "image", "data": {"file": "https://example.com/a.png"}},
            {"type": "image", "data": {"file": format!("file://{path}")}},
        ]}),
    )
    .await;
    // NapCat requires `name` for uploads.
    let r = c
        .call(
            "upload_group_file",
            json!({"group_id": 20000003, "file": path}),
        )
        .await;
    assert_eq!(r["retcode"], 1400);
    let r = c
        .ok(
            "upload_group_file",
            json!({"group_id": 20000003, "file": "base64://aGVsbG8=", "name": "hello.txt"}),
        )
        .await;
    assert!(r["file_id"].as_str().unwrap().starts_with('/'));
    let media = control.received_media();
    assert_eq!(
        media[0].source,
        MediaSource::Url("https://example.com/a.png".into())
    );
    assert_eq!(media[0].sha256, None);
    assert_eq!(media[1].source, MediaSource::Path(path.clone()));
    assert_eq!(media[1].sha256.as_deref(), Some(sha.as_str()));
    assert_eq!(media[2].kind, MediaKind::File);
    assert_eq!(media[2].name.as_deref(), Some("hello.txt"));
    assert_eq!(media[2].len, Some(5));
    sb.shutdown().await;

    // go-cqhttp: base64 video and base64 uploads fail; local-path upload works.
    let sb = start(Flavor::GoCqhttp).await;
    let mut c = universal(&sb).await;
    let r = c
        .call("send_group_msg", json!({"group_id": 20000003, "message": [{"type": "video", "data": {"file": "base64://aGVsbG8="}}]}))
        .await;
    assert_eq!(
        (r["status"].as_str(), r["retcode"].as_i64()),
        (Some("failed"), Some(100))
    );
    let r = c
        .call(
            "upload_group_file",
            json!({"group_id": 20000003, "file": "base64://aGVsbG8=", "name": "a"}),
        )
        .await;
    assert_eq!(r["retcode"], 100);
    let r = c
        .call(
            "upload_group_file",
            json!({"group_id": 20000003, "file": path, "name": "报告.pdf"}),
        )
        .await;
    assert_eq!(r["status"], "ok");
    sb.shutdown().await;
}

#[tokio::test]
async fn injected_events_reach_event_paths_only() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut uni = universal(&sb).await;
    let mut api = connect(&format!("ws://{}/api", sb.addr()), None)
        .await
        .unwrap();
    let mut ev = connect(&format!("ws://{}/event", sb.addr()), None)
        .await
        .unwrap();
    assert_eq!(ev.recv().await.unwrap()["sub_type"], "connect");
    control.wait_connections(3).await;
    control.inject_event(json!({"post_type": "notice", "notice_type": "custom"}));
    assert_eq!(uni.recv_event().await.unwrap()["notice_type"], "custom");
    assert_eq!(ev.recv_event().await.unwrap()["notice_type"], "custom");
    // /event still answers API frames; /api answers but got no event before the reply.
    assert_eq!(ev.ok("get_status", json!({})).await["online"], true);
    let r = api.call("get_status", json!({})).await;
    assert_eq!(r["status"], "ok");
    assert!(api.events.is_empty());
    // Member changes emit notices.
    assert!(control.remove_member(20000002, 10003));
    assert_eq!(
        uni.recv_event().await.unwrap()["notice_type"],
        "group_decrease"
    );
    assert!(control.add_member(20000002, 10999, "新人"));
    assert_eq!(
        uni.recv_event().await.unwrap()["notice_type"],
        "group_increase"
    );
    assert!(control.set_card(20000002, 10001, "新名片"));
    let e = uni.recv_event().await.unwrap();
    assert_eq!(
        (e["card_new"].as_str(), e["card_old"].as_str()),
        (Some("新名片"), Some("群主张三"))
    );
    let members = uni
        .ok("get_group_member_list", json!({"group_id": 20000002}))
        .await;
    assert_eq!(members.as_array().unwrap().len(), 120);
    let pid = control.inject_private_message(10001, json!("私聊[CQ:face,id=1]"));
    let e = uni.recv_event().await.unwrap();
    assert_eq!(
        (e["message_type"].as_str(), e["message_id"].as_i64()),
        (Some("private"), Some(pid))
    );
    assert_eq!(e["message"][1]["type"], "face");
    sb.shutdown().await;
}

#[tokio::test]
async fn run_cli_returns_after_shutdown() {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(onebot_sandbox::run_cli(SandboxConfig::default(), async {
        let _ = rx.await;
    }));
    tx.send(()).unwrap();
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn received_media_per_flavor_and_the_expiring_media_host() {
    use onebot_sandbox::sample_media;
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let png = sample_media(MediaKind::Image, 2000);
    let seg = control.store_media(MediaKind::Image, png.clone(), "p.png");
    let voice = control.store_media(
        MediaKind::Record,
        sample_media(MediaKind::Record, 300),
        "v.amr",
    );
    let file = control.store_media(MediaKind::File, b"%PDF-1.4 abc".to_vec(), "f.pdf");
    let id = control.inject_group_message(SANDBOX_GROUP, 10001, json!([seg, voice, file]));
    let mut c = universal(&sb).await;
    let msg = c.ok("get_msg", json!({"message_id": id})).await;
    let url = msg["message"][0]["data"]["url"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        url.starts_with(&format!(
            "http://localhost:{}/download?appid=1407&fileid=",
            sb.addr().port()
        )),
        "{url}"
    );
    // NapCat reports no URL for files.
    assert_eq!(msg["message"][2]["data"]["url"], "");
    let path = url
        .split_once(&format!(":{}", sb.addr().port()))
        .unwrap()
        .1
        .to_owned();
    let raw = get_bytes(sb.addr(), &path).await;
    assert!(raw.starts_with(b"HTTP/1.1 200"));
    assert!(raw.ends_with(&png), "the PNG's bytes");
    // get_image: a path on NapCat's host and a fresh URL; no base64 by default.
    let name = msg["message"][0]["data"]["file"]
        .as_str()
        .unwrap()
        .to_owned();
    let img = c.ok("get_image", json!({"file": name})).await;
    assert!(
        img["file"]
            .as_str()
            .unwrap()
            .starts_with("/app/.config/QQ/NapCat/temp/")
    );
    assert!(img.get("base64").is_none());
    // get_record needs out_format on NapCat; then base64 always.
    let vname = msg["message"][1]["data"]["file"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = c.call("get_record", json!({"file": vname})).await;
    assert_eq!(r["retcode"], 1400);
    let rec = c
        .ok("get_record", json!({"file": vname, "out_format": "mp3"}))
        .await;
    assert!(rec["file_name"].as_str().unwrap().ends_with(".mp3"));
    assert!(!rec["base64"].as_str().unwrap().is_empty());
    // A stream download: info, chunks, completion, all with one echo.
    let fid = msg["message"][2]["data"]["file_id"]
        .as_str()
        .unwrap()
        .to_owned();
    c.send_json(&json!({"action": "download_file_stream", "params": {"file_id": fid, "chunk_size": 5}, "echo": "s1"})).await;
    let mut kinds = Vec::new();
    loop {
        let f = c.recv_reply().await.unwrap();
        assert_eq!(f["echo"], "s1");
        assert_eq!(f["stream"], "stream-action");
        kinds.push(f["data"]["data_type"].as_str().unwrap().to_owned());
        if f["data"]["type"] == "response" {
            break;
        }
    }
    assert_eq!(kinds.first().map(String::as_str), Some("file_info"));
    assert_eq!(kinds.iter().filter(|k| *k == "file_chunk").count(), 3);
    assert_eq!(kinds.last().map(String::as_str), Some("file_complete"));
    // Retired keys: the CDN's expiry answer; nc_get_rkey gives the new one.
    control.expire_media_urls();
    let (status, body) = common::http(sb.addr(), "GET", &path, &[], "").await;
    assert_eq!(status, 400);
    assert!(body.contains("download url has expired"), "{body}");
    let keys = c.ok("nc_get_rkey", json!({})).await;
    let rkey = keys[1]["rkey"]
        .as_str()
        .unwrap()
        .trim_start_matches("&rkey=")
        .to_owned();
    let old = path.rsplit_once("rkey=").unwrap().0;
    let raw = get_bytes(sb.addr(), &format!("{old}rkey={rkey}")).await;
    assert!(raw.starts_with(b"HTTP/1.1 200"));
    sb.shutdown().await;
}

/// `GET path` over a fresh connection; the whole answer as bytes.
async fn get_bytes(addr: std::net::SocketAddr, path: &str) -> Vec<u8> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    out
}
