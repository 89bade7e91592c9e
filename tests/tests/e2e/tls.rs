//! TLS and mutual TLS on the gRPC listener, with generated certificates:
//! real handshakes over TCP through tonic clients.

use onebot_gateway_client::pb;
use onebot_gateway_config::{Config, TlsConfig};
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

/// A TLS terminator in front of the sandbox: `wss://` and `https://` peers
/// with a private CA.
struct TlsProxy {
    addr: std::net::SocketAddr,
    stop: tokio_util::sync::CancellationToken,
}

impl TlsProxy {
    async fn start(leaf: &Leaf, upstream: std::net::SocketAddr) -> TlsProxy {
        use rustls_pki_types::pem::PemObject;
        let certs = rustls_pki_types::CertificateDer::pem_slice_iter(leaf.cert_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        let key = rustls_pki_types::PrivateKeyDer::from_pem_slice(leaf.key_pem.as_bytes()).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(onebot_gateway_tls::provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = tokio_util::sync::CancellationToken::new();
        let cancel = stop.clone();
        tokio::spawn(async move {
            loop {
                let (tcp, _) = tokio::select! {
                    _ = cancel.cancelled() => return,
                    r = listener.accept() => r.unwrap(),
                };
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let Ok(mut plain) = tokio::net::TcpStream::connect(upstream).await else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                });
            }
        });
        TlsProxy { addr, stop }
    }
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// The gateway, and what must live as long as it: the sandbox, the proxy,
/// and the directory with the CA file.
type PeerSetup = (TestGateway, onebot_gateway_tests::Sandbox, TlsProxy, Setup);

async fn peer_over_tls(use_ws: bool, trust: bool) -> PeerSetup {
    use onebot_gateway_config::AccountConfig;
    let setup = Setup::new();
    let sandbox = onebot_gateway_tests::sandbox(onebot_gateway_tests::SandboxFlavor::NapCat).await;
    let upstream: std::net::SocketAddr = sandbox
        .ws_url()
        .trim_start_matches("ws://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let proxy = TlsProxy::start(&setup.server_ca.server(), upstream).await;
    let ca_file = setup.dir.path().join("peer-ca.crt");
    std::fs::write(&ca_file, setup.server_ca.pem()).unwrap();
    let port = proxy.addr.port();
    let mut config = Config::default();
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: use_ws.then(|| format!("wss://localhost:{port}/")),
            http_url: (!use_ws).then(|| format!("https://localhost:{port}/")),
            ca_file: trust.then_some(ca_file),
            groups: vec![20_000_003],
            ..AccountConfig::default()
        },
    );
    let gw = TestGateway::start(config).await;
    (gw, sandbox, proxy, setup)
}

#[tokio::test]
async fn wss_and_https_peers_with_a_private_ca() {
    for use_ws in [true, false] {
        let (gw, _sandbox, _proxy, _setup) = peer_over_tls(use_ws, true).await;
        gw.wait_state("default", pb::ConnectionState::Connected)
            .await;
        let history = gw
            .messages()
            .get_history(pb::GetHistoryRequest {
                chat: Some(pb::Chat {
                    kind: Some(pb::chat::Kind::GroupId(20_000_003)),
                }),
                count: 1,
                ..Default::default()
            })
            .await
            .expect("history through the TLS peer");
        assert!(history.into_inner().messages.len() <= 1);
        gw.stop().await.unwrap();

        // Without the CA the peer's certificate is refused.
        let (gw, _sandbox, _proxy, _setup) = peer_over_tls(use_ws, false).await;
        gw.wait_state("default", pb::ConnectionState::Backoff).await;
        let account = gw.account("default").await;
        // The WebSocket path reports the TLS failure itself; the HTTP probe
        // reports the account offline (the TLS detail is in its metadata).
        assert!(
            !use_ws || account.last_error.to_lowercase().contains("certificate"),
            "{}",
            account.last_error
        );
        gw.stop().await.unwrap();
    }
}
