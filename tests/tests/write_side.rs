//! End-to-end tests of the write side through real gRPC over TCP:
//! `MediaService.UploadMedia` (and, once the adapter is on main,
//! `MessageService.SendMessage` and `GroupService.PokeMember` against the
//! sandbox peer).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use onebot_gateway::config::{AccountConfig, Config};
use onebot_gateway::domain::Gateway;
use onebot_gateway::domain::events::EventHub;
use onebot_gateway::onebot;
use onebot_gateway_client::pb;
use pb::media_service_client::MediaServiceClient;
use pb::upload_media_request::Payload;
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tokio_stream::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

const MIB: usize = 1024 * 1024;
const CHUNK: usize = 64 * 1024;

/// A gateway serving gRPC on a loopback port, with its data directory.
struct Harness {
    gw: Arc<Gateway>,
    channel: Channel,
    data_dir: tempfile::TempDir,
    shutdown: CancellationToken,
    server: tokio::task::JoinHandle<()>,
}

impl Harness {
    async fn start(mut config: Config) -> Harness {
        let data_dir = tempfile::tempdir().unwrap();
        config.server.data_dir = data_dir.path().to_path_buf();
        config.validate().unwrap();
        let shutdown = CancellationToken::new();
        let hub = Arc::new(EventHub::new(config.events.buffer_size, shutdown.clone()));
        let accounts = onebot::start_accounts(&config, hub.clone(), shutdown.clone())
            .await
            .unwrap();
        let mut gw = Gateway::new(Arc::new(config), accounts)
            .unwrap()
            .with_event_hub(hub);
        gw.open_write_side(shutdown.clone()).unwrap();
        let gw = Arc::new(gw);
        let (_reporter, health) = tonic_health::server::health_reporter();
        let routes = onebot_gateway::grpc::routes(gw.clone(), health);
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
        let mut rx = self.gw.write().unwrap().media().watch_active_uploads();
        rx.wait_for(|n| *n == 0).await.unwrap();
    }

    async fn stop(self) {
        self.shutdown.cancel();
        self.server.await.unwrap();
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
    let mut active = h.gw.write().unwrap().media().watch_active_uploads();
    active.wait_for(|n| *n == 1).await.unwrap();
    for c in chunks(&mp4(MIB)) {
        tx.send(c).await.unwrap();
    }
    // The upload's temporary file exists from the header on.
    let names = h.staging();
    assert_eq!(names.len(), 1, "{names:?}");
    let file = h.data_dir.path().join("staging").join(&names[0]);
    call.abort();
    let _ = call.await;
    drop(tx);
    h.uploads_settled().await;
    assert!(!Path::new(&file).exists());
    assert!(h.staging().is_empty());
    assert_eq!(h.gw.write().unwrap().media().used_bytes(), 0);
    h.stop().await;
}
