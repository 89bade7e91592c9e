//! Handshakes over real loopback sockets with generated certificates.

use std::path::PathBuf;
use std::sync::Arc;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair,
};
use rustls_pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_stream::StreamExt;

use super::*;

struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl Ca {
    fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        Ca {
            issuer: CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap(),
        }
    }

    /// (cert PEM, key PEM, cert DER) of a leaf for `localhost`.
    fn leaf(&self, purpose: ExtendedKeyUsagePurpose) -> (String, String, Vec<u8>) {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        params.extended_key_usages = vec![purpose];
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem(), cert.der().to_vec())
    }
}

struct Files {
    _dir: tempfile::TempDir,
    cert: PathBuf,
    key: PathBuf,
    ca: PathBuf,
}

fn files(server_ca: &Ca, client_ca: &Ca) -> (Files, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key, der) = server_ca.leaf(ExtendedKeyUsagePurpose::ServerAuth);
    let f = Files {
        cert: dir.path().join("tls.crt"),
        key: dir.path().join("tls.key"),
        ca: dir.path().join("ca.crt"),
        _dir: dir,
    };
    std::fs::write(&f.cert, cert).unwrap();
    std::fs::write(&f.key, key).unwrap();
    std::fs::write(&f.ca, client_ca.issuer.pem()).unwrap();
    (f, der)
}

fn tls_config(f: &Files, mutual: bool) -> TlsConfig {
    TlsConfig {
        cert_file: f.cert.clone(),
        key_file: f.key.clone(),
        client_ca_file: mutual.then(|| f.ca.clone()),
        reload_interval_ms: 10_000,
        handshake_timeout_ms: 5_000,
    }
}

/// Serves one echo byte per accepted TLS connection on a real listener.
async fn serve(acceptor: Arc<TlsAcceptor>) -> (std::net::SocketAddr, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let tcp = tokio_stream::wrappers::TcpListenerStream::new(listener);
    let mut incoming = Box::pin(acceptor.incoming(tcp, stop.clone()));
    tokio::spawn(async move {
        while let Some(Ok(mut tls)) = incoming.next().await {
            tokio::spawn(async move {
                let mut b = [0u8; 1];
                if tls.read_exact(&mut b).await.is_ok() {
                    let _ = tls.write_all(&b).await;
                    let _ = tls.shutdown().await;
                }
            });
        }
    });
    (addr, stop)
}

fn client_config(trust: &Ca, identity: Option<(String, String)>) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots.add(trust.issuer.der().clone()).unwrap();
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let mut config = match identity {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => builder
            .with_client_auth_cert(
                parse_certs(cert.as_bytes(), "cert").unwrap(),
                PrivateKeyDer::from_pem_slice(key.as_bytes()).unwrap(),
            )
            .unwrap(),
    };
    config.alpn_protocols = vec![b"h2".to_vec()];
    Arc::new(config)
}

/// Connects, exchanges a byte; returns the server's leaf certificate.
async fn roundtrip(
    addr: std::net::SocketAddr,
    config: Arc<ClientConfig>,
) -> std::io::Result<Vec<u8>> {
    let tcp = TcpStream::connect(addr).await?;
    let connector = tokio_rustls::TlsConnector::from(config);
    let mut tls = connector
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await?;
    tls.write_all(b"x").await?;
    let mut b = [0u8; 1];
    tls.read_exact(&mut b).await?;
    let (_, session) = tls.get_ref();
    assert_eq!(session.alpn_protocol(), Some(&b"h2"[..]));
    Ok(session
        .peer_certificates()
        .and_then(|c| c.first())
        .map(|c| c.to_vec())
        .unwrap_or_default())
}

#[tokio::test]
async fn serves_and_reloads_rotated_certificates() {
    let ca = Ca::new("server ca");
    let (f, first_der) = files(&ca, &ca);
    let acceptor = Arc::new(TlsAcceptor::load(&tls_config(&f, false)).unwrap());
    assert!(!acceptor.mutual());
    let (addr, stop) = serve(acceptor.clone()).await;
    let client = client_config(&ca, None);
    assert_eq!(roundtrip(addr, client.clone()).await.unwrap(), first_der);
    assert!(!acceptor.reload().unwrap(), "unchanged files do not reload");

    // Rotate: new leaf from the same CA.
    let (cert, key, second_der) = ca.leaf(ExtendedKeyUsagePurpose::ServerAuth);
    std::fs::write(&f.cert, cert).unwrap();
    std::fs::write(&f.key, key).unwrap();
    assert!(acceptor.reload().unwrap());
    assert_eq!(roundtrip(addr, client.clone()).await.unwrap(), second_der);

    // A broken rotation (key of another cert) keeps the previous setup.
    let (_, other_key, _) = ca.leaf(ExtendedKeyUsagePurpose::ServerAuth);
    std::fs::write(&f.key, other_key).unwrap();
    let err = acceptor.reload().unwrap_err().to_string();
    assert!(err.contains("server.tls"), "{err}");
    assert_eq!(roundtrip(addr, client).await.unwrap(), second_der);
    stop.cancel();
}

#[tokio::test]
async fn mutual_tls_requires_a_client_certificate_from_the_ca() {
    let server_ca = Ca::new("server ca");
    let client_ca = Ca::new("client ca");
    let (f, _) = files(&server_ca, &client_ca);
    let acceptor = Arc::new(TlsAcceptor::load(&tls_config(&f, true)).unwrap());
    assert!(acceptor.mutual());
    let (addr, stop) = serve(acceptor).await;

    let (cert, key, _) = client_ca.leaf(ExtendedKeyUsagePurpose::ClientAuth);
    roundtrip(addr, client_config(&server_ca, Some((cert, key))))
        .await
        .expect("a client certificate from the client CA is accepted");

    assert!(
        roundtrip(addr, client_config(&server_ca, None))
            .await
            .is_err(),
        "no client certificate"
    );
    let rogue = Ca::new("rogue ca");
    let (cert, key, _) = rogue.leaf(ExtendedKeyUsagePurpose::ClientAuth);
    assert!(
        roundtrip(addr, client_config(&server_ca, Some((cert, key))))
            .await
            .is_err(),
        "a certificate from another CA"
    );
    stop.cancel();
}

#[tokio::test]
async fn load_names_the_bad_file() {
    let ca = Ca::new("ca");
    let (f, _) = files(&ca, &ca);
    std::fs::write(&f.cert, "not a certificate").unwrap();
    let err = TlsAcceptor::load(&tls_config(&f, false))
        .unwrap_err()
        .to_string();
    assert!(err.contains("server.tls.cert_file"), "{err}");
    let mut missing = tls_config(&f, false);
    missing.key_file = f.key.with_extension("nope");
    let err = TlsAcceptor::load(&missing).unwrap_err().to_string();
    assert!(err.contains("server.tls.key_file"), "{err}");
}

/// A `wss://`-style peer with a private CA: trusted with `ca_file`, refused
/// without it.
#[tokio::test]
async fn peer_tls_trusts_the_configured_private_ca() {
    let ca = Ca::new("private peer ca");
    let (f, _) = files(&ca, &ca);
    let acceptor = Arc::new(TlsAcceptor::load(&tls_config(&f, false)).unwrap());
    let (addr, stop) = serve(acceptor).await;
    let ca_file = f.cert.with_file_name("peer-ca.pem");
    std::fs::write(&ca_file, ca.issuer.pem()).unwrap();

    let trusted = PeerTls::new(Some(&ca_file), "accounts.a.ca_file").unwrap();
    let mut config = (*trusted.client_config()).clone();
    config.alpn_protocols = vec![b"h2".to_vec()];
    roundtrip(addr, Arc::new(config))
        .await
        .expect("private CA trusted");

    let system_only = PeerTls::new(None, "accounts.a.ca_file").unwrap();
    let mut config = (*system_only.client_config()).clone();
    config.alpn_protocols = vec![b"h2".to_vec()];
    assert!(roundtrip(addr, Arc::new(config)).await.is_err());

    let err = PeerTls::new(Some(&f.key.with_extension("missing")), "accounts.a.ca_file")
        .unwrap_err()
        .to_string();
    assert!(err.contains("accounts.a.ca_file"), "{err}");
    stop.cancel();
}

/// The reloader task re-reads the files on its interval (paused time: no
/// real waiting, no sockets).
#[tokio::test(start_paused = true)]
async fn reloader_applies_rotations_on_its_interval() {
    let ca = Ca::new("ca");
    let (f, _) = files(&ca, &ca);
    let mut config = tls_config(&f, false);
    config.reload_interval_ms = 1_000;
    let acceptor = Arc::new(TlsAcceptor::load(&config).unwrap());
    let first = acceptor.server_config();
    let stop = CancellationToken::new();
    acceptor.spawn_reloader(stop.clone());

    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert!(
        Arc::ptr_eq(&first, &acceptor.server_config()),
        "unchanged files"
    );

    let (cert, key, _) = ca.leaf(ExtendedKeyUsagePurpose::ServerAuth);
    std::fs::write(&f.cert, cert).unwrap();
    std::fs::write(&f.key, key).unwrap();
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert!(
        !Arc::ptr_eq(&first, &acceptor.server_config()),
        "rotated files"
    );
    stop.cancel();
}
