//! The Milky rows: the gateway with one Milky account (`milky_url`) on the
//! Milky sandbox (`onebot-gateway sandbox --protocol milky`, its own
//! process), beside the bare echo server and the same Milky API calls made
//! straight to that sandbox ([`MilkyDirect`]), for GetHistory (count 20
//! and 100) and ListGroupMembers at each concurrency; then the upload of a
//! 30 MiB video through a fresh gateway beside `send_group_message` posted
//! directly.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use prost::Message as _;
use sha2::{Digest, Sha256};

use crate::echo::{self, EchoProc};
use crate::load::{self, Call};
use crate::milky_direct::MilkyDirect;
use crate::procs::{GatewayOptions, GatewayProc, MilkySandboxProc};
use crate::rounds::{HopRound, measure};
use crate::upload::{self, DirectUpload, RAISED_LIMITS, UploadSample};
use crate::workload::{CONCURRENCIES, MILKY_HISTORY_COUNTS, history_request_of, members_request};

/// The rows measured, in the order of [`MilkyReport::rounds`].
pub const ROWS: [&str; 3] = [
    "GetHistory count 20",
    "GetHistory count 100",
    "ListGroupMembers",
];

/// Settings of the Milky rows.
#[derive(Debug, Clone, Copy)]
pub struct MilkyOptions {
    /// Rounds of the read rows and of the upload.
    pub rounds: usize,
    /// Length of one timed run at concurrency 1.
    pub run_c1: Duration,
    /// Length of one timed run at concurrency 64.
    pub run_c64: Duration,
}

/// What the Milky rows measured.
#[derive(Debug, Clone)]
pub struct MilkyReport {
    /// Encoded size of the gateway's answer, per row of [`ROWS`] (the echo
    /// server answers as many bytes).
    pub bytes: [u32; 3],
    /// Messages (or members) each row's direct calls received, per row.
    pub direct_items: [usize; 3],
    /// Per round: per row of [`ROWS`], per concurrency of
    /// [`CONCURRENCIES`].
    pub rounds: Vec<[[HopRound; 2]; 3]>,
    /// Per round: the upload through a fresh gateway and the direct send
    /// right after it.
    pub uploads: Vec<(UploadSample, DirectUpload)>,
}

impl MilkyReport {
    /// The rounds of row `row` at concurrency index `conc`.
    pub fn row(&self, row: usize, conc: usize) -> Vec<HopRound> {
        self.rounds
            .iter()
            .filter_map(|r| r.get(row).and_then(|x| x.get(conc)).copied())
            .collect()
    }
}

/// Runs the Milky rows on their own sandbox.
pub async fn measure_all(bin: &Path, opts: MilkyOptions) -> Result<MilkyReport> {
    let sandbox = MilkySandboxProc::start(bin).await?;
    eprintln!(
        "bench: Milky sandbox pid {} at {}",
        sandbox.proc.pid, sandbox.milky_url
    );
    let gateway = GatewayProc::start_milky(bin, &sandbox.milky_url, &GatewayOptions::default())
        .await
        .context("the gateway on the Milky sandbox")?;
    gateway.wait_account_connected().await?;
    let direct = MilkyDirect::new(&sandbox.milky_url)?;
    let (bytes, direct_items) = check_answers(&gateway, &direct).await?;
    let largest = bytes.iter().copied().max().unwrap_or(0);
    let echo = EchoProc::start(largest).await?;
    eprintln!(
        "bench: Milky answers {} B (history 20), {} B (history 100), {} B (members)",
        bytes[0], bytes[1], bytes[2]
    );
    let systems = systems(&gateway, &direct, &echo, bytes);
    let pids = (
        [echo.pid],
        [sandbox.proc.pid],
        [gateway.proc.pid, sandbox.proc.pid],
    );
    let mut rounds = Vec::with_capacity(opts.rounds);
    for round in 0..opts.rounds {
        let mut r = [[HopRound::default(); 2]; 3];
        for (i, &conc) in CONCURRENCIES.iter().enumerate() {
            let dur = if conc == 1 { opts.run_c1 } else { opts.run_c64 };
            let warm = if conc == 1 { 50 } else { 5 };
            for (row, [e, d, g]) in r.iter_mut().zip(&systems) {
                row[i] = HopRound {
                    echo: measure(e, &pids.0, conc, warm, dur).await,
                    direct: measure(d, &pids.1, conc, warm, dur).await,
                    gateway: measure(g, &pids.2, conc, warm, dur).await,
                };
            }
        }
        eprintln!(
            "bench: Milky round {}/{}: p50 ratio c1 / c64: {} {:.2} / {:.2}; {} {:.2} / {:.2}; {} {:.2} / {:.2}",
            round + 1,
            opts.rounds,
            ROWS[0],
            r[0][0].p50_ratio(),
            r[0][1].p50_ratio(),
            ROWS[1],
            r[1][0].p50_ratio(),
            r[1][1].p50_ratio(),
            ROWS[2],
            r[2][0].p50_ratio(),
            r[2][1].p50_ratio(),
        );
        rounds.push(r);
    }
    drop(systems);
    drop(echo);
    gateway.proc.kill().await?;
    let uploads = measure_uploads(bin, &sandbox, &direct, opts.rounds).await?;
    Ok(MilkyReport {
        bytes,
        direct_items,
        rounds,
        uploads,
    })
}

/// Per round: one upload + send of the 30 MiB video through a fresh
/// gateway on the Milky sandbox, then the direct `send_group_message`.
async fn measure_uploads(
    bin: &Path,
    sandbox: &MilkySandboxProc,
    direct: &MilkyDirect,
    rounds: usize,
) -> Result<Vec<(UploadSample, DirectUpload)>> {
    let payload = upload::video_payload();
    let sha = hex::encode(Sha256::digest(&payload));
    let opts = GatewayOptions {
        account_extra: RAISED_LIMITS.into(),
        ..GatewayOptions::default()
    };
    let peer = sandbox.proc.pid;
    let mut out = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let gw = GatewayProc::start_milky(bin, &sandbox.milky_url, &opts).await?;
        gw.wait_account_connected().await?;
        let sample = upload::scenario(&gw, peer, (&payload, &sha), 1)
            .await
            .context("Milky upload")?;
        upload::log_sample("Milky upload", &sample);
        gw.proc.kill().await?;
        // The direct send right after, so the pair meets the machine in the
        // same state.
        let d = direct.upload(peer, &payload).await?;
        eprintln!(
            "bench: Milky direct upload x1: {:.0} MB/s (CPU sandbox {:.0} ms)",
            d.mb_per_s(),
            d.peer_cpu.as_secs_f64() * 1e3
        );
        out.push((sample, d));
    }
    Ok(out)
}

/// Checks the gateway and the direct calls answer what they should;
/// returns the encoded sizes of the gateway's answers and the items the
/// direct calls received, per row.
async fn check_answers(
    gateway: &GatewayProc,
    direct: &MilkyDirect,
) -> Result<([u32; 3], [usize; 3])> {
    let mut bytes = [0u32; 3];
    let mut items = [0usize; 3];
    for (k, count) in MILKY_HISTORY_COUNTS.into_iter().enumerate() {
        let page = gateway
            .messages()
            .get_history(history_request_of(count))
            .await
            .with_context(|| format!("Milky GetHistory count {count}"))?
            .into_inner();
        if page.messages.len() != count as usize {
            bail!(
                "Milky GetHistory count {count} returned {} messages",
                page.messages.len()
            );
        }
        bytes[k] = page.encoded_len() as u32;
        items[k] = direct.history(count).await?;
        if items[k] != count as usize {
            bail!(
                "direct get_history_messages for {count} received {}",
                items[k]
            );
        }
    }
    let members = gateway
        .groups()
        .list_group_members(members_request())
        .await
        .context("Milky ListGroupMembers")?
        .into_inner();
    if members.from_cache || members.shown != 100 {
        bail!(
            "Milky ListGroupMembers: shown {} from_cache {}",
            members.shown,
            members.from_cache
        );
    }
    bytes[2] = members.encoded_len() as u32;
    items[2] = direct.members().await?;
    if items[2] != members.total as usize {
        bail!(
            "direct get_group_member_list received {}, the gateway counted {}",
            items[2],
            members.total
        );
    }
    Ok((bytes, items))
}

/// Per row of [`ROWS`]: the echo, direct and gateway calls.
fn systems(
    gateway: &GatewayProc,
    direct: &MilkyDirect,
    echo: &EchoProc,
    bytes: [u32; 3],
) -> [[Call; 3]; 3] {
    let history = |k: usize| {
        let count = MILKY_HISTORY_COUNTS[k];
        let d = direct.clone();
        let messages = gateway.messages();
        [
            echo::load_call(&echo.channel, bytes[k]),
            load::call(move || {
                let d = d.clone();
                async move { d.history(count).await.map(drop).map_err(|e| e.to_string()) }
            }),
            load::call(move || {
                let mut c = messages.clone();
                async move {
                    c.get_history(history_request_of(count))
                        .await
                        .map(drop)
                        .map_err(|s| s.to_string())
                }
            }),
        ]
    };
    let d = direct.clone();
    let groups = gateway.groups();
    let members = [
        echo::load_call(&echo.channel, bytes[2]),
        load::call(move || {
            let d = d.clone();
            async move { d.members().await.map(drop).map_err(|e| e.to_string()) }
        }),
        load::call(move || {
            let mut c = groups.clone();
            async move {
                c.list_group_members(members_request())
                    .await
                    .map(drop)
                    .map_err(|s| s.to_string())
            }
        }),
    ];
    [history(0), history(1), members]
}
