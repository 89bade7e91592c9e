//! The archive's measurements.
//!
//! - **Inbound**: 5 000 messages per second injected into a sandbox peer (in
//!   this process) for a gateway process to deliver on `StreamEvents`, with
//!   `[archive] enabled = false` and `true`, alternating: every event must
//!   arrive (no lag error), in order, and with the archive on every message
//!   must be in the archive afterwards. Latency is from the injection to the
//!   subscriber's receipt (one clock: both ends are in this process).
//! - **Search**: 100 000 messages in the embedded store; a two-character and
//!   a four-character Chinese query through the bigram index against the
//!   same query reading every row (`SqliteArchive::scan`).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use onebot_gateway_client::pb;
use onebot_gateway_domain::archive::store::{ArchiveOp, ArchiveStore, ChatScope, Query, Source};
use onebot_gateway_domain::model::{ChatRef, Message, RawJson, Segment, Sender};
use onebot_gateway_store::sqlite::SqliteArchive;
use onebot_sandbox::{Sandbox, SandboxConfig, SandboxControl};
use serde_json::json;
use tokio::task::JoinHandle;

use crate::load::median;
use crate::procs::{BENCH_GROUP, GatewayOptions, GatewayProc};

/// Messages per second injected.
pub const INBOUND_RATE: u64 = 5_000;
/// Target: p50 delivery latency with the archive ≤ this × without.
pub const LATENCY_TARGET: f64 = 1.5;
/// Messages in the searched archive.
pub const SEARCH_ROWS: usize = 100_000;
/// Target: scan time ≥ this × index time.
pub const SEARCH_TARGET: f64 = 10.0;
/// The two queries measured.
pub const QUERIES: [&str; 2] = ["开会", "下午开会"];

/// One inbound run.
#[derive(Debug, Clone, Copy, Default)]
pub struct InboundRun {
    /// The archive was on.
    pub archive: bool,
    /// Messages injected.
    pub sent: u64,
    /// Messages received on the stream.
    pub received: u64,
    /// Injection rate achieved, messages per second.
    pub rate: f64,
    /// Median delivery latency, µs.
    pub p50_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// True when the stream reported a lag or ended early.
    pub lagged: bool,
    /// Messages found in the archive afterwards (archive on only).
    pub archived: u64,
    /// From the end of the run until a search found the last message, ms.
    pub archive_lag_ms: f64,
    /// With an event sink: message events JetStream acknowledged.
    pub stored: u64,
    /// With an event sink: from the end of the run until JetStream held the
    /// last one, ms.
    pub store_lag_ms: f64,
}

/// A NATS JetStream the gateway's event sink publishes to during a run.
pub struct SinkTarget<'a> {
    /// `nats://…`.
    pub url: &'a str,
    /// The stream (fresh for each run).
    pub stream: &'a str,
    /// The subject prefix (a stream's subjects may not overlap another's).
    pub prefix: &'a str,
}

/// One query's timings.
#[derive(Debug, Clone, Default)]
pub struct SearchRun {
    /// The query.
    pub query: String,
    /// Matches in the whole archive.
    pub matches: usize,
    /// Median time of the indexed search (first page of 20), µs.
    pub index_us: f64,
    /// Median time of the same search reading every row, µs.
    pub scan_us: f64,
}

impl SearchRun {
    /// scan / index.
    pub fn speedup(&self) -> f64 {
        self.scan_us / self.index_us.max(1.0)
    }
}

/// Everything the archive rows measured.
#[derive(Debug, Clone, Default)]
pub struct ArchiveReport {
    /// Inbound runs, alternating off and on.
    pub inbound: Vec<InboundRun>,
    /// The searches.
    pub search: Vec<SearchRun>,
    /// Time to store the searched rows, s.
    pub load_secs: f64,
    /// The archive's files after storing them, MiB.
    pub file_mib: f64,
    /// Time to open that archive again (the integrity check every start
    /// makes, on a warm page cache), ms.
    pub reopen_ms: f64,
}

impl ArchiveReport {
    fn medians(&self, archive: bool) -> (f64, f64) {
        let runs: Vec<&InboundRun> = self
            .inbound
            .iter()
            .filter(|r| r.archive == archive)
            .collect();
        (
            median(&runs.iter().map(|r| r.p50_us).collect::<Vec<_>>()),
            median(&runs.iter().map(|r| r.rate).collect::<Vec<_>>()),
        )
    }

    /// p50 with the archive / p50 without (medians over runs).
    pub fn latency_ratio(&self) -> f64 {
        self.medians(true).0 / self.medians(false).0.max(1.0)
    }

    /// True when every run delivered every message without a lag, at the
    /// rate, and the archive held them all.
    pub fn sustained(&self) -> bool {
        !self.inbound.is_empty()
            && self.inbound.iter().all(|r| {
                !r.lagged
                    && r.received == r.sent
                    && r.rate >= INBOUND_RATE as f64 * 0.98
                    && (!r.archive || r.archived == r.sent)
            })
    }
}

/// Runs every archive measurement: `rounds` inbound pairs of `secs`
/// seconds, then the searches.
pub async fn measure(bin: &Path, rounds: usize, secs: f64) -> Result<ArchiveReport> {
    let mut report = ArchiveReport::default();
    for round in 0..rounds {
        for archive in [false, true] {
            let run = inbound(bin, archive, None, Duration::from_secs_f64(secs), round).await?;
            eprintln!(
                "bench: inbound archive={archive}: {}/{} at {:.0}/s, p50 {:.0} µs, p99 {:.0} µs, lagged {}, archived {} (+{:.0} ms)",
                run.received,
                run.sent,
                run.rate,
                run.p50_us,
                run.p99_us,
                run.lagged,
                run.archived,
                run.archive_lag_ms
            );
            report.inbound.push(run);
        }
    }
    let searched = searches().await?;
    report.load_secs = searched.load_secs;
    report.file_mib = searched.file_mib;
    report.reopen_ms = searched.reopen_ms;
    report.search = searched.runs;
    Ok(report)
}

/// One inbound run (see the module docs); with `sink`, the gateway also
/// publishes every event to it, and the run counts the message events
/// JetStream holds afterwards.
pub async fn inbound(
    bin: &Path,
    archive: bool,
    sink: Option<SinkTarget<'_>>,
    duration: Duration,
    round: usize,
) -> Result<InboundRun> {
    let sandbox = Sandbox::start(SandboxConfig::default())
        .await
        .context("starting the sandbox")?;
    let gateway = GatewayProc::start(
        bin,
        &sandbox.ws_url(),
        &GatewayOptions {
            config_extra: format!(
                "[archive]\nenabled = {archive}\n\n[events]\nbuffer_size = 8192\n{}",
                sink.as_ref().map_or(String::new(), |s| format!(
                    "\n[[events.sinks]]\nurl = {:?}\nstream = {:?}\nsubject_prefix = {:?}\n",
                    s.url, s.stream, s.prefix
                ))
            ),
            ..GatewayOptions::default()
        },
    )
    .await?;
    gateway.wait_account_connected().await?;
    let mut events = pb::event_service_client::EventServiceClient::new(gateway.channel.clone())
        .stream_events(pb::StreamEventsRequest {
            kinds: vec![pb::EventKind::Message as i32],
            ..pb::StreamEventsRequest::default()
        })
        .await?
        .into_inner();
    let marker = format!(
        "bench{round}{}{}",
        if archive { "on" } else { "off" },
        if sink.is_some() { "sink" } else { "" }
    );
    let total = (INBOUND_RATE as f64 * duration.as_secs_f64()) as usize;
    // Injection times, nanoseconds after `epoch` (0: not yet injected).
    let epoch = Instant::now();
    let sent_at: Arc<Vec<AtomicU64>> = Arc::new((0..total).map(|_| AtomicU64::new(0)).collect());
    let injector = inject(sandbox.control(), marker.clone(), epoch, sent_at.clone());
    let mut latencies = Vec::with_capacity(total);
    let mut lagged = false;
    let mut last_index = None;
    let mut in_order = true;
    let deadline = Instant::now() + duration + Duration::from_secs(30);
    while latencies.len() < total {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = match tokio::time::timeout(left, events.message()).await {
            Ok(Ok(Some(m))) => m,
            Ok(Ok(None)) | Err(_) => {
                lagged = true;
                break;
            }
            Ok(Err(status)) => {
                eprintln!("bench: event stream: {status}");
                lagged = true;
                break;
            }
        };
        let now = epoch.elapsed().as_nanos() as u64;
        let Some(pb::event::Kind::Message(m)) = msg.event.and_then(|e| e.kind) else {
            continue;
        };
        let text = m.message.map(|m| m.text).unwrap_or_default();
        let Some(n) = text
            .strip_prefix(&format!("{marker} "))
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        if let Some(last) = last_index
            && n != last + 1
        {
            in_order = false;
        }
        last_index = Some(n);
        let at = sent_at.get(n).map_or(0, |a| a.load(Ordering::Acquire));
        if at > 0 {
            latencies.push(Duration::from_nanos(now.saturating_sub(at)));
        }
    }
    let (sent, elapsed) = injector.await?;
    let last_injected = Instant::now();
    latencies.sort();
    let q = |p: f64| {
        latencies
            .get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e6)
    };
    let mut run = InboundRun {
        archive,
        sent: sent as u64,
        received: latencies.len() as u64,
        rate: sent as f64 / elapsed.as_secs_f64(),
        p50_us: q(0.5),
        p99_us: q(0.99),
        lagged: lagged || !in_order,
        ..InboundRun::default()
    };
    if let Some(s) = &sink {
        let (stored, lag) = crate::sink::wait_stored(s, sent as u64, last_injected).await?;
        run.stored = stored;
        run.store_lag_ms = lag.as_secs_f64() * 1e3;
    }
    if archive {
        let last = format!("{marker} {} 消息", sent.saturating_sub(1));
        wait_archived(&gateway, &last, last_injected).await?;
        run.archive_lag_ms = last_injected.elapsed().as_secs_f64() * 1e3;
        run.archived = count_archived(&gateway, &marker).await?;
    }
    gateway.proc.kill().await?;
    sandbox.shutdown().await;
    Ok(run)
}

/// Injects one message numbered `n` into the bench group per slot of
/// `sent_at` at `INBOUND_RATE`, storing each injection's time (nanoseconds
/// after `epoch`) in its slot first; ends with the count injected and the
/// time it took.
fn inject(
    control: SandboxControl,
    marker: String,
    epoch: Instant,
    sent_at: Arc<Vec<AtomicU64>>,
) -> JoinHandle<(usize, Duration)> {
    let total = sent_at.len();
    tokio::spawn(async move {
        let start = Instant::now();
        let mut tick = tokio::time::interval(Duration::from_millis(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
        let per_ms = (INBOUND_RATE / 1000) as usize;
        let mut n = 0;
        while n < total {
            tick.tick().await;
            // Catch up to the schedule, so the average rate holds.
            let due = ((start.elapsed().as_secs_f64() * INBOUND_RATE as f64) as usize + per_ms)
                .min(total);
            while n < due {
                sent_at[n].store(epoch.elapsed().as_nanos().max(1) as u64, Ordering::Release);
                control.inject_group_message(
                    BENCH_GROUP,
                    10001,
                    json!(format!("{marker} {n} 消息")),
                );
                n += 1;
            }
        }
        (n, start.elapsed())
    })
}

/// Searches for `last` until the archive holds it, for at most 60 s after
/// `last_injected`: the archive holds the last message once a search finds
/// it.
async fn wait_archived(gateway: &GatewayProc, last: &str, last_injected: Instant) -> Result<()> {
    let mut messages = gateway.messages();
    while last_injected.elapsed() < Duration::from_secs(60) {
        let found = messages
            .search_messages(pb::SearchMessagesRequest {
                query: last.to_string(),
                chat: Some(pb::Chat::group(BENCH_GROUP)),
                limit: 1,
                ..pb::SearchMessagesRequest::default()
            })
            .await?
            .into_inner();
        if !found.messages.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(())
}

/// Pages through the archive's matches of `marker` and counts them.
async fn count_archived(gateway: &GatewayProc, marker: &str) -> Result<u64> {
    let mut messages = gateway.messages();
    let mut token = String::new();
    let mut count = 0;
    loop {
        let page = messages
            .search_messages(pb::SearchMessagesRequest {
                query: marker.to_string(),
                chat: Some(pb::Chat::group(BENCH_GROUP)),
                limit: 100,
                page_token: token.clone(),
                ..pb::SearchMessagesRequest::default()
            })
            .await?
            .into_inner();
        count += page.messages.len() as u64;
        if page.next_page_token.is_empty() {
            return Ok(count);
        }
        token = page.next_page_token;
    }
}

/// Words of the searched messages: none contains 开 or 会, so the queries
/// match only where they are put on purpose.
const WORDS: &[&str] = &[
    "大家",
    "今天",
    "明天",
    "我们",
    "你们",
    "项目",
    "进度",
    "文档",
    "代码",
    "测试",
    "上线",
    "周末",
    "吃饭",
    "好的",
    "收到",
    "谢谢",
    "哈哈",
    "可以",
    "不行",
    "问题",
    "一下",
    "看看",
    "群里",
    "老师",
    "同学",
    "图片",
    "链接",
    "时间",
    "地点",
    "晚上",
    "早上",
    "中午",
    "下班",
    "加班",
    "周一",
    "周五",
    "需求",
    "评审",
    "版本",
    "发布",
    "服务器",
    "数据库",
    "接口",
    "文件",
    "天气",
    "快递",
    "电影",
    "咖啡",
    "周报",
    "日程",
    "同事",
    "客户",
    "合同",
    "预算",
    "报销",
    "出差",
    "请假",
    "体检",
    "生日",
    "蛋糕",
    "ok",
    "lol",
    "thanks",
    "deploy",
    "bug",
    "review",
    "PR",
    "CI",
    "日志",
    "监控",
    "告警",
    "备份",
];

/// A small deterministic generator (xorshift), so every run searches the
/// same archive.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn corpus_message(rng: &mut Rng, i: usize) -> Message {
    let words = 4 + rng.below(9) as usize;
    let mut text: Vec<&str> = (0..words)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect();
    // About 1 % mention 开会, a fifth of those 下午开会.
    match rng.below(500) {
        0 => text.insert(words / 2, "下午开会"),
        1..=4 => text.insert(words / 2, "开会"),
        _ => {}
    }
    let chats = [ChatRef::Group(BENCH_GROUP), ChatRef::Group(20_000_002)];
    Message {
        message_id: 1_000_000 + i as i64,
        message_seq: None,
        peer_seq: None,
        time: 1_780_000_000 + (i as i64) * 20,
        sender: Sender {
            user_id: 10_001 + rng.below(200) as i64,
            nickname: "成员".into(),
            card: String::new(),
            role: "member".into(),
        },
        segments: vec![Segment::Text(text.join(""))],
        chat: chats[i % 2],
        raw: RawJson::from_text(format!("{{\"message_id\":{}}}", 1_000_000 + i)),
    }
}

/// The searches over one stored corpus, and what storing and reopening it
/// cost.
struct Searched {
    load_secs: f64,
    file_mib: f64,
    reopen_ms: f64,
    runs: Vec<SearchRun>,
}

async fn searches() -> Result<Searched> {
    let dir = tempfile::tempdir()?;
    let store = SqliteArchive::open(dir.path()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
    let loading = Instant::now();
    let messages: Vec<Message> = (0..SEARCH_ROWS)
        .map(|i| corpus_message(&mut rng, i))
        .collect();
    for chunk in messages.chunks(2000) {
        store
            .apply(
                chunk
                    .iter()
                    .map(|m| ArchiveOp::Put {
                        account_id: "default".into(),
                        message: m.clone(),
                        source: Source::Event,
                        media_ids: Vec::new(),
                    })
                    .collect(),
            )
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let load_secs = loading.elapsed().as_secs_f64();
    eprintln!("bench: archive of {SEARCH_ROWS} messages stored in {load_secs:.1} s");
    let mut runs = Vec::new();
    for q in QUERIES {
        let matches = messages
            .iter()
            .filter(|m| matches!(&m.segments[0], Segment::Text(t) if t.contains(q)))
            .count();
        let query = Query {
            account_id: "default".into(),
            chats: ChatScope::All,
            text: q.into(),
            since: None,
            until: None,
            sender_id: None,
            include_recalled: false,
            cursor: None,
            ascending: false,
            limit: 21,
        };
        let indexed = store
            .search(query.clone())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let scanned = store
            .scan(query.clone())
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let ids = |v: &[onebot_gateway_domain::archive::store::Archived]| {
            v.iter().map(|a| a.message.message_id).collect::<Vec<_>>()
        };
        if ids(&indexed) != ids(&scanned) || indexed.len() != matches.min(21) {
            bail!(
                "{q}: the index and the scan disagree ({} vs {} of {matches})",
                indexed.len(),
                scanned.len()
            );
        }
        let mut index_us = Vec::new();
        let mut scan_us = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            store
                .scan(query.clone())
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            scan_us.push(t.elapsed().as_secs_f64() * 1e6);
            for _ in 0..5 {
                let t = Instant::now();
                store
                    .search(query.clone())
                    .await
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                index_us.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        let run = SearchRun {
            query: q.into(),
            matches,
            index_us: median(&index_us),
            scan_us: median(&scan_us),
        };
        eprintln!(
            "bench: search {q:?} ({matches} matches): index {:.0} µs, scan {:.0} µs, {:.1} ×",
            run.index_us,
            run.scan_us,
            run.speedup()
        );
        runs.push(run);
    }
    drop(store);
    let mut bytes = 0;
    for entry in std::fs::read_dir(dir.path())? {
        bytes += entry?.metadata()?.len();
    }
    let reopening = Instant::now();
    let reopened = SqliteArchive::open(dir.path()).map_err(|e| anyhow::anyhow!("{e}"))?;
    let reopen_ms = reopening.elapsed().as_secs_f64() * 1e3;
    drop(reopened);
    let file_mib = bytes as f64 / (1024.0 * 1024.0);
    eprintln!("bench: archive of {file_mib:.1} MiB opened again in {reopen_ms:.0} ms");
    Ok(Searched {
        load_secs,
        file_mib,
        reopen_ms,
        runs,
    })
}
