//! `bench/RESULTS.md`: the machine, the commit, every number, each target
//! and whether it was met; one function per section, the targets and their
//! table in [`targets`], the Milky account's section in [`milky`].

pub mod milky;
pub mod targets;

use std::fmt::Write as _;
use std::time::Duration;

use crate::archive::{ArchiveReport, INBOUND_RATE, SEARCH_ROWS};
use crate::decode::{self, DecodeRow};
use crate::machine::Machine;
use crate::mcp::{MCP_CONCURRENCIES, McpRound};
use crate::milky::MilkyReport;
use crate::procs::BENCH_GROUP;
use crate::rounds::{HopRound, PageRow, ReplayRound, StartSample, med};
use crate::scale::{self, Scale};
use crate::upload::{PAYLOAD_BYTES, Uploads};
use crate::workload::{CONCURRENCIES, HISTORY_COUNT};

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
    /// The Milky account's rows, or why they were not measured.
    pub milky: Result<MilkyReport, String>,
    /// The archive's rows.
    pub archive: ArchiveReport,
    /// The NATS event sink's rows (why not, when they were not measured).
    pub sink: Result<crate::sink::SinkReport, String>,
    /// The failover rows (why not, when they were not measured).
    pub failover: Result<crate::failover::FailoverReport, String>,
    /// The gateway on the replay peer, per round.
    pub replay: Vec<ReplayRound>,
    /// GetHistory at each page size.
    pub pages: Vec<PageRow>,
    /// How cost grows with accounts and subscribers.
    pub scale: Scale,
    /// The reply decoders beside serde_json on the same text.
    pub decode: Vec<DecodeRow>,
}

fn mib(bytes: f64) -> f64 {
    bytes / 1048576.0
}

/// The Markdown report: one section after another.
pub fn render(r: &Report) -> String {
    let mut o = String::new();
    header_section(&mut o, r);
    targets::table_section(&mut o, r);
    hops_section(&mut o, r);
    mcp_section(&mut o, r);
    uploads_section(&mut o, r);
    milky::section(&mut o, &r.milky);
    replay_section(&mut o, r);
    decoding_section(&mut o, r);
    pages_section(&mut o, r);
    scale_section(&mut o, r);
    starts_section(&mut o, r);
    archive_section(&mut o, &r.archive);
    sink_section(&mut o, &r.sink);
    failover_section(&mut o, &r.failover);
    o
}

/// The title, the machine, the load and the method.
fn header_section(o: &mut String, r: &Report) {
    let m = &r.machine;
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
}

/// The gateway beside the echo server and the direct client, per RPC and
/// concurrency: latency, throughput and CPU per call.
fn hops_section(o: &mut String, r: &Report) {
    let _ = writeln!(o, "\n## Hop overhead\n");
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
        HISTORY_COUNT + 1
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
    let _ = writeln!(o, "\nPer round (p50 ratio at concurrency 1 / 64):\n");
    for (k, (h, mm)) in r.history.iter().zip(&r.members).enumerate() {
        let _ = writeln!(
            o,
            "- round {}: GetHistory {:.2} / {:.2}; ListGroupMembers {:.2} / {:.2}",
            k + 1,
            h[0].p50_ratio(),
            h[1].p50_ratio(),
            mm[0].p50_ratio(),
            mm[1].p50_ratio()
        );
    }
}

/// `qq_get_history` over MCP beside `CallTool` over gRPC.
fn mcp_section(o: &mut String, r: &Report) {
    let _ = writeln!(o, "\n## MCP Streamable HTTP against CallTool\n");
    let _ = writeln!(
        o,
        "`qq_get_history` ({{\"target\":\"group:{}\",\"count\":{}}}) on the same gateway: as a \
         `tools/call` of an MCP session (protocol 2025-11-25, HTTP/1.1 keep-alive, one session \
         per caller, the SSE answer read to its end; reqwest client) and as `CallTool` over \
         gRPC (tonic client). Each runs {} s per concurrency in every round. Latencies in µs; \
         medians over rounds.\n",
        BENCH_GROUP,
        HISTORY_COUNT,
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
}

/// The upload scenarios and their direct baseline.
fn uploads_section(o: &mut String, r: &Report) {
    let _ = writeln!(o, "\n## Upload\n");
    match &r.uploads {
        Uploads::Unavailable(why) => {
            let _ = writeln!(o, "Not measured at this commit: {why}");
        }
        Uploads::Measured(samples, direct) => {
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
            let _ = writeln!(
                o,
                "\nThe direct baseline: the same video's `send_group_msg` frame, base64-encoded \
                 before the clock starts, written to the same sandbox over one WebSocket per \
                 concurrent send, until every reply. Each runs right after the gateway scenario \
                 of its row above; the target is the median of the rows' ratios.\n"
            );
            let _ = writeln!(
                o,
                "| concurrent | wall time (s) | MB/s | sandbox CPU (ms) | gateway / direct |"
            );
            let _ = writeln!(o, "|---|---|---|---|---|");
            for (d, s) in direct.iter().zip(samples) {
                let _ = writeln!(
                    o,
                    "| {} | {:.2} | {:.0} | {:.0} | {:.2} |",
                    d.concurrency,
                    d.elapsed.as_secs_f64(),
                    d.mb_per_s(),
                    d.peer_cpu.as_secs_f64() * 1e3,
                    s.mb_per_s() / d.mb_per_s()
                );
            }
        }
    }
}

/// The gateway on the replay peer, beside the floor (the relay) and on
/// one thread.
fn replay_section(o: &mut String, r: &Report) {
    if r.replay.is_empty() {
        return;
    }
    let _ = writeln!(o, "\n## Against a peer that costs nothing\n");
    let _ = writeln!(
        o,
        "The replay peer (`bench replay-peer`) answers each action with a reply recorded \
         once from the sandbox, only its `echo` replaced. The gateway runs against it at \
         concurrency 64; its CPU per call is set beside the floor, the relay's CPU per call \
         for the same action on the same peer in the same round (next section).\n"
    );
    let _ = writeln!(
        o,
        "| round | GetHistory rps | gateway CPU/call (µs) | replay CPU/call (µs) | floor CPU/call (µs) | / floor | ListGroupMembers rps | gateway CPU/call (µs) | replay CPU/call (µs) | floor CPU/call (µs) | / floor |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|");
    for (k, x) in r.replay.iter().enumerate() {
        let _ = writeln!(
            o,
            "| {} | {:.0} | {:.1} | {:.1} | {:.1} | {:.2} | {:.0} | {:.1} | {:.1} | {:.1} | {:.2} |",
            k + 1,
            x.history.rps,
            x.history.server_cpu,
            x.history.peer_cpu,
            x.relay_history.server_cpu,
            x.history_over_floor(),
            x.members.rps,
            x.members.server_cpu,
            x.members.peer_cpu,
            x.relay_members.server_cpu,
            x.members_over_floor()
        );
    }
    relay_section(o, &r.replay);
    one_thread_section(o, &r.replay);
}

/// The gateway on one thread beside the default runtime, on the replay peer.
fn one_thread_section(o: &mut String, rounds: &[ReplayRound]) {
    let _ = writeln!(o, "\n### On one thread\n");
    let _ = writeln!(
        o,
        "The same calls, in the same rounds, through a second gateway on the same replay peer \
         with `[server] worker_threads = 1` (tokio's current-thread scheduler; the default, \
         measured above, is a work-stealing worker per core). Not a target: what an operator \
         of a small deployment can choose (docs/operations.md, \"Threads\").\n"
    );
    let _ = writeln!(
        o,
        "| round | GetHistory rps | CPU/call (µs) | / default | ListGroupMembers rps | CPU/call (µs) | / default |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|");
    for (k, x) in rounds.iter().enumerate() {
        let (h, m) = (&x.one_thread_history, &x.one_thread_members);
        let _ = writeln!(
            o,
            "| {} | {:.0} | {:.1} | {:.2} | {:.0} | {:.1} | {:.2} |",
            k + 1,
            h.rps,
            h.server_cpu,
            h.server_cpu / x.history.server_cpu,
            m.rps,
            m.server_cpu,
            m.server_cpu / x.members.server_cpu
        );
    }
}

/// The reply decoders beside serde_json on the same text.
fn decoding_section(o: &mut String, r: &Report) {
    if r.decode.is_empty() {
        return;
    }
    let _ = writeln!(o, "\n### Decoding the replies\n");
    let _ = writeln!(
        o,
        "The replay peer's replies decoded in the bench process on one thread (`bench \
         decode`): by the gateway's own decoder (the member list; the history rows), by \
         serde_json skipping every value (`IgnoredAny`, the floor of any decoder built on \
         it) and by serde_json building a `Value`. Medians of {} timed batches.\n",
        decode::BATCHES
    );
    o.push_str(&decode::render(&r.decode));
}

/// GetHistory at each page size.
fn pages_section(o: &mut String, r: &Report) {
    if r.pages.is_empty() {
        return;
    }
    let _ = writeln!(o, "\n## Page size\n");
    let _ = writeln!(
        o,
        "GetHistory through the gateway against the sandbox at concurrency 16, one page \
         size after another; CPU is the gateway's.\n"
    );
    let _ = writeln!(
        o,
        "| count | messages returned | rps | gateway CPU/call (µs) | per message (µs) |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|");
    for p in &r.pages {
        let _ = writeln!(
            o,
            "| {} | {} | {:.0} | {:.1} | {:.2} |",
            p.count,
            p.returned,
            p.gateway.rps,
            p.gateway.server_cpu,
            p.cpu_per_message()
        );
    }
}

/// How cost grows with accounts and subscribers.
fn scale_section(o: &mut String, r: &Report) {
    let _ = writeln!(o, "\n{}", scale::render(&r.scale));
}

/// Fresh starts: start-up times and idle memory.
fn starts_section(o: &mut String, r: &Report) {
    let _ = writeln!(o, "\n## Idle memory and start-up\n");
    let _ = writeln!(
        o,
        "A fresh `onebot-gateway serve` with one external account (forward WebSocket to the \
         sandbox process; no embedded sandbox), started {} times. SERVING = overall health \
         `Check(\"\")`; connected = the account's health name SERVING. Idle RSS is `VmRSS` \
         1.5 s after connecting, split into anonymous memory (`RssAnon`: heap, stacks) and \
         mapped files (`RssFile`: mostly the binary's own code pages, which the kernel maps \
         in around each page first run; shared and reclaimable).\n",
        r.starts.len()
    );
    let _ = writeln!(
        o,
        "| start | to SERVING (ms) | to connected (ms) | idle RSS (MiB) | anonymous (MiB) | files (MiB) |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|");
    for (k, s) in r.starts.iter().enumerate() {
        let _ = writeln!(
            o,
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
            k + 1,
            s.serving.as_secs_f64() * 1e3,
            s.connected.as_secs_f64() * 1e3,
            mib(s.idle_rss as f64),
            mib(s.idle_rss_parts.0 as f64),
            mib(s.idle_rss_parts.1 as f64)
        );
    }
    let _ = writeln!(
        o,
        "\nThe load gateway after all read rounds: VmRSS {:.1} MiB, VmHWM {:.1} MiB.",
        mib(r.after_load_rss as f64),
        mib(r.peak_after_load as f64)
    );
}

fn sink_section(o: &mut String, s: &Result<crate::sink::SinkReport, String>) {
    let _ = writeln!(o, "\n## The NATS event sink\n");
    let s = match s {
        Ok(s) => s,
        Err(why) => {
            let _ = writeln!(o, "Not measured: {why}");
            return;
        }
    };
    let _ = writeln!(
        o,
        "{INBOUND_RATE} messages per second injected into the sandbox for a gateway process to deliver to one \
         `StreamEvents` subscriber in the bench process, alternately without an event sink and with \
         `[[events.sinks]]` publishing to a real `nats-server -js` on loopback. Latency is from \
         injection to the subscriber's receipt. With the sink, the stream is then counted: every \
         message event must be in JetStream; “until stored” is from the end of the run until it \
         held the last one.\n"
    );
    let _ = writeln!(
        o,
        "| sink | sent | received | rate /s | p50 µs | p99 µs | lag or gap | in JetStream | until stored, ms |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|");
    for (label, runs) in [("off", &s.off), ("on", &s.on)] {
        for r in runs.iter() {
            let _ = writeln!(
                o,
                "| {label} | {} | {} | {:.0} | {:.0} | {:.0} | {} | {} | {:.0} |",
                r.sent,
                r.received,
                r.rate,
                r.p50_us,
                r.p99_us,
                if r.lagged { "yes" } else { "no" },
                if label == "on" {
                    r.stored.to_string()
                } else {
                    "—".into()
                },
                r.store_lag_ms
            );
        }
    }
}

fn failover_section(o: &mut String, f: &Result<crate::failover::FailoverReport, String>) {
    let _ = writeln!(o, "\n## Failover of an account (`[ha]`)\n");
    let f = match f {
        Ok(f) => f,
        Err(why) => {
            let _ = writeln!(o, "Not measured: {why}");
            return;
        }
    };
    let _ = writeln!(
        o,
        "Two gateway processes share the account of one sandbox peer, leasing it in a real \
         PostgreSQL with `ttl_secs = {}`. Each run kills the leader with SIGKILL and times until the \
         standby serves the first ListGroups for the account (tried every 20 ms); a fresh standby \
         is started for the next run. The kill comes well under a second after the leader took or \
         renewed its lease: the worst case, the lease's whole term.\n",
        crate::failover::TTL_SECS
    );
    let _ = writeln!(o, "| run | kill -9 to first served call, s |");
    let _ = writeln!(o, "|---|---|");
    for (i, d) in f.runs.iter().enumerate() {
        let _ = writeln!(o, "| {} | {:.2} |", i + 1, d.as_secs_f64());
    }
    let _ = writeln!(
        o,
        "\nMedian {:.2} s, maximum {:.2} s, beside `ttl_secs` {} s.",
        f.median_secs(),
        f.max_secs(),
        crate::failover::TTL_SECS
    );
}

fn archive_section(o: &mut String, a: &ArchiveReport) {
    let _ = writeln!(o, "\n## The message archive\n");
    let _ = writeln!(
        o,
        "Inbound: {INBOUND_RATE} messages per second injected into a sandbox peer in the bench \
         process for 5 s, delivered by a gateway process on `StreamEvents` (messages only) to a \
         subscriber in the bench process, alternately with `[archive] enabled = false` and `true` \
         (the event journal is on in both). Latency is from the injection to the subscriber's \
         receipt. With the archive on, the archive is then paged through `SearchMessages` and \
         must hold every message; “until archived” is from the end of the run until a search finds \
         the last one.\n"
    );
    let _ = writeln!(
        o,
        "| archive | sent | received | rate /s | p50 µs | p99 µs | lag or gap | archived | until archived, ms |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|");
    for r in &a.inbound {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {:.0} | {:.0} | {:.0} | {} | {} | {} |",
            if r.archive { "on" } else { "off" },
            r.sent,
            r.received,
            r.rate,
            r.p50_us,
            r.p99_us,
            if r.lagged { "yes" } else { "no" },
            if r.archive {
                r.archived.to_string()
            } else {
                "-".into()
            },
            if r.archive {
                format!("{:.0}", r.archive_lag_ms)
            } else {
                "-".into()
            },
        );
    }
    let _ = writeln!(
        o,
        "\nSearch: {SEARCH_ROWS} messages in the embedded store (stored in {:.1} s, {:.1} MiB; \
         opened again in {:.0} ms, the integrity check every start makes included, on a warm \
         page cache); the first page (20) of each query through the bigram index, against the \
         same query reading every row. Medians of 35 indexed and 7 scanning runs.\n",
        a.load_secs, a.file_mib, a.reopen_ms
    );
    let _ = writeln!(o, "| query | matches | index µs | scan µs | speed-up |");
    let _ = writeln!(o, "|---|---|---|---|---|");
    for s in &a.search {
        let _ = writeln!(
            o,
            "| {} | {} | {:.0} | {:.0} | {:.1} × |",
            s.query,
            s.matches,
            s.index_us,
            s.scan_us,
            s.speedup()
        );
    }
}

/// The relay beside the gateway on the replay peer, per round: the floor
/// of a gateway's call built on the same crates, measured, and what this
/// gateway spends above it.
fn relay_section(o: &mut String, rounds: &[ReplayRound]) {
    let _ = writeln!(o, "\n### The relay: a measured floor\n");
    let _ = writeln!(
        o,
        "The relay (`bench echo-server --relay-peer`, `bench/src/relay.rs`) is the echo \
         service where each call first makes the call's OneBot action round trip on one \
         shared WebSocket to the same replay peer, built on tokio-tungstenite and serde_json \
         alone with the gateway's own action and parameters: the call writes its frame \
         under the socket's lock, one task reads and hands each reply to its call by the \
         echo read off its end, then the call makes one pass of serde_json over the reply \
         building nothing (`IgnoredAny`), then an answer of the gateway's size. It is what \
         any gateway built on tonic, tungstenite and serde_json spends on the call before it \
         does anything with it: the floor the CPU-per-call targets are set against. \
         \"above\" is what this gateway spends beyond it (decoding into its model, \
         rendering, the proto answer, auth, limits, metrics, tracing, the archive). Measured \
         in the same rounds as the table above, at concurrency 64; CPU per call in µs.\n"
    );
    let _ = writeln!(
        o,
        "| round | GetHistory relay | relay / echo | gateway / echo | above relay | ListGroupMembers relay | relay / echo | gateway / echo | above relay |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|");
    for (k, x) in rounds.iter().enumerate() {
        let (h, m) = (x.relay_history.server_cpu, x.relay_members.server_cpu);
        let _ = writeln!(
            o,
            "| {} | {:.1} | {:.2} | {:.2} | {:.1} | {:.1} | {:.2} | {:.2} | {:.1} |",
            k + 1,
            h,
            h / x.echo_history_cpu,
            x.history_over_echo(),
            x.history.server_cpu - h,
            m,
            m / x.echo_members_cpu,
            x.members_over_echo(),
            x.members.server_cpu - m,
        );
    }
}
