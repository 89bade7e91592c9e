//! What a client, a peer or a local user can learn or break beyond its
//! rights: malformed protobuf is the client's INVALID_ARGUMENT (never
//! INTERNAL), data files are owner-only, an empty store file is refused,
//! special files under the media roots are refused without being opened
//! and a path outside the roots reads the same as a missing one, a second
//! reverse connection cannot take over an account, received media and
//! quotes keep the chat scope of the chat they came from, and health
//! watches without a token are capped.

use onebot_gateway_client::pb;
use onebot_gateway_config::Config;
use onebot_gateway_tests::TestGateway;
use tonic::Code;
use tonic_types::StatusExt;

/// One gRPC message frame: uncompressed, `bytes` as the message.
fn grpc_frame(bytes: &[u8]) -> Vec<u8> {
    let mut frame = vec![0];
    frame.extend_from_slice(&u32::try_from(bytes.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(bytes);
    frame
}

/// POSTs `body` to `path` over HTTP/2 (prior knowledge) as a gRPC call and
/// returns the status of its trailers-only answer.
async fn raw_grpc(gw: &TestGateway, path: &str, body: Vec<u8>) -> tonic::Status {
    let client = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let response = client
        .post(format!("http://{}{path}", gw.addr))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    tonic::Status::from_header_map(response.headers())
        .unwrap_or_else(|| panic!("a trailers-only answer: {:?}", response.headers()))
}

/// Bytes that are no protobuf message: field 1 with wire type 7 (none).
const NOT_PROTOBUF: &[u8] = &[0x0f, 0xff, 0xff];

#[tokio::test]
async fn malformed_protobuf_is_invalid_argument_not_internal() {
    let gw = TestGateway::start(Config::default()).await;
    for path in [
        "/onebot.gateway.v1.MessageService/GetHistory",
        "/onebot.gateway.v1.AccountService/ListAccounts",
        "/onebot.gateway.v1.EventService/StreamEvents",
        "/onebot.gateway.v1.MediaService/UploadMedia",
        "/grpc.health.v1.Health/Check",
    ] {
        let status = raw_grpc(&gw, path, grpc_frame(NOT_PROTOBUF)).await;
        assert_eq!(status.code(), Code::InvalidArgument, "{path}: {status:?}");
        let details = status.get_error_details();
        let info = details.error_info().expect("ErrorInfo");
        assert_eq!(info.reason, "INVALID_REQUEST", "{path}");
        assert_eq!(info.domain, "onebot-gateway", "{path}");
    }
    gw.stop().await.unwrap();
}

/// Starts the gateway on `data_dir` and returns the error it stops with.
async fn start_error(data_dir: &std::path::Path) -> String {
    let mut config = Config::default();
    config.server.data_dir = data_dir.to_path_buf();
    config.accounts.insert(
        "default".into(),
        onebot_gateway_config::AccountConfig {
            ws_url: Some("ws://127.0.0.1:9/".into()),
            ..Default::default()
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let run = onebot_gateway::app::run_with(
        config,
        onebot_gateway::app::Listeners {
            grpc: listener,
            metrics: None,
        },
        std::future::pending(),
    );
    let result = tokio::time::timeout(std::time::Duration::from_secs(20), run)
        .await
        .expect("the gateway refuses at once");
    format!(
        "{:#}",
        result.expect_err("the gateway must refuse a broken store")
    )
}

/// Every store file that exists with zero length (a truncation: the
/// gateway never leaves one empty) is refused at start, and a store that is
/// not a database names the file, what is lost and how to go on; the file
/// is left as it was.
#[tokio::test]
async fn an_empty_or_corrupted_store_file_is_refused_naming_it_and_the_remedy() {
    let garbage = b"this is not a database at all".repeat(200);
    let cases: [(&str, &[u8], &str); 8] = [
        ("gateway.sqlite3", b"", "offline queue"),
        ("message-ids.sqlite3", b"", "message ids"),
        ("journal.sqlite3", b"", "events not yet archived"),
        ("archive.sqlite3", b"", "archived messages"),
        ("gateway.sqlite3", &garbage, "offline queue"),
        ("message-ids.sqlite3", &garbage, "message ids"),
        ("journal.sqlite3", &garbage, "events not yet archived"),
        ("archive.sqlite3", &garbage, "archived messages"),
    ];
    for (name, bytes, lost) in cases {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        let error = start_error(dir.path()).await;
        let what = format!("{name} of {} bytes", bytes.len());
        assert!(
            error.contains(&file.display().to_string()),
            "{what}: the error names the file: {error}"
        );
        assert!(
            error.contains(lost) && error.contains("backup") && error.contains(".broken"),
            "{what}: the error says what is lost and what to do: {error}"
        );
        assert_eq!(
            std::fs::read(&file).unwrap(),
            bytes,
            "{what}: left as it was"
        );
    }
}

/// A PNG: the magic header, then filler.
fn png(len: usize) -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    v.resize(len, 0x5a);
    v
}

/// Everything under `dir` (itself included) with its permission bits.
fn modes(dir: &std::path::Path) -> Vec<(std::path::PathBuf, bool, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(dir).unwrap();
    let mut out = vec![(
        dir.to_path_buf(),
        meta.is_dir(),
        meta.permissions().mode() & 0o777,
    )];
    if meta.is_dir() {
        for entry in std::fs::read_dir(dir).unwrap() {
            out.extend(modes(&entry.unwrap().path()));
        }
    }
    out
}

/// The data directory, its stores (with SQLite's -wal and -shm files),
/// the staging area and a staged upload are owner-only: 0700 directories,
/// 0600 files, whatever the process's umask.
#[tokio::test]
async fn data_files_and_directories_are_owner_only() {
    use pb::upload_media_request::Payload;
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("state").join("data");
    let mut config = Config::default();
    config.server.data_dir = data.clone();
    let gw = TestGateway::start(config).await;
    let bytes = png(3000);
    let upload = vec![
        pb::UploadMediaRequest {
            payload: Some(Payload::Header(pb::UploadMediaHeader {
                kind: pb::MediaKind::Image as i32,
                file_name: "a.png".into(),
                size: Some(bytes.len() as i64),
                ..Default::default()
            })),
        },
        pb::UploadMediaRequest {
            payload: Some(Payload::Chunk(bytes)),
        },
    ];
    gw.media()
        .upload_media(tokio_stream::iter(upload))
        .await
        .unwrap();
    let all = modes(temp.path().join("state").as_path());
    gw.stop().await.unwrap();
    let names: Vec<String> = all
        .iter()
        .map(|(p, _, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for expected in [
        "data",
        "gateway.sqlite3",
        "journal.sqlite3",
        "journal.sqlite3-wal",
        "archive.sqlite3",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} in {all:?}");
    }
    assert!(
        all.iter().filter(|(_, dir, _)| !dir).count() >= 6,
        "a staged file among them: {all:?}"
    );
    for (path, dir, mode) in &all {
        let want = if *dir { 0o700 } else { 0o600 };
        assert_eq!(*mode, want, "{}: {mode:o}", path.display());
    }
}

/// Adds `authorization: Bearer <token>` to every call.
fn bearer(
    token: &'static str,
) -> impl FnMut(tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> + Clone {
    move |mut req: tonic::Request<()>| {
        let value = format!("Bearer {token}").parse().unwrap();
        req.metadata_mut().insert("authorization", value);
        Ok(req)
    }
}

const ALL_CHATS: &str = "all-chats-token-0123456789";
const GROUP_A_ONLY: &str = "group-a-token-0123456789ab";

/// A token scoped to group A cannot send a picture received in group B by
/// its media id, nor quote B's message, in a send to A: PERMISSION_DENIED
/// TOKEN_SCOPE, without naming B, and nothing reaches the peer. A token
/// that may use B can.
#[tokio::test]
async fn received_media_and_quotes_keep_the_scope_of_their_chat() {
    use onebot_gateway_config::{Access, TokenConfig};
    use onebot_sandbox::{EXAMPLE_GROUP, Flavor, MediaKind, SANDBOX_GROUP, sample_media};
    const A: i64 = SANDBOX_GROUP;
    const B: i64 = EXAMPLE_GROUP;
    let sb = onebot_gateway_tests::sandbox(Flavor::NapCat).await;
    let mut config = onebot_gateway_tests::config_for(&sb, &[A, B]);
    config.media.allow_private_urls = true;
    let mut scoped = TokenConfig::inline("group-a", GROUP_A_ONLY, &["*"], Access::ReadWrite);
    scoped.groups = Some(vec![A]);
    config.auth.tokens = vec![
        TokenConfig::inline("all", ALL_CHATS, &["*"], Access::ReadWrite),
        scoped,
    ];
    let gw = TestGateway::start(config).await;
    let all = gw.channel.clone();
    let mut stream = pb::event_service_client::EventServiceClient::with_interceptor(
        all.clone(),
        bearer(ALL_CHATS),
    )
    .stream_events(pb::StreamEventsRequest {
        kinds: vec![pb::EventKind::Message as i32],
        ..Default::default()
    })
    .await
    .unwrap()
    .into_inner();
    let control = sb.control();
    let image = control.store_media(
        MediaKind::Image,
        sample_media(MediaKind::Image, 5_000),
        "b.png",
    );
    let message_id = control.inject_group_message(B, 10003, serde_json::json!([image]));
    let message = loop {
        let event = crate::events::next_event(&mut stream).await;
        if let Some(pb::event::Kind::Message(m)) = event.kind {
            break m.message.unwrap();
        }
    };
    let Some(pb::segment::Kind::Image(seg)) = &message.segments[0].kind else {
        panic!("an image: {message:?}");
    };
    let media_id = seg.media_id.clone();
    // Captured: the bytes are the gateway's.
    let mut download = pb::media_service_client::MediaServiceClient::with_interceptor(
        all.clone(),
        bearer(ALL_CHATS),
    )
    .download_media(pb::DownloadMediaRequest {
        account_id: String::new(),
        target: Some(pb::download_media_request::Target::MediaId(
            media_id.clone(),
        )),
    })
    .await
    .unwrap()
    .into_inner();
    while download.message().await.unwrap().is_some() {}

    let image_of_b = pb::SendMessageRequest {
        group_id: Some(A),
        images: vec![pb::MediaSource {
            source: Some(pb::media_source::Source::MediaId(media_id.clone())),
        }],
        ..Default::default()
    };
    let quote_of_b = pb::SendMessageRequest {
        group_id: Some(A),
        text: "re".into(),
        reply_to_message_id: Some(message_id),
        ..Default::default()
    };
    control.clear_actions();
    control.clear_media();
    let mut scoped = pb::message_service_client::MessageServiceClient::with_interceptor(
        all.clone(),
        bearer(GROUP_A_ONLY),
    );
    for (what, request) in [("image", image_of_b.clone()), ("quote", quote_of_b)] {
        let status = scoped.send_message(request).await.unwrap_err();
        assert_eq!(status.code(), Code::PermissionDenied, "{what}: {status:?}");
        assert_eq!(
            onebot_gateway_tests::reason(&status),
            "TOKEN_SCOPE",
            "{what}"
        );
        assert!(
            !status.message().contains(&B.to_string()),
            "{what}: B is not named: {status:?}"
        );
    }
    let sent: Vec<_> = control
        .actions()
        .into_iter()
        .filter(|a| a.action.starts_with("send_"))
        .collect();
    assert!(sent.is_empty(), "nothing sent: {sent:?}");
    assert!(control.received_media().is_empty());
    // The token that may use B may forward it.
    pb::message_service_client::MessageServiceClient::with_interceptor(all, bearer(ALL_CHATS))
        .send_message(image_of_b)
        .await
        .unwrap();
    assert_eq!(control.received_media().len(), 1);
    gw.stop().await.unwrap();
    sb.shutdown().await;
}

/// Dials the reverse listener at `addr` as bot 42 with `token`; the HTTP
/// status of a refused upgrade.
async fn dial_reverse(
    addr: std::net::SocketAddr,
    token: &str,
) -> Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    u16,
> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{addr}/onebot/v11/ws")
        .into_client_request()
        .unwrap();
    req.headers_mut().insert("x-self-id", "42".parse().unwrap());
    req.headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    match tokio_tungstenite::connect_async(req).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => Err(resp.status().as_u16()),
        Err(e) => panic!("dial failed: {e}"),
    }
}

/// Plays the implementation on `ws`: answers whatever the gateway asks.
fn answer_as_bot(
    mut ws: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
) -> tokio::task::JoinHandle<()> {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    tokio::spawn(async move {
        while let Some(Ok(Message::Text(text))) = ws.next().await {
            let req: serde_json::Value = serde_json::from_str(text.as_str()).unwrap();
            let data = match req["action"].as_str() {
                Some("get_login_info") => serde_json::json!({"user_id": 42, "nickname": "rev"}),
                Some("get_version_info") => serde_json::json!({"app_name": "NapCat.Onebot"}),
                _ => serde_json::json!([]),
            };
            let reply = serde_json::json!({"status": "ok", "retcode": 0, "data": data, "echo": req["echo"]});
            if ws.send(Message::text(reply.to_string())).await.is_err() {
                break;
            }
        }
    })
}

/// While a reverse connection of bot 42 is attached, a second one with the
/// same X-Self-ID and the right token is refused (HTTP 409), and the
/// account stays on the first; once the first ends, a new one is accepted.
#[tokio::test]
async fn a_second_reverse_connection_cannot_take_over_the_account() {
    const TOKEN: &str = "reverse-token-0123456789";
    // A free port for the listener (bound by the gateway next).
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let mut config = Config {
        reverse_ws: Some(onebot_gateway_config::ReverseWsConfig {
            listen: addr,
            ..Default::default()
        }),
        ..Default::default()
    };
    config.accounts.insert(
        "rev".into(),
        onebot_gateway_config::AccountConfig {
            reverse: true,
            self_id: Some(42),
            access_token: Some(onebot_gateway_config::Secret::new(TOKEN)),
            ..Default::default()
        },
    );
    let gw = TestGateway::start(config).await;
    let first = answer_as_bot(
        dial_reverse(addr, TOKEN)
            .await
            .expect("the first is accepted"),
    );
    gw.wait_state("rev", pb::ConnectionState::Connected).await;
    for _ in 0..3 {
        assert_eq!(dial_reverse(addr, TOKEN).await.err(), Some(409));
    }
    let account = gw.account("rev").await;
    assert_eq!(account.state(), pb::ConnectionState::Connected);
    // The first goes away: a replacement is accepted.
    first.abort();
    let _ = first.await;
    gw.wait_state("rev", pb::ConnectionState::Connecting).await;
    let second = answer_as_bot(dial_reverse(addr, TOKEN).await.expect("a replacement"));
    gw.wait_state("rev", pb::ConnectionState::Connected).await;
    second.abort();
    gw.stop().await.unwrap();
}

/// With authentication on, an account's health name answers a caller
/// without a token as an unknown service does, for a configured id and an
/// unknown one alike (Check and Watch); a token allowed the account sees
/// it. Watches without a token are capped per address; a token's are not.
#[tokio::test]
async fn health_names_are_hidden_and_watches_without_a_token_capped() {
    use onebot_gateway_config::{Access, TokenConfig};
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    let mut config = Config::default();
    config.auth.tokens = vec![TokenConfig::inline(
        "all",
        ALL_CHATS,
        &["default"],
        Access::ReadOnly,
    )];
    config.limits.max_anonymous_health_watches = 3;
    config.limits.max_anonymous_health_watches_per_address = 2;
    let gw = TestGateway::start(config).await;
    let request = |service: &str| HealthCheckRequest {
        service: service.into(),
    };
    let mut open = gw.health();
    let mut with_token = HealthClient::with_interceptor(gw.channel.clone(), bearer(ALL_CHATS));
    let mut answers = Vec::new();
    for name in [
        "onebot.gateway.v1.account.default",
        "onebot.gateway.v1.account.nope",
    ] {
        let check = open.check(request(name)).await.unwrap_err();
        let watch = open.watch(request(name)).await.unwrap_err();
        for status in [&check, &watch] {
            assert_eq!(status.code(), Code::NotFound, "{name}: {status:?}");
            answers.push(status.message().to_string());
        }
    }
    answers.dedup();
    assert_eq!(answers, ["service not registered"]);
    with_token
        .check(request("onebot.gateway.v1.account.default"))
        .await
        .expect("a token sees its account");
    // Probes of the process and the services stay open.
    open.check(request("")).await.unwrap();
    open.check(request("onebot.gateway.v1.MessageService"))
        .await
        .unwrap();

    let mut held = Vec::new();
    for _ in 0..2 {
        held.push(open.watch(request("")).await.unwrap().into_inner());
    }
    let refused = open.watch(request("")).await.unwrap_err();
    assert_eq!(refused.code(), Code::ResourceExhausted, "{refused:?}");
    assert_eq!(onebot_gateway_tests::reason(&refused), "OVERLOADED");
    assert!(refused.message().contains("per_address"), "{refused:?}");
    for _ in 0..4 {
        held.push(with_token.watch(request("")).await.unwrap().into_inner());
    }
    gw.stop().await.unwrap();
}

/// Paths under `media_roots`: a FIFO is refused before it is opened (the
/// send answers although no writer ever comes), and a path outside the
/// roots reads exactly as a missing one (no existence oracle). Nothing is
/// sent.
#[tokio::test]
async fn a_fifo_is_refused_and_outside_reads_as_missing() {
    use onebot_sandbox::{Flavor, SANDBOX_GROUP};
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let fifo = root.path().join("pipe.png");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::fs::write(outside.path().join("exists.png"), png(500)).unwrap();
    let sb = onebot_gateway_tests::sandbox(Flavor::NapCat).await;
    let mut config = onebot_gateway_tests::config_for(&sb, &[SANDBOX_GROUP]);
    config.media.media_roots = vec![root.path().to_path_buf()];
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let send = |path: &std::path::Path| pb::SendMessageRequest {
        group_id: Some(SANDBOX_GROUP),
        images: vec![pb::MediaSource {
            source: Some(pb::media_source::Source::Path(
                path.to_string_lossy().into_owned(),
            )),
        }],
        ..Default::default()
    };
    let control = sb.control();
    control.clear_actions();
    let mut messages = gw.messages();
    let answer = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        messages.send_message(send(&fifo)),
    )
    .await;
    let Ok(answer) = answer else {
        // Unblock the reader stuck in open(2) so the gateway can stop.
        let _writer = std::fs::OpenOptions::new().write(true).open(&fifo);
        panic!("the send blocked on the FIFO");
    };
    let status = answer.unwrap_err();
    assert_eq!(status.code(), Code::NotFound, "{status:?}");
    assert_eq!(onebot_gateway_tests::reason(&status), "PATH_NOT_FOUND");

    let mut answers = Vec::new();
    for path in [
        outside.path().join("exists.png"),
        outside.path().join("missing.png"),
        root.path().join("missing.png"),
    ] {
        let status = messages.send_message(send(&path)).await.unwrap_err();
        answers.push((
            status.code(),
            onebot_gateway_tests::reason(&status),
            status.message().to_string(),
        ));
    }
    assert_eq!(answers[0].1, "PATH_FORBIDDEN", "{answers:?}");
    assert!(
        answers.iter().all(|a| *a == answers[0]),
        "one answer: {answers:?}"
    );
    let sent: Vec<_> = control
        .actions()
        .into_iter()
        .filter(|a| a.action.starts_with("send_"))
        .collect();
    assert!(sent.is_empty(), "{sent:?}");
    gw.stop().await.unwrap();
    sb.shutdown().await;
}
