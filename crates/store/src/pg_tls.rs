//! TLS for the PostgreSQL archive, over rustls (the gateway's one TLS
//! stack): the system's roots plus `archive.ca_file`. The URL's `sslmode`
//! decides: `disable` never, `prefer` (the default) when the server offers
//! it, `require` always (the connection fails without it).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::ClientConfig;
use rustls_pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};

/// Makes a rustls connection per PostgreSQL connection.
#[derive(Clone)]
pub struct RustlsConnect {
    config: Arc<ClientConfig>,
}

impl RustlsConnect {
    /// Connections verified by `config`.
    pub fn new(config: Arc<ClientConfig>) -> Self {
        Self { config }
    }
}

/// One connection's TLS handshake, for the server `name`.
pub struct RustlsConnectOne {
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
}

impl<S> MakeTlsConnect<S> for RustlsConnect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type TlsConnect = RustlsConnectOne;
    type Error = io::Error;

    fn make_tls_connect(&mut self, domain: &str) -> io::Result<RustlsConnectOne> {
        let name = ServerName::try_from(domain.trim_matches(['[', ']']).to_string())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        Ok(RustlsConnectOne {
            config: self.config.clone(),
            name,
        })
    }
}

impl<S> TlsConnect<S> for RustlsConnectOne
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<RustlsStream<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let connector = tokio_rustls::TlsConnector::from(self.config);
            let tls = connector.connect(self.name, stream).await?;
            Ok(RustlsStream(tls))
        })
    }
}

/// A PostgreSQL connection over rustls.
pub struct RustlsStream<S>(tokio_rustls::client::TlsStream<S>);

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for RustlsStream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for RustlsStream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> TlsStream for RustlsStream<S> {
    fn channel_binding(&self) -> ChannelBinding {
        // SCRAM without channel binding (`-PLUS` is not offered).
        ChannelBinding::none()
    }
}
