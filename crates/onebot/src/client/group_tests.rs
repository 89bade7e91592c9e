//! The group actions against a scripted peer over an in-memory WebSocket:
//! what each flavor is sent (action and exact parameters), that an action
//! the flavor lacks sends nothing, and how answers are read.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message as WsMessage;
use tokio_util::sync::CancellationToken;

use crate::client::AccountClient;
use crate::flavor::Flavor;
use crate::transport::{BoxIo, Connector};
use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::{Kind, Result};
use onebot_gateway_domain::model::{ConnState, InboundEvent, Segment};
use onebot_gateway_domain::ports::{EventSink, PeerApi};

/// The reply to one request (`status`, `retcode`, `data`, ...; the echo is
/// added).
type Answer = fn(&str, &Value) -> Value;

fn ok(data: Value) -> Value {
    json!({"status": "ok", "retcode": 0, "data": data})
}

fn ok_null(_: &str, _: &Value) -> Value {
    ok(Value::Null)
}

/// Requests other than the identity calls, in order.
type Log = Arc<Mutex<Vec<(String, Value)>>>;

struct ScriptedPeer {
    answer: Answer,
    log: Log,
}

#[async_trait::async_trait]
impl Connector for ScriptedPeer {
    async fn connect(&self) -> std::io::Result<BoxIo> {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let (answer, log) = (self.answer, self.log.clone());
        tokio::spawn(async move {
            let Ok(mut ws) = tokio_tungstenite::accept_async(theirs).await else {
                return;
            };
            while let Some(Ok(WsMessage::Text(text))) = ws.next().await {
                let req: Value = serde_json::from_str(text.as_str()).expect("request json");
                let action = req["action"].as_str().unwrap_or_default().to_string();
                let params = req["params"].clone();
                let mut reply = match action.as_str() {
                    "get_login_info" => ok(json!({"user_id": 42, "nickname": "bot"})),
                    "get_version_info" => ok(json!({"app_name": "scripted"})),
                    _ => {
                        log.lock().push((action.clone(), params.clone()));
                        answer(&action, &params)
                    }
                };
                reply["echo"] = req["echo"].clone();
                if ws.send(WsMessage::text(reply.to_string())).await.is_err() {
                    return;
                }
            }
        });
        Ok(Box::new(ours))
    }
}

struct NoSink;

impl EventSink for NoSink {
    fn publish(&self, _: &str, _: InboundEvent) {}
}

struct Peer {
    client: Arc<AccountClient>,
    log: Log,
    cancel: CancellationToken,
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

impl Peer {
    /// The requests sent since the last call, taken.
    fn sent(&self) -> Vec<(String, Value)> {
        std::mem::take(&mut *self.log.lock())
    }
}

/// A connected client of `flavor` whose peer answers with `answer`.
async fn peer(flavor: Flavor, answer: Answer) -> Peer {
    let log = Log::default();
    let cancel = CancellationToken::new();
    let cfg = AccountConfig {
        ws_url: Some("ws://scripted.test/".into()),
        flavor: flavor.name().into(),
        // A fixed anchor: no history probe on connect.
        history_anchor: "message_seq".into(),
        ..AccountConfig::default()
    };
    let client = AccountClient::start(
        "default",
        cfg,
        Arc::new(NoSink),
        cancel.clone(),
        Some(Arc::new(ScriptedPeer {
            answer,
            log: log.clone(),
        })),
    )
    .expect("start");
    let mut rx = client.watch_status();
    tokio::time::timeout(
        Duration::from_secs(10),
        rx.wait_for(|s| s.state == ConnState::Connected && s.profile.is_some()),
    )
    .await
    .expect("connects in time")
    .expect("status watch");
    Peer {
        client,
        log,
        cancel,
    }
}

fn dl() -> Deadline {
    Deadline::after(Duration::from_secs(10))
}

fn one(action: &str, params: Value) -> Vec<(String, Value)> {
    vec![(action.to_string(), params)]
}

#[tokio::test]
async fn implementation_is_the_flavor_name() {
    for f in Flavor::ALL {
        let p = peer(f, ok_null).await;
        assert_eq!(p.client.implementation(), f.name());
    }
}

#[tokio::test]
async fn react_sends_each_flavors_form_and_go_cqhttp_nothing() {
    for f in Flavor::ALL {
        let p = peer(f, ok_null).await;
        let added = p.client.react(5, 77, "128077", true, dl()).await;
        let add_sent = p.sent();
        let removed = p.client.react(5, 77, "128077", false, dl()).await;
        let remove_sent = p.sent();
        match f {
            Flavor::NapCat | Flavor::SnowLuma | Flavor::Generic => {
                added.unwrap();
                removed.unwrap();
                assert_eq!(
                    add_sent,
                    one(
                        "set_msg_emoji_like",
                        json!({"message_id": 77, "emoji_id": "128077", "set": true})
                    ),
                    "{f}"
                );
                assert_eq!(
                    remove_sent,
                    one(
                        "set_msg_emoji_like",
                        json!({"message_id": 77, "emoji_id": "128077", "set": false})
                    ),
                    "{f}"
                );
            }
            Flavor::LlOneBot => {
                added.unwrap();
                removed.unwrap();
                assert_eq!(
                    add_sent,
                    one(
                        "set_msg_emoji_like",
                        json!({"message_id": 77, "emoji_id": "128077"})
                    )
                );
                assert_eq!(
                    remove_sent,
                    one(
                        "unset_msg_emoji_like",
                        json!({"message_id": 77, "emoji_id": "128077"})
                    )
                );
            }
            Flavor::Lagrange => {
                added.unwrap();
                removed.unwrap();
                assert_eq!(
                    add_sent,
                    one(
                        "set_group_reaction",
                        json!({"group_id": 5, "message_id": 77, "code": "128077", "is_add": true})
                    )
                );
                assert_eq!(
                    remove_sent,
                    one(
                        "set_group_reaction",
                        json!({"group_id": 5, "message_id": 77, "code": "128077", "is_add": false})
                    )
                );
            }
            Flavor::GoCqhttp => {
                for r in [added, removed] {
                    let e = r.unwrap_err();
                    assert_eq!(e.kind, Kind::NotSupportedByImplementation);
                    assert_eq!(e.meta("implementation"), Some("go-cqhttp"));
                }
                assert!(add_sent.is_empty() && remove_sent.is_empty());
            }
        }
    }
}

#[tokio::test]
async fn typing_is_sent_only_where_the_flavor_has_it() {
    for f in Flavor::ALL {
        let p = peer(f, ok_null).await;
        let r = p.client.set_typing(10001, dl()).await;
        let sent = p.sent();
        if matches!(f, Flavor::NapCat | Flavor::SnowLuma | Flavor::Generic) {
            r.unwrap();
            assert_eq!(
                sent,
                one(
                    "set_input_status",
                    json!({"user_id": 10001, "event_type": 1})
                ),
                "{f}"
            );
        } else {
            let e = r.unwrap_err();
            assert_eq!(e.kind, Kind::NotSupportedByImplementation, "{f}");
            assert_eq!(e.meta("action"), Some("typing"));
            assert!(sent.is_empty(), "{f} sent {sent:?}");
        }
    }
}

#[tokio::test]
async fn essence_and_moderation_are_the_same_everywhere() {
    for f in Flavor::ALL {
        let p = peer(f, ok_null).await;
        p.client.set_essence(5, 9, true, dl()).await.unwrap();
        p.client.set_essence(5, 9, false, dl()).await.unwrap();
        p.client.mute_member(5, 7, 600, dl()).await.unwrap();
        p.client.mute_member(5, 7, 0, dl()).await.unwrap();
        p.client.mute_all(5, true, dl()).await.unwrap();
        p.client.mute_all(5, false, dl()).await.unwrap();
        p.client.kick_member(5, 7, false, dl()).await.unwrap();
        p.client.set_member_card(5, 7, "名片", dl()).await.unwrap();
        let expected: Vec<(String, Value)> = [
            ("set_essence_msg", json!({"message_id": 9})),
            ("delete_essence_msg", json!({"message_id": 9})),
            (
                "set_group_ban",
                json!({"group_id": 5, "user_id": 7, "duration": 600}),
            ),
            (
                "set_group_ban",
                json!({"group_id": 5, "user_id": 7, "duration": 0}),
            ),
            (
                "set_group_whole_ban",
                json!({"group_id": 5, "enable": true}),
            ),
            (
                "set_group_whole_ban",
                json!({"group_id": 5, "enable": false}),
            ),
            (
                "set_group_kick",
                json!({"group_id": 5, "user_id": 7, "reject_add_request": false}),
            ),
            (
                "set_group_card",
                json!({"group_id": 5, "user_id": 7, "card": "名片"}),
            ),
        ]
        .into_iter()
        .map(|(a, p)| (a.to_string(), p))
        .collect();
        assert_eq!(p.sent(), expected, "{f}");
    }
}

fn refuse(_: &str, _: &Value) -> Value {
    json!({"status": "failed", "retcode": 1200, "message": "cannot ban owner", "data": null})
}

#[tokio::test]
async fn failures_go_through_the_retcode_table() {
    let p = peer(Flavor::NapCat, refuse).await;
    let e = p.client.mute_member(5, 7, 60, dl()).await.unwrap_err();
    assert_eq!(e.kind, Kind::OnebotActionFailed);
    assert_eq!(e.meta("peer_message"), Some("cannot ban owner"));
    assert_eq!(e.meta("action"), Some("set_group_ban"));
}

fn essence_list(_: &str, _: &Value) -> Value {
    ok(json!([
        {"sender_id": 1, "sender_nick": "a", "operator_id": 9, "operator_nick": "op",
         "operator_time": 100, "message_id": 11, "msg_seq": 3, "msg_random": 4,
         "content": [{"type": "text", "data": {"text": "one"}}]},
        "not an entry",
        {"sender_id": 2, "operator_id": 9, "message_id": 12},
        {"sender_id": 3, "operator_id": 9, "message_id": 13}
    ]))
}

#[tokio::test]
async fn essence_lists_are_asked_whole_and_paged_here() {
    let p = peer(Flavor::NapCat, essence_list).await;
    let first = p.client.list_essence(5, 0, 2, dl()).await.unwrap();
    assert_eq!(
        p.sent(),
        one("get_essence_msg_list", json!({"group_id": 5}))
    );
    assert!(!first.is_end);
    let ids: Vec<i64> = first.entries.iter().map(|e| e.message.message_id).collect();
    assert_eq!(ids, vec![11, 12]);
    assert_eq!(
        first.entries[0].message.segments,
        vec![Segment::Text("one".into())]
    );
    assert_eq!(first.entries[0].operator_name, "op");
    let second = p.client.list_essence(5, 1, 2, dl()).await.unwrap();
    assert!(second.is_end);
    assert_eq!(second.entries.len(), 1);
    assert_eq!(second.entries[0].message.sender.user_id, 3);
}

fn files(action: &str, _: &Value) -> Value {
    match action {
        "get_group_file_url" => ok(json!({"url": "https://files.test/a?fname="})),
        _ => ok(json!({
            "files": [{"file_id": "/a", "file_name": "a.txt", "size": 3, "uploader": 7}],
            "folders": [{"folder_id": "/d", "folder_name": "docs", "total_file_count": 1}]
        })),
    }
}

#[tokio::test]
async fn group_files_per_flavor() {
    for f in Flavor::ALL {
        let p = peer(f, files).await;
        let root = p.client.list_group_files(5, None, dl()).await.unwrap();
        let root_params = if matches!(f, Flavor::NapCat | Flavor::Generic) {
            json!({"group_id": 5, "file_count": 10000})
        } else {
            json!({"group_id": 5})
        };
        assert_eq!(p.sent(), one("get_group_root_files", root_params), "{f}");
        assert_eq!(root.files[0].file_id, "/a");
        assert_eq!(root.files[0].folder_id, "/");
        assert_eq!(root.folders[0].name, "docs");
        let sub = p
            .client
            .list_group_files(5, Some("/d"), dl())
            .await
            .unwrap();
        let sub_params = if matches!(f, Flavor::NapCat | Flavor::Generic) {
            json!({"group_id": 5, "folder_id": "/d", "file_count": 10000})
        } else {
            json!({"group_id": 5, "folder_id": "/d"})
        };
        assert_eq!(
            p.sent(),
            one("get_group_files_by_folder", sub_params),
            "{f}"
        );
        assert_eq!(sub.files[0].folder_id, "/d");
        let url = p.client.group_file_url(5, "/a", dl()).await.unwrap();
        assert_eq!(url, "https://files.test/a?fname=");
        let url_params = if f == Flavor::GoCqhttp {
            json!({"group_id": 5, "file_id": "/a", "busid": 102})
        } else {
            json!({"group_id": 5, "file_id": "/a"})
        };
        assert_eq!(p.sent(), one("get_group_file_url", url_params), "{f}");
    }
}

fn file_missing(_: &str, _: &Value) -> Value {
    json!({"status": "failed", "retcode": 100, "message": "file not found", "data": null})
}

fn no_backend(_: &str, _: &Value) -> Value {
    json!({"status": "failed", "retcode": 1200, "message": "real fileUUID not found!", "data": null})
}

async fn file_url(flavor: Flavor, answer: Answer) -> Result<String> {
    let p = peer(flavor, answer).await;
    p.client.group_file_url(5, "/gone", dl()).await
}

#[tokio::test]
async fn a_missing_file_is_media_not_found() {
    let e = file_url(Flavor::SnowLuma, file_missing).await.unwrap_err();
    assert_eq!(e.kind, Kind::MediaNotFound);
    assert_eq!(e.meta("file_id"), Some("/gone"));
    assert_eq!(e.meta("peer_message"), Some("file not found"));
    let e = file_url(Flavor::NapCat, no_backend).await.unwrap_err();
    assert_eq!(e.kind, Kind::OnebotActionFailed);
    let e = file_url(Flavor::NapCat, ok_null).await.unwrap_err();
    assert_eq!(e.kind, Kind::OnebotActionUnsupported);
}

fn card_unconfirmed(action: &str, _: &Value) -> Value {
    match action {
        "set_group_card" => {
            json!({"status": "failed", "retcode": 1200, "message": "设置群名片未生效", "data": null})
        }
        _ => ok(json!({"group_id": 5, "user_id": 7, "card": "名片", "nickname": "n"})),
    }
}

fn card_really_unset(action: &str, _: &Value) -> Value {
    match action {
        "set_group_card" => {
            json!({"status": "failed", "retcode": 1200, "message": "设置群名片未生效", "data": null})
        }
        _ => ok(json!({"group_id": 5, "user_id": 7, "card": "旧", "nickname": "n"})),
    }
}

#[tokio::test]
async fn napcats_unconfirmed_card_is_checked_against_the_member() {
    let p = peer(Flavor::NapCat, card_unconfirmed).await;
    p.client.set_member_card(5, 7, "名片", dl()).await.unwrap();
    assert_eq!(
        p.sent(),
        vec![
            (
                "set_group_card".to_string(),
                json!({"group_id": 5, "user_id": 7, "card": "名片"})
            ),
            (
                "get_group_member_info".to_string(),
                json!({"group_id": 5, "user_id": 7, "no_cache": true})
            ),
        ]
    );
    let p = peer(Flavor::NapCat, card_really_unset).await;
    let e = p
        .client
        .set_member_card(5, 7, "名片", dl())
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::OnebotActionFailed);
    assert_eq!(e.meta("action"), Some("set_group_card"));
}
