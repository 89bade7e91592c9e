//! What one measurement yields, and how it is taken: a [`Summary`] of one
//! timed run under load with the CPU time its processes spent, and the
//! rows the rounds collect (hops, the replay peer, page sizes, starts).

use std::time::Duration;

use crate::load::{self, Call, RunStats, median};
use crate::procs;

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
}

/// One round of the gateway on the replay peer at concurrency 64, with the
/// floor (the relay's CPU per call on the same peer) and the echo server's
/// CPU per call at concurrency 64 in the same round.
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
    /// The relay (`bench/src/relay.rs`) making GetHistory's action round
    /// trip on the same replay peer: the floor of a gateway's call.
    pub relay_history: Summary,
    /// The relay making ListGroupMembers' action round trip.
    pub relay_members: Summary,
    /// Echo CPU per call with an answer of GetHistory's size, µs.
    pub echo_history_cpu: f64,
    /// Echo CPU per call with an answer of ListGroupMembers' size, µs.
    pub echo_members_cpu: f64,
}

impl ReplayRound {
    /// Gateway CPU per GetHistory call / the floor's (the relay's).
    pub fn history_over_floor(&self) -> f64 {
        self.history.server_cpu / self.relay_history.server_cpu
    }
    /// Gateway CPU per ListGroupMembers call / the floor's (the relay's).
    pub fn members_over_floor(&self) -> f64 {
        self.members.server_cpu / self.relay_members.server_cpu
    }
    /// Gateway CPU per GetHistory call / echo CPU per call.
    pub fn history_over_echo(&self) -> f64 {
        self.history.server_cpu / self.echo_history_cpu
    }
    /// Gateway CPU per ListGroupMembers call / echo CPU per call.
    pub fn members_over_echo(&self) -> f64 {
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

/// Runs `call`, also charging the CPU time `pids` used meanwhile (the
/// serving process first, then the peer behind it, if any).
pub async fn measure(
    call: &Call,
    pids: &[u32],
    conc: usize,
    warmup: usize,
    dur: Duration,
) -> Summary {
    let cpu = |pids: &[u32]| -> Vec<Duration> {
        pids.iter()
            .map(|p| procs::cpu_time(*p).unwrap_or_default())
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

/// Medians over rounds of a per-round value.
pub fn med<T>(rounds: &[T], f: impl Fn(&T) -> f64) -> f64 {
    median(&rounds.iter().map(f).collect::<Vec<_>>())
}
