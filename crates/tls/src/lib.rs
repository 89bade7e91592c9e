//! TLS: the gRPC listener's server side (certificate reload, optional client
//! certificates) and the client side towards `wss://` / `https://` peers
//! (system roots plus an optional private CA).
//!
//! One crypto provider only: aws-lc-rs, the one reqwest uses.
//!
//! The listener's [`TlsAcceptor`] keeps the current `rustls::ServerConfig`
//! behind a lock; [`TlsAcceptor::reload`] re-reads the files and swaps it
//! when their content changed, so rotated certificates (cert-manager,
//! mounted Kubernetes secrets) apply to new connections without a restart.
//! A broken rotation is logged and the previous certificate stays.

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use sha2::{Digest, Sha256};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_rustls::server::TlsStream;
use tokio_stream::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use onebot_gateway_config::TlsConfig;
use onebot_gateway_telemetry::metrics as m;

/// A TLS setup problem, naming the file or key at fault.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {message}")]
pub struct TlsError {
    what: String,
    message: String,
}

fn tls_error(what: impl Into<String>, message: impl ToString) -> TlsError {
    TlsError {
        what: what.into(),
        message: message.to_string(),
    }
}

/// The process's crypto provider.
pub fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

fn read(path: &Path, key: &str) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|e| tls_error(format!("{key} {}", path.display()), e))
}

/// Every certificate of a PEM bundle.
pub fn parse_certs(pem: &[u8], what: &str) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| tls_error(what, e))?;
    if certs.is_empty() {
        return Err(tls_error(what, "no PEM certificate found"));
    }
    Ok(certs)
}

/// The files of a listener config, read once.
struct Material {
    cert: Vec<u8>,
    key: Vec<u8>,
    client_ca: Option<Vec<u8>>,
}

impl Material {
    fn read(config: &TlsConfig) -> Result<Self, TlsError> {
        Ok(Self {
            cert: read(&config.cert_file, "server.tls.cert_file")?,
            key: read(&config.key_file, "server.tls.key_file")?,
            client_ca: config
                .client_ca_file
                .as_deref()
                .map(|p| read(p, "server.tls.client_ca_file"))
                .transpose()?,
        })
    }

    fn fingerprint(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        for part in [Some(&self.cert), Some(&self.key), self.client_ca.as_ref()] {
            let part = part.map(Vec::as_slice).unwrap_or_default();
            h.update((part.len() as u64).to_be_bytes());
            h.update(part);
        }
        h.finalize().into()
    }

    fn server_config(&self) -> Result<ServerConfig, TlsError> {
        let certs = parse_certs(&self.cert, "server.tls.cert_file")?;
        let key = PrivateKeyDer::from_pem_slice(&self.key)
            .map_err(|e| tls_error("server.tls.key_file", e))?;
        let provider = provider();
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| tls_error("TLS versions", e))?;
        let builder = match &self.client_ca {
            None => builder.with_no_client_auth(),
            Some(pem) => {
                let mut roots = RootCertStore::empty();
                for cert in parse_certs(pem, "server.tls.client_ca_file")? {
                    roots
                        .add(cert)
                        .map_err(|e| tls_error("server.tls.client_ca_file", e))?;
                }
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                        .build()
                        .map_err(|e| tls_error("server.tls.client_ca_file", e))?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let mut config = builder
            .with_single_cert(certs, key)
            .map_err(|e| tls_error("server.tls.cert_file/key_file", e))?;
        // gRPC runs over HTTP/2; the MCP endpoint on the same listener
        // also takes HTTP/1.1 clients. HTTP/2 is preferred.
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(config)
    }
}

/// The gRPC listener's TLS state, reloadable.
pub struct TlsAcceptor {
    config: TlsConfig,
    current: RwLock<Arc<ServerConfig>>,
    fingerprint: Mutex<[u8; 32]>,
}

impl std::fmt::Debug for TlsAcceptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsAcceptor")
            .field("cert_file", &self.config.cert_file)
            .field("client_ca_file", &self.config.client_ca_file)
            .finish()
    }
}

impl TlsAcceptor {
    /// Reads and checks the files of `config`.
    pub fn load(config: &TlsConfig) -> Result<Self, TlsError> {
        let material = Material::read(config)?;
        let server = material.server_config()?;
        Ok(Self {
            config: config.clone(),
            current: RwLock::new(Arc::new(server)),
            fingerprint: Mutex::new(material.fingerprint()),
        })
    }

    /// True when client certificates are required.
    pub fn mutual(&self) -> bool {
        self.config.client_ca_file.is_some()
    }

    /// The configuration new connections get.
    pub fn server_config(&self) -> Arc<ServerConfig> {
        self.current.read().clone()
    }

    /// Re-reads the files; swaps the configuration when they changed and are
    /// valid. `Ok(true)`: reloaded; `Ok(false)`: unchanged; `Err`: the new
    /// files are unusable and the previous configuration stays.
    pub fn reload(&self) -> Result<bool, TlsError> {
        let material = Material::read(&self.config)?;
        let fingerprint = material.fingerprint();
        if *self.fingerprint.lock() == fingerprint {
            return Ok(false);
        }
        let server = material.server_config()?;
        *self.current.write() = Arc::new(server);
        *self.fingerprint.lock() = fingerprint;
        Ok(true)
    }

    /// Checks the files every `reload_interval_ms` until `shutdown`.
    pub fn spawn_reloader(self: &Arc<Self>, shutdown: CancellationToken) {
        let this = self.clone();
        let every = Duration::from_millis(self.config.reload_interval_ms);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick.tick().await;
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tick.tick() => {}
                }
                match this.reload() {
                    Ok(false) => {}
                    Ok(true) => {
                        m::tls_reload(true);
                        tracing::info!(cert = %this.config.cert_file.display(), "TLS certificate reloaded");
                    }
                    Err(e) => {
                        m::tls_reload(false);
                        tracing::warn!(error = %e, "TLS files changed but cannot be used; keeping the previous certificate");
                    }
                }
            }
        });
    }

    /// TLS connections over the TCP connections of `tcp`: each handshake
    /// runs in its own task (bounded by `handshake_timeout_ms`), so a slow
    /// client does not hold up others. Failed handshakes are logged and
    /// dropped. Ends when `tcp` ends, the stream is dropped, or `shutdown`.
    pub fn incoming<I>(
        self: &Arc<Self>,
        tcp: I,
        shutdown: CancellationToken,
    ) -> impl Stream<Item = Result<TlsStream<TcpStream>, io::Error>> + Send + 'static
    where
        I: Stream<Item = Result<TcpStream, io::Error>> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel::<TlsStream<TcpStream>>(64);
        let this = self.clone();
        let timeout = Duration::from_millis(self.config.handshake_timeout_ms);
        tokio::spawn(async move {
            let mut tcp = std::pin::pin!(tcp);
            loop {
                let stream = tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tx.closed() => return,
                    next = tcp.next() => match next {
                        None => return,
                        Some(Ok(s)) => s,
                        Some(Err(e)) => {
                            tracing::debug!(error = %e, "accept failed");
                            continue;
                        }
                    },
                };
                let acceptor = tokio_rustls::TlsAcceptor::from(this.server_config());
                let tx = tx.clone();
                tokio::spawn(async move {
                    let peer = stream.peer_addr().ok();
                    match tokio::time::timeout(timeout, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let _ = tx.send(tls).await;
                        }
                        Ok(Err(e)) => {
                            tracing::debug!(?peer, error = %e, "TLS handshake failed");
                        }
                        Err(_) => tracing::debug!(?peer, "TLS handshake timed out"),
                    }
                });
            }
        });
        tokio_stream::wrappers::ReceiverStream::new(rx).map(Ok)
    }
}

/// The peer-side TLS of an account: system roots plus the PEM CAs of
/// `ca_file`, if any.
#[derive(Clone)]
pub struct PeerTls {
    extra_roots: Vec<CertificateDer<'static>>,
    client: Arc<ClientConfig>,
}

impl std::fmt::Debug for PeerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PeerTls")
            .field("extra_roots", &self.extra_roots.len())
            .finish()
    }
}

impl PeerTls {
    /// Trusts the system roots and the certificates in `ca_file`; `key` names
    /// the config key in errors (`accounts.<id>.ca_file`).
    pub fn new(ca_file: Option<&Path>, key: &str) -> Result<Self, TlsError> {
        let extra_roots = match ca_file {
            Some(path) => parse_certs(&read(path, key)?, key)?,
            None => Vec::new(),
        };
        let provider = provider();
        let verifier = rustls_platform_verifier::Verifier::new_with_extra_roots(
            extra_roots.iter().cloned(),
            provider.clone(),
        )
        .map_err(|e| tls_error(key, e))?;
        let client = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| tls_error("TLS versions", e))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        Ok(Self {
            extra_roots,
            client: Arc::new(client),
        })
    }

    /// The rustls client configuration (WebSocket `Connector::Rustls`).
    pub fn client_config(&self) -> Arc<ClientConfig> {
        self.client.clone()
    }

    /// The TLS server name of a `wss://` URL; `None` for any other URL.
    pub fn wss_server_name(&self, ws_url: &str) -> Option<ServerName<'static>> {
        let url = url::Url::parse(ws_url).ok()?;
        if url.scheme() != "wss" {
            return None;
        }
        let host = url.host_str()?.trim_matches(['[', ']']).to_string();
        ServerName::try_from(host).ok()
    }

    /// Adds the extra roots to an HTTP client builder (system roots stay).
    pub fn http_builder(&self, builder: reqwest::ClientBuilder) -> reqwest::ClientBuilder {
        let certs = self
            .extra_roots
            .iter()
            .filter_map(|der| reqwest::Certificate::from_der(der).ok());
        builder.tls_certs_merge(certs)
    }
}

#[cfg(test)]
mod tests;
