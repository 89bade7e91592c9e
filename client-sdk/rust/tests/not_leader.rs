//! A standby gateway's refusal (UNAVAILABLE `NOT_LEADER`) is retried by the
//! client: a stub AccountService on a loopback port refuses the first calls
//! and then answers.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use onebot_gateway_client::pb;
use onebot_gateway_client::pb::account_service_server::{AccountService, AccountServiceServer};
use onebot_gateway_client::{Client, Error};
use tonic_types::{ErrorDetails, StatusExt};

/// Refuses the first `refusals` calls with UNAVAILABLE `reason` (RetryInfo
/// `retry` when set), then answers with one account.
struct Standby {
    calls: Arc<AtomicUsize>,
    refusals: usize,
    reason: &'static str,
    retry: Option<Duration>,
}

#[tonic::async_trait]
impl AccountService for Standby {
    async fn list_accounts(
        &self,
        _request: tonic::Request<pb::ListAccountsRequest>,
    ) -> Result<tonic::Response<pb::ListAccountsResponse>, tonic::Status> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        if call < self.refusals {
            let mut details = ErrorDetails::with_error_info(
                self.reason,
                "onebot-gateway",
                HashMap::from([
                    ("account_id".to_owned(), "default".to_owned()),
                    ("leader".to_owned(), "gw-a".to_owned()),
                    ("advertise".to_owned(), "10.0.0.1:50051".to_owned()),
                ]),
            );
            if let Some(delay) = self.retry {
                details.set_retry_info(Some(delay));
            }
            return Err(tonic::Status::with_error_details(
                tonic::Code::Unavailable,
                "another gateway leads account default",
                details,
            ));
        }
        Ok(tonic::Response::new(pb::ListAccountsResponse {
            accounts: vec![pb::Account {
                account_id: "default".into(),
                ..Default::default()
            }],
        }))
    }
}

/// Serves a [`Standby`] on a free loopback port; returns its address and
/// call counter.
async fn serve(
    refusals: usize,
    reason: &'static str,
    retry: Option<Duration>,
) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = format!("http://{}", listener.local_addr().unwrap());
    let calls = Arc::new(AtomicUsize::new(0));
    let service = AccountServiceServer::new(Standby {
        calls: calls.clone(),
        refusals,
        reason,
        retry,
    });
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener)),
    );
    (addr, calls)
}

#[tokio::test]
async fn not_leader_is_retried_until_the_leader_answers() {
    let (addr, calls) = serve(3, "NOT_LEADER", Some(Duration::from_millis(20))).await;
    let client = Client::builder(addr).connect().await.unwrap();
    let accounts = client.accounts().await.unwrap();
    assert_eq!(accounts[0].account_id, "default");
    assert_eq!(calls.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn without_retry_info_the_backoff_starts_at_250_ms() {
    let (addr, calls) = serve(1, "NOT_LEADER", None).await;
    let client = Client::builder(addr).connect().await.unwrap();
    let start = Instant::now();
    client.accounts().await.unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(125),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn with_retry_off_the_refusal_is_returned() {
    let (addr, calls) = serve(1, "NOT_LEADER", Some(Duration::from_millis(20))).await;
    let client = Client::builder(addr)
        .not_leader_retry(Duration::ZERO)
        .connect()
        .await
        .unwrap();
    let err = client.accounts().await.unwrap_err();
    assert!(err.is_not_leader(), "{err:?}");
    let rpc = err.rpc().unwrap();
    assert_eq!(rpc.code, tonic::Code::Unavailable);
    assert_eq!(rpc.leader(), Some("gw-a"));
    assert_eq!(rpc.advertise(), Some("10.0.0.1:50051"));
    assert_eq!(rpc.metadata["account_id"], "default");
    assert_eq!(rpc.retry_delay, Some(Duration::from_millis(20)));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_budget_and_the_deadline_end_the_retries_with_the_last_refusal() {
    let (addr, calls) = serve(usize::MAX, "NOT_LEADER", Some(Duration::from_millis(20))).await;
    let client = Client::builder(addr)
        .not_leader_retry(Duration::from_millis(150))
        .connect()
        .await
        .unwrap();
    let start = Instant::now();
    let err = client.accounts().await.unwrap_err();
    assert!(err.is_not_leader(), "{err:?}");
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    let n = calls.load(Ordering::SeqCst);
    assert!((3..=9).contains(&n), "{n} calls");

    // The call's deadline, shorter than the default budget, ends it too, with the refusal.
    let (addr, calls) = serve(usize::MAX, "NOT_LEADER", Some(Duration::from_millis(20))).await;
    let client = Client::builder(addr)
        .timeout(Duration::from_millis(100))
        .connect()
        .await
        .unwrap();
    let start = Instant::now();
    let err = client.accounts().await.unwrap_err();
    assert!(err.is_not_leader(), "{err:?}");
    assert!(
        start.elapsed() < Duration::from_secs(1),
        "{:?}",
        start.elapsed()
    );
    assert!(calls.load(Ordering::SeqCst) >= 2);
}

#[tokio::test]
async fn other_unavailable_reasons_are_not_retried() {
    let (addr, calls) = serve(1, "ACCOUNT_OFFLINE", Some(Duration::from_millis(20))).await;
    let client = Client::builder(addr).connect().await.unwrap();
    let err: Error = client.accounts().await.unwrap_err();
    assert!(!err.is_not_leader());
    assert_eq!(err.reason(), Some("ACCOUNT_OFFLINE"));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}
