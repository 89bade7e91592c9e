//! `bench soak`: steady mixed load on a gateway process for minutes, its
//! RSS sampled every second; fails on any error or if memory keeps growing.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use onebot_gateway_client::pb;
use onebot_gateway_client::pb::group_service_client::GroupServiceClient;
use onebot_gateway_client::pb::message_service_client::MessageServiceClient;
use tonic::Code;
use tonic::transport::Channel;

use crate::load::median;
use crate::procs::{BENCH_GROUP, GatewayOptions, GatewayProc, SandboxProc};
use crate::upload::RAISED_LIMITS;
use crate::workload::{history_request, members_request};

/// Settings of a soak.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// How long the steady load lasts.
    pub duration: Duration,
    /// Concurrent callers.
    pub concurrency: usize,
    /// The gateway binary (built when absent).
    pub gateway_bin: Option<PathBuf>,
}

/// Events kept for resumes by the soaked gateway.
pub const SOAK_EVENT_BUFFER: usize = 64;

/// Samples of the first seconds (start-up, first allocations) are not judged.
pub const WARM_UP: Duration = Duration::from_secs(5);

/// Memory may grow this much (bytes) between the middle and last thirds …
pub const FLAT_SLACK_BYTES: f64 = 3.0 * 1048576.0;
/// … or by this fraction of the middle third, whichever is larger.
pub const FLAT_SLACK_FRACTION: f64 = 0.10;

/// Runs the soak and prints what it saw; an error when it failed.
pub async fn run(opts: SoakOptions) -> Result<()> {
    let bin = crate::procs::gateway_binary(opts.gateway_bin.clone())?;
    let sandbox = SandboxProc::start(&bin).await?;
    let gw = GatewayProc::start(
        &bin,
        &sandbox.ws_url,
        &GatewayOptions {
            account_extra: RAISED_LIMITS.into(),
            // The event resume buffer is bounded by design (1024 events by
            // default) and fills with the bot's own sends; a small one fills
            // within the warm-up, so what is left to see is a leak.
            config_extra: format!("[events]\nbuffer_size = {SOAK_EVENT_BUFFER}\n"),
            ..GatewayOptions::default()
        },
    )
    .await?;
    gw.wait_account_connected().await?;
    let sends = sends_available(&gw).await?;
    eprintln!(
        "soak: {} s at concurrency {}, {}",
        opts.duration.as_secs(),
        opts.concurrency,
        if sends {
            "reads and sends"
        } else {
            "reads only (SendMessage is not implemented at this commit)"
        }
    );

    let calls = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let first_error = Arc::new(std::sync::Mutex::new(None::<String>));
    let mut workers = Vec::new();
    for w in 0..opts.concurrency {
        let mut messages = gw.messages();
        let mut groups = gw.groups();
        let (calls, errors, stop, first_error) = (
            calls.clone(),
            errors.clone(),
            stop.clone(),
            first_error.clone(),
        );
        workers.push(tokio::spawn(async move {
            let mut i: u64 = w as u64;
            while !stop.load(Ordering::Relaxed) {
                let r = call(&mut messages, &mut groups, i, sends).await;
                calls.fetch_add(1, Ordering::Relaxed);
                if let Err(s) = r {
                    errors.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut f) = first_error.lock() {
                        f.get_or_insert_with(|| format!("{s:?}"));
                    }
                }
                i += MIX_STRIDE;
            }
        }));
    }

    let samples = sample_rss(&gw, opts.duration, &calls, &errors).await?;
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        let _ = w.await;
    }
    let total = calls.load(Ordering::Relaxed);
    let errs = errors.load(Ordering::Relaxed);
    let judged: Vec<(f64, u64)> = samples
        .iter()
        .copied()
        .filter(|(t, _)| *t >= WARM_UP.as_secs_f64())
        .collect();
    let verdict = flatness(if judged.len() >= 3 { &judged } else { &samples });
    println!(
        "soak: {} s, {total} calls ({:.0}/s), {errs} errors; RSS middle third {:.1} MiB, last third {:.1} MiB, max {:.1} MiB, peak (VmHWM) {:.1} MiB",
        opts.duration.as_secs(),
        total as f64 / opts.duration.as_secs_f64(),
        verdict.first / 1048576.0,
        verdict.last / 1048576.0,
        verdict.max / 1048576.0,
        gw.proc.peak_rss()? as f64 / 1048576.0
    );
    gw.proc.kill().await?;
    if errs > 0 {
        let first = first_error.lock().ok().and_then(|f| f.clone());
        bail!("{errs} calls failed; first: {}", first.unwrap_or_default());
    }
    if total == 0 {
        bail!("no call completed");
    }
    if !verdict.flat {
        bail!(
            "memory grew from {:.1} MiB to {:.1} MiB (allowed: {:.1} MiB)",
            verdict.first / 1048576.0,
            verdict.last / 1048576.0,
            verdict.allowed / 1048576.0
        );
    }
    println!("soak: passed (no errors, memory flat)");
    Ok(())
}

/// The `i`th call of the mix: reads, and a send now and then when the
/// gateway has SendMessage.
async fn call(
    messages: &mut MessageServiceClient<Channel>,
    groups: &mut GroupServiceClient<Channel>,
    i: u64,
    sends: bool,
) -> Result<(), tonic::Status> {
    match i % 8 {
        0..=2 => messages.get_history(history_request()).await.map(drop),
        3 => groups.list_group_members(members_request()).await.map(drop),
        4 => groups
            .list_group_members(pb::ListGroupMembersRequest {
                no_cache: None,
                ..members_request()
            })
            .await
            .map(drop),
        5 => groups
            .list_groups(pb::ListGroupsRequest::default())
            .await
            .map(drop),
        6 if sends && i % 64 == 6 => messages
            .send_message(pb::SendMessageRequest {
                group_id: Some(BENCH_GROUP),
                text: format!("soak {i}"),
                ..Default::default()
            })
            .await
            .map(drop),
        _ => messages
            .get_history(pb::GetHistoryRequest {
                count: 100,
                ..history_request()
            })
            .await
            .map(drop),
    }
}

/// The gateway's RSS once a second for `duration` as (seconds since the
/// start, bytes), with a progress line now and then.
async fn sample_rss(
    gw: &GatewayProc,
    duration: Duration,
    calls: &AtomicU64,
    errors: &AtomicU64,
) -> Result<Vec<(f64, u64)>> {
    let started = Instant::now();
    let mut samples: Vec<(f64, u64)> = Vec::new();
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    let report_every = Duration::from_secs(30)
        .min(duration / 4)
        .max(Duration::from_secs(5));
    let mut last_report = Instant::now();
    while started.elapsed() < duration {
        ticker.tick().await;
        samples.push((started.elapsed().as_secs_f64(), gw.proc.rss()?));
        if last_report.elapsed() >= report_every {
            last_report = Instant::now();
            eprintln!(
                "soak: {:>5.0} s  {} calls  {} errors  RSS {:.1} MiB",
                started.elapsed().as_secs_f64(),
                calls.load(Ordering::Relaxed),
                errors.load(Ordering::Relaxed),
                samples.last().map_or(0.0, |s| s.1 as f64 / 1048576.0)
            );
        }
    }
    Ok(samples)
}

/// Each worker walks the call mix with a stride co-prime to 8, so workers
/// started together spread over the mix.
const MIX_STRIDE: u64 = 3;

/// Medians of the middle and last thirds of the RSS samples (after the
/// warm-up). The first third is not judged: the gateway's bounded caches
/// (SQLite page caches, the quote and id caches, the allocator's pages)
/// fill while the stores grow, and a 180 s soak at ~2500 calls/s levels off
/// after about 100 s (43 → 49.5 MiB, then flat). A leak still shows as
/// growth from the middle third to the last.
#[derive(Debug, Clone, Copy)]
pub struct Flatness {
    /// Median RSS of the middle third.
    pub first: f64,
    /// Median RSS of the last third.
    pub last: f64,
    /// Largest sample.
    pub max: f64,
    /// Growth allowed.
    pub allowed: f64,
    /// `last - first <= allowed`.
    pub flat: bool,
}

/// Judges `(seconds, rss)` samples.
pub fn flatness(samples: &[(f64, u64)]) -> Flatness {
    let values: Vec<f64> = samples.iter().map(|s| s.1 as f64).collect();
    let third = (values.len() / 3).max(1);
    let middle = &values[third.min(values.len())..(2 * third).min(values.len())];
    let first = median(if middle.is_empty() { &values } else { middle });
    let last = median(&values[values.len().saturating_sub(third)..]);
    let allowed = FLAT_SLACK_BYTES.max(first * FLAT_SLACK_FRACTION);
    Flatness {
        first,
        last,
        max: values.iter().copied().fold(0.0, f64::max),
        allowed,
        flat: last - first <= allowed,
    }
}

/// True when the gateway implements SendMessage (a text send succeeds).
async fn sends_available(gw: &GatewayProc) -> Result<bool> {
    let r = gw
        .messages()
        .send_message(pb::SendMessageRequest {
            group_id: Some(BENCH_GROUP),
            text: "soak start".into(),
            ..Default::default()
        })
        .await;
    match r {
        Ok(_) => Ok(true),
        Err(s) if s.code() == Code::Unimplemented => Ok(false),
        Err(s) => bail!("SendMessage: {s:?}"),
    }
}
