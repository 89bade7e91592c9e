//! `bench decode`: the gateway's reply decoders beside serde_json reading
//! the same text, in this process on one thread.
//!
//! The replies are recorded once from the sandbox (the frames the replay
//! peer answers with). Each is decoded three ways, many times over:
//! - the gateway: what its adapter runs on a reply frame (the member list,
//!   or the history rows, in one pass over the text);
//! - `IgnoredAny`: serde_json reading every token and keeping nothing,
//!   the floor of any decoder built on serde_json;
//! - `Value`: serde_json building the whole tree, what a decoder that
//!   starts from a `Value` pays before it reads a field.
//!
//! So the gateway's decoding cost is seen against what the parser itself
//! costs, apart from sockets and scheduling.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use onebot_gateway_domain::model::ChatRef;
use onebot_gateway_onebot::frame::FrameText;
use onebot_gateway_onebot::history;
use onebot_gateway_onebot::model::{MemberList, member_list_of_frame};
use serde::de::IgnoredAny;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Utf8Bytes;

use crate::direct::DirectClient;
use crate::load::median;
use crate::procs::BENCH_GROUP;
use crate::replay;

/// Timed batches per decoder; the median batch is reported.
pub const BATCHES: usize = 15;
/// Shortest batch: enough calls that the clock's cost does not show.
const BATCH: Duration = Duration::from_millis(40);

/// One recorded reply and its decoding costs.
#[derive(Debug, Clone)]
pub struct DecodeRow {
    /// What the reply answers.
    pub what: String,
    /// Its length in bytes.
    pub bytes: usize,
    /// Entries the gateway decoded from it.
    pub entries: usize,
    /// µs per reply: the gateway's decoder.
    pub gateway_us: f64,
    /// µs per reply: serde_json skipping every value.
    pub ignored_us: f64,
    /// µs per reply: serde_json building a `Value`.
    pub value_us: f64,
}

/// Records the replies from the sandbox at `ws_url`, then times the
/// decoders on them.
pub async fn measure(ws_url: &str) -> Result<Vec<DecodeRow>> {
    let client = DirectClient::connect(ws_url).await?;
    let mut rows = Vec::new();

    let (action, params) = crate::workload::direct_members();
    let text = recorded(&client, action, &params).await?;
    let entries = match member_list_of_frame(text.clone()) {
        Some((_, MemberList::Members(m))) => m.len(),
        _ => bail!("{action}: the recorded reply holds no member list"),
    };
    let gateway_us = time(|| {
        std::hint::black_box(member_list_of_frame(text.clone()));
    });
    rows.push(row(
        format!("{action} ({entries} members)"),
        &text,
        entries,
        gateway_us,
    ));

    for count in [crate::workload::HISTORY_COUNT, 100] {
        let (action, params) = crate::workload::direct_history_of(count);
        let text = recorded(&client, action, &params).await?;
        let chat = ChatRef::Group(BENCH_GROUP);
        let entries = match history::rows_of_frame(chat, &text) {
            Some((_, Ok(Some((messages, _))))) => messages.len(),
            _ => bail!("{action}: the recorded reply holds no history rows"),
        };
        let gateway_us = time(|| {
            std::hint::black_box(history::rows_of_frame(chat, &text));
        });
        rows.push(row(
            format!("{action}, a page of {count} ({entries} messages)"),
            &text,
            entries,
            gateway_us,
        ));
        if count == crate::workload::HISTORY_COUNT {
            // The sandbox writes keys sorted (`data` before `type`); NapCat
            // writes a segment's `type` first.
            let text = type_first(&text)?;
            let gateway_us = time(|| {
                std::hint::black_box(history::rows_of_frame(chat, &text));
            });
            rows.push(row(
                format!("{action}, a page of {count}, `type` before `data` ({entries} messages)"),
                &text,
                entries,
                gateway_us,
            ));
        }
    }
    Ok(rows)
}

/// `text` written again with `type` as the first key of every object that
/// has both `type` and `data` (a segment), every other key in its order.
fn type_first(text: &FrameText) -> Result<FrameText> {
    fn write(v: &Value, out: &mut String) -> Result<()> {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                if map.contains_key("type") && map.contains_key("data") {
                    keys.sort_by_key(|k| k.as_str() != "type");
                }
                out.push('{');
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(key)?);
                    out.push(':');
                    write(&map[key], out)?;
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out)?;
                }
                out.push(']');
            }
            scalar => out.push_str(&serde_json::to_string(scalar)?),
        }
        Ok(())
    }
    let tree: Value = serde_json::from_str(text.as_str())?;
    let mut out = String::with_capacity(text.as_str().len());
    write(&tree, &mut out)?;
    Ok(FrameText::new(Utf8Bytes::from(out)))
}

/// The reply frame `client` gets for `action`, as the replay peer sends it.
async fn recorded(client: &DirectClient, action: &str, params: &Value) -> Result<FrameText> {
    let text = replay::recorded_reply(client, action, params, "\"bench-decode\"").await?;
    Ok(FrameText::new(Utf8Bytes::from(text)))
}

fn row(what: String, text: &FrameText, entries: usize, gateway_us: f64) -> DecodeRow {
    let s = text.as_str();
    DecodeRow {
        what,
        bytes: s.len(),
        entries,
        gateway_us,
        ignored_us: time(|| {
            let _ = std::hint::black_box(serde_json::from_str::<IgnoredAny>(s));
        }),
        value_us: time(|| {
            let _ = std::hint::black_box(serde_json::from_str::<Value>(s));
        }),
    }
}

/// µs per call of `f`: the median over [`BATCHES`] batches, each at least
/// [`BATCH`] long, after one warm-up batch.
fn time(mut f: impl FnMut()) -> f64 {
    let mut per_batch = 1usize;
    // Warm-up, and the batch size that lasts BATCH.
    loop {
        let start = Instant::now();
        for _ in 0..per_batch {
            f();
        }
        if start.elapsed() >= BATCH {
            break;
        }
        per_batch *= 2;
    }
    let samples: Vec<f64> = (0..BATCHES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..per_batch {
                f();
            }
            start.elapsed().as_secs_f64() * 1e6 / per_batch as f64
        })
        .collect();
    median(&samples)
}

/// The rows as a Markdown table.
pub fn render(rows: &[DecodeRow]) -> String {
    let mut out = String::from(
        "| reply | bytes | entries | gateway µs | IgnoredAny µs | Value µs | gateway / IgnoredAny | Value / gateway |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} |\n",
            r.what,
            r.bytes,
            r.entries,
            r.gateway_us,
            r.ignored_us,
            r.value_us,
            r.gateway_us / r.ignored_us,
            r.value_us / r.gateway_us,
        ));
    }
    out
}
