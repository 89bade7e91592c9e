//! The targets: each measure's bound, the table of them at the top of
//! `RESULTS.md`, and the same rows for the terminal.

use std::fmt::Write as _;

use super::{Report, mib};
use crate::archive::{ArchiveReport, INBOUND_RATE, LATENCY_TARGET, SEARCH_ROWS, SEARCH_TARGET};
use crate::load::median;
use crate::mcp::{MCP_CONCURRENCIES, MCP_TARGET};
use crate::milky::{self, MilkyReport};
use crate::rounds::{HopRound, PageRow, ReplayRound, StartSample, med};
use crate::scale;
use crate::upload::{DirectUpload, UPLOAD_CONCURRENCY, UploadSample, Uploads};
use crate::workload::CONCURRENCIES;

/// Target: gateway p50 ≤ this × (echo p50 + direct p50).
pub const HOP_TARGET: f64 = 1.3;
/// Target: gateway GetHistory rps at concurrency 64 ≥ this × direct rps.
pub const DIRECT_RPS_TARGET: f64 = 0.9;
/// Target: gateway CPU per call on the replay peer (GetHistory and
/// ListGroupMembers) ≤ this × the floor, the relay's CPU per call for the
/// same action on the same peer in the same round.
pub const REPLAY_FLOOR_TARGET: f64 = 2.5;
/// Target: upload + send throughput ≥ this × the direct client's.
pub const UPLOAD_DIRECT_TARGET: f64 = 0.6;
/// Target: (peak − idle) RSS of uploads, multiple of the bytes in flight,
/// per concurrency (1, 4).
pub const UPLOAD_GROWTH_TARGETS: [f64; 2] = [0.5, 0.25];
/// Page sizes count as flat within this factor.
pub const PAGE_FLAT: f64 = 1.10;
/// Target: idle RSS, MiB.
pub const IDLE_RSS_TARGET_MIB: f64 = 20.0;
/// Target: start to SERVING, ms.
pub const SERVING_TARGET_MS: f64 = 200.0;

/// One target row.
struct Target {
    what: String,
    value: String,
    target: String,
    met: bool,
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "**missed**" }
}

fn sink_targets(s: &Result<crate::sink::SinkReport, String>) -> Vec<Target> {
    let s = match s {
        Ok(s) => s,
        Err(why) => {
            return vec![Target {
                what: "the NATS event sink".into(),
                value: format!("not measured: {why}"),
                target: "measured".into(),
                met: false,
            }];
        }
    };
    let ratio = s.latency_ratio();
    vec![
        Target {
            what: format!("{INBOUND_RATE} inbound messages/s through the NATS sink"),
            value: format!(
                "{} of {} runs with every event in JetStream",
                s.on.iter().filter(|r| r.stored == r.sent).count(),
                s.on.len()
            ),
            target: "every event delivered (no lag), every message acknowledged by JetStream"
                .into(),
            met: s.sustained(),
        },
        Target {
            what: "p50 event delivery latency, sink on / off".into(),
            value: format!("{ratio:.2} ×"),
            target: format!("≤ {} ×", crate::sink::LATENCY_TARGET),
            met: !s.on.is_empty() && ratio <= crate::sink::LATENCY_TARGET,
        },
    ]
}

/// `targets`, one line each, for the terminal.
fn lines(targets: Vec<Target>) -> String {
    let mut o = String::new();
    for t in targets {
        let _ = writeln!(
            o,
            "{:<55} {:>34}  {} ({})",
            t.what,
            t.value,
            verdict(t.met),
            t.target
        );
    }
    o
}

/// The sink's targets alone, one line each.
pub fn sink_summary(s: &crate::sink::SinkReport) -> String {
    lines(sink_targets(&Ok(s.clone())))
}

fn failover_targets(f: &Result<crate::failover::FailoverReport, String>) -> Vec<Target> {
    use crate::failover::{SLACK_SECS, TTL_SECS};
    let target = format!("≤ ttl_secs + {SLACK_SECS} s = {} s", TTL_SECS + SLACK_SECS);
    vec![match f {
        Ok(f) => Target {
            what: format!(
                "failover, kill -9 to first served call ({} runs)",
                f.runs.len()
            ),
            value: format!("median {:.2} s, max {:.2} s", f.median_secs(), f.max_secs()),
            target,
            met: f.met(),
        },
        Err(why) => Target {
            what: "failover, kill -9 to first served call".into(),
            value: format!("not measured: {why}"),
            target,
            met: false,
        },
    }]
}

/// The failover target alone, one line.
pub fn failover_summary(f: &crate::failover::FailoverReport) -> String {
    lines(failover_targets(&Ok(f.clone())))
}

fn archive_targets(a: &ArchiveReport) -> Vec<Target> {
    let mut t = Vec::new();
    let on: Vec<_> = a.inbound.iter().filter(|r| r.archive).collect();
    let rate = median(&on.iter().map(|r| r.rate).collect::<Vec<_>>());
    t.push(Target {
        what: format!("{INBOUND_RATE} inbound messages/s through the archive"),
        value: format!(
            "{rate:.0}/s, {} of {} runs complete",
            a.inbound
                .iter()
                .filter(|r| !r.lagged
                    && r.received == r.sent
                    && (!r.archive || r.archived == r.sent))
                .count(),
            a.inbound.len()
        ),
        target: "every event delivered (no lag), every message archived".into(),
        met: a.sustained(),
    });
    let ratio = a.latency_ratio();
    t.push(Target {
        what: "p50 event delivery latency, archive on / off".into(),
        value: format!("{ratio:.2} ×"),
        target: format!("≤ {LATENCY_TARGET} ×"),
        met: !a.inbound.is_empty() && ratio <= LATENCY_TARGET,
    });
    for s in &a.search {
        t.push(Target {
            what: format!(
                "search {:?} ({} chars) over {SEARCH_ROWS} messages",
                s.query,
                s.query.chars().count()
            ),
            value: format!("{:.1} × faster than a full scan", s.speedup()),
            target: format!("≥ {SEARCH_TARGET} ×"),
            met: s.speedup() >= SEARCH_TARGET,
        });
    }
    t
}

/// The archive rows alone, for `bench archive`.
pub fn archive_summary(a: &ArchiveReport) -> String {
    lines(archive_targets(a))
}

/// Every target in the order of the table: the read RPCs, the uploads, the
/// page sizes, the scaling, the fresh starts, the archive.
fn targets(r: &Report) -> Vec<Target> {
    let mut t = read_targets(r);
    if let Uploads::Measured(samples, direct) = &r.uploads {
        t.extend(upload_targets(samples, direct));
    }
    match &r.milky {
        Ok(m) => t.extend(milky_targets(m)),
        Err(why) => t.push(Target {
            what: "Milky account: hop ratios and upload".into(),
            value: format!("not measured: {}", why.replace('|', "/").replace('\n', " ")),
            target: format!(
                "≤ {HOP_TARGET} × (echo p50 + direct p50); ≥ {UPLOAD_DIRECT_TARGET} × direct"
            ),
            met: false,
        }),
    }
    t.extend(pages_target(&r.pages));
    for (what, value, target, met) in scale::targets(&r.scale) {
        t.push(Target {
            what,
            value,
            target,
            met,
        });
    }
    t.extend(start_targets(&r.starts));
    t.extend(archive_targets(&r.archive));
    t.extend(sink_targets(&r.sink));
    t.extend(failover_targets(&r.failover));
    t
}

/// The hop ratios, MCP against CallTool, rps against direct, and CPU per
/// call against the floor on the replay peer.
fn read_targets(r: &Report) -> Vec<Target> {
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
    let vs_direct = med(&r.history, |x| x[1].gateway.rps / x[1].direct.rps);
    t.push(Target {
        what: "GetHistory rps at concurrency 64 against the same sandbox".into(),
        value: format!("{vs_direct:.2} × direct rps"),
        target: format!("≥ {DIRECT_RPS_TARGET} × direct rps"),
        met: vs_direct >= DIRECT_RPS_TARGET,
    });
    if !r.replay.is_empty() {
        let history = med(&r.replay, ReplayRound::history_over_floor);
        let members = med(&r.replay, ReplayRound::members_over_floor);
        for (name, ratio) in [("GetHistory", history), ("ListGroupMembers", members)] {
            t.push(Target {
                what: format!("{name}: gateway CPU per call on the replay peer, concurrency 64"),
                value: format!("{ratio:.2} × the floor"),
                target: format!(
                    "≤ {REPLAY_FLOOR_TARGET} × the floor (the relay's CPU per call, same round)"
                ),
                met: ratio <= REPLAY_FLOOR_TARGET,
            });
        }
    }
    t
}

/// Throughput against the direct client and memory above idle, per
/// upload concurrency.
fn upload_targets(samples: &[UploadSample], direct: &[DirectUpload]) -> Vec<Target> {
    let mut t = Vec::new();
    for (k, n) in UPLOAD_CONCURRENCY.into_iter().enumerate() {
        let s: Vec<&UploadSample> = samples.iter().filter(|s| s.concurrency == n).collect();
        let d: Vec<&DirectUpload> = direct.iter().filter(|s| s.concurrency == n).collect();
        let mbps = median(&s.iter().map(|x| x.mb_per_s()).collect::<Vec<_>>());
        let direct_mbps = median(&d.iter().map(|x| x.mb_per_s()).collect::<Vec<_>>());
        // Each gateway scenario is paired with the direct send that ran
        // right after it, as every other ratio here is paired in its round.
        let ratio = median(
            &s.iter()
                .zip(&d)
                .map(|(g, d)| g.mb_per_s() / d.mb_per_s())
                .collect::<Vec<_>>(),
        );
        let growth = median(&s.iter().map(|x| x.growth_multiple()).collect::<Vec<_>>());
        t.push(Target {
            what: format!("upload + send 30 MiB video, {n} concurrent"),
            value: format!(
                "{ratio:.2} × direct (median of paired runs; medians {mbps:.0} and {direct_mbps:.0} MB/s)"
            ),
            target: format!("≥ {UPLOAD_DIRECT_TARGET} × direct"),
            met: ratio >= UPLOAD_DIRECT_TARGET,
        });
        let target = UPLOAD_GROWTH_TARGETS[k.min(1)];
        t.push(Target {
            what: format!("gateway memory above idle, {n} concurrent upload(s)"),
            value: format!("{growth:.2} × payload"),
            target: format!("≤ {target} × payload"),
            met: growth <= target,
        });
    }
    t
}

/// The Milky account's rows: the hop ratio of each read row at each
/// concurrency, then the upload against `send_group_message` posted
/// directly and its memory above idle.
fn milky_targets(m: &MilkyReport) -> Vec<Target> {
    let mut t = Vec::new();
    for (row, name) in milky::ROWS.iter().enumerate() {
        for (i, conc) in CONCURRENCIES.iter().enumerate() {
            let ratio = med(&m.row(row, i), HopRound::p50_ratio);
            t.push(Target {
                what: format!("Milky {name} p50 hop ratio, concurrency {conc}"),
                value: format!("{ratio:.2} ×"),
                target: format!("≤ {HOP_TARGET} × (echo p50 + direct p50)"),
                met: ratio <= HOP_TARGET,
            });
        }
    }
    let ratios: Vec<f64> = m
        .uploads
        .iter()
        .map(|(g, d)| g.mb_per_s() / d.mb_per_s())
        .collect();
    let ratio = median(&ratios);
    let mbps = median(
        &m.uploads
            .iter()
            .map(|(g, _)| g.mb_per_s())
            .collect::<Vec<_>>(),
    );
    let direct = median(
        &m.uploads
            .iter()
            .map(|(_, d)| d.mb_per_s())
            .collect::<Vec<_>>(),
    );
    t.push(Target {
        what: "Milky upload + send 30 MiB video, 1 concurrent".into(),
        value: format!(
            "{ratio:.2} × direct (median of paired runs; medians {mbps:.0} and {direct:.0} MB/s)"
        ),
        target: format!("≥ {UPLOAD_DIRECT_TARGET} × direct"),
        met: ratio >= UPLOAD_DIRECT_TARGET,
    });
    let growth = median(
        &m.uploads
            .iter()
            .map(|(g, _)| g.growth_multiple())
            .collect::<Vec<_>>(),
    );
    let bound = UPLOAD_GROWTH_TARGETS[0];
    t.push(Target {
        what: "Milky gateway memory above idle, 1 concurrent upload".into(),
        value: format!("{growth:.2} × payload"),
        target: format!("≤ {bound} × payload"),
        met: growth <= bound,
    });
    t
}

/// The Milky rows alone, for `bench milky`.
pub fn milky_summary(m: &MilkyReport) -> String {
    lines(milky_targets(m))
}

/// CPU per message returned across the page sizes, when measured.
fn pages_target(pages: &[PageRow]) -> Option<Target> {
    let [first, rest @ ..] = pages else {
        return None;
    };
    let mut prev = first.cpu_per_message();
    let mut flat = true;
    for row in rest {
        let cpm = row.cpu_per_message();
        flat &= cpm <= prev * PAGE_FLAT;
        prev = cpm;
    }
    let values: Vec<String> = pages
        .iter()
        .map(|p| format!("{:.1}", p.cpu_per_message()))
        .collect();
    Some(Target {
        what: format!(
            "GetHistory gateway CPU per message returned, count {}",
            pages
                .iter()
                .map(|p| p.count.to_string())
                .collect::<Vec<_>>()
                .join(" / ")
        ),
        value: format!("{} µs", values.join(" / ")),
        target: format!("falls or stays flat (within {PAGE_FLAT} ×)"),
        met: flat,
    })
}

/// Idle memory and the time to SERVING of the fresh starts.
fn start_targets(starts: &[StartSample]) -> [Target; 2] {
    let idle = mib(median(
        &starts.iter().map(|s| s.idle_rss as f64).collect::<Vec<_>>(),
    ));
    let serving = median(
        &starts
            .iter()
            .map(|s| s.serving.as_secs_f64() * 1e3)
            .collect::<Vec<_>>(),
    );
    [
        Target {
            what: "idle RSS, one external account".into(),
            value: format!("{idle:.1} MiB"),
            target: format!("≤ {IDLE_RSS_TARGET_MIB:.0} MiB"),
            met: idle <= IDLE_RSS_TARGET_MIB,
        },
        Target {
            what: "process start to health SERVING".into(),
            value: format!("{serving:.0} ms"),
            target: format!("≤ {SERVING_TARGET_MS:.0} ms"),
            met: serving <= SERVING_TARGET_MS,
        },
    ]
}

/// Every target, its value and whether it was met.
pub(super) fn table_section(o: &mut String, r: &Report) {
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
            "| upload 30 MiB video (1 and 4 concurrent): MB/s and memory | not measured | \
             ≥ {UPLOAD_DIRECT_TARGET} × direct; ≤ {:?} × payload above idle | not measured: {} |",
            UPLOAD_GROWTH_TARGETS,
            why.replace('|', "/").replace('\n', " ")
        );
    }
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
