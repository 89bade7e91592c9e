//! End-to-end tests of the write side through real gRPC over TCP:
//! `MediaService.UploadMedia` (and, once the adapter is on main,
//! `MessageService.SendMessage` and `GroupService.PokeMember` against the
//! sandbox peer).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_gateway_config::{AccountConfig, Config};
use onebot_gateway_domain::{CallCtx, Gateway};
use onebot_gateway_tests::{Sandbox, SandboxConfig, SandboxFlavor};
use pb::group_service_client::GroupServiceClient;
use pb::media_service_client::MediaServiceClient;
use pb::message_service_client::MessageServiceClient;
use pb::upload_media_request::Payload;
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tokio_stream::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

use crate::read_side::tool;

const MIB: usize = 1024 * 1024;
const CHUNK: usize = 64 * 1024;
/// The sandbox's example group (members 10001‥10119).
const GROUP: i64 = 20_000_002;

/// A gateway serving gRPC on a loopback port, with its data directory.
struct Harness {
    gw: Arc<Gateway>,
    channel: Channel,
    data_dir: tempfile::TempDir,
    shutdown: CancellationToken,
    server: tokio::task::JoinHandle<()>,
}

impl Harness {
    async fn start(config: Config) -> Harness {
        Harness::start_in(config, tempfile::tempdir().unwrap()).await
    }

    /// Starts a gateway whose `default` account talks to `sandbox`, with
    /// `groups` whitelisted, and waits until the account is online.
    async fn with_sandbox(
        sandbox: &Sandbox,
        data_dir: tempfile::TempDir,
        tweak: impl FnOnce(&mut AccountConfig),
    ) -> Harness {
        let mut config = Config::default();
        let mut account = AccountConfig {
            ws_url: Some(sandbox.ws_url()),
            groups: vec![GROUP],
            ..AccountConfig::default()
        };
        tweak(&mut account);
        config.accounts.insert("default".into(), account);
        let h = Harness::start_in(config, data_dir).await;
        h.wait_online(true).await;
        h
    }

    async fn wait_online(&self, online: bool) {
        let account = self.gw.account("default", &CallCtx::anonymous()).unwrap();
        let mut rx = account.peer.watch_status();
        tokio::time::timeout(Duration::from_secs(20), rx.wait_for(|s| s.online == online))
            .await
            .expect("account state within 20 s")
            .unwrap();
    }

    async fn start_in(mut config: Config, data_dir: tempfile::TempDir) -> Harness {
        config.server.data_dir = data_dir.path().to_path_buf();
        config.validate().unwrap();
        let shutdown = CancellationToken::new();
        let gw = onebot_gateway::app::gateway(config, shutdown.clone())
            .await
            .unwrap();
        let (_reporter, health) = tonic_health::server::health_reporter();
        let routes = onebot_gateway_grpc::routes(gw.clone(), health);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = shutdown.clone();
        let server = tokio::spawn(async move {
            tonic::transport::Server::builder()
                .add_routes(routes)
                .serve_with_incoming_shutdown(
                    tonic::transport::server::TcpIncoming::from(listener),
                    stop.cancelled_owned(),
                )
                .await
                .unwrap();
        });
        let channel = Channel::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap();
        Harness {
            gw,
            channel,
            data_dir,
            shutdown,
            server,
        }
    }

    fn media(&self) -> MediaServiceClient<Channel> {
        MediaServiceClient::new(self.channel.clone()).max_decoding_message_size(64 * MIB)
    }

    fn staging(&self) -> Vec<String> {
        let dir = self.data_dir.path().join("staging");
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Waits until no upload is in progress inside the gateway.
    async fn uploads_settled(&self) {
        let mut rx = self.gw.write().media().watch_active_uploads();
        rx.wait_for(|n| *n == 0).await.unwrap();
    }

    fn messages(&self) -> MessageServiceClient<Channel> {
        MessageServiceClient::new(self.channel.clone())
            .max_decoding_message_size(64 * MIB)
            .max_encoding_message_size(64 * MIB)
    }

    fn groups(&self) -> GroupServiceClient<Channel> {
        GroupServiceClient::new(self.channel.clone())
    }

    async fn stop(self) {
        self.into_data_dir().await;
    }

    /// Stops the gateway, waits until its store is closed, and hands back
    /// the data directory for a restart.
    async fn into_data_dir(self) -> tempfile::TempDir {
        self.shutdown.cancel();
        self.server.await.unwrap();
        self.gw.write().stopped().await;
        drop(self.gw);
        self.data_dir
    }
}

/// One account with a transport (nothing listens there; uploads never touch
/// the peer).
fn config() -> Config {
    let mut config = Config::default();
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: Some("ws://127.0.0.1:9/".into()),
            groups: vec![20_000_003],
            ..AccountConfig::default()
        },
    );
    config
}

fn sha_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `len` bytes that sniff as MP4: an `ftyp` box, then noise.
fn mp4(len: usize) -> Vec<u8> {
    let mut v = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2".to_vec();
    let mut state = 0x2545_F491_4F6C_DD1Du64 ^ len as u64;
    while v.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        v.extend_from_slice(&state.to_le_bytes());
    }
    v.truncate(len);
    v
}

fn header(
    kind: pb::MediaKind,
    size: Option<i64>,
    sha256: Option<String>,
) -> pb::UploadMediaRequest {
    pb::UploadMediaRequest {
        payload: Some(Payload::Header(pb::UploadMediaHeader {
            account_id: String::new(),
            kind: kind as i32,
            file_name: "clip.mp4".into(),
            size,
            sha256,
        })),
    }
}

fn chunks(bytes: &[u8]) -> Vec<pb::UploadMediaRequest> {
    bytes
        .chunks(CHUNK)
        .map(|c| pb::UploadMediaRequest {
            payload: Some(Payload::Chunk(c.to_vec())),
        })
        .collect()
}

fn reason(status: &tonic::Status) -> String {
    status
        .get_error_details()
        .error_info()
        .map(|i| i.reason.clone())
        .unwrap_or_default()
}

#[tokio::test]
async fn thirty_mib_video_in_64_kib_chunks_is_staged() {
    let h = Harness::start(config()).await;
    let bytes = mp4(30 * MIB);
    let sha = sha_hex(&bytes);
    let mut messages = vec![header(
        pb::MediaKind::Video,
        Some(bytes.len() as i64),
        Some(sha.clone()),
    )];
    messages.extend(chunks(&bytes));
    let resp = h
        .media()
        .upload_media(tokio_stream::iter(messages))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.size, (30 * MIB) as i64);
    assert_eq!(resp.sha256, sha);
    assert_eq!(resp.mime_type, "video/mp4");
    assert_eq!(resp.kind, pb::MediaKind::Video as i32);
    assert!(resp.media_id.starts_with('m'));
    let expires = resp.expires_at.unwrap().seconds;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!(
        (now + 29 * 60..=now + 31 * 60).contains(&expires),
        "{expires} vs {now}"
    );
    assert_eq!(h.staging(), vec![resp.media_id.clone()]);
    let staged = std::fs::read(h.data_dir.path().join("staging").join(&resp.media_id)).unwrap();
    assert_eq!(sha_hex(&staged), sha);
    h.stop().await;
}

/// A stream that yields `messages`, counts how many were taken, then never
/// ends: the gateway must answer without waiting for the rest.
fn counted_then_pending(
    messages: Vec<pb::UploadMediaRequest>,
    taken: Arc<AtomicUsize>,
) -> impl Stream<Item = pb::UploadMediaRequest> + Send + 'static {
    tokio_stream::iter(messages)
        .map(move |m| {
            taken.fetch_add(1, Ordering::SeqCst);
            m
        })
        .chain(tokio_stream::pending())
}

#[tokio::test]
async fn thirty_one_mib_upload_is_refused_before_it_is_all_read() {
    let h = Harness::start(config()).await;
    let bytes = mp4(31 * MIB);
    let all = chunks(&bytes);
    let total = all.len();
    // Offer only the first 30 MiB + 1 chunk, then hang: the answer must come
    // while the client still has 15 chunks it never sent.
    let offered: Vec<_> = std::iter::once(header(pb::MediaKind::Video, None, None))
        .chain(all.into_iter().take(30 * MIB / CHUNK + 1))
        .collect();
    let offered_len = offered.len();
    let taken = Arc::new(AtomicUsize::new(0));
    let status = h
        .media()
        .upload_media(counted_then_pending(offered, taken.clone()))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(reason(&status), "MEDIA_TOO_LARGE");
    assert_eq!(
        status.get_error_details().error_info().unwrap().metadata["limit_bytes"],
        (30 * MIB).to_string()
    );
    assert!(taken.load(Ordering::SeqCst) <= offered_len && offered_len < total);
    h.uploads_settled().await;
    assert!(h.staging().is_empty(), "{:?}", h.staging());
    h.stop().await;
}

#[tokio::test]
async fn declared_size_over_the_limit_is_refused_at_the_header() {
    let h = Harness::start(config()).await;
    let taken = Arc::new(AtomicUsize::new(0));
    let status = h
        .media()
        .upload_media(counted_then_pending(
            vec![header(
                pb::MediaKind::Image,
                Some(10 * MIB as i64 + 1),
                None,
            )],
            taken,
        ))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(reason(&status), "MEDIA_TOO_LARGE");
    h.stop().await;
}

#[tokio::test]
async fn malformed_streams_are_invalid_argument() {
    let h = Harness::start(config()).await;
    let png = {
        let mut v = b"\x89PNG\r\n\x1a\n".to_vec();
        v.resize(1000, 7);
        v
    };
    let chunk = || pb::UploadMediaRequest {
        payload: Some(Payload::Chunk(png.clone())),
    };
    let cases: Vec<(Vec<pb::UploadMediaRequest>, &str)> = vec![
        (vec![chunk()], "UPLOAD_HEADER_MISSING"),
        (vec![], "UPLOAD_HEADER_MISSING"),
        (
            vec![
                header(pb::MediaKind::Image, None, None),
                chunk(),
                header(pb::MediaKind::Image, None, None),
            ],
            "UPLOAD_HEADER_REPEATED",
        ),
        (
            vec![header(pb::MediaKind::Image, Some(999), None), chunk()],
            "MEDIA_SIZE_MISMATCH",
        ),
        (
            vec![
                header(pb::MediaKind::Image, None, Some(sha_hex(b"x"))),
                chunk(),
            ],
            "MEDIA_CHECKSUM_MISMATCH",
        ),
        (
            vec![header(pb::MediaKind::Video, None, None), chunk()],
            "MEDIA_TYPE_MISMATCH",
        ),
        (
            vec![header(pb::MediaKind::Unspecified, None, None), chunk()],
            "INVALID_REQUEST",
        ),
        (
            vec![header(pb::MediaKind::Image, Some(-1), None), chunk()],
            "INVALID_REQUEST",
        ),
    ];
    for (messages, want) in cases {
        let status = h
            .media()
            .upload_media(tokio_stream::iter(messages))
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{want}: {status:?}");
        assert_eq!(reason(&status), want);
    }
    // The same bytes, declared right, are fine.
    let resp = h
        .media()
        .upload_media(tokio_stream::iter(vec![
            header(pb::MediaKind::Image, Some(1000), Some(sha_hex(&png))),
            chunk(),
        ]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.mime_type, "image/png");
    h.uploads_settled().await;
    assert_eq!(h.staging(), vec![resp.media_id]);
    h.stop().await;
}

#[tokio::test]
async fn unknown_account_is_failed_precondition() {
    let h = Harness::start(config()).await;
    let mut first = header(pb::MediaKind::Image, None, None);
    if let Some(Payload::Header(hd)) = first.payload.as_mut() {
        hd.account_id = "nobody".into();
    }
    let status = h
        .media()
        .upload_media(tokio_stream::iter(vec![first]))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(reason(&status), "ACCOUNT_NOT_CONFIGURED");
    h.stop().await;
}

#[tokio::test]
async fn cancelled_upload_leaves_nothing_behind() {
    let h = Harness::start(config()).await;
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut client = h.media();
    let call = tokio::spawn(async move {
        client
            .upload_media(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
    });
    tx.send(header(pb::MediaKind::Video, None, None))
        .await
        .unwrap();
    let mut active = h.gw.write().media().watch_active_uploads();
    active.wait_for(|n| *n == 1).await.unwrap();
    for c in chunks(&mp4(MIB)) {
        tx.send(c).await.unwrap();
    }
    // The upload's temporary file exists from the header on.
    let names = h.staging();
    assert_eq!(names.len(), 1, "{names:?}");
    let file = h.data_dir.path().join("staging").join(&names[0]);
    // Cancel while the request stream is still open (`tx` lives on), so
    // the gateway sees a reset, not a finished stream.
    call.abort();
    let _ = call.await;
    h.uploads_settled().await;
    assert!(!Path::new(&file).exists());
    assert!(
        h.staging().is_empty(),
        "{:?} vs {}",
        h.staging(),
        file.display()
    );
    assert_eq!(h.gw.write().media().used_bytes(), 0);
    drop(tx);
    h.stop().await;
}

// ---------------------------------------------------------------------------
// SendMessage and PokeMember against the sandbox peer.

async fn sandbox(flavor: SandboxFlavor) -> Sandbox {
    sandbox_with(SandboxConfig {
        flavor,
        ..SandboxConfig::default()
    })
    .await
}

async fn sandbox_with(cfg: SandboxConfig) -> Sandbox {
    Sandbox::start(cfg).await.expect("start sandbox")
}

fn text(t: &str) -> pb::SendMessageRequest {
    pb::SendMessageRequest {
        text: t.into(),
        ..pb::SendMessageRequest::default()
    }
}

fn source(s: pb::media_source::Source) -> pb::MediaSource {
    pb::MediaSource { source: Some(s) }
}

fn png(len: usize) -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    v.extend(mp4(len).into_iter().skip(v.len()));
    v.truncate(len);
    v
}

/// Texts of the group's history in the sandbox, newest last.
fn history_texts(sandbox: &Sandbox, group: i64) -> Vec<String> {
    sandbox
        .control()
        .messages(onebot_sandbox::ChatRef::Group(group))
        .iter()
        .map(|m| m["raw_message"].as_str().unwrap_or_default().to_string())
        .collect()
}

async fn upload(h: &Harness, kind: pb::MediaKind, bytes: &[u8]) -> pb::UploadMediaResponse {
    let mut messages = vec![header(kind, Some(bytes.len() as i64), Some(sha_hex(bytes)))];
    messages.extend(chunks(bytes));
    h.media()
        .upload_media(tokio_stream::iter(messages))
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn thirty_mib_video_arrives_at_the_sandbox_as_one_base64_segment() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |_| {}).await;
    let bytes = mp4(30 * MIB);
    let staged = upload(&h, pb::MediaKind::Video, &bytes).await;
    let resp = h
        .messages()
        .send_message(pb::SendMessageRequest {
            videos: vec![source(pb::media_source::Source::MediaId(staged.media_id))],
            ..text("")
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.group_id, GROUP);
    assert_eq!(resp.message_ids.len(), 1);
    assert_eq!(resp.chunks, 0);
    assert_eq!(
        resp.media,
        Some(pb::MediaSummary {
            images: 0,
            videos: 1,
            file: String::new(),
            voices: 0,
        })
    );
    let media = peer.control().received_media();
    assert_eq!(media.len(), 1);
    assert_eq!(media[0].kind, onebot_sandbox::MediaKind::Video);
    assert_eq!(media[0].source, onebot_sandbox::MediaSource::Base64);
    assert_eq!(media[0].sha256.as_deref(), Some(staged.sha256.as_str()));
    assert_eq!(media[0].len, Some((30 * MIB) as u64));
    assert_eq!(media[0].group_id, Some(GROUP));
    h.stop().await;
}

#[tokio::test]
async fn text_images_and_file_go_out_in_order() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |a| {
        a.reply_chunk_size = 12
    })
    .await;
    let image = png(2000);
    let doc = b"quarterly numbers".to_vec();
    let resp = h
        .messages()
        .send_message(pb::SendMessageRequest {
            images: vec![source(pb::media_source::Source::Data(image.clone()))],
            file: Some(source(pb::media_source::Source::Data(doc.clone()))),
            file_name: "报告.txt".into(),
            ..text("first line\nsecond line")
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.chunks, 2);
    assert_eq!(resp.message_ids.len(), 3);
    let actions: Vec<String> = peer
        .control()
        .actions()
        .into_iter()
        .map(|a| a.action)
        .filter(|a| a == "send_group_msg" || a == "upload_group_file")
        .collect();
    assert_eq!(
        actions,
        [
            "send_group_msg",
            "send_group_msg",
            "send_group_msg",
            "upload_group_file"
        ]
    );
    let texts = history_texts(&peer, GROUP);
    let n = texts.len();
    assert_eq!(&texts[n - 3..n - 1], ["first line\n", "second line"]);
    let media = peer.control().received_media();
    assert_eq!(media[0].sha256.as_deref(), Some(sha_hex(&image).as_str()));
    assert_eq!(media[1].sha256.as_deref(), Some(sha_hex(&doc).as_str()));
    assert_eq!(media[1].name.as_deref(), Some("报告.txt"));
    assert_eq!(resp.media.unwrap().file, "报告.txt");
    h.stop().await;
}

#[tokio::test]
async fn offline_text_is_queued_and_flushed_in_order_after_the_peer_returns() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |_| {}).await;
    peer.stop_listening().await;
    h.wait_online(false).await;
    let mut client = h.messages();
    for t in ["queued one", "queued two"] {
        let r = client.send_message(text(t)).await.unwrap().into_inner();
        assert!(r.queued);
        assert_eq!(r.chunks, 1);
        assert!(r.message_ids.is_empty());
    }
    let status = client
        .send_message(pb::SendMessageRequest {
            images: vec![source(pb::media_source::Source::Data(png(100)))],
            ..text("with an image")
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unavailable);
    assert_eq!(reason(&status), "ACCOUNT_OFFLINE");
    assert!(status.get_error_details().retry_info().is_some());
    assert_eq!(h.gw.queue_depth("default"), 2);

    peer.start_listening().await.unwrap();
    h.wait_online(true).await;
    // A new send goes out after the queued ones.
    let r = client
        .send_message(text("live three"))
        .await
        .unwrap()
        .into_inner();
    assert!(!r.queued);
    let texts = history_texts(&peer, GROUP);
    assert_eq!(
        &texts[texts.len() - 3..],
        ["queued one", "queued two", "live three"]
    );
    assert_eq!(h.gw.queue_depth("default"), 0);
    h.stop().await;
}

#[tokio::test]
async fn queued_entries_survive_a_gateway_restart() {
    let peer = sandbox(SandboxFlavor::Lagrange).await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |_| {}).await;
    peer.stop_listening().await;
    h.wait_online(false).await;
    for t in ["before restart 1", "before restart 2"] {
        assert!(
            h.messages()
                .send_message(text(t))
                .await
                .unwrap()
                .into_inner()
                .queued
        );
    }
    let dir = h.into_data_dir().await;

    peer.start_listening().await.unwrap();
    let h = Harness::with_sandbox(&peer, dir, |_| {}).await;
    h.messages()
        .send_message(text("after restart"))
        .await
        .unwrap();
    let texts = history_texts(&peer, GROUP);
    assert_eq!(
        &texts[texts.len() - 3..],
        ["before restart 1", "before restart 2", "after restart"]
    );
    h.stop().await;
}

#[tokio::test]
async fn url_and_path_sources_are_guarded() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |_| {}).await;
    // Something real listens on loopback: it must never be asked.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut client = h.messages();
    for url in [
        format!("http://127.0.0.1:{port}/a.png"),
        format!("http://localhost:{port}/a.png"),
        "http://10.0.0.1/a.png".to_string(),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://[::1]/a.png".to_string(),
        "file:///etc/passwd".to_string(),
    ] {
        let status = client
            .send_message(pb::SendMessageRequest {
                images: vec![source(pb::media_source::Source::Url(url.clone()))],
                ..text("")
            })
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::PermissionDenied, "{url}");
        assert_eq!(reason(&status), "URL_FORBIDDEN", "{url}");
    }
    let accepted = tokio::time::timeout(Duration::from_millis(1), listener.accept()).await;
    assert!(
        accepted.is_err(),
        "the gateway connected to a refused address"
    );

    let status = client
        .send_message(pb::SendMessageRequest {
            file: Some(source(pb::media_source::Source::Path("/etc/passwd".into()))),
            ..text("")
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(reason(&status), "MEDIA_SOURCE_DISABLED");
    let status = client
        .send_message(pb::SendMessageRequest {
            file: Some(source(pb::media_source::Source::Path("etc/passwd".into()))),
            ..text("")
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert!(peer.control().received_media().is_empty());
    h.stop().await;
}

#[tokio::test]
async fn path_escapes_are_refused_with_media_roots() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("ok.png"), png(500)).unwrap();
    std::fs::write(outside.path().join("secret.png"), png(500)).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.png"),
        root.path().join("link.png"),
    )
    .unwrap();
    let mut config = Config::default();
    config.media.media_roots = vec![root.path().to_path_buf()];
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: Some(peer.ws_url()),
            groups: vec![GROUP],
            ..AccountConfig::default()
        },
    );
    let h = Harness::start_in(config, tempfile::tempdir().unwrap()).await;
    h.wait_online(true).await;
    let path = |p: std::path::PathBuf| pb::SendMessageRequest {
        images: vec![source(pb::media_source::Source::Path(
            p.to_string_lossy().into_owned(),
        ))],
        ..text("")
    };
    let mut client = h.messages();
    client
        .send_message(path(root.path().join("ok.png")))
        .await
        .unwrap();
    let dotdot = root
        .path()
        .join("..")
        .join(outside.path().file_name().unwrap())
        .join("secret.png");
    for p in [dotdot, root.path().join("link.png")] {
        let status = client.send_message(path(p.clone())).await.unwrap_err();
        assert_eq!(status.code(), Code::PermissionDenied, "{}", p.display());
        assert_eq!(reason(&status), "PATH_FORBIDDEN");
    }
    assert_eq!(peer.control().received_media().len(), 1);
    h.stop().await;
}

#[tokio::test]
async fn idempotent_retries_send_once() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |_| {}).await;
    let mut client = h.messages();
    let req = pb::SendMessageRequest {
        idempotency_key: "order-42".into(),
        ..text("exactly once")
    };
    let first = client.send_message(req.clone()).await.unwrap().into_inner();
    let again = client.send_message(req).await.unwrap().into_inner();
    assert!(!first.replayed && again.replayed);
    assert_eq!(first.message_ids, again.message_ids);
    let sends = peer
        .control()
        .actions()
        .iter()
        .filter(|a| a.action == "send_group_msg")
        .count();
    assert_eq!(sends, 1);
    let status = client
        .send_message(pb::SendMessageRequest {
            idempotency_key: "order-42".into(),
            ..text("something else")
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(reason(&status), "IDEMPOTENCY_KEY_REUSED");
    h.stop().await;
}

#[tokio::test]
async fn ambiguous_and_refused_sends_are_reported_not_retried() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |_| {}).await;
    let mut client = h.messages();
    peer.control().set_fault(onebot_sandbox::Fault::SendTimeout);
    let status = client.send_message(text("maybe")).await.unwrap_err();
    assert_eq!(status.code(), Code::Unknown);
    assert_eq!(reason(&status), "SEND_OUTCOME_UNKNOWN");
    assert_eq!(h.gw.queue_depth("default"), 0);
    peer.control().clear_faults();
    // The connection drops with the frame in flight: unknown, not queued.
    peer.control()
        .set_fault(onebot_sandbox::Fault::DropOnAction {
            action: "send_group_msg".into(),
        });
    let status = client.send_message(text("in flight")).await.unwrap_err();
    assert_eq!(status.code(), Code::Unknown);
    assert_eq!(reason(&status), "SEND_OUTCOME_UNKNOWN");
    assert_eq!(h.gw.queue_depth("default"), 0);
    peer.control().clear_faults();
    h.stop().await;

    let peer = sandbox(SandboxFlavor::GoCqhttp).await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |_| {}).await;
    let mut client = h.messages();
    peer.control().set_fault(onebot_sandbox::Fault::RiskControl);
    let status = client.send_message(text("blocked")).await.unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(reason(&status), "RISK_CONTROLLED");
    assert!(status.get_error_details().retry_info().is_some());
    peer.control().clear_faults();
    // The account backs off: the next send does not reach the peer.
    peer.control().clear_actions();
    let status = client.send_message(text("later")).await.unwrap_err();
    assert_eq!(reason(&status), "RISK_CONTROLLED");
    assert!(
        peer.control()
            .actions()
            .iter()
            .all(|a| a.action != "send_group_msg")
    );
    // go-cqhttp cannot take a base64 video.
    let status = client
        .send_message(pb::SendMessageRequest {
            videos: vec![source(pb::media_source::Source::Data(mp4(1000)))],
            ..text("")
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(reason(&status), "UNSUPPORTED_BY_PEER");
    h.stop().await;
}

#[tokio::test]
async fn rate_limit_refuses_with_retry_info_when_the_deadline_is_short() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |a| {
        a.rate_group_burst = 1;
        a.rate_group_per_minute = 1;
    })
    .await;
    let mut client = h.messages();
    client.send_message(text("one")).await.unwrap();
    let mut req = tonic::Request::new(text("two"));
    req.set_timeout(Duration::from_secs(2));
    let status = client.send_message(req).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted);
    assert_eq!(reason(&status), "RATE_LIMITED");
    let retry = status
        .get_error_details()
        .retry_info()
        .unwrap()
        .retry_delay
        .unwrap();
    assert!(
        retry > Duration::from_secs(50) && retry <= Duration::from_secs(60),
        "{retry:?}"
    );
    h.stop().await;
}

#[tokio::test]
async fn poke_on_each_flavor() {
    for flavor in [
        SandboxFlavor::NapCat,
        SandboxFlavor::LlOneBot,
        SandboxFlavor::Lagrange,
        SandboxFlavor::SnowLuma,
        SandboxFlavor::GoCqhttp,
    ] {
        let peer = sandbox(flavor).await;
        let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |_| {}).await;
        let resp = h
            .groups()
            .poke_member(pb::PokeMemberRequest {
                account_id: String::new(),
                group_id: None,
                user_id: 10_003,
                on_behalf_of: None,
            })
            .await
            .unwrap_or_else(|s| panic!("{flavor:?}: {s:?}"))
            .into_inner();
        assert_eq!((resp.group_id, resp.user_id), (GROUP, 10_003));
        let actions = peer.control().actions();
        let poked = actions.iter().any(|a| match flavor {
            SandboxFlavor::GoCqhttp => {
                a.action == "send_group_msg" && a.params["message"][0]["type"] == "poke"
            }
            _ => a.action == "group_poke",
        });
        assert!(poked, "{flavor:?}: {actions:?}");
        // Not a message: nothing in history, nothing queued.
        assert_eq!(h.gw.queue_depth("default"), 0);
        let status = h
            .groups()
            .poke_member(pb::PokeMemberRequest {
                account_id: String::new(),
                group_id: Some(1),
                user_id: 10_003,
                on_behalf_of: None,
            })
            .await
            .unwrap_err();
        assert_eq!(reason(&status), "GROUP_NOT_ALLOWED");
        h.stop().await;
    }

    // NapCat without its packet backend cannot poke.
    let peer = sandbox_with(SandboxConfig {
        packet_backend: false,
        ..SandboxConfig::for_flavor(SandboxFlavor::NapCat)
    })
    .await;
    let h = Harness::with_sandbox(&peer, tempfile::tempdir().unwrap(), |_| {}).await;
    let status = h
        .groups()
        .poke_member(pb::PokeMemberRequest {
            account_id: String::new(),
            group_id: None,
            user_id: 10_003,
            on_behalf_of: None,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unimplemented);
    assert_eq!(reason(&status), "POKE_UNSUPPORTED");
    // Offline pokes are refused, not queued.
    peer.stop_listening().await;
    h.wait_online(false).await;
    let status = h
        .groups()
        .poke_member(pb::PokeMemberRequest {
            account_id: String::new(),
            group_id: None,
            user_id: 10_003,
            on_behalf_of: None,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::Unavailable);
    assert_eq!(reason(&status), "ACCOUNT_OFFLINE");
    h.stop().await;
}

/// Asserts `status` is `code` with `reason`, its ErrorInfo metadata `key`
/// being `value`.
fn assert_status(status: &tonic::Status, code: Code, why: &str, key: &str, value: &str) {
    assert_eq!(
        (status.code(), reason(status).as_str()),
        (code, why),
        "{status:?}"
    );
    let details = status.get_error_details();
    let info = details.error_info().expect("ErrorInfo");
    assert_eq!(
        info.metadata.get(key).map(String::as_str),
        Some(value),
        "{status:?}"
    );
}

/// The actions that would change something at the peer.
fn write_actions(sandbox: &Sandbox) -> Vec<String> {
    sandbox
        .control()
        .actions()
        .into_iter()
        .map(|a| a.action)
        .filter(|a| a.starts_with("send_") || a.contains("poke") || a.starts_with("upload_"))
        .collect()
}

#[tokio::test]
async fn sends_and_pokes_to_a_group_the_bot_is_not_in_send_nothing() {
    const ABSENT: i64 = 20_000_009;
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = onebot_gateway_tests::TestGateway::with_sandbox(&peer, &[GROUP, ABSENT]).await;
    peer.control().clear_actions();
    let status = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            group_id: Some(ABSENT),
            idempotency_key: "absent".into(),
            ..text("你好")
        })
        .await
        .unwrap_err();
    assert_status(
        &status,
        Code::NotFound,
        "GROUP_NOT_FOUND",
        "group_id",
        "20000009",
    );
    let status = gw
        .groups()
        .poke_member(pb::PokeMemberRequest {
            account_id: String::new(),
            group_id: Some(ABSENT),
            user_id: 10_003,
            on_behalf_of: None,
        })
        .await
        .unwrap_err();
    assert_status(
        &status,
        Code::NotFound,
        "GROUP_NOT_FOUND",
        "group_id",
        "20000009",
    );
    // A group outside the whitelist stays GROUP_NOT_ALLOWED, the bot in it
    // or not.
    for group_id in [20_000_003, 30_000_001] {
        let status = gw
            .messages()
            .send_message(pb::SendMessageRequest {
                group_id: Some(group_id),
                ..text("你好")
            })
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        assert_eq!(reason(&status), "GROUP_NOT_ALLOWED");
    }
    let text_zh =
        "机器人不在群 20000009 中（协议端的群列表里没有这个群），未执行任何操作：请检查群号。";
    for (name, args) in [
        ("qq_send", r#"{"groupId":20000009,"text":"你好"}"#),
        ("qq_poke", r#"{"groupId":20000009,"userId":10003}"#),
    ] {
        let out = tool(&gw, name, args).await;
        assert!(out.is_error, "{name}: {out:?}");
        assert_eq!(out.text, text_zh, "{name}");
    }
    assert_eq!(write_actions(&peer), Vec::<String>::new());
    let reads: Vec<String> = peer
        .control()
        .actions()
        .into_iter()
        .map(|a| a.action)
        .collect();
    assert_eq!(reads, ["get_group_list"], "one shared group-list read");
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}

#[tokio::test]
async fn a_reply_to_the_peer_does_not_know_or_of_another_chat_sends_nothing() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = onebot_gateway_tests::TestGateway::with_sandbox(&peer, &[GROUP]).await;
    let control = peer.control();
    let elsewhere =
        control.inject_group_message(20_000_003, 10_001, serde_json::json!("别处的消息"));
    let here = control.inject_group_message(GROUP, 10_002, serde_json::json!("这里的消息"));
    control.clear_actions();
    let quoting = |id: i64| pb::SendMessageRequest {
        group_id: Some(GROUP),
        reply_to_message_id: Some(id),
        ..text("回复")
    };
    let status = gw
        .messages()
        .send_message(quoting(987_654_321))
        .await
        .unwrap_err();
    assert_status(
        &status,
        Code::NotFound,
        "MESSAGE_NOT_FOUND",
        "message_id",
        "987654321",
    );
    let status = gw
        .messages()
        .send_message(quoting(elsewhere))
        .await
        .unwrap_err();
    assert_status(
        &status,
        Code::InvalidArgument,
        "INVALID_REQUEST",
        "message_chat",
        "group:20000003",
    );
    assert!(
        status.message().contains("group:20000003") && status.message().contains("group:20000002"),
        "{status:?}"
    );
    let out = tool(
        &gw,
        "qq_send",
        r#"{"groupId":20000002,"text":"回复","replyTo":987654321}"#,
    )
    .await;
    assert!(out.is_error, "{out:?}");
    assert_eq!(
        out.text,
        "要回复的消息 987654321 不存在：协议端找不到它（已撤回、太旧或从未见过），消息未发送。"
    );
    assert_eq!(write_actions(&peer), Vec::<String>::new());
    // A message of the chat is quoted.
    gw.messages()
        .send_message(quoting(here))
        .await
        .expect("a known quote");
    let sent = control
        .actions()
        .into_iter()
        .find(|a| a.action == "send_group_msg")
        .expect("sent");
    assert_eq!(sent.params["message"][0]["type"], "reply", "{sent:?}");
    gw.stop().await.expect("clean stop");
    peer.shutdown().await;
}
