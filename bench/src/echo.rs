//! The bare tonic baseline: one unary RPC `/bench.Echo/Echo` that answers a
//! `UInt32Value { n }` with an `n`-byte `BytesValue` (so the answer can be
//! as large as the gateway's), served by `bench echo-server` in its own
//! process with the gateway's runtime and server settings (`#[tokio::main]`,
//! default `Server::builder()`, TCP_NODELAY). [`EchoProc`] starts it as a
//! child process.

use std::convert::Infallible;
use std::process::Stdio;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use anyhow::{Context as _, Result};
use bytes::Bytes;
use futures_util::future::BoxFuture;
use http::uri::PathAndQuery;
use tokio::io::{AsyncBufReadExt, BufReader};
use tonic::body::Body;
use tonic::server::NamedService;
use tonic::transport::Channel;
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status};

use crate::load::{self, Call};
use crate::relay::Relay;

/// Full method path of the echo RPC.
pub const ECHO_PATH: &str = "/bench.Echo/Echo";

/// The echo service: answers `n` with `n` bytes (a slice of one shared
/// buffer, so the server does no per-call allocation of the payload).
#[derive(Clone)]
pub struct EchoServer {
    payload: Bytes,
    /// With a relay, each call first makes its action round trip
    /// ([`Relay`]).
    relay: Option<Arc<Relay>>,
}

impl NamedService for EchoServer {
    const NAME: &'static str = "bench.Echo";
}

#[derive(Clone)]
struct EchoMethod {
    payload: Bytes,
    relay: Option<Arc<Relay>>,
}

impl tonic::server::UnaryService<u32> for EchoMethod {
    type Response = Bytes;
    type Future = BoxFuture<'static, Result<Response<Bytes>, Status>>;

    fn call(&mut self, request: Request<u32>) -> Self::Future {
        let n = (request.into_inner() as usize).min(self.payload.len());
        let body = self.payload.slice(..n);
        let relay = self.relay.clone();
        Box::pin(async move {
            if let Some(relay) = relay {
                relay.round_trip().await?;
            }
            Ok(Response::new(body))
        })
    }
}

impl tonic::codegen::Service<http::Request<Body>> for EchoServer {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        let method = EchoMethod {
            payload: self.payload.clone(),
            relay: self.relay.clone(),
        };
        Box::pin(async move {
            let mut grpc = tonic::server::Grpc::new(Codec);
            Ok(grpc.unary(method, req).await)
        })
    }
}

/// `u32` in, `Bytes` out, as `google.protobuf.UInt32Value` /
/// `BytesValue`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Codec;

impl tonic::codec::Codec for Codec {
    type Encode = Bytes;
    type Decode = u32;
    type Encoder = ServerEnc;
    type Decoder = ServerDec;
    fn encoder(&mut self) -> ServerEnc {
        ServerEnc
    }
    fn decoder(&mut self) -> ServerDec {
        ServerDec
    }
}

/// Encodes the answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerEnc;
impl tonic::codec::Encoder for ServerEnc {
    type Item = Bytes;
    type Error = Status;
    fn encode(&mut self, item: Bytes, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), Status> {
        use prost::Message;
        item.encode(dst)
            .map_err(|e| Status::internal(e.to_string()))
    }
}

/// Decodes the request.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerDec;
impl tonic::codec::Decoder for ServerDec {
    type Item = u32;
    type Error = Status;
    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<u32>, Status> {
        use prost::Message;
        let v = <u32 as Message>::decode(src).map_err(|e| Status::internal(e.to_string()))?;
        Ok(Some(v))
    }
}

/// Client side: `u32` out, `Bytes` in.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientCodec;

impl tonic::codec::Codec for ClientCodec {
    type Encode = u32;
    type Decode = Bytes;
    type Encoder = ClientEnc;
    type Decoder = ClientDec;
    fn encoder(&mut self) -> ClientEnc {
        ClientEnc
    }
    fn decoder(&mut self) -> ClientDec {
        ClientDec
    }
}

/// Encodes the request.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientEnc;
impl tonic::codec::Encoder for ClientEnc {
    type Item = u32;
    type Error = Status;
    fn encode(&mut self, item: u32, dst: &mut tonic::codec::EncodeBuf<'_>) -> Result<(), Status> {
        use prost::Message;
        item.encode(dst)
            .map_err(|e| Status::internal(e.to_string()))
    }
}

/// Decodes the answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientDec;
impl tonic::codec::Decoder for ClientDec {
    type Item = Bytes;
    type Error = Status;
    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        use prost::Message;
        let v = <Bytes as Message>::decode(src).map_err(|e| Status::internal(e.to_string()))?;
        Ok(Some(v))
    }
}

/// Serves the echo RPC on `127.0.0.1:0` until stdin closes; prints
/// `echo listening on <addr>` on stdout first. With `relay` (the OneBot
/// peer's URL and `history` or `members`), each call first makes that
/// action's round trip to the peer.
pub async fn serve(max_payload: usize, relay: Option<(String, String)>) -> Result<()> {
    let relay = match relay {
        Some((peer, rpc)) => Some(Arc::new(Relay::connect(&peer, &rpc).await?)),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    println!("echo listening on {addr}");
    let server = EchoServer {
        payload: Bytes::from(vec![b'x'; max_payload]),
        relay,
    };
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let stdin_closed = async {
        let mut sink = tokio::io::sink();
        let _ = tokio::io::copy(&mut tokio::io::stdin(), &mut sink).await;
    };
    tonic::transport::Server::builder()
        .add_service(server)
        .serve_with_incoming_shutdown(incoming, stdin_closed)
        .await?;
    Ok(())
}

/// `bench echo-server` as a child process (ends when its stdin closes).
pub struct EchoProc {
    _child: tokio::process::Child,
    pub pid: u32,
    /// Where it listens.
    pub addr: String,
    pub channel: Channel,
}

impl EchoProc {
    pub async fn start(max_payload: u32) -> Result<EchoProc> {
        EchoProc::start_with(max_payload, &[]).await
    }

    /// The relay ([`Relay`]): each call first makes the action of
    /// `rpc` (`history` or `members`) round trip to the peer at `peer`.
    pub async fn start_relay(max_payload: u32, peer: &str, rpc: &str) -> Result<EchoProc> {
        EchoProc::start_with(max_payload, &["--relay-peer", peer, "--relay-rpc", rpc]).await
    }

    async fn start_with(max_payload: u32, extra: &[&str]) -> Result<EchoProc> {
        let exe = std::env::current_exe().context("current_exe")?;
        let mut child = tokio::process::Command::new(exe)
            .args(["echo-server", "--max-payload", &max_payload.to_string()])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .context("spawning echo-server")?;
        let pid = child.id().context("echo-server exited at once")?;
        let stdout = child.stdout.take().context("stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .context("echo-server did not start")??
            .context("echo-server exited")?;
        let addr = line
            .strip_prefix("echo listening on ")
            .context("unexpected echo-server output")?
            .to_string();
        let channel = Channel::from_shared(format!("http://{addr}"))?
            .connect()
            .await?;
        Ok(EchoProc {
            _child: child,
            pid,
            addr,
            channel,
        })
    }
}

/// A client of the echo RPC.
#[derive(Clone)]
pub struct EchoClient {
    grpc: tonic::client::Grpc<Channel>,
    path: Arc<PathAndQuery>,
}

impl EchoClient {
    /// Over `channel`.
    pub fn new(channel: Channel) -> Self {
        EchoClient {
            grpc: tonic::client::Grpc::new(channel),
            path: Arc::new(PathAndQuery::from_static(ECHO_PATH)),
        }
    }

    /// One call answering `n` bytes.
    pub async fn echo(&mut self, n: u32) -> Result<Bytes, Status> {
        self.grpc
            .ready()
            .await
            .map_err(|e| Status::unavailable(e.to_string()))?;
        let resp = self
            .grpc
            .unary(Request::new(n), (*self.path).clone(), ClientCodec)
            .await?;
        Ok(resp.into_inner())
    }
}

/// The echo server on `channel` answering `n` bytes, as a load call.
pub fn load_call(channel: &Channel, n: u32) -> Call {
    let client = EchoClient::new(channel.clone());
    load::call(move || {
        let mut c = client.clone();
        async move { c.echo(n).await.map(drop).map_err(|s| s.to_string()) }
    })
}
