//! TLS and mutual TLS on the gRPC listener, with generated certificates:
//! real handshakes over TCP through tonic clients.

use onebot_gateway::config::{Config, TlsConfig};
use onebot_gateway_client::pb;
use onebot_gateway_tests::TestGateway;
use onebot_gateway_tests::certs::{Leaf, TestCa};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

struct Setup {
    dir: tempfile::TempDir,
    server_ca: TestCa,
    client_ca: TestCa,
}

impl Setup {
    fn new() -> Self {
        Setup {
            dir: tempfile::tempdir().unwrap(),
            server_ca: TestCa::new("server ca"),
            client_ca: TestCa::new("client ca"),
        }
    }

    fn config(&self, mutual: bool) -> Config {
        let (cert_file, key_file) = self.server_ca.server().write(self.dir.path(), "server");
        let ca_file = self.dir.path().join("clients-ca.crt");
        std::fs::write(&ca_file, self.client_ca.pem()).unwrap();
        let mut config = Config::default();
        config.server.tls = Some(TlsConfig {
            cert_file,
            key_file,
            client_ca_file: mutual.then_some(ca_file),
            reload_interval_ms: 60_000,
            handshake_timeout_ms: 5_000,
        });
        config
    }

    fn client(&self, identity: Option<&Leaf>) -> ClientTlsConfig {
        let tls = ClientTlsConfig::new()
            .ca_certificate(Certificate::from_pem(self.server_ca.pem()))
            .domain_name("localhost");
        match identity {
            Some(leaf) => tls.identity(Identity::from_pem(&leaf.cert_pem, &leaf.key_pem)),
            None => tls,
        }
    }
}

async fn list_accounts(channel: Channel) -> Result<usize, tonic::Status> {
    Ok(
        pb::account_service_client::AccountServiceClient::new(channel)
            .list_accounts(pb::ListAccountsRequest {})
            .await?
            .into_inner()
            .accounts
            .len(),
    )
}

/// Connects to `addr` with `tls` and makes one call.
async fn try_call(
    addr: std::net::SocketAddr,
    tls: Option<ClientTlsConfig>,
) -> Result<usize, String> {
    let endpoint = match tls {
        Some(tls) => Channel::from_shared(format!("https://{addr}"))
            .unwrap()
            .tls_config(tls)
            .map_err(|e| e.to_string())?,
        None => Channel::from_shared(format!("http://{addr}")).unwrap(),
    };
    let channel = endpoint
        .connect()
        .await
        .map_err(|e| format!("connect: {e}"))?;
    list_accounts(channel)
        .await
        .map_err(|s| format!("call: {s}"))
}

#[tokio::test]
async fn tls_handshake_and_calls() {
    let setup = Setup::new();
    let gw = TestGateway::start_tls(setup.config(false), setup.client(None)).await;
    assert_eq!(list_accounts(gw.channel.clone()).await.unwrap(), 1);
    let health = gw
        .health()
        .check(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(health.status, 1, "SERVING");

    // Plaintext to a TLS listener does not work.
    assert!(try_call(gw.addr, None).await.is_err());
    // A client that does not trust the server's CA refuses it.
    let stranger = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(TestCa::new("other").pem()))
        .domain_name("localhost");
    assert!(try_call(gw.addr, Some(stranger)).await.is_err());
    gw.stop().await.unwrap();
}

#[tokio::test]
async fn mutual_tls_requires_a_client_certificate() {
    let setup = Setup::new();
    let client = setup.client_ca.client();
    let gw = TestGateway::start_tls(setup.config(true), setup.client(Some(&client))).await;
    assert_eq!(list_accounts(gw.channel.clone()).await.unwrap(), 1);

    let without = try_call(gw.addr, Some(setup.client(None))).await;
    assert!(without.is_err(), "no client certificate: {without:?}");
    let rogue = TestCa::new("rogue").client();
    let with_rogue = try_call(gw.addr, Some(setup.client(Some(&rogue)))).await;
    assert!(
        with_rogue.is_err(),
        "rogue client certificate: {with_rogue:?}"
    );
    let again = try_call(gw.addr, Some(setup.client(Some(&setup.client_ca.client())))).await;
    assert_eq!(again, Ok(1));
    gw.stop().await.unwrap();
}
