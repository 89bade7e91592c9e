use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::call::CallCtx;
use onebot_gateway_domain::delivery::receipt::{MediaSummary, SendResult};
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::media::resolve::MediaSource;
use onebot_gateway_domain::media::staging::MediaOwner;
use onebot_gateway_domain::model::{ChatRef, MediaKind};
use onebot_gateway_domain::write::send::*;

use onebot_gateway_config::{AccountConfig, Config, SharedDir};
use onebot_gateway_domain::media::upload::UploadHeader;
use onebot_gateway_domain::model::InboundEvent;
use onebot_gateway_onebot::Flavor;
use onebot_gateway_testkit::{Call, FakeApi, png, sample};

const G: i64 = 20_000_003;

struct T {
    gw: Arc<Gateway>,
    api: Arc<FakeApi>,
    dir: tempfile::TempDir,
    shutdown: CancellationToken,
}

fn account_config(tweak: impl FnOnce(&mut AccountConfig)) -> AccountConfig {
    let mut a = AccountConfig {
        ws_url: Some("ws://127.0.0.1:9/".into()),
        groups: vec![G],
        ..AccountConfig::default()
    };
    tweak(&mut a);
    a
}

fn start_in(
    dir: tempfile::TempDir,
    api: Arc<FakeApi>,
    a: AccountConfig,
    tweak: impl FnOnce(&mut Config),
) -> T {
    let mut config = Config::default();
    config.server.data_dir = dir.path().to_path_buf();
    config.accounts.insert("default".into(), a.clone());
    tweak(&mut config);
    let shutdown = CancellationToken::new();
    api.set_shared_dir(a.shared_dir.clone());
    let accounts = vec![Account {
        id: "default".into(),
        config: a,
        peer: api.clone(),
    }];
    let gw =
        onebot_gateway_testkit::GatewayBuilder::new(config, accounts, shutdown.clone()).build();
    T {
        gw: Arc::new(gw),
        api,
        dir,
        shutdown,
    }
}

fn start(flavor: Flavor, tweak: impl FnOnce(&mut AccountConfig)) -> T {
    start_in(
        tempfile::tempdir().unwrap(),
        FakeApi::new(flavor),
        account_config(tweak),
        |_| {},
    )
}

fn text(t: &str) -> SendRequest {
    SendRequest {
        text: t.into(),
        ..SendRequest::default()
    }
}

fn data(bytes: Vec<u8>) -> Option<MediaSource> {
    Some(MediaSource::Data(bytes.into()))
}

async fn send(t: &T, req: SendRequest) -> Result<SendResult> {
    t.gw.send_message(req, CallCtx::anonymous()).await
}

async fn err(t: &T, req: SendRequest) -> Error {
    send(t, req).await.unwrap_err()
}

#[tokio::test]
async fn validation_branches_in_order() {
    let t = start(Flavor::NapCat, |_| {});
    let cases: Vec<(SendRequest, Kind, Option<&str>)> = vec![
        (
            SendRequest {
                account_id: "nobody".into(),
                ..text("x")
            },
            Kind::AccountNotConfigured,
            None,
        ),
        (
            SendRequest {
                idempotency_key: "k".repeat(129),
                ..text("x")
            },
            Kind::InvalidRequest,
            Some("idempotency_key"),
        ),
        (text(""), Kind::EmptyMessage, None),
        (text(" \n\t"), Kind::EmptyMessage, None),
        (text(&"字".repeat(20_001)), Kind::TextTooLong, Some("text")),
        (
            SendRequest {
                images: vec![data(png(10)); 5],
                ..text("x")
            },
            Kind::TooManyImages,
            Some("images"),
        ),
        (
            SendRequest {
                videos: vec![data(sample("mp4", 100)); 2],
                ..text("x")
            },
            Kind::TooManyVideos,
            Some("videos"),
        ),
        (
            SendRequest {
                images: vec![data(png(10)), None],
                ..text("")
            },
            Kind::InvalidRequest,
            Some("images[1]"),
        ),
        (
            SendRequest {
                file: Some(Some(MediaSource::Path("relative/a.pdf".into()))),
                ..text("")
            },
            Kind::InvalidRequest,
            Some("file"),
        ),
        (
            SendRequest {
                images: vec![Some(MediaSource::Url("not a url".into()))],
                ..text("")
            },
            Kind::InvalidRequest,
            Some("images[0]"),
        ),
        (
            SendRequest {
                images: vec![Some(MediaSource::Url("file:///etc/passwd".into()))],
                ..text("")
            },
            Kind::UrlForbidden,
            None,
        ),
        (
            SendRequest {
                images: vec![Some(MediaSource::MediaId(String::new()))],
                ..text("")
            },
            Kind::InvalidRequest,
            Some("images[0]"),
        ),
        (
            SendRequest {
                group_id: Some(1),
                ..text("x")
            },
            Kind::GroupNotAllowed,
            Some("group_id"),
        ),
        (
            SendRequest {
                group_id: Some(-5),
                ..text("x")
            },
            Kind::InvalidRequest,
            Some("group_id"),
        ),
    ];
    for (req, kind, field) in cases {
        let e = err(&t, req.clone()).await;
        assert_eq!(e.kind, kind, "{req:?}: {e:?}");
        assert_eq!(e.field.as_deref(), field, "{req:?}");
    }
    assert!(t.api.calls().is_empty(), "nothing may reach the peer");
}

#[tokio::test]
async fn limits_at_the_edge_pass() {
    let t = start(Flavor::NapCat, |a| a.reply_chunk_size = 20_000);
    let r = send(
        &t,
        SendRequest {
            images: vec![data(png(100)); 4],
            videos: vec![data(sample("mp4", 100))],
            idempotency_key: "k".repeat(128),
            ..text(&"字".repeat(20_000))
        },
    )
    .await
    .unwrap();
    assert_eq!(r.chunks, 1);
    assert_eq!(r.message_ids.len(), 6);
    assert_eq!(
        r.media,
        Some(MediaSummary {
            images: 4,
            videos: 1,
            file: String::new(),
            voices: 0,
        })
    );
}

#[tokio::test]
async fn group_resolution() {
    let none = start(Flavor::NapCat, |a| a.groups = vec![]);
    let e = err(&none, text("x")).await;
    assert_eq!(e.kind, Kind::GroupRequired);
    assert_eq!(e.meta("whitelist"), Some(""));
    let e = err(
        &none,
        SendRequest {
            group_id: Some(G),
            ..text("x")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::GroupNotAllowed);

    let several = start(Flavor::NapCat, |a| a.groups = vec![G, 20_000_004]);
    let e = err(&several, text("x")).await;
    assert_eq!(e.kind, Kind::GroupRequired);
    assert_eq!(e.meta("whitelist"), Some("20000003,20000004"));
    let r = send(
        &several,
        SendRequest {
            group_id: Some(20_000_004),
            ..text("x")
        },
    )
    .await
    .unwrap();
    assert_eq!(r.group_id, 20_000_004);

    let one = start(Flavor::NapCat, |_| {});
    assert_eq!(send(&one, text("x")).await.unwrap().group_id, G);
}

#[tokio::test]
async fn order_is_text_images_video_file_with_base64_media() {
    let t = start(Flavor::NapCat, |a| a.reply_chunk_size = 5);
    let img = png(300);
    let vid = sample("mp4", 400);
    let doc = sample("text", 50);
    let r = send(
        &t,
        SendRequest {
            images: vec![data(img.clone())],
            videos: vec![data(vid.clone())],
            file: Some(data(doc.clone())),
            file_name: "报告.txt".into(),
            ..text("hello world")
        },
    )
    .await
    .unwrap();
    let calls = t.api.calls();
    let b64 = |b: &[u8]| {
        format!(
            "base64://{}",
            base64::engine::general_purpose::STANDARD.encode(b)
        )
    };
    assert_eq!(t.api.texts(), vec!["hello", "world"]);
    assert!(
        matches!(&calls[2], Call::Send { group_id: G, message } if message[0]["type"] == "image" && message[0]["data"]["file"] == b64(&img))
    );
    assert!(
        matches!(&calls[3], Call::Send { message, .. } if message[0]["type"] == "video" && message[0]["data"]["file"] == b64(&vid))
    );
    assert_eq!(
        calls[4],
        Call::Upload {
            group_id: G,
            file: b64(&doc),
            name: "报告.txt".into()
        }
    );
    assert_eq!(r.chunks, 2);
    assert_eq!(r.message_ids, vec![1001, 1002, 1003, 1004]);
    assert_eq!(r.media.unwrap().file, "报告.txt");
    assert!(!r.queued && !r.replayed);
}

#[tokio::test]
async fn text_only_response_has_no_media_summary() {
    let t = start(Flavor::NapCat, |_| {});
    let r = send(&t, text("hi")).await.unwrap();
    assert_eq!(r.media, None);
    assert_eq!(r.message_ids, vec![1001]);
}

#[tokio::test]
async fn staged_media_are_sent_by_id_and_only_for_their_account() {
    let t = start(Flavor::NapCat, |_| {});
    let media = t.gw.write().media().clone();
    let bytes = png(5000);
    let mut up = media
        .begin(
            MediaOwner::account("default"),
            UploadHeader {
                kind: MediaKind::File,
                file_name: "chart.png".into(),
                size: None,
                sha256: None,
            },
        )
        .unwrap();
    up.write(bytes.clone()).await.unwrap();
    let staged = up.finish().await.unwrap();
    // Used as an image (it is a PNG) and as a file (named after the upload).
    let r = send(
        &t,
        SendRequest {
            images: vec![Some(MediaSource::MediaId(staged.id.clone()))],
            file: Some(Some(MediaSource::MediaId(staged.id.clone()))),
            ..text("")
        },
    )
    .await
    .unwrap();
    assert_eq!(r.media.unwrap().file, "chart.png");
    let other = media
        .begin(
            MediaOwner::account("other"),
            UploadHeader {
                kind: MediaKind::Image,
                file_name: String::new(),
                size: None,
                sha256: None,
            },
        )
        .unwrap();
    drop(other);
    let e = err(
        &t,
        SendRequest {
            images: vec![Some(MediaSource::MediaId("m0000".into()))],
            ..text("")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::MediaNotFound);
    // A text file staged as FILE is not an image.
    let mut up = media
        .begin(
            MediaOwner::account("default"),
            UploadHeader {
                kind: MediaKind::File,
                file_name: "a.txt".into(),
                size: None,
                sha256: None,
            },
        )
        .unwrap();
    up.write(sample("text", 100)).await.unwrap();
    let txt = up.finish().await.unwrap();
    let e = err(
        &t,
        SendRequest {
            images: vec![Some(MediaSource::MediaId(txt.id))],
            ..text("")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::MediaTypeMismatch);
}

#[tokio::test]
async fn media_limits_and_types_are_checked_before_the_first_part() {
    let t = start(Flavor::NapCat, |_| {});
    let e = err(
        &t,
        SendRequest {
            images: vec![data(png(100)), data(png(10 * 1024 * 1024 + 1))],
            ..text("first the text")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::MediaTooLarge);
    assert_eq!(e.meta("field"), Some("images[1]"));
    let e = err(
        &t,
        SendRequest {
            videos: vec![data(png(100))],
            ..text("x")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::MediaTypeMismatch);
    assert!(t.api.calls().is_empty(), "a refused request sends nothing");
}

#[tokio::test]
async fn offline_text_is_queued_and_flushed_in_order_media_is_refused() {
    let metrics = onebot_gateway_telemetry::metrics::Capture::start();
    let t = start(Flavor::NapCat, |a| a.reply_chunk_size = 3);
    t.api.set_online(false);
    let e = err(
        &t,
        SendRequest {
            images: vec![data(png(10))],
            ..text("with media")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::AccountOffline);
    assert!(e.retry_after.is_some());
    for msg in ["one two", "three"] {
        let r = send(&t, text(msg)).await.unwrap();
        assert!(r.queued);
        assert!(r.message_ids.is_empty());
    }
    assert_eq!(t.gw.queue_depth("default"), 2);
    assert!(t.api.calls().is_empty());
    let called = t.api.called.notified();
    t.api.set_online(true);
    called.await;
    // A new send waits behind the queue.
    let r = send(&t, text("four")).await.unwrap();
    assert!(!r.queued);
    assert_eq!(t.api.texts(), vec!["one", "two", "thr", "ee", "fou", "r"]);
    assert_eq!(t.gw.queue_depth("default"), 0);
    let queue = |outcome| {
        metrics.counter(
            onebot_gateway_telemetry::metrics::QUEUE_ENTRIES,
            &[("account", "default"), ("outcome", outcome)],
        )
    };
    assert_eq!(queue("queued"), 2);
    assert_eq!(queue("flushed"), 2);
}

#[tokio::test]
async fn queue_is_full_at_its_capacity_and_never_evicts() {
    let t = start(Flavor::NapCat, |a| a.queue_max_entries = 2);
    t.api.set_online(false);
    send(&t, text("a")).await.unwrap();
    send(&t, text("b")).await.unwrap();
    let e = err(&t, text("c")).await;
    assert_eq!(e.kind, Kind::QueueFull);
    assert_eq!(t.gw.queue_depth("default"), 2);
}

#[tokio::test]
async fn queued_entries_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let api = FakeApi::new(Flavor::NapCat);
    api.set_online(false);
    let t = start_in(dir, api, account_config(|_| {}), |_| {});
    send(&t, text("first")).await.unwrap();
    send(&t, text("second")).await.unwrap();
    let T {
        gw, dir, shutdown, ..
    } = t;
    shutdown.cancel();
    gw.write().stopped().await;
    drop(gw);

    let api = FakeApi::new(Flavor::NapCat);
    api.set_online(false);
    let t = start_in(dir, api.clone(), account_config(|_| {}), |_| {});
    assert_eq!(t.gw.queue_depth("default"), 2);
    let called = api.called.notified();
    api.set_online(true);
    called.await;
    send(&t, text("third")).await.unwrap();
    assert_eq!(api.texts(), vec!["first", "second", "third"]);
}

#[tokio::test]
async fn a_queued_entry_for_a_group_no_longer_whitelisted_is_dropped_and_counted() {
    let metrics = onebot_gateway_telemetry::metrics::Capture::start();
    let dir = tempfile::tempdir().unwrap();
    let api = FakeApi::new(Flavor::NapCat);
    api.set_online(false);
    let t = start_in(dir, api, account_config(|_| {}), |_| {});
    send(&t, text("to the old group")).await.unwrap();
    let T {
        gw, dir, shutdown, ..
    } = t;
    shutdown.cancel();
    gw.write().stopped().await;
    drop(gw);

    let api = FakeApi::new(Flavor::NapCat);
    let t = start_in(
        dir,
        api.clone(),
        account_config(|a| a.groups = vec![20_000_004]),
        |_| {},
    );
    // The first send flushes the queue first.
    send(
        &t,
        SendRequest {
            group_id: Some(20_000_004),
            ..text("new")
        },
    )
    .await
    .unwrap();
    assert_eq!(api.texts(), vec!["new"]);
    let dropped = metrics.counter(
        onebot_gateway_telemetry::metrics::QUEUE_ENTRIES,
        &[("account", "default"), ("outcome", "dropped")],
    );
    assert_eq!(dropped, 1);
    assert_eq!(t.gw.queue_depth("default"), 0);
}

#[tokio::test]
async fn text_is_queued_when_the_transport_drops_before_the_part() {
    let t = start(Flavor::NapCat, |_| {});
    t.api
        .script([Err(Error::new(Kind::AccountOffline, "gone"))]);
    let r = send(&t, text("late")).await.unwrap();
    assert!(r.queued);
    // The sender flushes it before the next request.
    send(&t, text("next")).await.unwrap();
    assert_eq!(t.api.texts(), vec!["late", "late", "next"]);
    assert_eq!(t.gw.queue_depth("default"), 0);
}

#[tokio::test]
async fn unknown_outcome_is_not_requeued_nor_retried() {
    let t = start(Flavor::NapCat, |a| a.reply_chunk_size = 4);
    t.api
        .script([Ok(()), Err(Error::new(Kind::OnebotTimeout, "no answer"))]);
    let req = SendRequest {
        idempotency_key: "once".into(),
        ..text("aaaa bbbb cccc")
    };
    let e = err(&t, req.clone()).await;
    assert_eq!(e.kind, Kind::SendOutcomeUnknown);
    assert_eq!(e.meta("delivered"), Some("1"));
    assert_eq!(t.gw.queue_depth("default"), 0);
    assert_eq!(t.api.calls().len(), 2);
    // The same key replays the unknown outcome and sends nothing.
    let e = err(&t, req).await;
    assert_eq!(e.kind, Kind::SendOutcomeUnknown);
    assert_eq!(e.meta("replayed"), Some("true"));
    assert_eq!(t.api.calls().len(), 2);
}

#[tokio::test]
async fn idempotent_retries_replay_and_reuse_is_refused() {
    let t = start(Flavor::NapCat, |_| {});
    let req = SendRequest {
        idempotency_key: "key-1".into(),
        ..text("hello")
    };
    let first = send(&t, req.clone()).await.unwrap();
    let again = send(&t, req.clone()).await.unwrap();
    assert!(!first.replayed);
    assert!(again.replayed);
    assert_eq!(again.message_ids, first.message_ids);
    assert_eq!(t.api.calls().len(), 1);
    let e = err(
        &t,
        SendRequest {
            idempotency_key: "key-1".into(),
            ..text("something else")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::IdempotencyKeyReused);
    // Concurrent duplicates: one send, both answered alike.
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    *t.api.gate.lock().unwrap() = Some(gate.clone());
    let req2 = SendRequest {
        idempotency_key: "key-2".into(),
        ..text("once")
    };
    let called = t.api.called.notified();
    let (a, b) = {
        let (g1, g2) = (t.gw.clone(), t.gw.clone());
        let (r1, r2) = (req2.clone(), req2.clone());
        let a = tokio::spawn(async move { g1.send_message(r1, CallCtx::anonymous()).await });
        let b = tokio::spawn(async move { g2.send_message(r2, CallCtx::anonymous()).await });
        called.await;
        gate.add_permits(10);
        (a.await.unwrap().unwrap(), b.await.unwrap().unwrap())
    };
    assert_eq!(a.message_ids, b.message_ids);
    assert!(a.replayed != b.replayed);
    assert_eq!(t.api.calls().len(), 2);
}

#[tokio::test]
async fn a_refused_first_part_releases_the_key() {
    let t = start(Flavor::NapCat, |_| {});
    t.api.script([Err(Error::new(Kind::BotMuted, "muted"))]);
    let req = SendRequest {
        idempotency_key: "k".into(),
        ..text("hello")
    };
    assert_eq!(err(&t, req.clone()).await.kind, Kind::BotMuted);
    let r = send(&t, req).await.unwrap();
    assert!(!r.replayed);
    assert_eq!(t.api.calls().len(), 2);
}

#[tokio::test]
async fn idempotency_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let t = start_in(
        dir,
        FakeApi::new(Flavor::NapCat),
        account_config(|_| {}),
        |_| {},
    );
    let req = SendRequest {
        idempotency_key: "persist".into(),
        ..text("hello")
    };
    let first = send(&t, req.clone()).await.unwrap();
    let T {
        gw, dir, shutdown, ..
    } = t;
    shutdown.cancel();
    gw.write().stopped().await;
    drop(gw);
    let api = FakeApi::new(Flavor::NapCat);
    let t = start_in(dir, api.clone(), account_config(|_| {}), |_| {});
    let again = send(&t, req).await.unwrap();
    assert!(again.replayed);
    assert_eq!(again.message_ids, first.message_ids);
    assert!(api.calls().is_empty());
}

#[tokio::test(start_paused = true)]
async fn rate_limit_waits_within_the_deadline_and_refuses_past_it() {
    let t = start(Flavor::NapCat, |a| {
        a.rate_group_burst = 2;
        a.rate_group_per_minute = 20;
    });
    for _ in 0..2 {
        send(&t, text("x")).await.unwrap();
    }
    let ctx = CallCtx::anonymous().with_timeout(Duration::from_secs(1));
    let e = t.gw.send_message(text("x"), ctx).await.unwrap_err();
    assert_eq!(e.kind, Kind::RateLimited);
    assert_eq!(e.meta("scope"), Some("group"));
    let retry = e.retry_after.unwrap();
    assert!(
        retry > Duration::from_secs(2) && retry <= Duration::from_secs(3),
        "{retry:?}"
    );
    assert_eq!(t.api.calls().len(), 2);
    // With a longer deadline the send waits for its cell.
    let start = tokio::time::Instant::now();
    let ctx = CallCtx::anonymous().with_timeout(Duration::from_secs(10));
    t.gw.send_message(text("x"), ctx).await.unwrap();
    assert!(start.elapsed() >= Duration::from_secs(2));
    assert_eq!(t.api.calls().len(), 3);
    // A request whose pacing alone passes the deadline is refused whole.
    let ctx = CallCtx::anonymous().with_timeout(Duration::from_secs(5));
    let e =
        t.gw.send_message(
            SendRequest {
                images: vec![data(png(10)); 4],
                ..text("x")
            },
            ctx,
        )
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::RateLimited);
    assert_eq!(t.api.calls().len(), 3);
}

#[tokio::test(start_paused = true)]
async fn risk_control_backs_off_the_account() {
    let t = start(Flavor::GoCqhttp, |a| a.risk_backoff_min_secs = 60);
    t.api
        .script([Err(Error::new(Kind::RiskControlled, "风控"))]);
    let e = err(&t, text("a")).await;
    assert_eq!(e.kind, Kind::RiskControlled);
    assert_eq!(e.retry_after, Some(Duration::from_secs(60)));
    let e = err(&t, text("b")).await;
    assert_eq!(e.kind, Kind::RiskControlled);
    assert_eq!(t.api.calls().len(), 1, "paused sends do not reach the peer");
    tokio::time::advance(Duration::from_secs(61)).await;
    send(&t, text("c")).await.unwrap();
    assert_eq!(t.api.texts(), vec!["a", "c"]);
}

#[tokio::test]
async fn go_cqhttp_video_and_files_need_a_shared_dir() {
    let t = start(Flavor::GoCqhttp, |_| {});
    let e = err(
        &t,
        SendRequest {
            videos: vec![data(sample("mp4", 100))],
            ..text("x")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::UnsupportedByPeer);
    let e = err(
        &t,
        SendRequest {
            file: Some(data(b"doc".to_vec())),
            ..text("")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::UnsupportedByPeer);
    // Images go as base64 on go-cqhttp too.
    send(
        &t,
        SendRequest {
            images: vec![data(png(10))],
            ..text("")
        },
    )
    .await
    .unwrap();
    assert!(t.api.calls().len() == 1);

    let shared = tempfile::tempdir().unwrap();
    let local = shared.path().to_path_buf();
    let t = start(Flavor::GoCqhttp, |a| {
        a.shared_dir = Some(SharedDir {
            local: local.clone(),
            peer: "/data/shared".into(),
        })
    });
    let doc = b"the document".to_vec();
    send(
        &t,
        SendRequest {
            videos: vec![data(sample("mp4", 100))],
            file: Some(data(doc)),
            file_name: "doc.txt".into(),
            ..text("")
        },
    )
    .await
    .unwrap();
    let calls = t.api.calls();
    match &calls[0] {
        Call::Send { message, .. } => {
            let file = message[0]["data"]["file"].as_str().unwrap();
            assert!(file.starts_with("file:///data/shared/ogw-"), "{file}");
        }
        other => panic!("{other:?}"),
    }
    match &calls[1] {
        Call::Upload { file, name, .. } => {
            assert!(
                file.starts_with("/data/shared/ogw-") && file.ends_with("doc.txt"),
                "{file}"
            );
            assert_eq!(name, "doc.txt");
        }
        other => panic!("{other:?}"),
    }
    // The copies are removed once sent.
    assert_eq!(std::fs::read_dir(&local).unwrap().count(), 0);
}

#[tokio::test]
async fn poke_rules() {
    let t = start(Flavor::NapCat, |_| {});
    let ctx = CallCtx::anonymous();
    assert_eq!(
        t.gw.poke_member("", None, 10_003, None, ctx.clone())
            .await
            .unwrap(),
        G
    );
    assert_eq!(
        t.api.calls(),
        vec![Call::Poke {
            group_id: G,
            user_id: 10_003
        }]
    );
    let e =
        t.gw.poke_member("", None, 0, None, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (Kind::InvalidRequest, Some("user_id"))
    );
    let e =
        t.gw.poke_member("", Some(1), 5, None, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::GroupNotAllowed);
    let e =
        t.gw.poke_member("nobody", None, 5, None, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::AccountNotConfigured);
    t.api
        .script([Err(Error::new(Kind::OnebotActionUnsupported, "1404"))]);
    let e =
        t.gw.poke_member("", None, 5, None, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::PokeUnsupported);
    t.api.set_online(false);
    let e =
        t.gw.poke_member("", None, 5, None, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::AccountOffline);
    assert_eq!(t.gw.queue_depth("default"), 0, "pokes are never queued");
}

#[tokio::test(start_paused = true)]
async fn poke_has_its_own_rate_limit() {
    let t = start(Flavor::NapCat, |a| a.rate_poke_per_minute = 2);
    let ctx = || CallCtx::anonymous().with_timeout(Duration::from_secs(1));
    t.gw.poke_member("", None, 5, None, ctx()).await.unwrap();
    t.gw.poke_member("", None, 5, None, ctx()).await.unwrap();
    let e =
        t.gw.poke_member("", None, 5, None, ctx())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::RateLimited);
    assert_eq!(e.meta("scope"), Some("poke"));
    // Sends are not affected by the poke limit.
    send(&t, text("still fine")).await.unwrap();
}

const USER: i64 = 10_001;

fn private(t: &str) -> SendRequest {
    SendRequest {
        user_id: Some(USER),
        ..text(t)
    }
}

/// The send calls so far (reads left out).
fn sends(t: &T) -> Vec<Call> {
    t.api
        .calls()
        .into_iter()
        .filter(|c| matches!(c, Call::Send { .. } | Call::SendPrivate { .. }))
        .collect()
}

fn sent(call: &Call) -> (ChatRef, Value) {
    match call {
        Call::Send { group_id, message } => (ChatRef::Group(*group_id), message.clone()),
        Call::SendPrivate { user_id, message } => (ChatRef::Private(*user_id), message.clone()),
        other => panic!("not a send: {other:?}"),
    }
}

fn kinds(message: &Value) -> Vec<String> {
    message
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let d = &s["data"];
            match s["type"].as_str().unwrap() {
                "reply" => format!("reply {}", d["id"].as_str().unwrap()),
                "at" => format!("at {}", d["qq"].as_str().unwrap()),
                "text" => format!("text {}", d["text"].as_str().unwrap()),
                other => other.to_owned(),
            }
        })
        .collect()
}

#[tokio::test]
async fn private_sends_go_only_to_whitelisted_users() {
    let t = start(Flavor::NapCat, |a| a.users = vec![USER]);
    let r = send(&t, private("你好")).await.unwrap();
    assert_eq!((r.group_id, r.user_id, r.chunks), (0, USER, 1));
    assert_eq!(r.chat(), ChatRef::Private(USER));
    let (chat, message) = sent(&t.api.calls()[0]);
    assert_eq!(chat, ChatRef::Private(USER));
    assert_eq!(kinds(&message), ["text 你好"]);
    let e = err(
        &t,
        SendRequest {
            user_id: Some(10_002),
            ..text("x")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::UserNotAllowed);
    assert_eq!(
        (e.meta("user_id"), e.field.as_deref()),
        (Some("10002"), Some("user_id"))
    );
    let e = err(
        &t,
        SendRequest {
            group_id: Some(G),
            ..private("x")
        },
    )
    .await;
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (Kind::InvalidRequest, Some("user_id"))
    );
    let e = err(
        &t,
        SendRequest {
            user_id: Some(-1),
            ..text("x")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::InvalidRequest);
    assert_eq!(t.api.calls().len(), 1, "refusals send nothing");
    // With the default (empty) `users`, private sends are off.
    let t = start(Flavor::NapCat, |_| {});
    assert_eq!(err(&t, private("x")).await.kind, Kind::UserNotAllowed);
    // A token with groups but no users reaches no private chat.
    let t = start(Flavor::NapCat, |a| a.users = vec![USER]);
    let scoped =
        onebot_gateway_domain::caller::Caller::token(onebot_gateway_domain::caller::TokenScope {
            name: "g".into(),
            accounts: None,
            write: true,
            groups: Some([G].into_iter().collect()),
            users: None,
        });
    let e =
        t.gw.send_message(private("x"), CallCtx::new(scoped, Default::default()))
            .await
            .unwrap_err();
    assert_eq!(
        (e.kind, e.meta("scope")),
        (Kind::TokenScope, Some("private"))
    );
}

#[tokio::test]
async fn quote_and_mentions_lead_the_first_message() {
    let t = start(Flavor::NapCat, |a| a.reply_chunk_size = 3);
    t.api.store(stored(-42, ChatRef::Group(G), 10_002));
    let r = send(
        &t,
        SendRequest {
            reply_to: Some(-42),
            mentions: vec![10002, 10003, 10002],
            mention_all: true,
            images: vec![data(png(10))],
            ..text("abcdef")
        },
    )
    .await
    .unwrap();
    assert_eq!(r.chunks, 2);
    let calls = t.api.calls();
    assert_eq!(calls[0], Call::GetMessage { message_id: -42 });
    let calls = sends(&t);
    assert_eq!(
        kinds(&sent(&calls[0]).1),
        ["reply -42", "at 10002", "at 10003", "at all", "text abc"]
    );
    assert_eq!(kinds(&sent(&calls[1]).1), ["text def"]);
    assert_eq!(kinds(&sent(&calls[2]).1), ["image"]);
}

#[tokio::test]
async fn a_quote_alone_or_before_a_file_is_a_message_of_its_own() {
    let t = start(Flavor::NapCat, |_| {});
    t.api.store(stored(7, ChatRef::Group(G), 10_002));
    let r = send(
        &t,
        SendRequest {
            reply_to: Some(7),
            ..text("")
        },
    )
    .await
    .unwrap();
    assert_eq!((r.chunks, r.message_ids.len()), (0, 1));
    assert_eq!(kinds(&sent(&sends(&t)[0]).1), ["reply 7"]);
    // Only an image: the lead rides on it.
    send(
        &t,
        SendRequest {
            mentions: vec![10002],
            images: vec![data(png(10))],
            ..text("")
        },
    )
    .await
    .unwrap();
    assert_eq!(kinds(&sent(&sends(&t)[1]).1), ["at 10002", "image"]);
    // Only a file: the lead goes first, alone.
    send(
        &t,
        SendRequest {
            mentions: vec![10002],
            file: Some(data(sample("text", 100))),
            file_name: "a.txt".into(),
            ..text("")
        },
    )
    .await
    .unwrap();
    let calls = t.api.calls();
    assert_eq!(kinds(&sent(&calls[3]).1), ["at 10002"]);
    assert!(matches!(&calls[4], Call::Upload { name, .. } if name == "a.txt"));
}

#[tokio::test]
async fn mention_and_quote_rules() {
    let t = start(Flavor::NapCat, |_| {});
    let e = err(
        &t,
        SendRequest {
            mentions: (1..=21).collect(),
            ..text("x")
        },
    )
    .await;
    assert_eq!(
        (e.kind, e.field.as_deref(), e.meta("limit")),
        (Kind::InvalidRequest, Some("mention_user_ids"), Some("20"))
    );
    // Exactly 20 is fine.
    send(
        &t,
        SendRequest {
            mentions: (1..=20).collect(),
            ..text("x")
        },
    )
    .await
    .unwrap();
    let e = err(
        &t,
        SendRequest {
            mentions: vec![5, 0],
            ..text("x")
        },
    )
    .await;
    assert_eq!(e.field.as_deref(), Some("mention_user_ids[1]"));
    let e = err(
        &t,
        SendRequest {
            reply_to: Some(0),
            ..text("x")
        },
    )
    .await;
    assert_eq!(e.field.as_deref(), Some("reply_to_message_id"));
    assert_eq!(t.api.calls().len(), 1);
}

#[tokio::test]
async fn offline_private_sends_and_leads_are_queued_and_flushed() {
    let t = start(Flavor::NapCat, |a| a.users = vec![USER]);
    t.api.set_online(false);
    let r = send(
        &t,
        SendRequest {
            reply_to: Some(9),
            ..private("稍后")
        },
    )
    .await
    .unwrap();
    assert!(r.queued);
    assert_eq!((r.user_id, r.group_id), (USER, 0));
    let r = send(
        &t,
        SendRequest {
            mention_all: true,
            ..text("")
        },
    )
    .await
    .unwrap();
    assert!(r.queued && r.chunks == 0);
    let called = t.api.called.notified();
    t.api.set_online(true);
    called.await;
    send(&t, text("then")).await.unwrap();
    let calls = t.api.calls();
    let (chat, first) = sent(&calls[0]);
    assert_eq!(chat, ChatRef::Private(USER));
    assert_eq!(kinds(&first), ["reply 9", "text 稍后"]);
    assert_eq!(kinds(&sent(&calls[1]).1), ["at all"]);
    assert_eq!(kinds(&sent(&calls[2]).1), ["text then"]);
}

#[tokio::test]
async fn the_new_fields_are_part_of_the_idempotency_identity() {
    let t = start(Flavor::NapCat, |a| a.users = vec![USER]);
    let keyed = |req: SendRequest| SendRequest {
        idempotency_key: "k".into(),
        ..req
    };
    send(&t, keyed(text("x"))).await.unwrap();
    for other in [
        private("x"),
        SendRequest {
            reply_to: Some(1),
            ..text("x")
        },
        SendRequest {
            mentions: vec![1],
            ..text("x")
        },
        SendRequest {
            mention_all: true,
            ..text("x")
        },
    ] {
        let e = err(&t, keyed(other)).await;
        assert_eq!(e.kind, Kind::IdempotencyKeyReused);
    }
    let again = send(&t, keyed(text("x"))).await.unwrap();
    assert!(again.replayed);
}

#[tokio::test(start_paused = true)]
async fn each_private_chat_has_its_own_rate_limit() {
    let t = start(Flavor::NapCat, |a| {
        a.users = vec![USER, 10_002];
        a.rate_group_burst = 1;
        a.rate_group_per_minute = 20;
    });
    send(&t, private("a")).await.unwrap();
    let ctx = CallCtx::anonymous().with_timeout(Duration::from_secs(1));
    let e = t.gw.send_message(private("b"), ctx).await.unwrap_err();
    assert_eq!((e.kind, e.meta("scope")), (Kind::RateLimited, Some("user")));
    assert_eq!(e.meta("user_id"), Some("10001"));
    // Another user, and the group, have cells of their own.
    let ctx = CallCtx::anonymous().with_timeout(Duration::from_secs(1));
    t.gw.send_message(
        SendRequest {
            user_id: Some(10_002),
            ..text("c")
        },
        ctx.clone(),
    )
    .await
    .unwrap();
    t.gw.send_message(text("d"), ctx).await.unwrap();
}

fn stored(id: i64, chat: ChatRef, user: i64) -> onebot_gateway_domain::model::Message {
    onebot_gateway_onebot::model::decode_message(
        &serde_json::json!({"message_id": id, "user_id": user, "time": 1,
            "sender": {"user_id": user}, "message": "要撤回的"}),
        Some(chat),
    )
    .unwrap()
}

#[tokio::test]
async fn recall_reads_the_message_checks_the_whitelists_then_recalls() {
    let t = start(Flavor::NapCat, |a| a.users = vec![USER]);
    let mut events =
        t.gw.events
            .subscribe("default", None, Default::default())
            .unwrap();
    t.api.store(stored(1, ChatRef::Group(G), 10_001));
    t.api.store(stored(2, ChatRef::Group(7), 10_001));
    t.api.store(stored(3, ChatRef::Private(10_002), 10_002));
    t.api.store(stored(4, ChatRef::Private(USER), 10_001));
    let recall = |id| t.gw.recall_message("", id, None, CallCtx::anonymous());
    assert_eq!(recall(1).await.unwrap(), ChatRef::Group(G));
    assert_eq!(recall(4).await.unwrap(), ChatRef::Private(USER));
    let e = recall(2).await.unwrap_err();
    assert_eq!(
        (e.kind, e.meta("message_id")),
        (Kind::GroupNotAllowed, Some("2"))
    );
    assert_eq!(recall(3).await.unwrap_err().kind, Kind::UserNotAllowed);
    let e = recall(404).await.unwrap_err();
    assert_eq!(e.kind, Kind::MessageNotFound);
    assert_eq!(recall(0).await.unwrap_err().kind, Kind::InvalidRequest);
    let recalls: Vec<Call> = t
        .api
        .calls()
        .into_iter()
        .filter(|c| matches!(c, Call::Recall { .. }))
        .collect();
    assert_eq!(
        recalls,
        [
            Call::Recall { message_id: 1 },
            Call::Recall { message_id: 4 }
        ]
    );
    // Each recall is published as an event.
    for (chat, id) in [(ChatRef::Group(G), 1), (ChatRef::Private(USER), 4)] {
        let e = events.next().await.unwrap().unwrap();
        assert!(
            matches!(&*e.event, InboundEvent::MessageRecalled { chat: c, message_id, operator_id: 10_001, .. } if *c == chat && *message_id == id),
            "{:?}",
            e.event
        );
    }
    // The peer's refusal is a failure with its words; an undocumented
    // answer too.
    t.api.store(stored(5, ChatRef::Group(G), 10_002));
    t.api.script([Err(Error::new(
        Kind::OnebotActionUnknown,
        "delete_msg: 200",
    )
    .with("peer_message", ""))]);
    let e = recall(5).await.unwrap_err();
    assert_eq!(e.kind, Kind::OnebotActionFailed);
    // A read-only caller asks nothing of the peer.
    let before = t.api.calls().len();
    let ro =
        onebot_gateway_domain::caller::Caller::token(onebot_gateway_domain::caller::TokenScope {
            name: "ro".into(),
            accounts: None,
            write: false,
            groups: None,
            users: None,
        });
    let e =
        t.gw.recall_message("", 1, None, CallCtx::new(ro, Default::default()))
            .await
            .unwrap_err();
    assert_eq!((e.kind, e.meta("scope")), (Kind::TokenScope, Some("write")));
    assert_eq!(t.api.calls().len(), before);
}

fn quoting(id: i64, req: SendRequest) -> SendRequest {
    SendRequest {
        reply_to: Some(id),
        idempotency_key: format!("quote-{id}-{:?}-{:?}", req.group_id, req.user_id),
        ..req
    }
}

#[tokio::test]
async fn a_quote_the_peer_does_not_know_sends_nothing() {
    let t = start(Flavor::NapCat, |_| {});
    let e = err(&t, quoting(404, text("回复"))).await;
    assert_eq!(e.kind, Kind::MessageNotFound);
    assert_eq!(e.meta("message_id"), Some("404"));
    assert_eq!(e.field.as_deref(), Some("reply_to_message_id"));
    assert!(e.message.contains("404"), "{}", e.message);
    assert_eq!(t.api.calls(), vec![Call::GetMessage { message_id: 404 }]);
    // The miss is remembered; the key is free again.
    let e = err(&t, quoting(404, text("回复"))).await;
    assert_eq!(e.kind, Kind::MessageNotFound);
    assert_eq!(t.api.calls().len(), 1, "a known miss asks the peer nothing");
    assert!(sends(&t).is_empty());
    // Once the message exists (another id), the same key sends.
    t.api.store(stored(405, ChatRef::Group(G), 10_002));
    let r = send(&t, quoting(405, text("回复"))).await.unwrap();
    assert_eq!(r.message_ids.len(), 1);
    assert_eq!(kinds(&sent(&sends(&t)[0]).1), ["reply 405", "text 回复"]);
}

#[tokio::test]
async fn a_quote_of_another_chat_is_refused_naming_both() {
    let t = start(Flavor::NapCat, |a| a.users = vec![USER]);
    t.api.store(stored(8, ChatRef::Group(G), 10_002));
    let e = err(&t, quoting(8, private("x"))).await;
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (Kind::InvalidRequest, Some("reply_to_message_id"))
    );
    assert_eq!(e.meta("message_chat"), Some("group:20000003"));
    assert_eq!(e.meta("target"), Some("private:10001"));
    assert!(
        e.message.contains("group:20000003") && e.message.contains("private:10001"),
        "{}",
        e.message
    );
    assert!(sends(&t).is_empty());
    // A message the quote cache holds needs no peer call.
    t.gw.quotes
        .remember("default", &stored(9, ChatRef::Private(USER), USER));
    let before = t.api.calls().len();
    send(&t, quoting(9, private("ok"))).await.unwrap();
    assert_eq!(t.api.calls().len(), before + 1);
    let e = err(&t, quoting(9, text("group"))).await;
    assert_eq!(e.kind, Kind::InvalidRequest);
}

#[tokio::test]
async fn offline_quotes_are_checked_against_what_is_held() {
    let t = start(Flavor::NapCat, |_| {});
    t.gw.quotes.remember_missing("default", 77);
    t.api.set_online(false);
    let e = err(&t, quoting(77, text("x"))).await;
    assert_eq!(e.kind, Kind::MessageNotFound);
    // Unknown to the cache: queued unchecked.
    let r = send(&t, quoting(78, text("x"))).await.unwrap();
    assert!(r.queued);
    assert!(t.api.calls().is_empty());
}

#[tokio::test]
async fn a_group_the_bot_is_not_in_sends_nothing() {
    const OTHER: i64 = 20_000_009;
    let t = start(Flavor::NapCat, |a| a.groups = vec![G, OTHER]);
    t.api.set_groups(Some(&[G]));
    let e = err(
        &t,
        SendRequest {
            group_id: Some(OTHER),
            idempotency_key: "k".into(),
            ..text("hi")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::GroupNotFound);
    assert_eq!(e.meta("group_id"), Some("20000009"));
    assert_eq!(t.api.calls(), vec![Call::Groups]);
    // A group outside the whitelist is GroupNotAllowed, without a read.
    let e = err(
        &t,
        SendRequest {
            group_id: Some(20_000_002),
            ..text("hi")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::GroupNotAllowed);
    assert_eq!(t.api.calls(), vec![Call::Groups]);
    // A joined group sends, without another read.
    send(
        &t,
        SendRequest {
            group_id: Some(G),
            ..text("hi")
        },
    )
    .await
    .unwrap();
    assert_eq!(t.api.calls().len(), 2);
    // Offline, the list held still answers: nothing is queued.
    t.api.set_online(false);
    let e = err(
        &t,
        SendRequest {
            group_id: Some(OTHER),
            idempotency_key: "k".into(),
            ..text("hi")
        },
    )
    .await;
    assert_eq!(e.kind, Kind::GroupNotFound);
    assert_eq!(t.gw.queue_depth("default"), 0);
    // Pokes too, before the offline refusal.
    let e =
        t.gw.poke_member("", Some(OTHER), 10_002, None, CallCtx::anonymous())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::GroupNotFound);
    t.api.set_online(true);
    let e =
        t.gw.poke_member("", Some(OTHER), 10_002, None, CallCtx::anonymous())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::GroupNotFound);
    assert!(
        !t.api.calls().iter().any(|c| matches!(c, Call::Poke { .. })),
        "{:?}",
        t.api.calls()
    );
}

#[tokio::test]
async fn offline_without_a_list_a_text_send_is_queued_as_before() {
    let t = start(Flavor::NapCat, |_| {});
    t.api.set_groups(Some(&[]));
    t.api.set_online(false);
    let r = send(&t, text("later")).await.unwrap();
    assert!(r.queued);
    assert!(t.api.calls().is_empty(), "an offline peer is not asked");
}
