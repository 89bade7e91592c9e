//! Limits tripping end to end: request message sizes per RPC and HTTP/2
//! streams per connection. (Shedding, event-stream limits and timeouts are
//! driven through the limits layer itself in the server's unit tests.)

use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_gateway_config::Config;
use onebot_gateway_tests::{TestGateway, reason};
use tonic::Code;
use tonic_types::StatusExt;

fn upload(account: &str, chunk: usize) -> Vec<pb::UploadMediaRequest> {
    vec![
        pb::UploadMediaRequest {
            payload: Some(pb::upload_media_request::Payload::Header(
                pb::UploadMediaHeader {
                    account_id: account.into(),
                    kind: pb::MediaKind::File as i32,
                    file_name: "f.bin".into(),
                    size: Some(chunk as i64),
                    sha256: None,
                },
            )),
        },
        pb::UploadMediaRequest {
            payload: Some(pb::upload_media_request::Payload::Chunk(vec![b'x'; chunk])),
        },
    ]
}

#[tokio::test]
async fn oversized_messages_are_refused_per_rpc() {
    let mut config = Config::default();
    config.limits.max_request_bytes = 1024;
    config.limits.max_upload_message_bytes = 8 * 1024;
    let gw = TestGateway::start(config).await;

    let too_big = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            text: "字".repeat(1000),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(too_big.code(), Code::ResourceExhausted, "{too_big:?}");
    assert_eq!(reason(&too_big), "REQUEST_TOO_LARGE");
    let info = too_big.get_error_details().error_info().unwrap().clone();
    assert_eq!(info.metadata["limit_bytes"], "1024");
    assert!(info.metadata["found_bytes"].parse::<usize>().unwrap() > 1024);

    // Small requests of the same service pass the size check.
    let small = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            text: "hi".into(),
            ..Default::default()
        })
        .await;
    assert!(
        !matches!(&small, Err(s) if reason(s) == "REQUEST_TOO_LARGE"),
        "{small:?}"
    );

    // UploadMedia takes larger messages, up to its own limit.
    let chunk_ok = gw
        .media()
        .upload_media(tokio_stream::iter(upload("", 4 * 1024)))
        .await;
    assert!(
        !matches!(&chunk_ok, Err(s) if reason(s) == "REQUEST_TOO_LARGE"),
        "{chunk_ok:?}"
    );
    let chunk_big = gw
        .media()
        .upload_media(tokio_stream::iter(upload("", 16 * 1024)))
        .await;
    let s = chunk_big.unwrap_err();
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert_eq!(reason(&s), "REQUEST_TOO_LARGE");
    gw.stop().await.unwrap();
}

#[tokio::test]
async fn streams_per_connection_are_limited() {
    let mut config = Config::default();
    config.limits.max_concurrent_streams_per_connection = 1;
    let gw = TestGateway::start(config).await;
    let mut health = gw.health();
    let mut watch = health
        .watch(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(watch.message().await.unwrap().is_some());

    // The one stream of this connection is taken: the next call waits.
    let mut accounts = gw.accounts();
    let mut second = Box::pin(accounts.list_accounts(pb::ListAccountsRequest {}));
    let waited = tokio::time::timeout(Duration::from_millis(300), &mut second).await;
    assert!(waited.is_err(), "second stream admitted: {waited:?}");
    // Closing the watch frees the stream.
    drop(watch);
    let done = tokio::time::timeout(Duration::from_secs(10), second).await;
    assert!(matches!(done, Ok(Ok(_))), "{done:?}");
    gw.stop().await.unwrap();
}
