//! What a client, a peer or a local user can learn or break beyond its
//! rights: malformed protobuf is the client's INVALID_ARGUMENT (never
//! INTERNAL), data files are owner-only, an empty store file is refused,
//! special files under the media roots are refused without being opened
//! and a path outside the roots reads the same as a missing one, a second
//! reverse connection cannot take over an account, received media and
//! quotes keep the chat scope of the chat they came from, and health
//! watches without a token are capped.

use onebot_gateway::config::Config;
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
