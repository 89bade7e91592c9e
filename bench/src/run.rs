//! The benchmark proper: every measurement, interleaved in rounds, against
//! baselines measured in the same run. Only the orchestration lives here:
//! the workload is `workload`, what a measurement yields is `rounds`, the
//! report is `report`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use onebot_gateway_client::pb;
use prost::Message as _;
use tonic::transport::Channel;

use crate::direct::DirectClient;
use crate::echo::{EchoProc, load_call as echo_call};
use crate::load::{self, Call};
use crate::machine::{self, Machine};
use crate::procs::{self, GatewayOptions, GatewayProc, SandboxProc};
use crate::report::{self, Report};
use crate::rounds::{HopRound, PageRow, ReplayRound, StartSample, measure, med};
use crate::workload::{
    CONCURRENCIES, HISTORY_COUNT, PAGE_SIZES, direct_history, direct_members, history_request,
    members_request,
};
use crate::{archive, decode, mcp, milky, replay, scale, sink, upload};

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

/// Runs everything and writes the report.
pub async fn run(opts: Options) -> Result<()> {
    let machine = Machine::read();
    let load_before = machine::loadavg();
    let bin = procs::gateway_binary(opts.gateway_bin.clone())?;
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
    let mcp = mcp::McpSystems::new(&gateway).await?;
    let ReadRounds {
        history: history_rounds,
        members: members_rounds,
        mcp: mcp_rounds,
    } = ReadRounds::measure(&opts, &systems, &mcp, [echo.pid, sandbox.proc.pid], pids).await;
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
    let decode = decode::measure(&sandbox.ws_url).await?;

    let scale = scale::measure(&bin, &scale::Options::default()).await?;

    let uploads = upload::measure(&bin, &sandbox.ws_url, sandbox.proc.pid, opts.rounds).await?;
    let milky = milky::measure_all(
        &bin,
        milky::MilkyOptions {
            rounds: opts.rounds,
            run_c1: opts.run_c1,
            run_c64: opts.run_c64,
        },
    )
    .await
    .map_err(|e| {
        eprintln!("bench: the Milky rows were not measured: {e:#}");
        format!("{e:#}")
    });
    let archive = archive::measure(&bin, opts.rounds.min(3), 5.0).await?;
    let sink = sink::measure(&bin, opts.rounds.min(3), 5.0)
        .await
        .map_err(|e| {
            eprintln!("bench: the event sink's rows were not measured: {e:#}");
            format!("{e:#}")
        });

    let failover = crate::failover::measure(&bin, 5).await.map_err(|e| {
        eprintln!("bench: the failover rows were not measured: {e:#}");
        format!("{e:#}")
    });

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
        milky,
        archive,
        sink,
        failover,
        replay,
        pages,
        scale,
        decode,
    };
    let text = report::render(&report);
    std::fs::write(&opts.out, &text).with_context(|| format!("writing {}", opts.out.display()))?;
    eprintln!("bench: wrote {}", opts.out.display());
    print!("{}", report::targets::summary(&report));
    Ok(())
}

/// The read RPCs' rounds on the load gateway: GetHistory and
/// ListGroupMembers beside the echo server and the direct client at each
/// concurrency, then MCP against CallTool.
struct ReadRounds {
    history: Vec<[HopRound; 2]>,
    members: Vec<[HopRound; 2]>,
    mcp: Vec<[mcp::McpRound; 2]>,
}

impl ReadRounds {
    /// Every round of `opts`; `pids` are the gateway's and the sandbox's.
    async fn measure(
        opts: &Options,
        systems: &Systems,
        mcp: &mcp::McpSystems,
        [echo_pid, sandbox_pid]: [u32; 2],
        pids: [u32; 2],
    ) -> Self {
        let mut history_rounds: Vec<[HopRound; 2]> = Vec::new();
        let mut members_rounds: Vec<[HopRound; 2]> = Vec::new();
        let mut mcp_rounds: Vec<[mcp::McpRound; 2]> = Vec::new();
        for round in 0..opts.rounds {
            let mut h = [HopRound::default(); 2];
            let mut m = [HopRound::default(); 2];
            for (i, &conc) in CONCURRENCIES.iter().enumerate() {
                let dur = if conc == 1 { opts.run_c1 } else { opts.run_c64 };
                let warm = if conc == 1 { 50 } else { 5 };
                let (e, d, g) = (&[echo_pid][..], &[sandbox_pid][..], &pids[..]);
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
                "bench: round {}/{}: GetHistory ratio c1 {:.2} c64 {:.2}; ListGroupMembers ratio c1 {:.2} c64 {:.2}",
                round + 1,
                opts.rounds,
                h[0].p50_ratio(),
                h[1].p50_ratio(),
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
        Self {
            history: history_rounds,
            members: members_rounds,
            mcp: mcp_rounds,
        }
    }
}

/// The gateway on the replay peer (recorded from `sandbox`) at
/// concurrency 64, each round beside the floor (the relay on the same peer)
/// and the echo server at concurrency 64.
async fn measure_replay(
    bin: &std::path::Path,
    sandbox: &SandboxProc,
    echo: &EchoProc,
    (history_bytes, members_bytes): (u32, u32),
    rounds: usize,
    dur: Duration,
) -> Result<Vec<ReplayRound>> {
    let replay = replay::ReplayProc::start(&sandbox.ws_url).await?;
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
            "bench: replay round {}/{rounds}: GetHistory {:.0} rps, {:.1} µs CPU/call ({:.2} × the floor of {:.1} µs); ListGroupMembers {:.0} rps, {:.1} µs ({:.2} × the floor of {:.1} µs)",
            round + 1,
            r.history.rps,
            r.history.server_cpu,
            r.history_over_floor(),
            r.relay_history.server_cpu,
            r.members.rps,
            r.members.server_cpu,
            r.members_over_floor(),
            r.relay_members.server_cpu
        );
        out.push(r);
    }
    gateway.proc.kill().await?;
    one_thread.proc.kill().await?;
    Ok(out)
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
    let bin = procs::gateway_binary(opts.gateway_bin.clone())?;
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
    let bin = procs::gateway_binary(gateway_bin)?;
    let sandbox = SandboxProc::start(&bin).await?;
    let gateway = GatewayProc::start(&bin, &sandbox.ws_url, &GatewayOptions::default()).await?;
    gateway.wait_account_connected().await?;
    let mcp = mcp::McpSystems::new(&gateway).await?;
    let pids = [gateway.proc.pid, sandbox.proc.pid];
    let mut all = Vec::new();
    for round in 0..rounds {
        let t = mcp.round(&pids, dur).await;
        for (i, conc) in mcp::MCP_CONCURRENCIES.iter().enumerate() {
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
    for (i, conc) in mcp::MCP_CONCURRENCIES.iter().enumerate() {
        let ratio = med(&all, |x| x[i].p50_ratio());
        println!(
            "qq_get_history MCP / CallTool p50, concurrency {conc}: {ratio:.2} × (target ≤ {} ×)",
            mcp::MCP_TARGET
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
    let replay = replay::ReplayProc::start(&sandbox.ws_url).await?;
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

/// `bench load --system relay`: the relay (`bench/src/relay.rs`) on the
/// replay peer, answering as many bytes as the gateway does.
async fn load_relay(rig: &Rig, sandbox: &SandboxProc, opts: &LoadOptions) -> Result<()> {
    let replay = replay::ReplayProc::start(&sandbox.ws_url).await?;
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
