//! Upload: a 30 MiB video streamed with UploadMedia and sent with
//! SendMessage to the sandbox, alone and four at once, each scenario on a
//! fresh gateway process so its peak RSS (`VmHWM`) belongs to it alone.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bytes::Bytes;
use onebot_gateway_client::pb;
use sha2::{Digest, Sha256};

use crate::procs::{BENCH_GROUP, GatewayOptions, GatewayProc, cpu_time};

/// Size of the video: the default video limit.
pub const PAYLOAD_BYTES: usize = 30 * 1024 * 1024;
/// Bytes per UploadMedia chunk.
pub const CHUNK_BYTES: usize = 1024 * 1024;
/// Concurrent uploads measured.
pub const UPLOAD_CONCURRENCY: [usize; 2] = [1, 4];

/// Send limits raised so rounds of sends are not throttled.
pub const RAISED_LIMITS: &str = "rate_group_per_minute = 100000\nrate_group_burst = 10000\n\
                                 rate_account_per_minute = 100000\nrate_account_burst = 10000\n";

/// One scenario of one round.
#[derive(Debug, Clone, Copy)]
pub struct UploadSample {
    /// Concurrent uploads.
    pub concurrency: usize,
    /// Wall time from the first byte streamed to the last SendMessage answer.
    pub elapsed: Duration,
    /// The longest UploadMedia call (first byte to the staged answer).
    pub upload: Duration,
    /// The longest SendMessage call.
    pub send: Duration,
    /// Gateway `VmHWM` at the end, bytes.
    pub peak_rss: u64,
    /// Gateway `VmRSS` once connected, before any upload, bytes.
    pub idle_rss: u64,
    /// CPU time the gateway used for the whole scenario.
    pub gateway_cpu: Duration,
    /// CPU time the sandbox used meanwhile (receiving and checking).
    pub peer_cpu: Duration,
}

impl UploadSample {
    /// End-to-end throughput, MB/s (10^6 bytes).
    pub fn mb_per_s(&self) -> f64 {
        (PAYLOAD_BYTES * self.concurrency) as f64 / 1e6 / self.elapsed.as_secs_f64()
    }
    /// Peak RSS as a multiple of the bytes in flight.
    pub fn peak_multiple(&self) -> f64 {
        self.peak_rss as f64 / (PAYLOAD_BYTES * self.concurrency) as f64
    }
    /// Peak RSS above idle, as a multiple of the bytes in flight.
    pub fn growth_multiple(&self) -> f64 {
        self.peak_rss.saturating_sub(self.idle_rss) as f64
            / (PAYLOAD_BYTES * self.concurrency) as f64
    }
}

/// One direct send: the pre-encoded `send_group_msg` frame of the same
/// video written straight to the sandbox.
#[derive(Debug, Clone, Copy)]
pub struct DirectUpload {
    /// Concurrent sends (one connection each).
    pub concurrency: usize,
    /// Wall time from the first frame written to the last reply.
    pub elapsed: Duration,
    /// The sandbox's CPU time over the same span.
    pub peer_cpu: Duration,
}

impl DirectUpload {
    /// Throughput, MB/s (10^6 bytes of video).
    pub fn mb_per_s(&self) -> f64 {
        (PAYLOAD_BYTES * self.concurrency) as f64 / 1e6 / self.elapsed.as_secs_f64()
    }
}

/// What the upload benchmark found.
#[derive(Debug, Clone)]
pub enum Uploads {
    /// Measured: through the gateway, and the direct baseline.
    Measured(Vec<UploadSample>, Vec<DirectUpload>),
    /// The gateway at this commit cannot do it (e.g. UNIMPLEMENTED).
    Unavailable(String),
}

/// A 30 MiB MP4-looking payload: an `ftyp` box, then pseudo-random bytes
/// (incompressible, deterministic).
pub fn video_payload() -> Bytes {
    let mut v = Vec::with_capacity(PAYLOAD_BYTES);
    v.extend_from_slice(&[0, 0, 0, 0x18]);
    v.extend_from_slice(b"ftypmp42\0\0\0\0mp42isom");
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    while v.len() < PAYLOAD_BYTES {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(PAYLOAD_BYTES);
    Bytes::from(v)
}

/// Streams `payload` as a video and sends it to the benchmark group;
/// returns how long the upload and the send took.
pub async fn upload_and_send(
    gw: &GatewayProc,
    payload: Bytes,
    sha256: String,
) -> Result<(Duration, Duration)> {
    let started = Instant::now();
    let header = pb::UploadMediaRequest {
        payload: Some(pb::upload_media_request::Payload::Header(
            pb::UploadMediaHeader {
                account_id: String::new(),
                kind: pb::MediaKind::Video as i32,
                file_name: "bench.mp4".into(),
                size: Some(payload.len() as i64),
                sha256: Some(sha256),
            },
        )),
    };
    let chunks = (0..payload.len()).step_by(CHUNK_BYTES).map(move |i| {
        let end = (i + CHUNK_BYTES).min(payload.len());
        pb::UploadMediaRequest {
            payload: Some(pb::upload_media_request::Payload::Chunk(
                payload[i..end].to_vec(),
            )),
        }
    });
    let stream = futures_util::stream::iter(std::iter::once(header).chain(chunks));
    let staged = gw
        .media()
        .upload_media(stream)
        .await
        .context("UploadMedia")?
        .into_inner();
    let uploaded = started.elapsed();
    let started = Instant::now();
    let sent = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            group_id: Some(BENCH_GROUP),
            videos: vec![pb::MediaSource {
                source: Some(pb::media_source::Source::MediaId(staged.media_id)),
            }],
            ..Default::default()
        })
        .await
        .context("SendMessage")?
        .into_inner();
    if sent.queued || sent.message_ids.len() != 1 {
        bail!(
            "SendMessage: queued {} ids {:?}",
            sent.queued,
            sent.message_ids
        );
    }
    Ok((uploaded, started.elapsed()))
}

/// Runs `rounds` rounds of each concurrency.
pub async fn measure(bin: &Path, ws_url: &str, peer_pid: u32, rounds: usize) -> Result<Uploads> {
    let payload = video_payload();
    let sha = hex::encode(Sha256::digest(&payload));
    let opts = GatewayOptions {
        account_extra: RAISED_LIMITS.into(),
        ..GatewayOptions::default()
    };
    let mut samples = Vec::new();
    let mut direct = Vec::new();
    for _ in 0..rounds {
        for &n in &UPLOAD_CONCURRENCY {
            let gw = GatewayProc::start(bin, ws_url, &opts).await?;
            gw.wait_account_connected().await?;
            let sample = match scenario(&gw, peer_pid, (&payload, &sha), n).await {
                Ok(sample) => sample,
                Err(e) => {
                    let unimplemented = e
                        .chain()
                        .filter_map(|c| c.downcast_ref::<tonic::Status>())
                        .any(|s| s.code() == tonic::Code::Unimplemented);
                    if unimplemented {
                        return Ok(Uploads::Unavailable(format!("{e:#}")));
                    }
                    return Err(e);
                }
            };
            log_sample("upload", &sample);
            samples.push(sample);
            gw.proc.kill().await?;
            // The direct baseline of the same size right after, so the pair
            // meets the machine in the same state.
            let d = direct_upload(ws_url, peer_pid, &payload, n).await?;
            eprintln!(
                "bench: direct upload x{n}: {:.0} MB/s (CPU sandbox {:.0} ms)",
                d.mb_per_s(),
                d.peer_cpu.as_secs_f64() * 1e3
            );
            direct.push(d);
        }
    }
    Ok(Uploads::Measured(samples, direct))
}

/// One scenario on `gw`, a fresh gateway connected to the peer `peer_pid`:
/// `n` uploads of `payload` (with its SHA-256 `sha`) and their sends at
/// once.
pub async fn scenario(
    gw: &GatewayProc,
    peer_pid: u32,
    (payload, sha): (&Bytes, &str),
    n: usize,
) -> Result<UploadSample> {
    let idle_rss = gw.proc.rss()?;
    let cpu_before = (cpu_time(gw.proc.pid)?, cpu_time(peer_pid)?);
    let started = Instant::now();
    let runs = (0..n).map(|_| upload_and_send(gw, payload.clone(), sha.to_string()));
    let results = futures_util::future::join_all(runs).await;
    let elapsed = started.elapsed();
    let (mut upload, mut send) = (Duration::ZERO, Duration::ZERO);
    for r in results {
        let (u, s) = r.map_err(|e| e.context(format!("{n} concurrent uploads")))?;
        upload = upload.max(u);
        send = send.max(s);
    }
    let peak_rss = gw.proc.peak_rss()?;
    let gateway_cpu = cpu_time(gw.proc.pid)?.saturating_sub(cpu_before.0);
    let peer_cpu = cpu_time(peer_pid)?.saturating_sub(cpu_before.1);
    Ok(UploadSample {
        concurrency: n,
        elapsed,
        upload,
        send,
        peak_rss,
        idle_rss,
        gateway_cpu,
        peer_cpu,
    })
}

/// Logs one scenario to stderr, `label` first (`upload`, `Milky upload`).
pub fn log_sample(label: &str, s: &UploadSample) {
    eprintln!(
        "bench: {label} x{}: {:.0} MB/s (UploadMedia {:.0} ms, SendMessage {:.0} ms; CPU gateway {:.0} ms, sandbox {:.0} ms), idle RSS {:.1} MiB, peak RSS {:.1} MiB ({:.2} × payload above idle)",
        s.concurrency,
        s.mb_per_s(),
        s.upload.as_secs_f64() * 1e3,
        s.send.as_secs_f64() * 1e3,
        s.gateway_cpu.as_secs_f64() * 1e3,
        s.peer_cpu.as_secs_f64() * 1e3,
        s.idle_rss as f64 / 1048576.0,
        s.peak_rss as f64 / 1048576.0,
        s.growth_multiple()
    );
}

/// Sends the video's `send_group_msg` frame, encoded beforehand, over `n`
/// connections at once and waits for every reply.
pub async fn direct_upload(
    ws_url: &str,
    peer_pid: u32,
    payload: &[u8],
    n: usize,
) -> Result<DirectUpload> {
    use base64::Engine as _;
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let file = format!(
        "base64://{}",
        base64::engine::general_purpose::STANDARD.encode(payload)
    );
    let frame = serde_json::json!({
        "action": "send_group_msg",
        "params": {"group_id": BENCH_GROUP, "message": [{"type": "video", "data": {"file": file}}]},
        "echo": "direct-upload",
    })
    .to_string();
    drop(file);
    let text = tokio_tungstenite::tungstenite::Utf8Bytes::from(frame);
    let mut sockets = Vec::with_capacity(n);
    for _ in 0..n {
        let config = tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
            .max_message_size(None)
            .max_frame_size(None);
        let (ws, _) = tokio_tungstenite::connect_async_with_config(ws_url, Some(config), false)
            .await
            .with_context(|| format!("connecting to {ws_url}"))?;
        sockets.push(ws);
    }
    let peer_before = cpu_time(peer_pid)?;
    let started = Instant::now();
    let sends = sockets.into_iter().map(|mut ws| {
        let text = text.clone();
        async move {
            ws.send(Message::Text(text)).await?;
            while let Some(msg) = ws.next().await {
                let Message::Text(reply) = msg? else { continue };
                let reply: serde_json::Value = serde_json::from_str(&reply)?;
                if reply.get("echo").and_then(|e| e.as_str()) == Some("direct-upload") {
                    if reply.get("status").and_then(|s| s.as_str()) != Some("ok") {
                        bail!("direct send_group_msg failed: {reply}");
                    }
                    return Ok(());
                }
            }
            bail!("the sandbox closed before answering")
        }
    });
    for r in futures_util::future::join_all(sends).await {
        r?;
    }
    let elapsed = started.elapsed();
    Ok(DirectUpload {
        concurrency: n,
        elapsed,
        peer_cpu: cpu_time(peer_pid)?.saturating_sub(peer_before),
    })
}
