//! The gateway behind a real proxy: nginx (Debian's package) as a gRPC
//! reverse proxy (`grpc_pass`) on loopback, over h2c and over TLS
//! terminated at the proxy, with the configuration docs/operations.md
//! shows (timeouts shortened so the tests run in seconds).
//!
//! Through it: every unary RPC, a 30 MiB upload in 64 KiB chunks, an idle
//! event stream that outlives the proxy's read timeout several times (and,
//! without heartbeats, one that does not), a deadline honoured end to end,
//! `ErrorInfo`, `BadRequest` and `RetryInfo` arriving as the gateway sent
//! them, health checks, reflection through grpcurl, and the Rust SDK's
//! event stream resuming across a proxy restart; the 30 MiB come back
//! through DownloadMedia.

use std::time::{Duration, Instant};

use onebot_gateway_client::{Client, pb};
use onebot_gateway_tests::certs::TestCa;
use onebot_gateway_tests::nginx::Nginx;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, config_for, reason, sandbox};
use onebot_sandbox::{EXAMPLE_FORWARD, EXAMPLE_GROUP, Fault, FaultKind};
use serde_json::json;
use sha2::{Digest, Sha256};
use tonic::Code;
use tonic::transport::{Certificate, Channel, ClientTlsConfig};
use tonic_types::StatusExt;

/// The proxy's read timeout in these tests (2 s; 60 s in production).
const READ_TIMEOUT_SECS: u64 = 2;

/// The server block of docs/operations.md's nginx example, in front of
/// `upstream`, with `tls` (certificate and key files) or h2c, and the read
/// and send timeouts of the tests.
pub fn grpc_server(upstream: &str, tls: Option<(&std::path::Path, &std::path::Path)>) -> String {
    let listen = match tls {
        Some((cert, key)) => format!(
            "listen {{listen}} ssl http2;\n    ssl_certificate {};\n    ssl_certificate_key {};",
            cert.display(),
            key.display()
        ),
        None => "listen {listen} http2;".to_owned(),
    };
    format!(
        "  upstream gateway {{\n    server {upstream};\n    keepalive 32;\n  }}\n  \
         server {{\n    {listen}\n    \
         client_max_body_size 0;\n    \
         client_body_timeout 60s;\n    \
         grpc_read_timeout {READ_TIMEOUT_SECS}s;\n    \
         grpc_send_timeout {READ_TIMEOUT_SECS}s;\n    \
         keepalive_timeout 75s;\n    \
         http2_max_concurrent_streams 256;\n    \
         location / {{\n      grpc_pass grpc://gateway;\n    }}\n  }}"
    )
}

/// A gateway on a NapCat sandbox (heartbeats every `heartbeat_secs`, one
/// poke a minute) and an h2c nginx in front of it.
async fn behind_nginx(heartbeat_secs: u64) -> (onebot_sandbox::Sandbox, TestGateway, Nginx) {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&peer, &[EXAMPLE_GROUP]);
    config.events.heartbeat_secs = heartbeat_secs;
    if let Some(a) = config.accounts.get_mut("default") {
        a.rate_poke_per_minute = 1;
    }
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    let nginx = Nginx::start(&grpc_server(&gw.addr.to_string(), None));
    (peer, gw, nginx)
}

async fn h2c(nginx: &Nginx) -> Channel {
    Channel::from_shared(format!("http://{}", nginx.addr))
        .unwrap()
        .connect()
        .await
        .expect("connect to nginx")
}

fn group_chat() -> Option<pb::Chat> {
    Some(pb::Chat {
        kind: Some(pb::chat::Kind::GroupId(EXAMPLE_GROUP)),
    })
}

/// 30 MiB in 64 KiB chunks, after the header.
fn upload_30_mib() -> (Vec<pb::UploadMediaRequest>, String) {
    const SIZE: usize = 30 * 1024 * 1024;
    let data: Vec<u8> = (0..SIZE).map(|i| (i * 7 % 251) as u8).collect();
    let sha = hex::encode(Sha256::digest(&data));
    let mut requests = vec![pb::UploadMediaRequest {
        payload: Some(pb::upload_media_request::Payload::Header(
            pb::UploadMediaHeader {
                account_id: String::new(),
                kind: pb::MediaKind::File as i32,
                file_name: "big.bin".into(),
                size: Some(SIZE as i64),
                sha256: Some(sha.clone()),
            },
        )),
    }];
    requests.extend(data.chunks(64 * 1024).map(|c| pb::UploadMediaRequest {
        payload: Some(pb::upload_media_request::Payload::Chunk(c.to_vec())),
    }));
    (requests, sha)
}

/// Every RPC of the API over `channel`, each checked for its answer.
async fn every_rpc(channel: Channel, peer: &onebot_sandbox::Sandbox) {
    let mut messages = pb::message_service_client::MessageServiceClient::new(channel.clone());
    let page = messages
        .get_history(pb::GetHistoryRequest {
            chat: group_chat(),
            count: 5,
            ..Default::default()
        })
        .await
        .expect("GetHistory")
        .into_inner();
    assert!(!page.messages.is_empty(), "{page:?}");
    let sent = messages
        .send_message(pb::SendMessageRequest {
            group_id: Some(EXAMPLE_GROUP),
            text: "through the proxy".into(),
            ..Default::default()
        })
        .await
        .expect("SendMessage")
        .into_inner();
    assert_eq!(sent.message_ids.len(), 1);
    let got = messages
        .get_message(pb::GetMessageRequest {
            account_id: String::new(),
            message_id: sent.message_ids[0],
        })
        .await
        .expect("GetMessage")
        .into_inner();
    assert_eq!(got.message.expect("the message").text, "through the proxy");
    let found = messages
        .search_messages(pb::SearchMessagesRequest {
            query: "through the proxy".into(),
            chat: group_chat(),
            ..Default::default()
        })
        .await
        .expect("SearchMessages")
        .into_inner();
    assert!(
        found
            .messages
            .iter()
            .any(|m| m.message_id == sent.message_ids[0]),
        "{found:?}"
    );
    let forward = messages
        .get_forward_messages(pb::GetForwardMessagesRequest {
            account_id: String::new(),
            forward_id: EXAMPLE_FORWARD.into(),
        })
        .await
        .expect("GetForwardMessages")
        .into_inner();
    assert!(!forward.messages.is_empty(), "{forward:?}");
    let to_recall = messages
        .send_message(pb::SendMessageRequest {
            group_id: Some(EXAMPLE_GROUP),
            text: "recalled through the proxy".into(),
            ..Default::default()
        })
        .await
        .expect("SendMessage")
        .into_inner()
        .message_ids[0];
    messages
        .recall_message(pb::RecallMessageRequest {
            account_id: String::new(),
            message_id: to_recall,
            on_behalf_of: None,
        })
        .await
        .expect("RecallMessage");

    let mut groups = pb::group_service_client::GroupServiceClient::new(channel.clone());
    let members = groups
        .list_group_members(pb::ListGroupMembersRequest {
            group_id: EXAMPLE_GROUP,
            ..Default::default()
        })
        .await
        .expect("ListGroupMembers")
        .into_inner();
    assert!(members.total > 0);
    let list = groups
        .list_groups(pb::ListGroupsRequest::default())
        .await
        .expect("ListGroups")
        .into_inner();
    assert!(list.groups.iter().any(|g| g.group_id == EXAMPLE_GROUP));

    let accounts = pb::account_service_client::AccountServiceClient::new(channel.clone())
        .list_accounts(pb::ListAccountsRequest {})
        .await
        .expect("ListAccounts")
        .into_inner();
    assert_eq!(accounts.accounts[0].account_id, "default");

    let mut tools = pb::agent_tool_service_client::AgentToolServiceClient::new(channel.clone());
    let listed = tools
        .list_tools(pb::ListToolsRequest {})
        .await
        .expect("ListTools")
        .into_inner();
    assert!(!listed.tools.is_empty());
    let called = tools
        .call_tool(pb::CallToolRequest {
            name: "qq_get_group_members".into(),
            arguments_json: json!({"groupId": EXAMPLE_GROUP, "limit": 2}).to_string(),
        })
        .await
        .expect("CallTool")
        .into_inner();
    assert!(!called.is_error, "{called:?}");

    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    for service in ["", "onebot.gateway.v1.account.default"] {
        let status = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.into(),
            })
            .await
            .expect("health Check")
            .into_inner()
            .status;
        assert_eq!(status, 1, "{service:?} SERVING");
    }

    let (requests, sha) = upload_30_mib();
    let uploaded = pb::media_service_client::MediaServiceClient::new(channel.clone())
        .upload_media(tokio_stream::iter(requests))
        .await
        .expect("30 MiB UploadMedia")
        .into_inner();
    assert_eq!(uploaded.size, 30 * 1024 * 1024);
    assert_eq!(uploaded.sha256, sha);
    // And back: the 30 MiB as a server stream through the proxy.
    let mut download = pb::media_service_client::MediaServiceClient::new(channel.clone())
        .download_media(pb::DownloadMediaRequest {
            account_id: String::new(),
            target: Some(pb::download_media_request::Target::MediaId(
                uploaded.media_id.clone(),
            )),
        })
        .await
        .expect("DownloadMedia")
        .into_inner();
    let mut hasher = Sha256::new();
    let mut header = None;
    let mut received = 0usize;
    while let Some(m) = download.message().await.expect("DownloadMedia stream") {
        match m.payload {
            Some(pb::download_media_response::Payload::Header(h)) => header = Some(h),
            Some(pb::download_media_response::Payload::Chunk(c)) => {
                received += c.len();
                hasher.update(&c);
            }
            None => panic!("a download message without payload"),
        }
    }
    let header = header.expect("the download's header");
    assert_eq!(
        (header.size, header.sha256.as_str()),
        (30 * 1024 * 1024, sha.as_str())
    );
    assert_eq!(received, 30 * 1024 * 1024);
    assert_eq!(hex::encode(hasher.finalize()), sha);

    // Poke last: it spends the account's one poke a minute.
    let poked = groups
        .poke_member(pb::PokeMemberRequest {
            group_id: Some(EXAMPLE_GROUP),
            user_id: 10001,
            ..Default::default()
        })
        .await
        .expect("PokeMember")
        .into_inner();
    assert_eq!(poked.user_id, 10001);
    assert!(
        peer.control()
            .messages(onebot_sandbox::ChatRef::Group(EXAMPLE_GROUP))
            .iter()
            .any(|m| m["raw_message"] == "through the proxy")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_through_nginx_over_h2c_and_tls() {
    let peer = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::with_sandbox(&peer, &[EXAMPLE_GROUP]).await;
    let nginx = Nginx::start(&grpc_server(&gw.addr.to_string(), None));
    every_rpc(h2c(&nginx).await, &peer).await;

    // TLS terminated at the proxy; h2c from the proxy to the gateway.
    let ca = TestCa::new("proxy ca");
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = ca.server().write(dir.path(), "proxy");
    let tls = Nginx::start(&grpc_server(&gw.addr.to_string(), Some((&cert, &key))));
    let channel = Channel::from_shared(format!("https://{}", tls.addr))
        .unwrap()
        .tls_config(
            ClientTlsConfig::new()
                .ca_certificate(Certificate::from_pem(ca.pem()))
                .domain_name("localhost"),
        )
        .unwrap()
        .connect()
        .await
        .expect("TLS to nginx");
    every_rpc(channel, &peer).await;

    // Reflection through the proxy, with grpcurl, over h2c and TLS.
    let ca_file = dir.path().join("ca.crt");
    std::fs::write(&ca_file, ca.pem()).unwrap();
    for args in [
        vec![
            "-plaintext".to_owned(),
            nginx.addr.to_string(),
            "list".into(),
        ],
        vec![
            "-cacert".to_owned(),
            ca_file.display().to_string(),
            "-authority".into(),
            "localhost".into(),
            tls.addr.to_string(),
            "list".into(),
        ],
    ] {
        let out = tokio::process::Command::new(crate::read_side::grpcurl())
            .args(&args)
            .output()
            .await
            .expect("grpcurl (installed by scripts/install-tools.sh)");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "grpcurl {args:?}: {text} {out:?}");
        for service in [
            "onebot.gateway.v1.MessageService",
            "onebot.gateway.v1.EventService",
            "grpc.health.v1.Health",
        ] {
            assert!(text.lines().any(|l| l == service), "{service} in {text}");
        }
    }
}

/// The error details of a status, for comparing a direct call with a
/// proxied one.
fn details(status: &tonic::Status) -> (Code, String, String) {
    let d = status.get_error_details();
    (
        status.code(),
        status.message().to_owned(),
        format!(
            "{:?} {:?} {:?}",
            d.error_info(),
            d.bad_request(),
            d.retry_info()
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_details_and_deadlines_cross_the_proxy_intact() {
    let (peer, gw, nginx) = behind_nginx(15).await;
    let proxied = h2c(&nginx).await;
    let direct = gw.channel.clone();

    // BadRequest: a history request without a chat.
    let history = |ch: Channel| async move {
        pb::message_service_client::MessageServiceClient::new(ch)
            .get_history(pb::GetHistoryRequest::default())
            .await
            .unwrap_err()
    };
    let (a, b) = (
        history(direct.clone()).await,
        history(proxied.clone()).await,
    );
    assert_eq!(details(&a), details(&b));
    assert!(b.get_error_details().bad_request().is_some(), "{b:?}");
    assert_eq!(reason(&b), "INVALID_REQUEST");

    // The largest error the gateway sends: a 1 KiB message of escaped
    // characters and metadata values at their limit.
    let huge = "账".repeat(2000);
    let unknown = |ch: Channel, id: String| async move {
        pb::group_service_client::GroupServiceClient::new(ch)
            .list_groups(pb::ListGroupsRequest { account_id: id })
            .await
            .unwrap_err()
    };
    let (a, b) = (
        unknown(direct.clone(), huge.clone()).await,
        unknown(proxied.clone(), huge).await,
    );
    assert_eq!(details(&a), details(&b));
    assert_eq!(reason(&b), "ACCOUNT_NOT_CONFIGURED");

    // RetryInfo: the second poke within the minute would wait longer than
    // the caller's deadline, so it is refused at once.
    let poke = |ch: Channel| async move {
        let mut request = tonic::Request::new(pb::PokeMemberRequest {
            group_id: Some(EXAMPLE_GROUP),
            user_id: 10001,
            ..Default::default()
        });
        request.set_timeout(Duration::from_secs(1));
        pb::group_service_client::GroupServiceClient::new(ch)
            .poke_member(request)
            .await
    };
    poke(proxied.clone()).await.expect("first poke");
    let limited = poke(proxied.clone()).await.unwrap_err();
    assert_eq!(reason(&limited), "RATE_LIMITED", "{limited:?}");
    let delay = limited
        .get_error_details()
        .retry_info()
        .and_then(|r| r.retry_delay)
        .expect("RetryInfo through the proxy");
    assert!(delay > Duration::ZERO);

    // A deadline end to end: the peer answers after 3 s, the caller's
    // `grpc-timeout` is 400 ms. Only the header is set (no client-side
    // timer, which would race the answer on a busy machine): the gateway
    // gets it through the proxy and its typed timeout comes back in time.
    peer.control()
        .set_fault(Fault::SlowReplies(Duration::from_secs(3)));
    let started = Instant::now();
    let mut request = tonic::Request::new(pb::GetHistoryRequest {
        chat: group_chat(),
        count: 1,
        ..Default::default()
    });
    request
        .metadata_mut()
        .insert("grpc-timeout", "400m".parse().unwrap());
    let late = pb::message_service_client::MessageServiceClient::new(proxied.clone())
        .get_history(request)
        .await
        .unwrap_err();
    let took = started.elapsed();
    peer.control().clear_fault(FaultKind::SlowReplies);
    assert_eq!(late.code(), Code::DeadlineExceeded, "{late:?}");
    assert!(
        ["ONEBOT_TIMEOUT", "DEADLINE_EXCEEDED"].contains(&reason(&late).as_str()),
        "{late:?}"
    );
    assert!(took < Duration::from_millis(1500), "took {took:?}");
}

/// Reads `stream` until `beats` heartbeats arrived, failing on an error or
/// an event.
async fn heartbeats(stream: &mut tonic::Streaming<pb::StreamEventsResponse>, beats: usize) {
    for _ in 0..beats {
        let m = tokio::time::timeout(Duration::from_secs(10), stream.message())
            .await
            .expect("a heartbeat in time")
            .expect("the stream survives the proxy's read timeout")
            .expect("stream open");
        assert!(m.heartbeat.is_some() && m.event.is_none(), "{m:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_event_stream_outlives_the_proxys_read_timeout() {
    let (peer, _gw, nginx) = behind_nginx(1).await;
    let mut events = pb::event_service_client::EventServiceClient::new(h2c(&nginx).await);
    let mut stream = events
        .stream_events(pb::StreamEventsRequest::default())
        .await
        .expect("StreamEvents through nginx")
        .into_inner();
    // The first heartbeat, then one a second: 8 of them span more than
    // three of the proxy's 2 s read timeouts.
    let started = Instant::now();
    heartbeats(&mut stream, 8).await;
    assert!(
        started.elapsed() > Duration::from_secs(3 * READ_TIMEOUT_SECS),
        "{:?}",
        started.elapsed()
    );
    let id = peer
        .control()
        .inject_group_message(EXAMPLE_GROUP, 10001, json!("still here"));
    loop {
        let m = stream.message().await.expect("stream ok").expect("open");
        if let Some(event) = m.event {
            match event.kind {
                Some(pb::event::Kind::Message(m)) => {
                    assert_eq!(m.message.unwrap().message_id, id);
                    break;
                }
                other => panic!("unexpected event {other:?}"),
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_heartbeats_the_proxy_cuts_an_idle_stream() {
    // The failure the heartbeat exists for: with only the first heartbeat,
    // nginx ends the stream once its read timeout passes.
    let (_peer, _gw, nginx) = behind_nginx(0).await;
    let mut events = pb::event_service_client::EventServiceClient::new(h2c(&nginx).await);
    let mut stream = events
        .stream_events(pb::StreamEventsRequest::default())
        .await
        .expect("StreamEvents through nginx")
        .into_inner();
    heartbeats(&mut stream, 1).await;
    let started = Instant::now();
    let end = tokio::time::timeout(Duration::from_secs(15), stream.message())
        .await
        .expect("nginx ends the idle stream");
    assert!(
        started.elapsed() >= Duration::from_millis(READ_TIMEOUT_SECS * 1000 - 200),
        "{:?}",
        started.elapsed()
    );
    match end {
        Err(status) => assert!(
            matches!(
                status.code(),
                Code::Internal | Code::Unavailable | Code::Unknown | Code::Cancelled
            ),
            "{status:?}"
        ),
        Ok(m) => panic!("expected the proxy to cut the stream, got {m:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rust_sdk_event_stream_resumes_across_a_proxy_restart() {
    let (peer, _gw, mut nginx) = behind_nginx(1).await;
    let client = Client::builder(format!("http://{}", nginx.addr))
        .connect()
        .await
        .unwrap();
    let mut events = client
        .events(pb::StreamEventsRequest {
            kinds: vec![pb::EventKind::Message as i32],
            ..Default::default()
        })
        .await
        .unwrap();
    let control = peer.control();
    let first = control.inject_group_message(EXAMPLE_GROUP, 10001, json!("before"));
    let e1 = tokio::time::timeout(Duration::from_secs(10), events.next())
        .await
        .expect("first event")
        .unwrap()
        .unwrap();
    assert_eq!(message_id(&e1), first);
    // The proxy goes away with the stream open; events arrive meanwhile.
    nginx.kill();
    let during = control.inject_group_message(EXAMPLE_GROUP, 10001, json!("during"));
    nginx.restart();
    let after = control.inject_group_message(EXAMPLE_GROUP, 10001, json!("after"));
    let mut seen = Vec::new();
    while seen.len() < 2 {
        let e = tokio::time::timeout(Duration::from_secs(30), events.next())
            .await
            .expect("events after the restart")
            .expect("the stream resumed")
            .expect("open");
        seen.push(e);
    }
    assert_eq!(
        seen.iter().map(message_id).collect::<Vec<_>>(),
        [during, after],
        "every event once, in order"
    );
    assert_eq!(seen[0].sequence, e1.sequence + 1);
    assert!(events.reconnects() >= 1);
}

fn message_id(e: &pb::Event) -> i64 {
    match &e.kind {
        Some(pb::event::Kind::Message(m)) => m.message.as_ref().expect("message").message_id,
        other => panic!("not a message: {other:?}"),
    }
}

/// A configuration nginx refuses fails the start with nginx's own words:
/// its exit ends the wait for readiness (a wait that ran into its deadline
/// panics with "did not write" instead).
#[test]
fn a_configuration_nginx_refuses_fails_the_start_with_its_error() {
    let refused = std::panic::catch_unwind(|| {
        Nginx::start("  server {\n    listen {listen};\n    no_such_directive on;\n  }\n")
    });
    let message = refused.err().expect("nginx refused the configuration");
    let message = message
        .downcast_ref::<String>()
        .expect("a formatted panic message");
    assert!(message.contains("nginx exited"), "{message}");
    assert!(
        message.contains("unknown directive \"no_such_directive\""),
        "{message}"
    );
}
