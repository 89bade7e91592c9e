//! How the gateway's cost grows: with the accounts it serves (idle memory
//! and CPU of one process with 1, 10 and 100 connected accounts) and with
//! the subscribers of one account's events (CPU per delivered event with 1,
//! 10 and 100 `StreamEvents` subscribers at a steady injection rate, against
//! the bare tonic echo's CPU per call measured in the same run).
//!
//! The peer is an in-process sandbox (one listener serves every account's
//! forward WebSocket and injects the events); only the gateway process's
//! CPU and memory are counted.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use futures_util::{StreamExt as _, TryStreamExt as _};
use onebot_gateway_client::pb;
use onebot_sandbox::{Sandbox, SandboxConfig};
use prost::Message as _;
use serde_json::json;
use tonic::transport::Channel;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

use crate::echo::{EchoClient, EchoProc};
use crate::load;
use crate::procs::{BENCH_GROUP, GatewayOptions, GatewayProc, cpu_time};

/// Account counts of the accounts measurement.
pub const ACCOUNT_COUNTS: [usize; 3] = [1, 10, 100];
/// Subscriber counts of the subscribers measurement.
pub const SUBSCRIBER_COUNTS: [usize; 3] = [1, 10, 100];
/// Target: resident memory per added account, MiB.
pub const RSS_PER_ACCOUNT_TARGET_MIB: f64 = 0.5;
/// Target: idle CPU per account per second, ms.
pub const IDLE_CPU_TARGET_MS: f64 = 1.0;
/// Target: gateway CPU per delivery at the most subscribers, as a fraction
/// of the echo server's CPU per call.
pub const DELIVERY_RATIO_TARGET: f64 = 0.2;
/// The sandbox's heartbeat period.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// The group member whose messages are injected.
const SENDER: i64 = 10001;

/// Settings of [`measure`].
#[derive(Debug, Clone)]
pub struct Options {
    /// Idle window of each accounts point (after every account connected
    /// and `settle` passed).
    pub idle: Duration,
    /// Time given to connection-time work before the idle window starts.
    pub settle: Duration,
    /// Injected events per second in the subscribers measurement.
    pub events_per_sec: u32,
    /// Injection window of each subscribers point.
    pub inject: Duration,
    /// Length of the echo load.
    pub echo: Duration,
    /// Concurrent callers of the echo load.
    pub echo_concurrency: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            idle: Duration::from_secs(5),
            settle: Duration::from_secs(1),
            events_per_sec: 1000,
            inject: Duration::from_secs(3),
            echo: Duration::from_secs(2),
            echo_concurrency: 16,
        }
    }
}

/// One gateway process idling with `accounts` connected accounts.
#[derive(Debug, Clone, Copy, Default)]
pub struct AccountsPoint {
    /// Connected accounts.
    pub accounts: usize,
    /// VmRSS at the end of the idle window, bytes.
    pub rss: u64,
    /// Gateway CPU time over the idle window.
    pub cpu: Duration,
    /// The idle window.
    pub window: Duration,
    /// Spawn to every account connected.
    pub connected: Duration,
}

impl AccountsPoint {
    /// Idle CPU per account per second, ms.
    pub fn cpu_per_account_ms(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e3 / self.accounts.max(1) as f64 / secs(self.window)
    }
}

/// One account's events streamed to `subscribers` subscribers.
#[derive(Debug, Clone, Default)]
pub struct SubscribersPoint {
    /// `StreamEvents` subscribers (each on its own connection).
    pub subscribers: usize,
    /// Events injected.
    pub events: u64,
    /// Injection start to the last subscriber having every event.
    pub window: Duration,
    /// Gateway CPU time over the window.
    pub cpu: Duration,
    /// Injected events per second actually achieved.
    pub rate: f64,
    /// Subscribers that did not get every event in order, with the first
    /// problem of each (a lag or other error, a gap, a missing or
    /// misordered event).
    pub problems: Vec<String>,
}

impl SubscribersPoint {
    /// Events × subscribers.
    pub fn deliveries(&self) -> u64 {
        self.events * self.subscribers as u64
    }

    /// Gateway CPU per delivery, µs.
    pub fn cpu_per_delivery_us(&self) -> f64 {
        self.cpu.as_secs_f64() * 1e6 / self.deliveries().max(1) as f64
    }
}

/// What [`measure`] found.
#[derive(Debug, Clone, Default)]
pub struct Scale {
    /// One point per entry of [`ACCOUNT_COUNTS`].
    pub accounts: Vec<AccountsPoint>,
    /// One point per entry of [`SUBSCRIBER_COUNTS`].
    pub subscribers: Vec<SubscribersPoint>,
    /// Encoded size of one streamed event (`StreamEventsResponse`), bytes;
    /// the echo answers this many bytes.
    pub event_bytes: usize,
    /// Echo server CPU per call, µs.
    pub echo_cpu_per_call_us: f64,
    /// Echo calls made.
    pub echo_calls: u64,
    /// Echo calls that failed.
    pub echo_errors: u64,
    /// Concurrent callers of the echo load.
    pub echo_concurrency: usize,
}

impl Scale {
    /// (RSS at the most accounts − RSS at one) / added accounts, MiB.
    pub fn rss_per_account_mib(&self) -> f64 {
        match (self.accounts.first(), self.accounts.last()) {
            (Some(a), Some(b)) if b.accounts > a.accounts => {
                (b.rss as f64 - a.rss as f64) / 1048576.0 / (b.accounts - a.accounts) as f64
            }
            _ => f64::NAN,
        }
    }

    /// Idle CPU per account per second at the most accounts, ms.
    pub fn idle_cpu_per_account_ms(&self) -> f64 {
        self.accounts
            .last()
            .map_or(f64::NAN, AccountsPoint::cpu_per_account_ms)
    }

    /// Gateway CPU per delivery at the most subscribers / echo CPU per call.
    pub fn delivery_ratio(&self) -> f64 {
        self.subscribers.last().map_or(f64::NAN, |p| {
            p.cpu_per_delivery_us() / self.echo_cpu_per_call_us
        })
    }

    /// Subscribers (over every point) that did not get every event in order.
    pub fn subscriber_problems(&self) -> usize {
        self.subscribers.iter().map(|p| p.problems.len()).sum()
    }
}

/// Measures both (about 45 s on two cores): the accounts points, then the
/// subscribers points, then the echo baseline.
pub async fn measure(bin: &Path, opts: &Options) -> Result<Scale> {
    // Heartbeats every 5 s (go-cqhttp's default; NapCat's is 30 s), so each
    // idle window holds about one per account.
    let sandbox = Sandbox::start(SandboxConfig {
        heartbeat_interval: Some(HEARTBEAT),
        ..SandboxConfig::default()
    })
    .await
    .context("starting the sandbox")?;
    let mut scale = Scale::default();
    for n in ACCOUNT_COUNTS {
        let p = accounts_point(bin, &sandbox, n, opts)
            .await
            .with_context(|| format!("{n} accounts"))?;
        eprintln!(
            "scale: {n} accounts: RSS {:.1} MiB, idle CPU {:.2} ms over {:.0} s",
            mib(p.rss),
            p.cpu.as_secs_f64() * 1e3,
            secs(p.window)
        );
        scale.accounts.push(p);
    }
    // The subscribers all come from 127.0.0.1 without a token, i.e. from one
    // client as the limits count them: let that client have them all.
    let most = SUBSCRIBER_COUNTS.iter().max().copied().unwrap_or(1);
    let gw = GatewayProc::start(
        bin,
        &sandbox.ws_url(),
        &GatewayOptions {
            config_extra: format!(
                "[limits]\nmax_event_streams_per_client = {most}\nmax_event_streams = {}\n",
                most.max(256)
            ),
            ..GatewayOptions::default()
        },
    )
    .await?;
    gw.wait_account_connected().await?;
    for n in SUBSCRIBER_COUNTS {
        let (p, bytes) = subscribers_point(&gw, &sandbox, n, opts)
            .await
            .with_context(|| format!("{n} subscribers"))?;
        eprintln!(
            "scale: {n} subscribers: {} events at {:.0}/s, gateway CPU {} ms, {:.2} µs per delivery, {} problems",
            p.events,
            p.rate,
            p.cpu.as_millis(),
            p.cpu_per_delivery_us(),
            p.problems.len()
        );
        scale.event_bytes = scale.event_bytes.max(bytes);
        scale.subscribers.push(p);
    }
    gw.proc.kill().await?;
    let echo = EchoProc::start(scale.event_bytes.max(1) as u32).await?;
    let client = EchoClient::new(echo.channel.clone());
    let n = scale.event_bytes as u32;
    let call = load::call(move || {
        let mut c = client.clone();
        async move { c.echo(n).await.map(drop).map_err(|s| s.to_string()) }
    });
    let before = cpu_time(echo.pid)?;
    let stats = load::run(&call, opts.echo_concurrency, 20, opts.echo).await;
    let cpu = cpu_time(echo.pid)?.saturating_sub(before);
    scale.echo_calls = stats.latencies.len() as u64;
    scale.echo_errors = stats.errors;
    scale.echo_concurrency = opts.echo_concurrency;
    scale.echo_cpu_per_call_us = cpu.as_secs_f64() * 1e6 / scale.echo_calls.max(1) as f64;
    eprintln!(
        "scale: echo ({} B): {} calls, {:.2} µs CPU per call",
        scale.event_bytes, scale.echo_calls, scale.echo_cpu_per_call_us
    );
    if scale.echo_calls == 0 {
        bail!(
            "the echo baseline made no call: {}",
            stats.first_error.unwrap_or_default()
        );
    }
    sandbox.shutdown().await;
    Ok(scale)
}

/// Health watches open at once while waiting for accounts to connect (below
/// the gateway's default cap of 16 per address).
const WATCHES_AT_ONCE: usize = 8;

/// Account names of a gateway with `n` accounts: `default`, `a2` … `a<n>`.
fn account_names(n: usize) -> Vec<String> {
    std::iter::once("default".to_string())
        .chain((2..=n).map(|i| format!("a{i}")))
        .collect()
}

async fn accounts_point(
    bin: &Path,
    sandbox: &Sandbox,
    n: usize,
    opts: &Options,
) -> Result<AccountsPoint> {
    let ws_url = sandbox.ws_url();
    let mut extra = String::new();
    for name in account_names(n).iter().skip(1) {
        writeln!(
            extra,
            "[accounts.{name}]\nws_url = {ws_url:?}\ngroups = [{BENCH_GROUP}]\n"
        )?;
    }
    let gw = GatewayProc::start(
        bin,
        &ws_url,
        &GatewayOptions {
            config_extra: extra,
            ..GatewayOptions::default()
        },
    )
    .await?;
    // A few watches at a time: the gateway caps health watches without a
    // token per address (`limits.max_anonymous_health_watches_per_address`).
    let waits = account_names(n)
        .into_iter()
        .map(|name| wait_connected(gw.channel.clone(), name));
    futures_util::stream::iter(waits)
        .buffer_unordered(WATCHES_AT_ONCE)
        .try_collect::<Vec<()>>()
        .await?;
    let connected = gw.proc.started.elapsed();
    tokio::time::sleep(opts.settle).await;
    let pid = gw.proc.pid;
    let (before, before_ns) = (cpu_time(pid)?, thread_cpu(pid)?);
    let t = Instant::now();
    tokio::time::sleep(opts.idle).await;
    // Ticks count ended threads too; the threads' nanoseconds see below a
    // tick: the larger of the two.
    let ticks = cpu_time(pid)?.saturating_sub(before);
    let cpu = ticks.max(thread_cpu(pid)?.saturating_sub(before_ns));
    let window = t.elapsed();
    let rss = gw.proc.rss()?;
    gw.proc.kill().await?;
    Ok(AccountsPoint {
        accounts: n,
        rss,
        cpu,
        window,
        connected,
    })
}

/// Waits (health Watch) until account `name` is SERVING, i.e. connected.
async fn wait_connected(channel: Channel, name: String) -> Result<()> {
    let mut health = HealthClient::new(channel);
    let mut stream = health
        .watch(HealthCheckRequest {
            service: format!("onebot.gateway.v1.account.{name}"),
        })
        .await?
        .into_inner();
    let wait = async {
        while let Some(HealthCheckResponse { status }) = stream.message().await? {
            if status == ServingStatus::Serving as i32 {
                return Ok(());
            }
        }
        bail!("health watch of account {name} ended")
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .map_err(|_| anyhow!("account {name} not connected within 30 s"))?
}

/// What one subscriber saw.
#[derive(Debug, Default)]
struct Seen {
    /// Message ids of the injected messages, in arrival order.
    ids: Vec<i64>,
    /// The first problem (error, end, sequence gap).
    problem: Option<String>,
    /// Encoded size of the largest event.
    bytes: usize,
}

/// Reads `stream` until it has `total` injected messages, or an error or
/// its end.
async fn subscriber(
    mut stream: tonic::Streaming<pb::StreamEventsResponse>,
    total: usize,
) -> (Seen, Instant) {
    let mut seen = Seen::default();
    let mut last_seq = None::<u64>;
    while seen.ids.len() < total {
        match stream.message().await {
            Ok(Some(resp)) => {
                // The stream starts with a heartbeat and carries one after
                // each quiet spell: not events.
                if resp.heartbeat.is_some() {
                    continue;
                }
                seen.bytes = seen.bytes.max(resp.encoded_len());
                let Some(ev) = resp.event else {
                    seen.problem
                        .get_or_insert_with(|| "a response without event".into());
                    continue;
                };
                if let Some(prev) = last_seq
                    && ev.sequence != prev + 1
                {
                    seen.problem
                        .get_or_insert_with(|| format!("sequence {} after {prev}", ev.sequence));
                }
                last_seq = Some(ev.sequence);
                if let Some(pb::event::Kind::Message(m)) = ev.kind
                    && let Some(msg) = m.message
                    && msg.text.starts_with(MARK)
                {
                    seen.ids.push(msg.message_id);
                }
            }
            Ok(None) => {
                seen.problem.get_or_insert_with(|| "stream ended".into());
                break;
            }
            Err(s) => {
                seen.problem
                    .get_or_insert_with(|| format!("{:?}: {}", s.code(), s.message()));
                break;
            }
        }
    }
    (seen, Instant::now())
}

/// Text prefix of the injected messages.
const MARK: &str = "scale ";

async fn subscribers_point(
    gw: &GatewayProc,
    sandbox: &Sandbox,
    n: usize,
    opts: &Options,
) -> Result<(SubscribersPoint, usize)> {
    let total = (opts.events_per_sec as f64 * secs(opts.inject)).round() as usize;
    // Each subscriber has its own connection, as separate clients would.
    let mut streams = Vec::with_capacity(n);
    for _ in 0..n {
        let channel = Channel::from_shared(format!("http://{}", gw.addr))?
            .connect()
            .await?;
        let mut client = pb::event_service_client::EventServiceClient::new(channel);
        // The response (headers) arrives once the subscription exists.
        let stream = client
            .stream_events(pb::StreamEventsRequest {
                account_id: "default".into(),
                ..Default::default()
            })
            .await?
            .into_inner();
        streams.push(stream);
    }
    let tasks: Vec<_> = streams
        .into_iter()
        .map(|s| tokio::spawn(subscriber(s, total)))
        .collect();
    let control = sandbox.control();
    let pid = gw.proc.pid;
    let before = cpu_time(pid)?;
    let t = Instant::now();
    // Injection in ticks of 10 ms; a late tick catches up (burst).
    let per_tick = (opts.events_per_sec / 100).max(1) as usize;
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    let mut injected = Vec::with_capacity(total);
    while injected.len() < total {
        tick.tick().await;
        for _ in 0..per_tick.min(total - injected.len()) {
            let text = format!("{MARK}{}", injected.len());
            injected.push(control.inject_group_message(BENCH_GROUP, SENDER, json!(text)));
        }
    }
    let inject_time = t.elapsed();
    let mut problems = Vec::new();
    let mut bytes = 0;
    let mut last = t;
    let all = futures_util::future::join_all(tasks);
    match tokio::time::timeout(Duration::from_secs(20), all).await {
        Ok(results) => {
            for (i, r) in results.into_iter().enumerate() {
                let (seen, finished) = r.context("subscriber task")?;
                last = last.max(finished);
                bytes = bytes.max(seen.bytes);
                if let Some(p) = seen.problem {
                    problems.push(format!("subscriber {i}: {p}"));
                } else if seen.ids != injected {
                    let first_diff = seen
                        .ids
                        .iter()
                        .zip(&injected)
                        .position(|(a, b)| a != b)
                        .unwrap_or(seen.ids.len().min(injected.len()));
                    problems.push(format!(
                        "subscriber {i}: {} of {total} events, first difference at {first_diff}",
                        seen.ids.len()
                    ));
                }
            }
        }
        Err(_) => {
            last = Instant::now();
            problems.push("not every subscriber had every event within 20 s".to_string());
        }
    }
    let cpu = cpu_time(pid)?.saturating_sub(before);
    Ok((
        SubscribersPoint {
            subscribers: n,
            events: total as u64,
            window: last - t,
            cpu,
            rate: total as f64 / secs(inject_time),
            problems,
        },
        bytes,
    ))
}

/// CPU time of the live threads of `pid`, in nanoseconds, summed from
/// `/proc/<pid>/task/*/schedstat` (its first field: time on CPU).
fn thread_cpu(pid: u32) -> Result<Duration> {
    let mut ns = 0u64;
    let dir = format!("/proc/{pid}/task");
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {dir}"))? {
        let path = entry?.path().join("schedstat");
        // A thread may end between the listing and the read.
        if let Ok(text) = std::fs::read_to_string(&path) {
            ns += text
                .split_whitespace()
                .next()
                .and_then(|f| f.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Ok(Duration::from_nanos(ns))
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64().max(1e-9)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1048576.0
}

/// (what, value, target, met) for each target of the section.
pub fn targets(s: &Scale) -> Vec<(String, String, String, bool)> {
    let rss = s.rss_per_account_mib();
    let cpu = s.idle_cpu_per_account_ms();
    let ratio = s.delivery_ratio();
    let problems = s.subscriber_problems();
    let most_accounts = s.accounts.last().map_or(0, |p| p.accounts);
    let most_subs = s.subscribers.last().map_or(0, |p| p.subscribers);
    vec![
        (
            format!("RSS per added account (1 → {most_accounts} accounts)"),
            format!("{rss:.3} MiB"),
            format!("≤ {RSS_PER_ACCOUNT_TARGET_MIB} MiB"),
            rss <= RSS_PER_ACCOUNT_TARGET_MIB,
        ),
        (
            format!("Idle CPU per account per second ({most_accounts} accounts)"),
            format!("{cpu:.3} ms"),
            format!("≤ {IDLE_CPU_TARGET_MS} ms"),
            cpu <= IDLE_CPU_TARGET_MS,
        ),
        (
            "Subscribers that lagged, erred or missed an event (1, 10, 100)".to_string(),
            problems.to_string(),
            "0".to_string(),
            problems == 0 && !s.subscribers.is_empty(),
        ),
        (
            format!("Gateway CPU per delivery at {most_subs} subscribers / echo CPU per call"),
            format!("{ratio:.3}"),
            format!("≤ {DELIVERY_RATIO_TARGET}"),
            ratio <= DELIVERY_RATIO_TARGET,
        ),
    ]
}

/// The "How cost grows" section of the report.
pub fn render(s: &Scale) -> String {
    let mut out = String::new();
    let _ = render_into(&mut out, s);
    out
}

fn render_into(out: &mut String, s: &Scale) -> std::fmt::Result {
    writeln!(out, "## How cost grows\n")?;
    writeln!(
        out,
        "One gateway process, one in-process sandbox peer serving every account's \
         forward WebSocket; only the gateway process is measured (`/proc`: VmRSS; \
         user + system CPU in 10 ms ticks, and for the idle windows also the \
         threads' nanoseconds from `schedstat`, the larger of the two).\n"
    )?;
    writeln!(out, "### Accounts\n")?;
    writeln!(
        out,
        "Idle after every account connected (health SERVING) and a settling pause; \
         RSS at the end of the idle window. The peer sends a heartbeat every {} s \
         on each connection.\n",
        HEARTBEAT.as_secs()
    )?;
    writeln!(
        out,
        "| accounts | connected after | RSS | idle CPU (window) | idle CPU per account per second |"
    )?;
    writeln!(out, "|---:|---:|---:|---:|---:|")?;
    for p in &s.accounts {
        writeln!(
            out,
            "| {} | {:.2} s | {:.1} MiB | {:.2} ms ({:.1} s) | {:.4} ms |",
            p.accounts,
            p.connected.as_secs_f64(),
            mib(p.rss),
            p.cpu.as_secs_f64() * 1e3,
            p.window.as_secs_f64(),
            p.cpu_per_account_ms()
        )?;
    }
    writeln!(
        out,
        "\nRSS per added account: **{:.3} MiB** (target ≤ {RSS_PER_ACCOUNT_TARGET_MIB}); \
         idle CPU per account per second at {} accounts: **{:.3} ms** (target ≤ {IDLE_CPU_TARGET_MS}).\n",
        s.rss_per_account_mib(),
        s.accounts.last().map_or(0, |p| p.accounts),
        s.idle_cpu_per_account_ms()
    )?;
    writeln!(out, "### Subscribers\n")?;
    writeln!(
        out,
        "Group messages injected into one account's peer at a steady rate, each \
         subscriber on its own connection; the window runs from the first \
         injection until every subscriber has every event. A problem is a \
         subscriber that lagged or erred, saw a sequence gap, or missed or \
         reordered an event. The subscribers share one address and no token, \
         so `[limits] max_event_streams_per_client` is raised to let them all \
         in. Echo: the bare tonic service answering {} bytes \
         (one streamed event) at concurrency {}, {} calls.\n",
        s.event_bytes, s.echo_concurrency, s.echo_calls
    )?;
    writeln!(
        out,
        "| subscribers | events | rate | window | gateway CPU | CPU per delivery | / echo CPU per call | problems |"
    )?;
    writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|---|")?;
    for p in &s.subscribers {
        writeln!(
            out,
            "| {} | {} | {:.0}/s | {:.2} s | {} ms | {:.2} µs | {:.3} | {} |",
            p.subscribers,
            p.events,
            p.rate,
            p.window.as_secs_f64(),
            p.cpu.as_millis(),
            p.cpu_per_delivery_us(),
            p.cpu_per_delivery_us() / s.echo_cpu_per_call_us,
            if p.problems.is_empty() {
                "none".to_string()
            } else {
                format!("{}: {}", p.problems.len(), p.problems[0])
            }
        )?;
    }
    writeln!(
        out,
        "\nEcho CPU per call: {:.2} µs. At {} subscribers the gateway spends \
         **{:.3}×** the echo's CPU per call on each delivery (target ≤ {DELIVERY_RATIO_TARGET}).",
        s.echo_cpu_per_call_us,
        s.subscribers.last().map_or(0, |p| p.subscribers),
        s.delivery_ratio()
    )?;
    Ok(())
}
