//! The Milky section of `RESULTS.md`: the hop rows and the upload of a
//! Milky account, and what each measures.

use std::fmt::Write as _;

use super::mib;
use crate::milky::{MilkyReport, ROWS};
use crate::procs::BENCH_GROUP;
use crate::rounds::{HopRound, med};
use crate::upload::PAYLOAD_BYTES;
use crate::workload::{CONCURRENCIES, MEMBERS_GROUP, MILKY_HISTORY_LIMIT};

/// The section, or why it was not measured.
pub(super) fn section(o: &mut String, milky: &Result<MilkyReport, String>) {
    let _ = writeln!(o, "\n## A Milky account\n");
    match milky {
        Ok(m) => o.push_str(&render(m)),
        Err(why) => {
            let _ = writeln!(o, "Not measured in this run: {why}");
        }
    }
}

/// The section's text (without its heading), as `bench milky` prints it.
pub fn render(m: &MilkyReport) -> String {
    let mut o = String::new();
    method(&mut o, m);
    hops(&mut o, m);
    upload(&mut o, m);
    o
}

/// What is measured, and how.
fn method(o: &mut String, m: &MilkyReport) {
    let _ = writeln!(
        o,
        "The same rows as above for an account that speaks Milky: `onebot-gateway serve` (its \
         own process) with one account whose `milky_url` is a Milky sandbox (`onebot-gateway \
         sandbox --protocol milky`, another process, the same seeded data): the adapter calls \
         its API over HTTP/1.1 keep-alive and takes events over WebSocket. Measured after the \
         OneBot rows, on their own sandbox, the same rounds and run lengths.\n\n\
         - **gateway**: GetHistory of group {BENCH_GROUP} (count 20; count 100) and \
           ListGroupMembers of group {MEMBERS_GROUP} (`no_cache`) through the gateway;\n\
         - **echo**: the same bare tonic echo server as above, answering as many bytes as the \
           gateway's answer ({} B, {} B and {} B);\n\
         - **direct**: the same Milky API calls the adapter makes, built by the adapter's own \
           `requests` functions, posted straight to the sandbox (`POST /api/<api>`, JSON \
           body) by one reqwest client (one connection pool, HTTP/1.1 keep-alive, as the \
           adapter's), the envelope read and checked: for count 20 one \
           `get_history_messages` with `limit` 20; for count 100 the calls the adapter pages \
           through, at most {MILKY_HISTORY_LIMIT} each (30 + 30 + 30 + 10), one after the other, \
           each starting at the previous answer's `next_message_seq` ({} messages received); \
           `get_group_member_list` with `no_cache` ({} members).\n",
        m.bytes[0], m.bytes[1], m.bytes[2], m.direct_items[1], m.direct_items[2]
    );
}

/// The hop table and CPU per call, per row and concurrency.
fn hops(o: &mut String, m: &MilkyReport) {
    let _ = writeln!(o, "Latencies in µs; medians over rounds.\n");
    let _ = writeln!(
        o,
        "| RPC | conc. | gateway p50 | gateway p99 | echo p50 | direct p50 | p50 ratio | p99 ratio | gateway rps | echo rps | direct rps | errors |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (row, name) in ROWS.iter().enumerate() {
        for (i, conc) in CONCURRENCIES.iter().enumerate() {
            let r = m.row(row, i);
            let errors: u64 = r
                .iter()
                .map(|x| x.gateway.errors + x.echo.errors + x.direct.errors)
                .sum();
            let _ = writeln!(
                o,
                "| {name} | {conc} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} | {:.2} | {:.0} | {:.0} | {:.0} | {errors} |",
                med(&r, |x| x.gateway.p50),
                med(&r, |x| x.gateway.p99),
                med(&r, |x| x.echo.p50),
                med(&r, |x| x.direct.p50),
                med(&r, HopRound::p50_ratio),
                med(&r, HopRound::p99_ratio),
                med(&r, |x| x.gateway.rps),
                med(&r, |x| x.echo.rps),
                med(&r, |x| x.direct.rps),
            );
        }
    }
    let _ = writeln!(
        o,
        "\nCPU time per call (µs, medians over rounds):\n\n\
         | RPC | conc. | echo server | sandbox (direct) | gateway | sandbox (behind the gateway) | gateway / sandbox |\n\
         |---|---|---|---|---|---|---|"
    );
    for (row, name) in ROWS.iter().enumerate() {
        for (i, conc) in CONCURRENCIES.iter().enumerate() {
            let r = m.row(row, i);
            let _ = writeln!(
                o,
                "| {name} | {conc} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} |",
                med(&r, |x| x.echo.server_cpu),
                med(&r, |x| x.direct.server_cpu),
                med(&r, |x| x.gateway.server_cpu),
                med(&r, |x| x.gateway.peer_cpu),
                med(&r, |x| x.gateway.server_cpu / x.direct.server_cpu),
            );
        }
    }
    let _ = writeln!(
        o,
        "\nPer round (p50 ratio at concurrency 1 / 64, in the order of the table):\n"
    );
    for (k, r) in m.rounds.iter().enumerate() {
        let cells: Vec<String> = r
            .iter()
            .zip(ROWS)
            .map(|(x, name)| format!("{name} {:.2} / {:.2}", x[0].p50_ratio(), x[1].p50_ratio()))
            .collect();
        let _ = writeln!(o, "- round {}: {}", k + 1, cells.join("; "));
    }
}

/// The upload through the gateway beside the direct send, per round.
fn upload(o: &mut String, m: &MilkyReport) {
    let _ = writeln!(
        o,
        "\nUpload: the same {} MiB video as above, streamed with UploadMedia and sent with \
         SendMessage (`videos`) on a fresh gateway process whose account is the Milky one, one \
         at a time. The bench's Milky sandbox listens on loopback, so the account's \
         `milky_media = \"auto\"` picks `http`: the adapter names the staged video in \
         `send_group_message`'s `video` segment by a one-time `http://` URL on the account's \
         media listener, and the sandbox fetches it from there (the staged file read in blocks) \
         before it answers. Right after each, the direct baseline: the same \
         `send_group_message` body (`video{{uri: http://...}}`), its one-time URL served by a \
         media listener of the adapter's own type started by the bench from the payload in \
         memory, posted to the sandbox on a connection already open, until its answer (the \
         sandbox's fetch included). MB = 10^6 bytes.\n",
        PAYLOAD_BYTES / 1048576
    );
    let _ = writeln!(
        o,
        "| round | wall time (s) | UploadMedia (s) | SendMessage (s) | MB/s | gateway CPU (ms) | sandbox CPU (ms) | idle RSS (MiB) | peak RSS (MiB) | (peak − idle) / payload | direct (s) | direct MB/s | direct sandbox CPU (ms) | gateway / direct |"
    );
    let _ = writeln!(
        o,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for (k, (s, d)) in m.uploads.iter().enumerate() {
        let _ = writeln!(
            o,
            "| {} | {:.2} | {:.2} | {:.2} | {:.0} | {:.0} | {:.0} | {:.1} | {:.1} | {:.2} | {:.2} | {:.0} | {:.0} | {:.2} |",
            k + 1,
            s.elapsed.as_secs_f64(),
            s.upload.as_secs_f64(),
            s.send.as_secs_f64(),
            s.mb_per_s(),
            s.gateway_cpu.as_secs_f64() * 1e3,
            s.peer_cpu.as_secs_f64() * 1e3,
            mib(s.idle_rss as f64),
            mib(s.peak_rss as f64),
            s.growth_multiple(),
            d.elapsed.as_secs_f64(),
            d.mb_per_s(),
            d.peer_cpu.as_secs_f64() * 1e3,
            s.mb_per_s() / d.mb_per_s()
        );
    }
}
