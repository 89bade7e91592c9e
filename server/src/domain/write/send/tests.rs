use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::config::{AccountConfig, Config, SharedDir};
use crate::domain::media::upload::UploadHeader;
use crate::domain::testkit::{Call, FakeApi, png, sample};
use crate::onebot::Flavor;

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
    let gw = crate::domain::testkit::gateway(config, accounts, shutdown.clone());
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
            file: String::new()
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
async fn media_limits_and_types_are_checked_before_the_first_frame() {
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
    let metrics = crate::telemetry::metrics::Capture::start();
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
            crate::telemetry::metrics::QUEUE_ENTRIES,
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
    let metrics = crate::telemetry::metrics::Capture::start();
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
        crate::telemetry::metrics::QUEUE_ENTRIES,
        &[("account", "default"), ("outcome", "dropped")],
    );
    assert_eq!(dropped, 1);
    assert_eq!(t.gw.queue_depth("default"), 0);
}

#[tokio::test]
async fn text_is_queued_when_the_transport_drops_before_the_frame() {
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
async fn a_refused_first_frame_releases_the_key() {
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
        t.gw.poke_member("", None, 10_003, ctx.clone())
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
        t.gw.poke_member("", None, 0, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (Kind::InvalidRequest, Some("user_id"))
    );
    let e =
        t.gw.poke_member("", Some(1), 5, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::GroupNotAllowed);
    let e =
        t.gw.poke_member("nobody", None, 5, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::AccountNotConfigured);
    t.api
        .script([Err(Error::new(Kind::OnebotActionUnsupported, "1404"))]);
    let e =
        t.gw.poke_member("", None, 5, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::PokeUnsupported);
    t.api.set_online(false);
    let e =
        t.gw.poke_member("", None, 5, ctx.clone())
            .await
            .unwrap_err();
    assert_eq!(e.kind, Kind::AccountOffline);
    assert_eq!(t.gw.queue_depth("default"), 0, "pokes are never queued");
}

#[tokio::test(start_paused = true)]
async fn poke_has_its_own_rate_limit() {
    let t = start(Flavor::NapCat, |a| a.rate_poke_per_minute = 2);
    let ctx = || CallCtx::anonymous().with_timeout(Duration::from_secs(1));
    t.gw.poke_member("", None, 5, ctx()).await.unwrap();
    t.gw.poke_member("", None, 5, ctx()).await.unwrap();
    let e = t.gw.poke_member("", None, 5, ctx()).await.unwrap_err();
    assert_eq!(e.kind, Kind::RateLimited);
    assert_eq!(e.meta("scope"), Some("poke"));
    // Sends are not affected by the poke limit.
    send(&t, text("still fine")).await.unwrap();
}
