//! `bench/RESULTS.md`: the machine, the commit, every number, each target
//! and whether it was met.

use std::fmt::Write as _;
use std::time::Duration;

use crate::load::median;
use crate::machine::Machine;
use crate::mcp::{MCP_CONCURRENCIES, MCP_TARGET, McpRound};
use crate::run::{CONCURRENCIES, HopRound, StartSample, med};
use crate::upload::{PAYLOAD_BYTES, UPLOAD_CONCURRENCY, UploadSample, Uploads};

/// Target: gateway p50 ≤ this × (echo p50 + direct p50).
pub const HOP_TARGET: f64 = 1.3;
/// Target: gateway rps at concurrency 64 ≥ this × echo rps.
pub const CEILING_TARGET: f64 = 0.4;
/// Target: upload end to end, MB/s.
pub const UPLOAD_MBPS_TARGET: f64 = 200.0;
/// Target: peak RSS per concurrent upload, multiple of the payload.
pub const UPLOAD_RSS_TARGET: f64 = 3.0;
/// Target: idle RSS, MiB.
pub const IDLE_RSS_TARGET_MIB: f64 = 20.0;
/// Target: start to SERVING, ms.
pub const SERVING_TARGET_MS: f64 = 200.0;

/// Everything one run measured.
#[derive(Debug, Clone)]
pub struct Report {
    /// Machine and commit.
    pub machine: Machine,
    /// Load average when the run started.
    pub load_before: String,
    /// Load average when it ended.
    pub load_after: String,
    /// Rounds.
    pub rounds: usize,
    /// Length of one timed run at concurrency 1.
    pub run_c1: Duration,
    /// Length of one timed run at concurrency 64.
    pub run_c64: Duration,
    /// Encoded size of a GetHistory answer.
    pub history_bytes: u32,
    /// Encoded size of a ListGroupMembers answer.
    pub members_bytes: u32,
    /// GetHistory rounds, per concurrency.
    pub history: Vec<[HopRound; 2]>,
    /// ListGroupMembers rounds, per concurrency.
    pub members: Vec<[HopRound; 2]>,
    /// MCP against CallTool rounds, per concurrency.
    pub mcp: Vec<[McpRound; 2]>,
    /// Fresh gateway starts.
    pub starts: Vec<StartSample>,
    /// VmRSS of the load gateway after all read rounds.
    pub after_load_rss: u64,
    /// VmHWM of the load gateway after all read rounds.
    pub peak_after_load: u64,
    /// Upload results.
    pub uploads: Uploads,
}

/// One target row.
struct Target {
    what: String,
    value: String,
    target: String,
    met: bool,
}

fn mib(bytes: f64) -> f64 {
    bytes / 1048576.0
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "**missed**" }
}

fn targets(r: &Report) -> Vec<Target> {
    let mut t = Vec::new();
    for (name, rounds) in [("GetHistory", &r.history), ("ListGroupMembers", &r.members)] {
        for (i, conc) in CONCURRENCIES.iter().enumerate() {
            let ratio = med(rounds, |x| x[i].p50_ratio());
            t.push(Target {
                what: format!("{name} p50 hop ratio, concurrency {conc}"),
                value: format!("{ratio:.2} ×"),
                target: format!("≤ {HOP_TARGET} × (echo p50 + direct p50)"),
                met: ratio <= HOP_TARGET,
            });
        }
    }
    for (i, conc) in MCP_CONCURRENCIES.iter().enumerate() {
        let ratio = med(&r.mcp, |x| x[i].p50_ratio());
        t.push(Target {
            what: format!("qq_get_history MCP / CallTool p50, concurrency {conc}"),
            value: format!("{ratio:.2} ×"),
            target: format!("≤ {MCP_TARGET} × CallTool over gRPC"),
            met: ratio <= MCP_TARGET,
        });
    }
    let ceiling = med(&r.history, |x| x[1].ceiling_ratio());
    t.push(Target {
        what: "GetHistory ceiling at concurrency 64".into(),
        value: format!("{ceiling:.2} × echo rps"),
        target: format!("≥ {CEILING_TARGET} × echo rps"),
        met: ceiling >= CEILING_TARGET,
    });
    if let Uploads::Measured(samples) = &r.uploads {
        for n in UPLOAD_CONCURRENCY {
            let s: Vec<&UploadSample> = samples.iter().filter(|s| s.concurrency == n).collect();
            let mbps = median(&s.iter().map(|x| x.mb_per_s()).collect::<Vec<_>>());
            let mult = median(&s.iter().map(|x| x.peak_multiple()).collect::<Vec<_>>());
            t.push(Target {
                what: format!("upload 30 MiB video end to end, {n} concurrent"),
                value: format!("{mbps:.0} MB/s"),
                target: format!("≥ {UPLOAD_MBPS_TARGET:.0} MB/s"),
                met: mbps >= UPLOAD_MBPS_TARGET,
            });
            t.push(Target {
                what: format!("gateway peak RSS, {n} concurrent upload(s)"),
                value: format!("{mult:.2} × payload per upload"),
                target: format!("≤ {UPLOAD_RSS_TARGET} × payload per upload"),
                met: mult <= UPLOAD_RSS_TARGET,
            });
        }
    }
    let idle = mib(median(
        &r.starts
            .iter()
            .map(|s| s.idle_rss as f64)
            .collect::<Vec<_>>(),
    ));
    t.push(Target {
        what: "idle RSS, one external account".into(),
        value: format!("{idle:.1} MiB"),
        target: format!("≤ {IDLE_RSS_TARGET_MIB:.0} MiB"),
        met: idle <= IDLE_RSS_TARGET_MIB,
    });
    let serving = median(
        &r.starts
            .iter()
            .map(|s| s.serving.as_secs_f64() * 1e3)
            .collect::<Vec<_>>(),
    );
    t.push(Target {
        what: "process start to health SERVING".into(),
        value: format!("{serving:.0} ms"),
        target: format!("≤ {SERVING_TARGET_MS:.0} ms"),
        met: serving <= SERVING_TARGET_MS,
    });
    t
}

/// The Markdown report.
pub fn render(r: &Report) -> String {
    let m = &r.machine;
    let mut o = String::new();
    let _ = writeln!(o, "# Benchmark results\n");
    let _ = writeln!(
        o,
        "Written by `cargo run --release -p bench` (`bench/src/report.rs`); never edit by hand.\n"
    );
    let _ = writeln!(o, "- Date: {}", m.date);
    let _ = writeln!(o, "- Commit: `{}`", m.commit);
    let _ = writeln!(
        o,
        "- Machine: {}, {} logical CPUs, {:.1} GiB RAM, Linux {}",
        m.cpu,
        m.cores,
        m.ram as f64 / 1073741824.0,
        m.kernel
    );
    let _ = writeln!(
        o,
        "- Load average (1/5/15 min): {} at the start, {} at the end. The machine is shared; \
         anything above ~1 means other work (builds, tests) competed for the cores.",
        r.load_before, r.load_after
    );
    let _ = writeln!(
        o,
        "- Method: {} rounds; in each round every system runs {} s at concurrency 1 and {} s at \
         concurrency 64 (closed loop, after a warm-up), one after the other. Ratios are computed \
         within a round, then the median over rounds is reported.\n",
        r.rounds,
        r.run_c1.as_secs_f64(),
        r.run_c64.as_secs_f64()
    );

    let _ = writeln!(o, "## Targets\n");
    let _ = writeln!(o, "| Measure | Value | Target | Result |");
    let _ = writeln!(o, "|---|---|---|---|");
    for t in targets(r) {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} |",
            t.what,
            t.value,
            t.target,
            verdict(t.met)
        );
    }
    if let Uploads::Unavailable(why) = &r.uploads {
        let _ = writeln!(
            o,
            "| upload 30 MiB video (1 and 4 concurrent): MB/s and peak RSS | not measured | \
             ≥ {UPLOAD_MBPS_TARGET:.0} MB/s; ≤ {UPLOAD_RSS_TARGET} × payload | not measured: {} |",
            why.replace('|', "/").replace('\n', " ")
        );
    }

    let _ = writeln!(o, "\n## Hop overhead and ceiling\n");
    let _ = writeln!(
        o,
        "Three systems, all on loopback, all driven by the bench process with tonic / \
         tokio-tungstenite clients:\n\n\
         - **gateway**: the RPC through `onebot-gateway serve` (its own process) to the sandbox \
           peer (`onebot-gateway sandbox`, another process) over forward WebSocket;\n\
         - **echo**: a bare tonic unary RPC served by `bench echo-server` (its own process, \
           `#[tokio::main]` and default `Server::builder()` with TCP_NODELAY, as the gateway), \
           answering as many bytes as the gateway's answer ({} B for GetHistory, {} B for \
           ListGroupMembers);\n\
         - **direct**: the same OneBot action the adapter sends (`get_group_msg_history` with \
           `count` {}, built by the adapter's own `history::request`; `get_group_member_list` \
           with `no_cache`), sent straight to the sandbox over one WebSocket with replies \
           matched by `echo`.\n\n\
         Latencies in µs; medians over rounds.\n",
        r.history_bytes,
        r.members_bytes,
        crate::run::HISTORY_COUNT + 1
    );
    let _ = writeln!(
        o,
        "| RPC | conc. | gateway p50 | gateway p99 | echo p50 | direct p50 | p50 ratio | p99 ratio | gateway rps | echo rps | direct rps | errors |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, rounds) in [("GetHistory", &r.history), ("ListGroupMembers", &r.members)] {
        for (i, conc) in CONCURRENCIES.iter().enumerate() {
            let errors: u64 = rounds
                .iter()
                .map(|x| x[i].gateway.errors + x[i].echo.errors + x[i].direct.errors)
                .sum();
            let _ = writeln!(
                o,
                "| {name} | {conc} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} | {:.2} | {:.0} | {:.0} | {:.0} | {errors} |",
                med(rounds, |x| x[i].gateway.p50),
                med(rounds, |x| x[i].gateway.p99),
                med(rounds, |x| x[i].echo.p50),
                med(rounds, |x| x[i].direct.p50),
                med(rounds, |x| x[i].p50_ratio()),
                med(rounds, |x| x[i].p99_ratio()),
                med(rounds, |x| x[i].gateway.rps),
                med(rounds, |x| x[i].echo.rps),
                med(rounds, |x| x[i].direct.rps),
            );
        }
    }
    let _ = writeln!(
        o,
        "\nCPU time per call (µs, from `/proc/<pid>/stat`, medians over rounds): what each \
         serving process spent, so the gateway's own cost is seen apart from the machine's \
         noise.\n"
    );
    let _ = writeln!(
        o,
        "| RPC | conc. | echo server | sandbox (direct) | gateway | sandbox (behind the gateway) | gateway / sandbox |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|");
    for (name, rounds) in [("GetHistory", &r.history), ("ListGroupMembers", &r.members)] {
        for (i, conc) in CONCURRENCIES.iter().enumerate() {
            let _ = writeln!(
                o,
                "| {name} | {conc} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} |",
                med(rounds, |x| x[i].echo.server_cpu),
                med(rounds, |x| x[i].direct.server_cpu),
                med(rounds, |x| x[i].gateway.server_cpu),
                med(rounds, |x| x[i].gateway.peer_cpu),
                med(rounds, |x| x[i].gateway.server_cpu / x[i].direct.server_cpu),
            );
        }
    }
    let _ = writeln!(
        o,
        "\nPer round (p50 ratio at concurrency 1 / 64, ceiling):\n"
    );
    for (k, (h, mm)) in r.history.iter().zip(&r.members).enumerate() {
        let _ = writeln!(
            o,
            "- round {}: GetHistory {:.2} / {:.2}, ceiling {:.2}; ListGroupMembers {:.2} / {:.2}",
            k + 1,
            h[0].p50_ratio(),
            h[1].p50_ratio(),
            h[1].ceiling_ratio(),
            mm[0].p50_ratio(),
            mm[1].p50_ratio()
        );
    }

    let _ = writeln!(o, "\n## MCP Streamable HTTP against CallTool\n");
    let _ = writeln!(
        o,
        "`qq_get_history` ({{\"target\":\"group:{}\",\"count\":{}}}) on the same gateway: as a \
         `tools/call` of an MCP session (protocol 2025-11-25, HTTP/1.1 keep-alive, one session \
         per caller, the SSE answer read to its end; reqwest client) and as `CallTool` over \
         gRPC (tonic client). Each runs {} s per concurrency in every round. Latencies in µs; \
         medians over rounds.\n",
        crate::procs::BENCH_GROUP,
        crate::run::HISTORY_COUNT,
        r.run_c1.as_secs_f64()
    );
    let _ = writeln!(
        o,
        "| conc. | MCP p50 | MCP p99 | CallTool p50 | CallTool p99 | p50 ratio | MCP rps | CallTool rps | gateway CPU per call, MCP / CallTool | errors |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|");
    for (i, conc) in MCP_CONCURRENCIES.iter().enumerate() {
        let errors: u64 = r
            .mcp
            .iter()
            .map(|x| x[i].mcp.errors + x[i].grpc.errors)
            .sum();
        let _ = writeln!(
            o,
            "| {conc} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} | {:.0} | {:.0} | {:.0} / {:.0} | {errors} |",
            med(&r.mcp, |x| x[i].mcp.p50),
            med(&r.mcp, |x| x[i].mcp.p99),
            med(&r.mcp, |x| x[i].grpc.p50),
            med(&r.mcp, |x| x[i].grpc.p99),
            med(&r.mcp, |x| x[i].p50_ratio()),
            med(&r.mcp, |x| x[i].mcp.rps),
            med(&r.mcp, |x| x[i].grpc.rps),
            med(&r.mcp, |x| x[i].mcp.server_cpu),
            med(&r.mcp, |x| x[i].grpc.server_cpu),
        );
    }

    let _ = writeln!(o, "\n## Upload\n");
    match &r.uploads {
        Uploads::Unavailable(why) => {
            let _ = writeln!(o, "Not measured at this commit: {why}");
        }
        Uploads::Measured(samples) => {
            let _ = writeln!(
                o,
                "A {} MiB MP4 (incompressible) streamed with UploadMedia in 1 MiB chunks with its \
                 size and SHA-256 declared, then sent with SendMessage (`videos`) to the sandbox, \
                 which decodes the base64 and checks it. Each scenario runs on a fresh gateway \
                 process; peak RSS is its `VmHWM`. MB = 10^6 bytes.\n",
                PAYLOAD_BYTES / 1048576
            );
            let _ = writeln!(
                o,
                "| concurrent | wall time (s) | longest UploadMedia (s) | longest SendMessage (s) | MB/s | gateway CPU (ms) | sandbox CPU (ms) | idle RSS (MiB) | peak RSS (MiB) | peak / (n × payload) | (peak − idle) / (n × payload) |"
            );
            let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|");
            for s in samples {
                let _ = writeln!(
                    o,
                    "| {} | {:.2} | {:.2} | {:.2} | {:.0} | {:.0} | {:.0} | {:.1} | {:.1} | {:.2} | {:.2} |",
                    s.concurrency,
                    s.elapsed.as_secs_f64(),
                    s.upload.as_secs_f64(),
                    s.send.as_secs_f64(),
                    s.mb_per_s(),
                    s.gateway_cpu.as_secs_f64() * 1e3,
                    s.peer_cpu.as_secs_f64() * 1e3,
                    mib(s.idle_rss as f64),
                    mib(s.peak_rss as f64),
                    s.peak_multiple(),
                    s.growth_multiple()
                );
            }
        }
    }

    let _ = writeln!(o, "\n## Idle memory and start-up\n");
    let _ = writeln!(
        o,
        "A fresh `onebot-gateway serve` with one external account (forward WebSocket to the \
         sandbox process; no embedded sandbox), started {} times. SERVING = overall health \
         `Check(\"\")`; connected = the account's health name SERVING. Idle RSS is `VmRSS` \
         1.5 s after connecting.\n",
        r.starts.len()
    );
    let _ = writeln!(
        o,
        "| start | to SERVING (ms) | to connected (ms) | idle RSS (MiB) |"
    );
    let _ = writeln!(o, "|---|---|---|---|");
    for (k, s) in r.starts.iter().enumerate() {
        let _ = writeln!(
            o,
            "| {} | {:.1} | {:.1} | {:.1} |",
            k + 1,
            s.serving.as_secs_f64() * 1e3,
            s.connected.as_secs_f64() * 1e3,
            mib(s.idle_rss as f64)
        );
    }
    let _ = writeln!(
        o,
        "\nThe load gateway after all read rounds: VmRSS {:.1} MiB, VmHWM {:.1} MiB.",
        mib(r.after_load_rss as f64),
        mib(r.peak_after_load as f64)
    );
    o
}

/// A few lines for the terminal.
pub fn summary(r: &Report) -> String {
    let mut o = String::new();
    for t in targets(r) {
        let _ = writeln!(
            o,
            "{:<55} {:>24}  {} ({})",
            t.what,
            t.value,
            verdict(t.met),
            t.target
        );
    }
    if let Uploads::Unavailable(why) = &r.uploads {
        let _ = writeln!(o, "upload: not measured: {why}");
    }
    o
}
