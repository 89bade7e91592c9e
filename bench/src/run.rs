//! The benchmark proper: every measurement, interleaved in rounds, against
//! baselines measured in the same run.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use onebot_gateway::domain::model::ChatRef;
use onebot_gateway::onebot::history::profile::HistoryProfile;
use onebot_gateway::onebot::{Flavor, history};
use onebot_gateway_client::pb;
use prost::Message as _;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tonic::transport::Channel;

use crate::direct::DirectClient;
use crate::echo::EchoClient;
use crate::load::{self, Call, RunStats, median};
use crate::machine::{self, Machine};
use crate::procs::{BENCH_GROUP, GatewayOptions, GatewayProc, SandboxProc};
use crate::report::{self, Report};
use crate::upload;

/// Settings of a benchmark run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Rounds of every measurement (medians are over rounds).
    pub rounds: usize,
    /// Length of one timed run at concurrency 1.
    pub run_c1: Duration,
    /// Length of one timed run at concurrency 64.
    pub run_c64: Duration,
    /// Gateway processes started for the start-up and idle measurements.
    pub starts: usize,
    /// The gateway binary (built when absent).
    pub gateway_bin: Option<PathBuf>,
    /// Where the report goes.
    pub out: PathBuf,
}

/// Messages asked for in GetHistory (and its direct counterpart).
pub const HISTORY_COUNT: u32 = 20;
/// The group whose members are listed (120 members, 100 shown).
pub const MEMBERS_GROUP: i64 = onebot_sandbox::EXAMPLE_GROUP;
/// The concurrencies measured.
pub const CONCURRENCIES: [usize; 2] = [1, 64];
/// Page sizes of the page-size scaling measurement.
pub const PAGE_SIZES: [u32; 3] = [1, 20, 100];

/// Percentiles and throughput of one run, in microseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Summary {
    /// Median latency, µs.
    pub p50: f64,
    /// 99th percentile latency, µs.
    pub p99: f64,
    /// Successful calls per second.
    pub rps: f64,
    /// Failed calls.
    pub errors: u64,
    /// CPU time of the serving process (echo server, sandbox, gateway) per
    /// successful call, µs.
    pub server_cpu: f64,
    /// CPU time of the sandbox per successful call when it is behind the
    /// gateway, µs (0 otherwise).
    pub peer_cpu: f64,
}

impl Summary {
    fn of(s: &RunStats, cpu: &[Duration]) -> Summary {
        let calls = s.latencies.len().max(1) as f64;
        let per_call = |i: usize| cpu.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e6 / calls);
        Summary {
            p50: s.quantile(0.5).as_secs_f64() * 1e6,
            p99: s.quantile(0.99).as_secs_f64() * 1e6,
            rps: s.rps(),
            errors: s.errors,
            server_cpu: per_call(0),
            peer_cpu: per_call(1),
        }
    }
}

/// One round of one RPC at one concurrency: the gateway and both hops.
#[derive(Debug, Clone, Copy, Default)]
pub struct HopRound {
    /// Through the gateway.
    pub gateway: Summary,
    /// The bare tonic echo with an answer of the gateway's size.
    pub echo: Summary,
    /// The OneBot action straight to the sandbox.
    pub direct: Summary,
}

impl HopRound {
    /// gateway p50 / (echo p50 + direct p50).
    pub fn p50_ratio(&self) -> f64 {
        self.gateway.p50 / (self.echo.p50 + self.direct.p50)
    }
    /// gateway p99 / (echo p99 + direct p99).
    pub fn p99_ratio(&self) -> f64 {
        self.gateway.p99 / (self.echo.p99 + self.direct.p99)
    }
    /// gateway rps / echo rps.
    pub fn ceiling_ratio(&self) -> f64 {
        self.gateway.rps / self.echo.rps
    }
}

/// One round of the gateway on the replay peer at concurrency 64, with
/// the echo server's CPU per call at concurrency 64 in the same run.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReplayRound {
    /// GetHistory through the gateway on the replay peer.
    pub history: Summary,
    /// ListGroupMembers through the gateway on the replay peer.
    pub members: Summary,
    /// GetHistory through a gateway on one thread (`[server]
    /// worker_threads = 1`) on the same replay peer.
    pub one_thread_history: Summary,
    /// ListGroupMembers through that gateway.
    pub one_thread_members: Summary,
    /// The relay ([`crate::relay`]) making GetHistory's action round trip
    /// on the same replay peer: the floor of a gateway's call.
    pub relay_history: Summary,
    /// The relay making ListGroupMembers' action round trip.
    pub relay_members: Summary,
    /// Echo CPU per call with an answer of GetHistory's size, µs.
    pub echo_history_cpu: f64,
    /// Echo CPU per call with an answer of ListGroupMembers' size, µs.
    pub echo_members_cpu: f64,
}

impl ReplayRound {
    /// Gateway CPU per GetHistory call / echo CPU per call.
    pub fn history_ratio(&self) -> f64 {
        self.history.server_cpu / self.echo_history_cpu
    }
    /// Gateway CPU per ListGroupMembers call / echo CPU per call.
    pub fn members_ratio(&self) -> f64 {
        self.members.server_cpu / self.echo_members_cpu
    }
}

/// GetHistory at one page size.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageRow {
    /// The `count` asked for.
    pub count: u32,
    /// Messages in the answer.
    pub returned: usize,
    /// Through the gateway.
    pub gateway: Summary,
}

impl PageRow {
    /// Gateway CPU per message returned, µs.
    pub fn cpu_per_message(&self) -> f64 {
        self.gateway.server_cpu / self.returned.max(1) as f64
    }
}

/// Start-up and idle memory of one fresh gateway process.
#[derive(Debug, Clone, Copy, Default)]
pub struct StartSample {
    /// Spawn to overall health SERVING.
    pub serving: Duration,
    /// Spawn to account `default` SERVING (connected to the peer).
    pub connected: Duration,
    /// VmRSS once idle, bytes.
    pub idle_rss: u64,
    /// Of which anonymous and file-backed (`RssAnon`, `RssFile`), bytes.
    pub idle_rss_parts: (u64, u64),
}

/// Runs everything and writes the report.
pub async fn run(opts: Options) -> Result<()> {
    let machine = Machine::read();
    let load_before = machine::loadavg();
    let bin = crate::procs::gateway_binary(opts.gateway_bin.clone())?;
    eprintln!("bench: gateway binary {}", bin.display());
    let sandbox = SandboxProc::start(&bin).await?;
    eprintln!(
        "bench: sandbox pid {} at {}",
        sandbox.proc.pid, sandbox.ws_url
    );

    let starts = measure_starts(&bin, &sandbox.ws_url, opts.starts).await?;

    let Rig {
        gateway,
        direct,
        echo,
        history_bytes,
        members_bytes,
    } = Rig::start(&bin, &sandbox.ws_url).await?;
    eprintln!(
        "bench: answers {history_bytes} B (history), {members_bytes} B (members); echo at {}",
        echo.addr
    );

    let pids = [gateway.proc.pid, sandbox.proc.pid];
    let systems = Systems::new(
        &gateway,
        &direct,
        &echo.channel,
        history_bytes,
        members_bytes,
    );
    let mcp = crate::mcp::McpSystems::new(&gateway).await?;
    let mut history_rounds: Vec<[HopRound; 2]> = Vec::new();
    let mut members_rounds: Vec<[HopRound; 2]> = Vec::new();
    let mut mcp_rounds: Vec<[crate::mcp::McpRound; 2]> = Vec::new();
    for round in 0..opts.rounds {
        let mut h = [HopRound::default(); 2];
        let mut m = [HopRound::default(); 2];
        for (i, &conc) in CONCURRENCIES.iter().enumerate() {
            let dur = if conc == 1 { opts.run_c1 } else { opts.run_c64 };
            let warm = if conc == 1 { 50 } else { 5 };
            let (e, d, g) = (&[echo.pid][..], &[sandbox.proc.pid][..], &pids[..]);
            h[i] = HopRound {
                echo: measure(&systems.echo_history, e, conc, warm, dur).await,
                direct: measure(&systems.direct_history, d, conc, warm, dur).await,
                gateway: measure(&systems.gateway_history, g, conc, warm, dur).await,
            };
            m[i] = HopRound {
                echo: measure(&systems.echo_members, e, conc, warm, dur).await,
                direct: measure(&systems.direct_members, d, conc, warm, dur).await,
                gateway: measure(&systems.gateway_members, g, conc, warm, dur).await,
            };
        }
        eprintln!(
            "bench: round {}/{}: GetHistory ratio c1 {:.2} c64 {:.2}, ceiling {:.2}; ListGroupMembers ratio c1 {:.2} c64 {:.2}",
            round + 1,
            opts.rounds,
            h[0].p50_ratio(),
            h[1].p50_ratio(),
            h[1].ceiling_ratio(),
            m[0].p50_ratio(),
            m[1].p50_ratio(),
        );
        let t = mcp.round(&pids, opts.run_c1).await;
        eprintln!(
            "bench: round {}/{}: qq_get_history MCP / CallTool p50 c1 {:.2} c16 {:.2}",
            round + 1,
            opts.rounds,
            t[0].p50_ratio(),
            t[1].p50_ratio(),
        );
        history_rounds.push(h);
        members_rounds.push(m);
        mcp_rounds.push(t);
    }
    drop(mcp);
    let after_load_rss = gateway.proc.rss()?;
    let peak_after_load = gateway.proc.peak_rss()?;
    let pages = measure_pages(&gateway, opts.run_c64).await?;
    drop(systems);
    gateway.proc.kill().await?;
    let replay = measure_replay(
        &bin,
        &sandbox,
        &echo,
        (history_bytes, members_bytes),
        opts.rounds.min(3),
        opts.run_c64,
    )
    .await?;
    drop(echo);
    let decode = crate::decode::measure(&sandbox.ws_url).await?;

    let scale = crate::scale::measure(&bin, &crate::scale::Options::default()).await?;

    let uploads = upload::measure(&bin, &sandbox.ws_url, sandbox.proc.pid, opts.rounds).await?;
    let archive = crate::archive::measure(&bin, opts.rounds.min(3), 5.0).await?;

    let report = Report {
        machine,
        load_before,
        load_after: machine::loadavg(),
        rounds: opts.rounds,
        run_c1: opts.run_c1,
        run_c64: opts.run_c64,
        history_bytes,
        members_bytes,
        history: history_rounds,
        members: members_rounds,
        mcp: mcp_rounds,
        starts,
        after_load_rss,
        peak_after_load,
        uploads,
        archive,
        replay,
        pages,
        scale,
        decode,
    };
    let text = report::render(&report);
    std::fs::write(&opts.out, &text).with_context(|| format!("writing {}", opts.out.display()))?;
    eprintln!("bench: wrote {}", opts.out.display());
    print!("{}", report::summary(&report));
    Ok(())
}

/// The gateway on the replay peer (recorded from `sandbox`) at
/// concurrency 64, each round beside the echo server at concurrency 64.
async fn measure_replay(
    bin: &std::path::Path,
    sandbox: &SandboxProc,
    echo: &EchoProc,
    (history_bytes, members_bytes): (u32, u32),
    rounds: usize,
    dur: Duration,
) -> Result<Vec<ReplayRound>> {
    let replay = crate::replay::ReplayProc::start(&sandbox.ws_url).await?;
    let gateway = GatewayProc::start(bin, &replay.ws_url, &GatewayOptions::default()).await?;
    gateway.wait_account_connected().await?;
    let history = gateway_call(&gateway, "history")?;
    let members = gateway_call(&gateway, "members")?;
    let one = GatewayOptions {
        server_extra: "worker_threads = 1".into(),
        ..GatewayOptions::default()
    };
    let one_thread = GatewayProc::start(bin, &replay.ws_url, &one).await?;
    one_thread.wait_account_connected().await?;
    let one_history = gateway_call(&one_thread, "history")?;
    let one_members = gateway_call(&one_thread, "members")?;
    let echo_history = echo_call(&echo.channel, history_bytes);
    let echo_members = echo_call(&echo.channel, members_bytes);
    let relay_h = EchoProc::start_relay(history_bytes, &replay.ws_url, "history").await?;
    let relay_m = EchoProc::start_relay(members_bytes, &replay.ws_url, "members").await?;
    let relay_history = echo_call(&relay_h.channel, history_bytes);
    let relay_members = echo_call(&relay_m.channel, members_bytes);
    let pids = [gateway.proc.pid, replay.pid];
    let one_pids = [one_thread.proc.pid, replay.pid];
    let mut out = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let r = ReplayRound {
            history: measure(&history, &pids, 64, 5, dur).await,
            members: measure(&members, &pids, 64, 5, dur).await,
            one_thread_history: measure(&one_history, &one_pids, 64, 5, dur).await,
            one_thread_members: measure(&one_members, &one_pids, 64, 5, dur).await,
            relay_history: measure(&relay_history, &[relay_h.pid, replay.pid], 64, 5, dur).await,
            relay_members: measure(&relay_members, &[relay_m.pid, replay.pid], 64, 5, dur).await,
            echo_history_cpu: measure(&echo_history, &[echo.pid], 64, 5, dur)
                .await
                .server_cpu,
            echo_members_cpu: measure(&echo_members, &[echo.pid], 64, 5, dur)
                .await
                .server_cpu,
        };
        eprintln!(
            "bench: replay round {}/{rounds}: GetHistory {:.0} rps, {:.1} µs CPU/call ({:.2} × echo, relay {:.2} ×); ListGroupMembers {:.0} rps, {:.1} µs ({:.2} × echo, relay {:.2} ×)",
            round + 1,
            r.history.rps,
            r.history.server_cpu,
            r.history_ratio(),
            r.relay_history.server_cpu / r.echo_history_cpu,
            r.members.rps,
            r.members.server_cpu,
            r.members_ratio(),
            r.relay_members.server_cpu / r.echo_members_cpu
        );
        out.push(r);
    }
    gateway.proc.kill().await?;
    one_thread.proc.kill().await?;
    Ok(out)
}

/// The echo server answering `n` bytes, as a load call.
fn echo_call(echo: &Channel, n: u32) -> Call {
    let client = EchoClient::new(echo.clone());
    load::call(move || {
        let mut c = client.clone();
        async move { c.echo(n).await.map(drop).map_err(|s| s.to_string()) }
    })
}

/// GetHistory through `gateway` at each of [`PAGE_SIZES`], concurrency 16.
async fn measure_pages(gateway: &GatewayProc, dur: Duration) -> Result<Vec<PageRow>> {
    let mut rows = Vec::with_capacity(PAGE_SIZES.len());
    for count in PAGE_SIZES {
        let request = pb::GetHistoryRequest {
            count: count as i32,
            ..history_request()
        };
        let returned = gateway
            .messages()
            .get_history(request.clone())
            .await
            .context("GetHistory for the page sizes")?
            .into_inner()
            .messages
            .len();
        let messages = gateway.messages();
        let call = load::call(move || {
            let mut c = messages.clone();
            let request = request.clone();
            async move {
                c.get_history(request)
                    .await
                    .map(drop)
                    .map_err(|s| s.to_string())
            }
        });
        let g = measure(&call, &[gateway.proc.pid], 16, 20, dur).await;
        eprintln!(
            "bench: page size {count}: {returned} messages, {:.0} rps, {:.1} µs gateway CPU/call",
            g.rps, g.server_cpu
        );
        rows.push(PageRow {
            count,
            returned,
            gateway: g,
        });
    }
    Ok(rows)
}

/// Runs `call`, also charging the CPU time `pids` used meanwhile (the
/// serving process first, then the peer behind it, if any).
pub(crate) async fn measure(
    call: &Call,
    pids: &[u32],
    conc: usize,
    warmup: usize,
    dur: Duration,
) -> Summary {
    let cpu = |pids: &[u32]| -> Vec<Duration> {
        pids.iter()
            .map(|p| crate::procs::cpu_time(*p).unwrap_or_default())
            .collect()
    };
    // Warm up apart, so the CPU charged is that of the timed calls.
    if warmup > 0 {
        let _ = load::run(call, conc, warmup, Duration::ZERO).await;
    }
    let before = cpu(pids);
    let stats = load::run(call, conc, 0, dur).await;
    let used: Vec<Duration> = cpu(pids)
        .into_iter()
        .zip(before)
        .map(|(after, before)| after.saturating_sub(before))
        .collect();
    if stats.errors > 0 {
        eprintln!(
            "bench: {} errors at concurrency {conc}; first: {}",
            stats.errors,
            stats.first_error.as_deref().unwrap_or("?")
        );
    }
    Summary::of(&stats, &used)
}

/// What `bench load` runs.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// `gateway`, `direct` or `echo`.
    pub system: String,
    /// `history` or `members`.
    pub rpc: String,
    /// Concurrent callers.
    pub concurrency: usize,
    /// Length of the timed run.
    pub duration: Duration,
    /// Wait after printing the pids, before the load starts.
    pub pause: Duration,
    /// The gateway binary (built when absent).
    pub gateway_bin: Option<PathBuf>,
}

/// The three systems of the hop measurements, started against one sandbox:
/// the gateway (connected), a direct WebSocket client, and an echo server
/// answering as many bytes as the gateway's larger answer.
struct Rig {
    gateway: GatewayProc,
    direct: DirectClient,
    echo: EchoProc,
    history_bytes: u32,
    members_bytes: u32,
}

impl Rig {
    async fn start(bin: &std::path::Path, ws_url: &str) -> Result<Rig> {
        let gateway = GatewayProc::start(bin, ws_url, &GatewayOptions::default()).await?;
        gateway.wait_account_connected().await?;
        let direct = DirectClient::connect(ws_url).await?;
        let (history_bytes, members_bytes) = check_answers(&gateway, &direct).await?;
        let echo = EchoProc::start(history_bytes.max(members_bytes)).await?;
        Ok(Rig {
            gateway,
            direct,
            echo,
            history_bytes,
            members_bytes,
        })
    }
}

/// `bench load`: one system, one RPC, steady load; prints what it measured.
pub async fn load_one(opts: LoadOptions) -> Result<()> {
    let bin = crate::procs::gateway_binary(opts.gateway_bin.clone())?;
    let sandbox = SandboxProc::start(&bin).await?;
    if opts.system == "replay" {
        return load_replay(&bin, &sandbox, &opts).await;
    }
    let rig = Rig::start(&bin, &sandbox.ws_url).await?;
    if opts.system == "relay" {
        return load_relay(&rig, &sandbox, &opts).await;
    }
    let (gateway, echo) = (&rig.gateway, &rig.echo);
    let systems = Systems::new(
        gateway,
        &rig.direct,
        &echo.channel,
        rig.history_bytes,
        rig.members_bytes,
    );
    let (call, pids) = match (opts.system.as_str(), opts.rpc.as_str()) {
        ("gateway", "history") => (
            &systems.gateway_history,
            vec![gateway.proc.pid, sandbox.proc.pid],
        ),
        ("gateway", "members") => (
            &systems.gateway_members,
            vec![gateway.proc.pid, sandbox.proc.pid],
        ),
        ("direct", "history") => (&systems.direct_history, vec![sandbox.proc.pid]),
        ("direct", "members") => (&systems.direct_members, vec![sandbox.proc.pid]),
        ("echo", "history") => (&systems.echo_history, vec![echo.pid]),
        ("echo", "members") => (&systems.echo_members, vec![echo.pid]),
        (s, r) => bail!("unknown system {s:?} or rpc {r:?}"),
    };
    println!(
        "pids: gateway {} sandbox {} echo {} bench {}",
        gateway.proc.pid,
        sandbox.proc.pid,
        echo.pid,
        std::process::id()
    );
    tokio::time::sleep(opts.pause).await;
    let s = measure(call, &pids, opts.concurrency, 5, opts.duration).await;
    println!(
        "{} {} c={}: p50 {:.0} µs, p99 {:.0} µs, {:.0} rps, errors {}, CPU per call: serving {:.0} µs, peer {:.0} µs",
        opts.system,
        opts.rpc,
        opts.concurrency,
        s.p50,
        s.p99,
        s.rps,
        s.errors,
        s.server_cpu,
        s.peer_cpu
    );
    Ok(())
}

/// `bench mcp`: only the MCP row, printed (nothing is written).
pub async fn mcp_only(gateway_bin: Option<PathBuf>, rounds: usize, dur: Duration) -> Result<()> {
    let bin = crate::procs::gateway_binary(gateway_bin)?;
    let sandbox = SandboxProc::start(&bin).await?;
    let gateway = GatewayProc::start(&bin, &sandbox.ws_url, &GatewayOptions::default()).await?;
    gateway.wait_account_connected().await?;
    let mcp = crate::mcp::McpSystems::new(&gateway).await?;
    let pids = [gateway.proc.pid, sandbox.proc.pid];
    let mut all = Vec::new();
    for round in 0..rounds {
        let t = mcp.round(&pids, dur).await;
        for (i, conc) in crate::mcp::MCP_CONCURRENCIES.iter().enumerate() {
            println!(
                "round {}: c={conc}: MCP p50 {:.0} µs p99 {:.0} µs ({} errors), CallTool p50 {:.0} µs p99 {:.0} µs ({} errors): ratio {:.2}",
                round + 1,
                t[i].mcp.p50,
                t[i].mcp.p99,
                t[i].mcp.errors,
                t[i].grpc.p50,
                t[i].grpc.p99,
                t[i].grpc.errors,
                t[i].p50_ratio()
            );
        }
        all.push(t);
    }
    for (i, conc) in crate::mcp::MCP_CONCURRENCIES.iter().enumerate() {
        let ratio = med(&all, |x| x[i].p50_ratio());
        println!(
            "qq_get_history MCP / CallTool p50, concurrency {conc}: {ratio:.2} × (target ≤ {} ×)",
            crate::mcp::MCP_TARGET
        );
    }
    Ok(())
}

/// `bench load --system replay`: the gateway on the replay peer.
async fn load_replay(
    bin: &std::path::Path,
    sandbox: &SandboxProc,
    opts: &LoadOptions,
) -> Result<()> {
    let replay = crate::replay::ReplayProc::start(&sandbox.ws_url).await?;
    let gateway = GatewayProc::start(bin, &replay.ws_url, &GatewayOptions::default()).await?;
    gateway.wait_account_connected().await?;
    let call = gateway_call(&gateway, &opts.rpc)?;
    load_on_replay(
        ("replay", "gateway"),
        &call,
        gateway.proc.pid,
        replay.pid,
        opts,
    )
    .await;
    Ok(())
}

/// `bench load --system relay`: the relay ([`crate::relay`]) on the
/// replay peer, answering as many bytes as the gateway does.
async fn load_relay(rig: &Rig, sandbox: &SandboxProc, opts: &LoadOptions) -> Result<()> {
    let replay = crate::replay::ReplayProc::start(&sandbox.ws_url).await?;
    let bytes = match opts.rpc.as_str() {
        "members" => rig.members_bytes,
        _ => rig.history_bytes,
    };
    let relay = EchoProc::start_relay(bytes, &replay.ws_url, &opts.rpc).await?;
    let call = echo_call(&relay.channel, bytes);
    load_on_replay(("relay", "relay"), &call, relay.pid, replay.pid, opts).await;
    Ok(())
}

/// Prints the pids, waits `opts.pause`, then holds `call` under load and
/// prints what it measured: `system` as `bench load` names it, served by
/// process `pid` (its `name`) on the replay peer `replay_pid`.
async fn load_on_replay(
    (system, name): (&str, &str),
    call: &Call,
    pid: u32,
    replay_pid: u32,
    opts: &LoadOptions,
) {
    println!(
        "pids: {name} {pid} replay {replay_pid} bench {}",
        std::process::id()
    );
    tokio::time::sleep(opts.pause).await;
    let s = measure(call, &[pid, replay_pid], opts.concurrency, 5, opts.duration).await;
    println!(
        "{system} {} c={}: p50 {:.0} µs, p99 {:.0} µs, {:.0} rps, errors {}, CPU per call: {name} {:.1} µs, replay peer {:.1} µs",
        opts.rpc, opts.concurrency, s.p50, s.p99, s.rps, s.errors, s.server_cpu, s.peer_cpu
    );
}

/// The gateway's GetHistory (`history`) or ListGroupMembers (`members`)
/// as a load call.
fn gateway_call(gateway: &GatewayProc, rpc: &str) -> Result<Call> {
    Ok(match rpc {
        "history" => {
            let messages = gateway.messages();
            load::call(move || {
                let mut c = messages.clone();
                async move {
                    c.get_history(history_request())
                        .await
                        .map(drop)
                        .map_err(|s| s.to_string())
                }
            })
        }
        "members" => {
            let groups = gateway.groups();
            load::call(move || {
                let mut c = groups.clone();
                async move {
                    c.list_group_members(members_request())
                        .await
                        .map(drop)
                        .map_err(|s| s.to_string())
                }
            })
        }
        other => bail!("unknown rpc {other:?}"),
    })
}

/// Starts `n` gateways one after the other: start-up times and idle RSS.
async fn measure_starts(bin: &std::path::Path, ws_url: &str, n: usize) -> Result<Vec<StartSample>> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let gw = GatewayProc::start(bin, ws_url, &GatewayOptions::default()).await?;
        let serving = gw.wait_serving().await?;
        let connected = gw.wait_account_connected().await?;
        // Idle: connected, no RPC in flight, nothing to do but heartbeats.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let [idle_rss, anon, file] = gw.proc.rss_parts()?;
        let idle_rss_parts = (anon, file);
        out.push(StartSample {
            serving,
            connected,
            idle_rss,
            idle_rss_parts,
        });
        gw.proc.kill().await?;
    }
    Ok(out)
}

/// Checks each system answers what it should; returns the encoded sizes of
/// the gateway's GetHistory and ListGroupMembers answers.
async fn check_answers(gateway: &GatewayProc, direct: &DirectClient) -> Result<(u32, u32)> {
    let page = gateway
        .messages()
        .get_history(history_request())
        .await
        .context("GetHistory")?
        .into_inner();
    if page.messages.len() != HISTORY_COUNT as usize {
        bail!("GetHistory returned {} messages", page.messages.len());
    }
    let members = gateway
        .groups()
        .list_group_members(members_request())
        .await
        .context("ListGroupMembers")?
        .into_inner();
    if members.from_cache || members.shown != 100 {
        bail!(
            "ListGroupMembers: shown {} from_cache {}",
            members.shown,
            members.from_cache
        );
    }
    let (action, params) = direct_history();
    let data = direct.call(action, &params).await?;
    let n = data
        .get("messages")
        .and_then(|m| m.as_array())
        .map_or(0, Vec::len);
    if n != HISTORY_COUNT as usize + 1 {
        bail!("direct {action} returned {n} messages");
    }
    Ok((page.encoded_len() as u32, members.encoded_len() as u32))
}

/// GetHistory of the benchmark group, 20 messages, no anchor.
pub fn history_request() -> pb::GetHistoryRequest {
    pb::GetHistoryRequest {
        account_id: String::new(),
        chat: Some(pb::Chat {
            kind: Some(pb::chat::Kind::GroupId(BENCH_GROUP)),
        }),
        count: HISTORY_COUNT as i32,
        anchor_message_id: None,
        until: None,
    }
}

/// ListGroupMembers of the 120-member group, bypassing the cache.
pub fn members_request() -> pb::ListGroupMembersRequest {
    pb::ListGroupMembersRequest {
        account_id: String::new(),
        group_id: MEMBERS_GROUP,
        no_cache: Some(true),
        limit: 0,
    }
}

/// The action the gateway's adapter sends for [`members_request`]: the
/// 120-member group's list, bypassing the peer's cache.
pub fn direct_members() -> (&'static str, serde_json::Value) {
    (
        "get_group_member_list",
        json!({ "group_id": MEMBERS_GROUP, "no_cache": true }),
    )
}

/// The action the gateway's adapter sends for [`history_request`] to a
/// NapCat peer (built by the adapter's own function).
pub fn direct_history() -> (&'static str, serde_json::Value) {
    direct_history_of(HISTORY_COUNT)
}

/// The action the gateway's adapter sends for a newest page of `count`
/// messages of the benchmark group to a NapCat peer.
pub fn direct_history_of(count: u32) -> (&'static str, serde_json::Value) {
    history::request(
        &HistoryProfile::assumed(Flavor::NapCat),
        ChatRef::Group(BENCH_GROUP),
        count,
        None,
    )
}

/// The calls under measurement.
struct Systems {
    echo_history: Call,
    direct_history: Call,
    gateway_history: Call,
    echo_members: Call,
    direct_members: Call,
    gateway_members: Call,
}

impl Systems {
    fn new(
        gateway: &GatewayProc,
        direct: &DirectClient,
        echo: &Channel,
        history_bytes: u32,
        members_bytes: u32,
    ) -> Systems {
        let echo_call = |n: u32| echo_call(echo, n);
        let direct_call = |action: &'static str, params: serde_json::Value| {
            let client = direct.clone();
            let params = Arc::new(params);
            load::call(move || {
                let c = client.clone();
                let p = params.clone();
                async move {
                    c.call(action, &p)
                        .await
                        .map(drop)
                        .map_err(|e| e.to_string())
                }
            })
        };
        let (h_action, h_params) = direct_history();
        let messages = gateway.messages();
        let groups = gateway.groups();
        Systems {
            echo_history: echo_call(history_bytes),
            direct_history: direct_call(h_action, h_params),
            gateway_history: load::call(move || {
                let mut c = messages.clone();
                async move {
                    c.get_history(history_request())
                        .await
                        .map(drop)
                        .map_err(|s| s.to_string())
                }
            }),
            echo_members: echo_call(members_bytes),
            direct_members: {
                let (action, params) = direct_members();
                direct_call(action, params)
            },
            gateway_members: load::call(move || {
                let mut c = groups.clone();
                async move {
                    c.list_group_members(members_request())
                        .await
                        .map(drop)
                        .map_err(|s| s.to_string())
                }
            }),
        }
    }
}

/// `bench echo-server` as a child process (ends when its stdin closes).
pub(crate) struct EchoProc {
    _child: tokio::process::Child,
    pub(crate) pid: u32,
    addr: String,
    pub(crate) channel: Channel,
}

impl EchoProc {
    pub(crate) async fn start(max_payload: u32) -> Result<EchoProc> {
        EchoProc::start_with(max_payload, &[]).await
    }

    /// The relay ([`crate::relay`]): each call first makes the action of
    /// `rpc` (`history` or `members`) round trip to the peer at `peer`.
    pub(crate) async fn start_relay(max_payload: u32, peer: &str, rpc: &str) -> Result<EchoProc> {
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

/// Medians over rounds of a per-round value.
pub fn med<T>(rounds: &[T], f: impl Fn(&T) -> f64) -> f64 {
    median(&rounds.iter().map(f).collect::<Vec<_>>())
}
