//! Auth failure forms, fault switches, connection lifecycle and timing (paused tokio time
//! over `serve_io` + `tokio::io::duplex`).

mod common;

use std::time::Duration;

use common::*;
use onebot_sandbox::{
    ChatRef, EXAMPLE_GROUP, Fault, FaultKind, Flavor, SandboxConfig, SandboxControl,
};
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

fn with_token(flavor: Flavor) -> SandboxConfig {
    SandboxConfig {
        access_token: Some("s3cret".into()),
        ..SandboxConfig::for_flavor(flavor)
    }
}

fn http_status(e: tokio_tungstenite::tungstenite::Error) -> u16 {
    match e {
        tokio_tungstenite::tungstenite::Error::Http(resp) => resp.status().as_u16(),
        other => panic!("expected an HTTP error, got {other}"),
    }
}

#[tokio::test]
async fn token_failure_forms_per_flavor() {
    // NapCat / LLOneBot / Lagrange: upgrade accepted, 1403 frame, then close.
    for flavor in [Flavor::NapCat, Flavor::LlOneBot, Flavor::Lagrange] {
        let sb = start_with(with_token(flavor)).await;
        for auth in [None, Some("Bearer wrong")] {
            let mut c = connect(&sb.ws_url(), auth).await.expect("upgrade accepted");
            let frame = c.recv().await.expect("1403 frame");
            assert_eq!(
                frame,
                json!({"status":"failed","retcode":1403,"data":null,"message":"token验证失败","wording":"token验证失败","echo":null}),
                "{flavor}"
            );
            assert!(c.recv().await.is_none(), "{flavor}: closed after the frame");
        }
        // Both token sources work.
        let mut c = connect(&format!("{}?access_token=s3cret", sb.ws_url()), None)
            .await
            .unwrap();
        assert_eq!(c.recv().await.unwrap()["sub_type"], "connect");
        let mut c = connect(&sb.ws_url(), Some("Bearer s3cret")).await.unwrap();
        assert_eq!(c.recv().await.unwrap()["sub_type"], "connect");
        sb.shutdown().await;
    }

    // go-cqhttp: 401 / 403 before the upgrade; any Authorization scheme.
    let sb = start_with(with_token(Flavor::GoCqhttp)).await;
    assert_eq!(
        http_status(connect(&sb.ws_url(), None).await.err().unwrap()),
        401
    );
    assert_eq!(
        http_status(
            connect(&sb.ws_url(), Some("Token nope"))
                .await
                .err()
                .unwrap()
        ),
        403
    );
    let mut c = connect(&sb.ws_url(), Some("Token s3cret")).await.unwrap();
    let hello = c.recv().await.unwrap();
    assert_eq!(hello["_post_method"], 2);
    assert_eq!(hello["sub_type"], "connect");
    let (status, _) = post(sb.addr(), "/get_status", json!({})).await;
    assert_eq!(status, 401);
    sb.shutdown().await;

    // SnowLuma: header must be exactly `Bearer <t>`; failure is close 1008.
    let sb = start_with(with_token(Flavor::SnowLuma)).await;
    let mut c = connect(&sb.ws_url(), Some("Token s3cret")).await.unwrap();
    match c.recv_message().await {
        Some(Message::Close(Some(f))) => {
            assert_eq!(f.code, CloseCode::Policy);
            assert_eq!(f.reason.as_str(), "invalid access token");
        }
        other => panic!("expected close 1008, got {other:?}"),
    }
    let c = connect(&sb.ws_url(), Some("Bearer s3cret")).await;
    assert!(c.is_ok());
    // SnowLuma serves only `/`.
    assert_eq!(
        http_status(
            connect(&format!("ws://{}/api?access_token=s3cret", sb.addr()), None)
                .await
                .err()
                .unwrap()
        ),
        400
    );
    let (status, body) = post(sb.addr(), "/get_status", json!({})).await;
    assert_eq!((status, body["retcode"].as_i64()), (401, Some(1401)));
    sb.shutdown().await;

    // NapCat HTTP: 403 {"message":"token verify failed!"}.
    let sb = start_with(with_token(Flavor::NapCat)).await;
    let (status, body) = post(sb.addr(), "/get_status", json!({})).await;
    assert_eq!(
        (status, body),
        (403, json!({"message": "token verify failed!"}))
    );
    let (status, body) = post(sb.addr(), "/get_status?access_token=s3cret", json!({})).await;
    assert_eq!((status, body["status"].as_str()), (200, Some("ok")));
    sb.shutdown().await;
}

#[tokio::test]
async fn reject_auth_fault() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    control.set_fault(Fault::RejectAuth);
    let mut c = connect(&sb.ws_url(), None).await.unwrap();
    assert_eq!(c.recv().await.unwrap()["retcode"], 1403);
    assert_eq!(control.connections(), 0);
    control.clear_fault(FaultKind::RejectAuth);
    let _c = universal(&sb).await;
    control.wait_connections(1).await;
    sb.shutdown().await;

    let sb = start(Flavor::GoCqhttp).await;
    sb.control().set_fault(Fault::RejectAuth);
    assert_eq!(
        http_status(connect(&sb.ws_url(), None).await.err().unwrap()),
        401
    );
    sb.shutdown().await;
}

#[tokio::test]
async fn out_of_order_replies() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    control.set_fault(Fault::OutOfOrder { batch: 3 });
    for echo in 1..=3 {
        c.send_json(&json!({"action": "get_status", "echo": echo}))
            .await;
    }
    let order: Vec<Value> = [
        c.recv_reply().await.unwrap(),
        c.recv_reply().await.unwrap(),
        c.recv_reply().await.unwrap(),
    ]
    .iter()
    .map(|r| r["echo"].clone())
    .collect();
    assert_eq!(order, vec![json!(3), json!(2), json!(1)]);
    // Clearing the fault releases held replies.
    control.clear_actions();
    c.send_json(&json!({"action": "get_status", "echo": 4}))
        .await;
    control.wait_for_action("get_status").await;
    control.clear_fault(FaultKind::OutOfOrder);
    assert_eq!(c.recv_reply().await.unwrap()["echo"], 4);
    sb.shutdown().await;
}

#[tokio::test]
async fn stall_fault_never_answers_stalled_requests() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    control.set_fault(Fault::Stall {
        action: Some("get_status".into()),
    });
    c.send_json(&json!({"action": "get_status", "echo": "stalled"}))
        .await;
    c.send_json(&json!({"action": "get_login_info", "echo": "fine"}))
        .await;
    assert_eq!(c.recv_reply().await.unwrap()["echo"], "fine");
    let a = control.wait_for_action("get_status").await;
    assert_eq!(a.echo, Some(json!("stalled")));
    control.clear_faults();
    c.send_json(&json!({"action": "get_status", "echo": "after"}))
        .await;
    assert_eq!(c.recv_reply().await.unwrap()["echo"], "after");
    // Stall everything.
    control.set_fault(Fault::Stall { action: None });
    control.clear_actions();
    c.send_json(&json!({"action": "get_version_info", "echo": "x"}))
        .await;
    control.wait_for_action("get_version_info").await;
    control.clear_faults();
    c.send_json(&json!({"action": "get_version_info", "echo": "y"}))
        .await;
    assert_eq!(c.recv_reply().await.unwrap()["echo"], "y");
    sb.shutdown().await;
}

#[tokio::test]
async fn drop_on_action_and_drop_connections() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    control.wait_connections(1).await;
    control.set_fault(Fault::DropOnAction {
        action: "send_group_msg".into(),
    });
    c.send_json(&json!({"action": "send_group_msg", "params": {"group_id": 20000002, "message": "x"}, "echo": 1}))
        .await;
    assert!(
        c.recv_reply().await.is_none(),
        "connection dropped without a reply"
    );
    // Not executed.
    assert_eq!(control.messages(ChatRef::Group(EXAMPLE_GROUP)).len(), 3);
    // HTTP too: the connection closes with no response.
    let (status, body) = http(sb.addr(), "POST", "/send_group_msg", &[], "{}").await;
    assert_eq!((status, body.as_str()), (0, ""));
    control.clear_faults();

    let mut c = universal(&sb).await;
    control.wait_connections(1).await;
    control.drop_connections();
    assert!(c.recv_reply().await.is_none());
    // The listener still accepts.
    let mut c = universal(&sb).await;
    assert_eq!(c.ok("get_status", json!({})).await["good"], true);
    sb.shutdown().await;
}

#[tokio::test]
async fn stop_and_start_listening_keeps_state_and_address() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    let id = c
        .ok(
            "send_group_msg",
            json!({"group_id": 20000002, "message": "before restart"}),
        )
        .await["message_id"]
        .clone();
    sb.stop_listening().await;
    assert!(c.recv_reply().await.is_none());
    assert!(connect(&sb.ws_url(), None).await.is_err());
    sb.start_listening().await.unwrap();
    let mut c = universal(&sb).await;
    let m = c.ok("get_msg", json!({"message_id": id})).await;
    assert_eq!(m["raw_message"], "before restart");
    assert_eq!(control.connections(), 1);
    sb.shutdown().await;
}

#[tokio::test]
async fn send_faults() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    let chat = ChatRef::Group(EXAMPLE_GROUP);

    control.set_fault(Fault::SendTimeout);
    let r = c
        .call(
            "send_group_msg",
            json!({"group_id": 20000002, "message": "maybe delivered"}),
        )
        .await;
    assert_eq!(r["retcode"], 1200);
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("Timeout: NTEvent serviceAndMethod:NodeIKernelMsgService/sendMsg")
    );
    assert_eq!(
        control.messages(chat).last().unwrap()["raw_message"],
        "maybe delivered"
    );
    control.clear_faults();

    control.set_fault(Fault::SendEventChecker {
        result: 110,
        err_msg: "发送失败，你已被移出该群，请重新加群。".into(),
    });
    let r = c
        .call(
            "send_group_msg",
            json!({"group_id": 20000002, "message": "not delivered"}),
        )
        .await;
    assert_eq!(r["retcode"], 1200);
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("EventChecker Failed:")
    );
    assert!(r["message"].as_str().unwrap().contains("\"result\": 110"));
    assert_eq!(
        control.messages(chat).last().unwrap()["raw_message"],
        "maybe delivered"
    );
    control.clear_faults();

    control.set_fault(Fault::RiskControl);
    let r = c
        .call(
            "send_group_msg",
            json!({"group_id": 20000002, "message": "x"}),
        )
        .await;
    assert_eq!(r["retcode"], 1200);
    assert_eq!(control.messages(chat).len(), 4);

    control.set_fault(Fault::PokeUnsupported);
    let r = c
        .call(
            "group_poke",
            json!({"group_id": 20000002, "user_id": 10001}),
        )
        .await;
    assert_eq!(r["retcode"], 1400);
    sb.shutdown().await;

    let sb = start(Flavor::GoCqhttp).await;
    let mut c = universal(&sb).await;
    sb.control().set_fault(Fault::RiskControl);
    let r = c
        .call(
            "send_group_msg",
            json!({"group_id": 20000002, "message": "x"}),
        )
        .await;
    assert_eq!(r["retcode"], 100);
    assert_eq!(r["msg"], "SEND_MSG_API_ERROR");
    assert_eq!(r["wording"], "请参考 go-cqhttp 端输出");
    sb.shutdown().await;
}

#[tokio::test]
async fn malformed_frames_precede_replies_and_bad_client_json_is_answered() {
    let sb = start(Flavor::NapCat).await;
    let control = sb.control();
    let mut c = universal(&sb).await;
    control.set_fault(Fault::MalformedFrames);
    c.send_json(&json!({"action": "get_status", "echo": 1}))
        .await;
    match c.recv_message().await {
        Some(Message::Text(t)) => assert_eq!(t.as_str(), "{not json"),
        other => panic!("expected garbage, got {other:?}"),
    }
    assert_eq!(c.recv_reply().await.unwrap()["echo"], 1);
    c.send_json(&json!({"action": "get_status", "echo": 2}))
        .await;
    assert!(matches!(c.recv_message().await, Some(Message::Binary(_))));
    control.clear_faults();
    // A client sending garbage gets 1400 (NapCat), and the server survives.
    c.send_raw(Message::Text("{\"action\":".into())).await;
    // The reply to echo 2 (sent while the fault was on) comes first.
    assert_eq!(c.recv_reply().await.unwrap()["echo"], 2);
    let r = c.recv_reply().await.unwrap();
    assert_eq!(
        (r["retcode"].as_i64(), r["echo"].clone()),
        (Some(1400), Value::Null)
    );
    c.send_raw(Message::Binary(vec![0xff, 0x00].into())).await;
    assert_eq!(c.recv_reply().await.unwrap()["retcode"], 1400);
    c.send_json(&json!({"action": "get_status", "params": [1], "echo": 3}))
        .await;
    assert_eq!(c.recv_reply().await.unwrap()["retcode"], 1400);
    assert_eq!(c.ok("get_status", json!({})).await["online"], true);
    sb.shutdown().await;
}

/// Connects a client to a standalone sandbox over an in-memory duplex pipe.
async fn duplex_client(control: &SandboxControl, path: &str) -> Client<tokio::io::DuplexStream> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let ctl = control.clone();
    tokio::spawn(async move { ctl.serve_io(server_io).await });
    let (ws, _) = tokio_tungstenite::client_async(format!("ws://sandbox{path}"), client_io)
        .await
        .expect("handshake over duplex");
    Client::new(ws)
}

#[tokio::test(start_paused = true)]
async fn heartbeat_interval_with_paused_time() {
    let control = SandboxControl::standalone(SandboxConfig {
        heartbeat_interval: Some(Duration::from_secs(10)),
        ..SandboxConfig::for_flavor(Flavor::NapCat)
    });
    let mut c = duplex_client(&control, "/").await;
    let t0 = Instant::now();
    assert_eq!(c.recv().await.unwrap()["sub_type"], "connect");
    let hb = c.recv().await.unwrap();
    assert_eq!(hb["meta_event_type"], "heartbeat");
    assert_eq!(hb["interval"], 10_000);
    assert_eq!(hb["status"], json!({"online": true, "good": true}));
    assert_eq!(t0.elapsed(), Duration::from_secs(10));
    c.recv().await.unwrap();
    assert_eq!(t0.elapsed(), Duration::from_secs(20));

    // Half-dead link: no heartbeats, no replies.
    control.set_fault(Fault::SilenceHeartbeats);
    c.send_json(&json!({"action": "get_status", "echo": 1}))
        .await;
    let quiet = tokio::time::timeout(Duration::from_secs(60), c.recv()).await;
    assert!(quiet.is_err(), "nothing for a minute: {quiet:?}");
    control.clear_faults();
    // Buffered request is processed once the link recovers.
    assert_eq!(c.recv_reply().await.unwrap()["echo"], 1);

    // /api connections get no heartbeats.
    let mut api = duplex_client(&control, "/api").await;
    let quiet = tokio::time::timeout(Duration::from_secs(60), api.recv()).await;
    assert!(quiet.is_err());
}

#[tokio::test(start_paused = true)]
async fn no_heartbeats_when_disabled_and_slow_replies() {
    let control = SandboxControl::standalone(SandboxConfig {
        heartbeat_interval: None,
        ..SandboxConfig::for_flavor(Flavor::GoCqhttp)
    });
    let mut c = duplex_client(&control, "/").await;
    assert_eq!(c.recv().await.unwrap()["_post_method"], 2);
    let quiet = tokio::time::timeout(Duration::from_secs(3600), c.recv()).await;
    assert!(quiet.is_err());

    control.set_fault(Fault::SlowReplies(Duration::from_secs(5)));
    let t0 = Instant::now();
    let r = c.call("get_status", json!({})).await;
    assert_eq!(r["status"], "ok");
    assert_eq!(t0.elapsed(), Duration::from_secs(5));
    control.clear_faults();
    let t0 = Instant::now();
    c.call("get_status", json!({})).await;
    assert_eq!(t0.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn snowluma_greeting_and_wait_for_action_over_duplex() {
    let control = SandboxControl::standalone(SandboxConfig::for_flavor(Flavor::SnowLuma));
    let mut c = duplex_client(&control, "/").await;
    let kinds: Vec<String> = [
        c.recv().await.unwrap(),
        c.recv().await.unwrap(),
        c.recv().await.unwrap(),
    ]
    .iter()
    .map(|e| {
        format!(
            "{}/{}",
            e["meta_event_type"].as_str().unwrap(),
            e["sub_type"].as_str().unwrap_or("-")
        )
    })
    .collect();
    assert_eq!(
        kinds,
        vec!["lifecycle/connect", "lifecycle/enable", "heartbeat/-"]
    );
    let waiter = {
        let control = control.clone();
        tokio::spawn(async move { control.wait_for_action("get_login_info").await })
    };
    c.send_json(&json!({"action": "get_login_info_async", "params": {"x": 1}, "echo": "e"}))
        .await;
    let a = waiter.await.unwrap();
    assert_eq!(a.action, "get_login_info_async");
    assert_eq!(a.params, json!({"x": 1}));
    assert_eq!(
        c.recv_reply().await.unwrap()["data"]["user_id"],
        3889000000i64
    );
}
