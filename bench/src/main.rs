//! `cargo run --release -p bench`: measures the gateway against baselines
//! taken in the same run and rewrites `bench/RESULTS.md`.
//!
//! `cargo run --release -p bench -- soak --minutes N` runs the soak instead.
//!
//! # Layout
//!
//! Each file imports only from those listed before it:
//! - `procs`: the sandbox and gateway processes (spawn, log lines, `/proc`);
//!   `load`: closed-loop load and statistics; `machine`: what it ran on;
//!   `direct`: the OneBot WebSocket baseline client.
//! - `workload`: the calls the benchmark makes and the OneBot actions the
//!   gateway sends for them; `rounds`: one measurement ([`rounds::measure`])
//!   and the rows the rounds collect.
//! - `relay`: one action round trip per call on a shared WebSocket (the
//!   measured floor of a gateway's call on the replay peer); `replay`: the
//!   peer that answers recorded replies (`replay-peer`); `echo`: the bare
//!   tonic baseline service (`echo-server`), with or without the relay.
//! - The measurements: `decode` (the reply decoders beside serde_json),
//!   `mcp` (the MCP Streamable HTTP row), `scale` (cost against accounts and
//!   event subscribers), `upload` (the upload scenarios), `archive`
//!   (inbound messages through the archive, and its search), `soak` (the
//!   long steady-load run).
//! - `milky_direct`: the Milky HTTP baseline client (the adapter's API
//!   calls straight to the Milky sandbox); `milky`: the Milky account's
//!   rows (hop ratios and the upload).
//! - `report`: `RESULTS.md`, one function per section; `report/targets.rs`:
//!   each target, their table and the terminal summary.
//! - `run`: the benchmark rounds, orchestrated.

mod archive;
mod decode;
mod direct;
mod echo;
mod failover;
mod load;
mod machine;
mod mcp;
mod milky;
mod milky_direct;
mod procs;
mod relay;
mod replay;
mod report;
mod rounds;
mod run;
mod scale;
mod sink;
mod soak;
mod upload;
mod workload;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand};

/// Benchmarks and the soak of onebot-gateway.
#[derive(Parser, Debug)]
#[command(name = "bench", about)]
struct Cli {
    /// The `onebot-gateway` binary to measure (default: build the release
    /// binary of this workspace).
    #[arg(long, global = true)]
    gateway_bin: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the benchmark and rewrite bench/RESULTS.md (the default).
    Run {
        /// Rounds (medians over rounds).
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Seconds of one timed run at concurrency 1.
        #[arg(long, default_value_t = 1.0)]
        secs_c1: f64,
        /// Seconds of one timed run at concurrency 64.
        #[arg(long, default_value_t = 1.5)]
        secs_c64: f64,
        /// Gateway processes started for start-up and idle memory.
        #[arg(long, default_value_t = 5)]
        starts: usize,
        /// Where to write the report.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Only the MCP row (qq_get_history over MCP against CallTool), printed,
    /// not written.
    Mcp {
        /// Rounds.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Seconds of one timed run.
        #[arg(long, default_value_t = 1.0)]
        secs: f64,
    },
    /// Only the archive rows (inbound through the archive, search),
    /// printed, not written.
    Archive {
        /// Inbound rounds (each one run without and one with the archive).
        #[arg(long, default_value_t = 2)]
        rounds: usize,
        /// Seconds of one inbound run.
        #[arg(long, default_value_t = 5.0)]
        secs: f64,
    },
    /// Only the NATS event sink's rows (inbound with and without the sink
    /// to a real nats-server), printed, not written.
    Sink {
        /// Rounds (each one run without and one with the sink).
        #[arg(long, default_value_t = 2)]
        rounds: usize,
        /// Seconds of one run.
        #[arg(long, default_value_t = 5.0)]
        secs: f64,
    },
    /// Only the failover rows: kill -9 of an `[ha]` leader to the first
    /// call served by the standby, over a real PostgreSQL, printed, not
    /// written.
    Failover {
        /// Failovers.
        #[arg(long, default_value_t = 5)]
        runs: usize,
    },
    /// Only the Milky account's rows (hop ratios of GetHistory count 20
    /// and 100 and ListGroupMembers, the 30 MiB upload), printed, not
    /// written.
    Milky {
        /// Rounds.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Seconds of one timed run at concurrency 1.
        #[arg(long, default_value_t = 1.0)]
        secs_c1: f64,
        /// Seconds of one timed run at concurrency 64.
        #[arg(long, default_value_t = 1.5)]
        secs_c64: f64,
    },
    /// Only the upload scenarios (for profiling), printed, not written.
    Upload {
        /// Rounds.
        #[arg(long, default_value_t = 1)]
        rounds: usize,
    },
    /// One system under steady load (for profiling the gateway or the
    /// sandbox with perf): prints the process ids, then latency and CPU per
    /// call. Nothing is written.
    Load {
        /// `gateway`, `direct`, `echo`, `replay` (the gateway on the replay peer)
        /// or `relay` (the relay floor on the replay peer).
        #[arg(long, default_value = "gateway")]
        system: String,
        /// `history` or `members`.
        #[arg(long, default_value = "history")]
        rpc: String,
        /// Concurrent callers.
        #[arg(long, default_value_t = 64)]
        concurrency: usize,
        /// Seconds of load.
        #[arg(long, default_value_t = 10.0)]
        secs: f64,
        /// Seconds to wait after printing the pids (to attach a profiler).
        #[arg(long, default_value_t = 0.0)]
        pause: f64,
    },
    /// The gateway's reply decoders (member list, history pages) beside
    /// serde_json skipping and building a `Value` from the same recorded
    /// replies, in this process; printed, not written.
    Decode,
    /// How cost grows: idle memory and CPU with 1, 10 and 100 accounts, CPU
    /// per delivered event with 1, 10 and 100 event subscribers; printed,
    /// not written.
    Scale {
        /// Seconds of each idle window (accounts).
        #[arg(long, default_value_t = 5.0)]
        idle_secs: f64,
        /// Seconds of injection at each subscriber count.
        #[arg(long, default_value_t = 3.0)]
        inject_secs: f64,
        /// Injected events per second.
        #[arg(long, default_value_t = 1000)]
        events_per_sec: u32,
    },
    /// Steady mixed load for a while; fails on errors or growing memory.
    Soak {
        /// Minutes of load.
        #[arg(long, conflicts_with = "seconds")]
        minutes: Option<u64>,
        /// Seconds of load (for short runs, e.g. CI's 60).
        #[arg(long)]
        seconds: Option<u64>,
        /// Concurrent callers.
        #[arg(long, default_value_t = 16)]
        concurrency: usize,
    },
    /// Internal: the replay peer (ends when stdin closes).
    #[command(hide = true)]
    ReplayPeer {
        /// The sandbox to record the replies from.
        #[arg(long)]
        record_from: String,
    },
    /// Internal: the bare tonic echo service (ends when stdin closes).
    #[command(hide = true)]
    EchoServer {
        /// Largest answer, bytes.
        #[arg(long)]
        max_payload: usize,
        /// A OneBot peer each call first makes one action round trip to.
        #[arg(long)]
        relay_peer: Option<String>,
        /// The action of that round trip: the gateway's for `history` or
        /// `members`.
        #[arg(long, default_value = "history")]
        relay_rpc: String,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let command = cli.command.unwrap_or(Command::Run {
        rounds: 5,
        secs_c1: 1.0,
        secs_c64: 1.5,
        starts: 5,
        out: None,
    });
    match command {
        Command::Run {
            rounds,
            secs_c1,
            secs_c64,
            starts,
            out,
        } => {
            run::run(run::Options {
                rounds: rounds.max(1),
                run_c1: Duration::from_secs_f64(secs_c1),
                run_c64: Duration::from_secs_f64(secs_c64),
                starts: starts.max(1),
                gateway_bin: cli.gateway_bin,
                out: out.unwrap_or_else(|| procs::workspace_root().join("bench/RESULTS.md")),
            })
            .await
        }
        Command::Soak {
            minutes,
            seconds,
            concurrency,
        } => {
            let secs = seconds.unwrap_or_else(|| minutes.unwrap_or(10) * 60);
            soak::run(soak::SoakOptions {
                duration: Duration::from_secs(secs.max(3)),
                concurrency: concurrency.max(1),
                gateway_bin: cli.gateway_bin,
            })
            .await
        }
        Command::Load {
            system,
            rpc,
            concurrency,
            secs,
            pause,
        } => {
            run::load_one(run::LoadOptions {
                system,
                rpc,
                concurrency: concurrency.max(1),
                duration: Duration::from_secs_f64(secs),
                pause: Duration::from_secs_f64(pause),
                gateway_bin: cli.gateway_bin,
            })
            .await
        }
        Command::Mcp { rounds, secs } => {
            run::mcp_only(
                cli.gateway_bin,
                rounds.max(1),
                Duration::from_secs_f64(secs),
            )
            .await
        }
        Command::Archive { rounds, secs } => {
            let bin = procs::gateway_binary(cli.gateway_bin)?;
            let report = archive::measure(&bin, rounds.max(1), secs).await?;
            print!("{}", report::targets::archive_summary(&report));
            Ok(())
        }
        Command::Sink { rounds, secs } => {
            let bin = procs::gateway_binary(cli.gateway_bin)?;
            let report = sink::measure(&bin, rounds.max(1), secs).await?;
            print!("{}", report::targets::sink_summary(&report));
            Ok(())
        }
        Command::Failover { runs } => {
            let bin = procs::gateway_binary(cli.gateway_bin)?;
            let report = failover::measure(&bin, runs.max(1)).await?;
            print!("{}", report::targets::failover_summary(&report));
            Ok(())
        }
        Command::Milky {
            rounds,
            secs_c1,
            secs_c64,
        } => {
            let bin = procs::gateway_binary(cli.gateway_bin)?;
            let opts = milky::MilkyOptions {
                rounds: rounds.max(1),
                run_c1: Duration::from_secs_f64(secs_c1),
                run_c64: Duration::from_secs_f64(secs_c64),
            };
            let m = milky::measure_all(&bin, opts).await?;
            print!("{}", report::milky::render(&m));
            print!("{}", report::targets::milky_summary(&m));
            Ok(())
        }
        Command::Upload { rounds } => {
            let bin = procs::gateway_binary(cli.gateway_bin)?;
            let sandbox = procs::SandboxProc::start(&bin).await?;
            match upload::measure(&bin, &sandbox.ws_url, sandbox.proc.pid, rounds.max(1)).await? {
                upload::Uploads::Measured(..) => Ok(()),
                upload::Uploads::Unavailable(why) => anyhow::bail!("upload unavailable: {why}"),
            }
        }
        Command::Decode => {
            let bin = procs::gateway_binary(cli.gateway_bin)?;
            let sandbox = procs::SandboxProc::start(&bin).await?;
            print!(
                "{}",
                decode::render(&decode::measure(&sandbox.ws_url).await?)
            );
            Ok(())
        }
        Command::Scale {
            idle_secs,
            inject_secs,
            events_per_sec,
        } => {
            let bin = procs::gateway_binary(cli.gateway_bin)?;
            let opts = scale::Options {
                idle: Duration::from_secs_f64(idle_secs),
                inject: Duration::from_secs_f64(inject_secs),
                events_per_sec: events_per_sec.max(1),
                ..scale::Options::default()
            };
            let s = scale::measure(&bin, &opts).await?;
            println!("{}", scale::render(&s));
            println!("| target | value | wanted | met |\n|---|---:|---:|---|");
            for (what, value, target, met) in scale::targets(&s) {
                println!(
                    "| {what} | {value} | {target} | {} |",
                    if met { "yes" } else { "NO" }
                );
            }
            Ok(())
        }
        Command::EchoServer {
            max_payload,
            relay_peer,
            relay_rpc,
        } => echo::serve(max_payload, relay_peer.map(|p| (p, relay_rpc))).await,
        Command::ReplayPeer { record_from } => replay::serve(&record_from).await,
    }
}
