//! The README's examples, one function per RPC. Everything between a
//! `// region: <name>` and `// endregion` line is copied verbatim into
//! README.md (tests/readme.rs checks it) and run by tests/e2e.rs against a
//! real gateway.

#![allow(dead_code)]

use onebot_gateway_client::{Client, Error, ServingStatus};

pub async fn connect() -> Result<Client, Error> {
    // region: connect
    use onebot_gateway_client::Client;

    let addr = std::env::var("ONEBOT_GATEWAY_ADDR").unwrap_or("http://127.0.0.1:50051".into());
    let mut builder = Client::builder(addr);
    if let Ok(token) = std::env::var("ONEBOT_GATEWAY_TOKEN") {
        builder = builder.token(token); // sent as `authorization: Bearer <token>`
    }
    // For TLS: an https:// address, plus `.ca_file("ca.pem")` for a private CA.
    let client = builder.connect().await?;
    // endregion
    Ok(client)
}

pub async fn health(client: &Client) -> Result<ServingStatus, Error> {
    // region: health
    let status = client.health("").await?; // or "onebot.gateway.v1.account.default"
    println!("gateway: {}", status.as_str_name());
    // endregion
    Ok(status)
}

pub async fn accounts(client: &Client) -> Result<Vec<onebot_gateway_client::pb::Account>, Error> {
    // region: accounts
    let accounts = client.accounts().await?;
    for account in &accounts {
        println!(
            "{} {} groups={:?}",
            account.account_id, account.nickname, account.groups
        );
    }
    // endregion
    Ok(accounts)
}
