//! Transports to a OneBot peer: forward WebSocket ([`ws`]), HTTP ([`http`]),
//! reverse WebSocket ([`reverse`]), the pending-call map ([`pending`]),
//! serialized parameters and action frames ([`body`]); the peer's frames as read are [`crate::frame`].
//!
//! The forward WebSocket dials through a [`Connector`], so tests can hand it
//! an in-memory stream (`tokio::io::duplex`) and run under paused time.

pub mod body;
pub mod http;
pub mod pending;
pub mod reverse;
pub mod ws;

use tokio::io::{AsyncRead, AsyncWrite};

/// A byte stream a WebSocket can run over.
pub trait Io: AsyncRead + AsyncWrite + Send + Unpin + 'static {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin + 'static> Io for T {}

/// A boxed byte stream.
pub type BoxIo = Box<dyn Io>;

/// Opens the byte stream under a forward WebSocket (the handshake is done on
/// top by [`ws::handshake`]).
#[async_trait::async_trait]
pub trait Connector: Send + Sync + 'static {
    /// Opens one stream to the peer.
    async fn connect(&self) -> std::io::Result<BoxIo>;
}

/// Dials the host and port of a `ws://` URL over TCP.
#[derive(Debug, Clone)]
pub struct TcpConnector {
    host: String,
    port: u16,
}

impl TcpConnector {
    /// A connector for `ws_url` (`ws://`, or the TCP under `wss://` that
    /// [`WssConnector`] wraps); `None` when the URL has no host or another
    /// scheme.
    pub fn for_url(ws_url: &str) -> Option<Self> {
        let url = url::Url::parse(ws_url).ok()?;
        if url.scheme() != "ws" && url.scheme() != "wss" {
            return None;
        }
        Some(Self {
            host: url.host_str()?.trim_matches(['[', ']']).to_string(),
            port: url.port_or_known_default()?,
        })
    }
}

#[async_trait::async_trait]
impl Connector for TcpConnector {
    async fn connect(&self) -> std::io::Result<BoxIo> {
        let stream = tokio::net::TcpStream::connect((self.host.as_str(), self.port)).await?;
        stream.set_nodelay(true)?;
        Ok(Box::new(stream))
    }
}

/// Dials a `wss://` peer: TCP, then TLS verified by the account's
/// [`PeerTls`](onebot_gateway_tls::PeerTls) (system roots plus its `ca_file`).
pub struct WssConnector {
    tcp: TcpConnector,
    name: rustls_pki_types::ServerName<'static>,
    tls: tokio_rustls::TlsConnector,
}

impl WssConnector {
    /// Dials `tcp` and speaks TLS to `name` on top, trusting what `tls`
    /// trusts.
    pub fn new(
        tcp: TcpConnector,
        name: rustls_pki_types::ServerName<'static>,
        tls: &onebot_gateway_tls::PeerTls,
    ) -> Self {
        Self {
            tcp,
            name,
            tls: tokio_rustls::TlsConnector::from(tls.client_config()),
        }
    }
}

#[async_trait::async_trait]
impl Connector for WssConnector {
    async fn connect(&self) -> std::io::Result<BoxIo> {
        let tcp = self.tcp.connect().await?;
        let tls = self.tls.connect(self.name.clone(), tcp).await?;
        Ok(Box::new(tls))
    }
}
