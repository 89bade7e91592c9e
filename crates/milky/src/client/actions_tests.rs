//! The group actions against a stub Milky API: which API each calls, with
//! which body, and what it makes of the answer.

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::routing::post;
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::api::Api;
use crate::client::inner::{Inner, Reach};
use crate::ids::Scene;
use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::model::{ConnState, GroupFile, InboundEvent};
use onebot_gateway_domain::ports::EventSink;
use onebot_gateway_tls::PeerTls;

const ACCOUNT: &str = "acc";
const GROUP: i64 = 20000003;

struct NoSink;

impl EventSink for NoSink {
    fn publish(&self, _: &str, _: InboundEvent) {}
}

/// The calls the stub received, and its answers by API (`{}` for the rest).
#[derive(Clone, Default)]
struct Stub {
    calls: Arc<Mutex<Vec<(String, Value)>>>,
    answers: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Stub {
    fn answer(&self, api: &str, envelope: Value) {
        self.answers.lock().push((api.to_string(), envelope));
    }

    fn calls(&self) -> Vec<(String, Value)> {
        std::mem::take(&mut *self.calls.lock())
    }
}

async fn handle(State(stub): State<Stub>, Path(api): Path<String>, body: String) -> Json<Value> {
    let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    stub.calls.lock().push((api.clone(), request));
    let answer = stub
        .answers
        .lock()
        .iter()
        .find(|(a, _)| *a == api)
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| json!({"status": "ok", "retcode": 0, "data": {}}));
    Json(answer)
}

/// A client of the account `acc` whose API is the stub (no event
/// connection), reporting `implementation`.
async fn client(implementation: &str) -> (MilkyClient, Stub) {
    let stub = Stub::default();
    let app = Router::new()
        .route("/api/{api}", post(handle))
        .with_state(stub.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let tls = PeerTls::new(None, "ca_file").unwrap();
    let api = Api::new(
        &url,
        None,
        Duration::from_secs(2),
        Duration::from_secs(30),
        1 << 20,
        &tls,
    )
    .unwrap();
    let (status, _) = watch::channel(AccountStatus {
        state: ConnState::Connected,
        implementation: implementation.to_string(),
        ..AccountStatus::default()
    });
    let inner = Arc::new(Inner {
        id: ACCOUNT.to_string(),
        token: None,
        cfg: AccountConfig {
            milky_url: Some(url.clone()),
            request_timeout_ms: 5000,
            ..AccountConfig::default()
        },
        api,
        tls,
        event_url: crate::api::join_base(&url, "event").unwrap(),
        status,
        reach: Mutex::new(Reach::default()),
        sink: Arc::new(NoSink),
        cancel: CancellationToken::new(),
        max_event_bytes: 1 << 20,
        retry_at: Mutex::new(None),
        gate: onebot_gateway_domain::lease::Gate::Open,
    });
    (MilkyClient { inner, media: None }, stub)
}

fn in_group(seq: i64) -> i64 {
    mint_id(
        ACCOUNT,
        MessageKey {
            scene: Scene::Group,
            peer: GROUP,
            seq,
        },
    )
}

fn calls(stub: &Stub) -> Vec<(String, Value)> {
    stub.calls()
}

fn call(api: &str, request: Value) -> (String, Value) {
    (api.to_string(), request)
}

#[tokio::test]
async fn reactions_and_essence_name_the_message_by_its_group_seq() {
    let (c, stub) = client("").await;
    let d = Deadline::NONE;
    c.react(GROUP, in_group(77), "76", true, d).await.unwrap();
    c.react(GROUP, in_group(77), "128076", false, d)
        .await
        .unwrap();
    c.set_essence(GROUP, in_group(78), true, d).await.unwrap();
    c.set_essence(GROUP, in_group(78), false, d).await.unwrap();
    assert_eq!(
        calls(&stub),
        vec![
            call(
                "send_group_message_reaction",
                json!({"group_id": GROUP, "message_seq": 77, "reaction": "76", "is_add": true})
            ),
            call(
                "send_group_message_reaction",
                json!({"group_id": GROUP, "message_seq": 77, "reaction": "128076",
                    "reaction_type": "emoji", "is_add": false})
            ),
            call(
                "set_group_essence_message",
                json!({"group_id": GROUP, "message_seq": 78, "is_set": true})
            ),
            call(
                "set_group_essence_message",
                json!({"group_id": GROUP, "message_seq": 78, "is_set": false})
            ),
        ]
    );
}

#[tokio::test]
async fn unknown_or_foreign_message_ids_are_not_found_and_nothing_is_sent() {
    let (c, stub) = client("").await;
    let d = Deadline::NONE;
    let other_account = mint_id(
        "other",
        MessageKey {
            scene: Scene::Group,
            peer: GROUP,
            seq: 1,
        },
    );
    let other_group = mint_id(
        ACCOUNT,
        MessageKey {
            scene: Scene::Group,
            peer: GROUP + 1,
            seq: 1,
        },
    );
    let private = mint_id(
        ACCOUNT,
        MessageKey {
            scene: Scene::Friend,
            peer: GROUP,
            seq: 1,
        },
    );
    for id in [12345, other_account, other_group, private] {
        let e = c.react(GROUP, id, "76", true, d).await.unwrap_err();
        assert_eq!(e.kind, Kind::MessageNotFound, "{e:?}");
        let e = c.set_essence(GROUP, id, true, d).await.unwrap_err();
        assert_eq!(e.kind, Kind::MessageNotFound, "{e:?}");
    }
    let e = c
        .react(GROUP, in_group(1), "not an emoji", true, d)
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::InvalidRequest);
    assert!(calls(&stub).is_empty());
}

#[tokio::test]
async fn typing_is_not_supported_and_sends_nothing() {
    let (c, stub) = client("Lagrange.Milky").await;
    let e = c.set_typing(10002, Deadline::NONE).await.unwrap_err();
    assert_eq!(e.kind, Kind::NotSupportedByImplementation);
    assert_eq!(
        e.metadata.get("implementation").map(String::as_str),
        Some("Milky (Lagrange.Milky)")
    );
    assert_eq!(e.metadata.get("action").map(String::as_str), Some("typing"));
    assert!(calls(&stub).is_empty());
}

#[tokio::test]
async fn the_implementation_is_named_with_what_get_impl_info_reported() {
    assert_eq!(client("").await.0.implementation(), "Milky");
    assert_eq!(
        client("LuckyLilliaBot").await.0.implementation(),
        "Milky (LuckyLilliaBot)"
    );
}

#[tokio::test]
async fn moderation_sends_every_parameter() {
    let (c, stub) = client("").await;
    let d = Deadline::NONE;
    c.mute_member(GROUP, 10002, 600, d).await.unwrap();
    c.mute_member(GROUP, 10002, 0, d).await.unwrap();
    c.mute_all(GROUP, true, d).await.unwrap();
    c.mute_all(GROUP, false, d).await.unwrap();
    c.kick_member(GROUP, 10002, true, d).await.unwrap();
    c.kick_member(GROUP, 10002, false, d).await.unwrap();
    c.set_member_card(GROUP, 10002, "三哥", d).await.unwrap();
    c.set_member_card(GROUP, 10002, "", d).await.unwrap();
    assert_eq!(
        calls(&stub),
        vec![
            call(
                "set_group_member_mute",
                json!({"group_id": GROUP, "user_id": 10002, "duration": 600})
            ),
            call(
                "set_group_member_mute",
                json!({"group_id": GROUP, "user_id": 10002, "duration": 0})
            ),
            call(
                "set_group_whole_mute",
                json!({"group_id": GROUP, "is_mute": true})
            ),
            call(
                "set_group_whole_mute",
                json!({"group_id": GROUP, "is_mute": false})
            ),
            call(
                "kick_group_member",
                json!({"group_id": GROUP, "user_id": 10002, "reject_add_request": true})
            ),
            call(
                "kick_group_member",
                json!({"group_id": GROUP, "user_id": 10002, "reject_add_request": false})
            ),
            call(
                "set_group_member_card",
                json!({"group_id": GROUP, "user_id": 10002, "card": "三哥"})
            ),
            call(
                "set_group_member_card",
                json!({"group_id": GROUP, "user_id": 10002, "card": ""})
            ),
        ]
    );
}

#[tokio::test]
async fn a_refusal_keeps_the_peers_failure() {
    let (c, stub) = client("").await;
    stub.answer(
        "kick_group_member",
        json!({"status": "failed", "retcode": 10, "message": "permission denied"}),
    );
    let e = c
        .kick_member(GROUP, 10002, false, Deadline::NONE)
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::OnebotActionFailed);
    assert_eq!(
        e.metadata.get("peer_message").map(String::as_str),
        Some("permission denied")
    );
}

#[tokio::test]
async fn essence_lists_and_group_files_are_read() {
    let (c, stub) = client("").await;
    stub.answer(
        "get_group_essence_messages",
        json!({"status": "ok", "retcode": 0, "data": {"messages": [
            {"group_id": GROUP, "message_seq": 77, "message_time": 1700000100,
                "sender_id": 10002, "sender_name": "张三", "operator_id": 10003,
                "operator_name": "李四", "operation_time": 1700000200,
                "segments": [{"type": "text", "data": {"text": "精华"}}]}
        ], "is_end": true}}),
    );
    stub.answer(
        "get_group_files",
        json!({"status": "ok", "retcode": 0, "data": {"files": [
            {"group_id": GROUP, "file_id": "/f-1", "file_name": "a.txt",
                "parent_folder_id": "/d-1", "file_size": 5, "uploaded_time": 1700000000,
                "uploader_id": 10002, "downloaded_times": 3}
        ], "folders": []}}),
    );
    let d = Deadline::NONE;
    let page = c.list_essence(GROUP, 2, 10, d).await.unwrap();
    assert!(page.is_end);
    assert_eq!(page.entries.len(), 1);
    assert_eq!(page.entries[0].message.message_id, in_group(77));
    assert_eq!(page.entries[0].operator_name, "李四");
    let files = c.list_group_files(GROUP, Some("/d-1"), d).await.unwrap();
    assert_eq!(
        files.files,
        vec![GroupFile {
            file_id: "/f-1".into(),
            name: "a.txt".into(),
            size: 5,
            folder_id: "/d-1".into(),
            uploader_id: 10002,
            uploader_name: String::new(),
            upload_time: 1700000000,
            expire_time: 0,
            download_count: 3,
        }]
    );
    c.list_group_files(GROUP, None, d).await.unwrap();
    assert_eq!(
        calls(&stub),
        vec![
            call(
                "get_group_essence_messages",
                json!({"group_id": GROUP, "page_index": 2, "page_size": 10})
            ),
            call(
                "get_group_files",
                json!({"group_id": GROUP, "parent_folder_id": "/d-1"})
            ),
            call(
                "get_group_files",
                json!({"group_id": GROUP, "parent_folder_id": "/"})
            ),
        ]
    );
}

#[tokio::test]
async fn a_group_files_url_is_its_download_url() {
    let (c, stub) = client("").await;
    stub.answer(
        "get_group_file_download_url",
        json!({"status": "ok", "retcode": 0, "data": {"download_url": "https://cdn/f-1"}}),
    );
    let url = c
        .group_file_url(GROUP, "/f-1", Deadline::NONE)
        .await
        .unwrap();
    assert_eq!(url, "https://cdn/f-1");
    assert_eq!(
        calls(&stub),
        vec![call(
            "get_group_file_download_url",
            json!({"group_id": GROUP, "file_id": "/f-1"})
        )]
    );

    let (c, stub) = client("").await;
    stub.answer(
        "get_group_file_download_url",
        json!({"status": "failed", "retcode": -404, "message": "file not found"}),
    );
    let e = c
        .group_file_url(GROUP, "/gone", Deadline::NONE)
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::MediaNotFound);
    assert_eq!(e.metadata.get("file_id").map(String::as_str), Some("/gone"));

    let (c, stub) = client("").await;
    stub.answer(
        "get_group_file_download_url",
        json!({"status": "ok", "retcode": 0, "data": {}}),
    );
    let e = c
        .group_file_url(GROUP, "/f-1", Deadline::NONE)
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::OnebotProtocolError);
}
