//! End-to-end tests of the Rust client against a real gateway on its
//! sandbox peer (started by scripts/sdk-tests.sh, which sets
//! `ONEBOT_GATEWAY_ADDR`). Run: `cargo test -p onebot-gateway-client
//! --features e2e --test e2e`.

mod examples;

use onebot_gateway_client::{Client, Error, ServingStatus};

async fn client() -> Client {
    assert!(
        std::env::var("ONEBOT_GATEWAY_ADDR").is_ok(),
        "ONEBOT_GATEWAY_ADDR is not set: run ./scripts/sdk-tests.sh"
    );
    examples::connect().await.expect("connect")
}

#[tokio::test]
async fn health_is_serving() {
    let client = client().await;
    assert_eq!(
        examples::health(&client).await.unwrap(),
        ServingStatus::Serving
    );
    let unknown = client.health("no.such.Service").await.unwrap_err();
    assert_eq!(unknown.rpc().unwrap().code, tonic::Code::NotFound);
}

#[tokio::test]
async fn accounts_are_listed() {
    let client = client().await;
    let accounts = examples::accounts(&client).await.unwrap();
    let mut ids: Vec<&str> = accounts.iter().map(|a| a.account_id.as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), accounts.len(), "account ids are unique");
}

#[tokio::test]
async fn an_unreachable_gateway_is_a_connect_error() {
    let err = Client::builder("http://127.0.0.1:1")
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Connect(_)), "{err:?}");
}
