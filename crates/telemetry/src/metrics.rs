//! Prometheus metrics: the names, one helper per event, and the `/metrics`
//! listener.
//!
//! Metrics go through the `metrics` facade; [`install`] sets the process-wide
//! Prometheus recorder once (only when `[metrics]` is configured; until then
//! every helper here is a no-op). Counters and histograms are recorded where
//! things happen (the helpers below); per-account gauges (connection state,
//! queue depth) are set by the refresh callback [`serve`] runs on every
//! scrape ([`set_account_gauges`]).
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `grpc_server_started_total` | counter | `grpc_service`, `grpc_method` |
//! | `grpc_server_handled_total` | counter | `grpc_service`, `grpc_method`, `grpc_code` |
//! | `grpc_server_handling_seconds` | histogram | `grpc_service`, `grpc_method` |
//! | `onebot_gateway_requests_in_flight` | gauge | |
//! | `onebot_gateway_shed_total` | counter | `limit` |
//! | `onebot_gateway_auth_failures_total` | counter | `reason` |
//! | `onebot_gateway_tls_reloads_total` | counter | `result` |
//! | `onebot_gateway_account_up` | gauge | `account` |
//! | `onebot_gateway_account_state` | gauge (1 for the current state) | `account`, `state` |
//! | `onebot_gateway_reconnects_total` | counter | `account` |
//! | `onebot_gateway_pending_calls` | gauge | `account` |
//! | `onebot_gateway_peer_action_seconds` | histogram | `account`, `action`, `retcode` |
//! | `onebot_gateway_queue_depth` | gauge | `account` |
//! | `onebot_gateway_queue_entries_total` | counter | `account`, `outcome` (`queued`, `expired`, `flushed`, `dropped`) |
//! | `onebot_gateway_rate_limited_total` | counter | `account`, `scope`, `outcome` (`refused`, `delayed`) |
//! | `onebot_gateway_upload_bytes_total` | counter | `account`, `kind` |
//! | `onebot_gateway_sent_messages_total` | counter | `account` |
//! | `onebot_gateway_send_outcome_unknown_total` | counter | `account` |
//! | `onebot_gateway_risk_controlled_total` | counter | `account` |
//! | `onebot_gateway_media_captured_total` | counter | `account`, `kind` |
//! | `onebot_gateway_media_captured_bytes_total` | counter | `account`, `kind` |
//! | `onebot_gateway_media_capture_failures_total` | counter | `account`, `kind`, `reason` (`fetch_failed`, `too_large`, `timeout`, `queue_full`) |
//! | `onebot_gateway_journal_failures_total` | counter | |
//! | `onebot_gateway_archive_messages_total` | counter | `account`, `source` (`event`, `sent`, `history`, `backfill`) |
//! | `onebot_gateway_archive_backfilled_total` | counter | `account` |
//! | `onebot_gateway_archive_deleted_total` | counter | `reason` (`retention`, `size`, `purge`) |
//! | `onebot_gateway_archive_dropped_total` | counter | `reason` |
//! | `onebot_gateway_archive_lag_entries` | gauge | |

use std::sync::OnceLock;
use std::time::Duration;

use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Per-RPC started counter.
pub const RPC_STARTED: &str = "grpc_server_started_total";
/// Per-RPC handled counter, by final gRPC code.
pub const RPC_HANDLED: &str = "grpc_server_handled_total";
/// Per-RPC latency histogram (until the response, or the stream, ends).
pub const RPC_SECONDS: &str = "grpc_server_handling_seconds";
/// RPCs in progress.
pub const IN_FLIGHT: &str = "onebot_gateway_requests_in_flight";
/// Requests refused by a limit (`limit`: `concurrency`, `event_streams`,
/// `event_streams_per_client`, `request_size`, `timeout`).
pub const SHED: &str = "onebot_gateway_shed_total";
/// Requests refused for a missing or bad token (`reason`).
pub const AUTH_FAILURES: &str = "onebot_gateway_auth_failures_total";
/// TLS certificate reloads (`result`: `ok`, `error`).
pub const TLS_RELOADS: &str = "onebot_gateway_tls_reloads_total";
/// 1 while the account can take actions.
pub const ACCOUNT_UP: &str = "onebot_gateway_account_up";
/// 1 for the account's current connection state, 0 for the others.
pub const ACCOUNT_STATE: &str = "onebot_gateway_account_state";
/// Reconnect attempts after a lost or failed connection.
pub const RECONNECTS: &str = "onebot_gateway_reconnects_total";
/// Actions waiting for the peer's reply.
pub const PENDING_CALLS: &str = "onebot_gateway_pending_calls";
/// Time from sending an action to its reply, by action and retcode
/// (`timeout`, `lost`, `error` when no reply came).
pub const PEER_ACTION_SECONDS: &str = "onebot_gateway_peer_action_seconds";
/// Text entries in the offline queue.
pub const QUEUE_DEPTH: &str = "onebot_gateway_queue_depth";
/// Offline-queue entries by outcome.
pub const QUEUE_ENTRIES: &str = "onebot_gateway_queue_entries_total";
/// Sends and pokes refused or delayed by a rate limit (`scope`).
pub const RATE_LIMITED: &str = "onebot_gateway_rate_limited_total";
/// Audit records written, by `decision` (`store_failed`: a record the
/// store refused).
pub const AUDIT_RECORDS: &str = "onebot_gateway_audit_records_total";
/// Approval state changes, by `state`.
pub const APPROVALS: &str = "onebot_gateway_approvals_total";
/// Events an event sink published and its broker acknowledged, by `sink`
/// and `account`.
pub const SINK_PUBLISHED: &str = "onebot_gateway_sink_published_total";
/// Publish attempts of an event sink that failed (the sink retries), by
/// `sink`.
pub const SINK_FAILURES: &str = "onebot_gateway_sink_failures_total";
/// Events an event sink could not publish because the journal no longer
/// held them, by `sink` and `account`.
pub const SINK_LOST: &str = "onebot_gateway_sink_lost_events_total";
/// Journal entries an event sink is behind, by `sink`.
pub const SINK_LAG: &str = "onebot_gateway_sink_lag_entries";
/// Gauge: events of an account an event sink has not had acknowledged yet.
pub const SINK_ACCOUNT_LAG: &str = "onebot_gateway_sink_lag_events";
/// Bytes staged through UploadMedia.
pub const UPLOAD_BYTES: &str = "onebot_gateway_upload_bytes_total";
/// Messages (and file uploads) the peer acknowledged.
pub const SENT_MESSAGES: &str = "onebot_gateway_sent_messages_total";
/// Sends whose outcome is unknown (the peer may have delivered them).
pub const SEND_OUTCOME_UNKNOWN: &str = "onebot_gateway_send_outcome_unknown_total";
/// Risk-control refusals (each starts or extends a send pause).
pub const RISK_CONTROLLED: &str = "onebot_gateway_risk_controlled_total";

/// Journal commits that failed, counted per entry.
pub const JOURNAL_FAILURES: &str = "onebot_gateway_journal_failures_total";
/// Messages newly stored in the archive, by where they were seen.
pub const ARCHIVE_MESSAGES: &str = "onebot_gateway_archive_messages_total";
/// Messages a gap-healing backfill stored.
pub const ARCHIVE_BACKFILLED: &str = "onebot_gateway_archive_backfilled_total";
/// Archived messages deleted, by reason.
pub const ARCHIVE_DELETED: &str = "onebot_gateway_archive_deleted_total";
/// Messages the archive did not take (`intake_full`: a history page while
/// the archive's intake was full).
pub const ARCHIVE_DROPPED: &str = "onebot_gateway_archive_dropped_total";
/// Journal entries the archive has not taken yet.
pub const ARCHIVE_LAG: &str = "onebot_gateway_archive_lag_entries";
/// Counter: event frames from a peer dropped for their size, by account.
pub const PEER_FRAMES_DROPPED: &str = "onebot_gateway_peer_frames_dropped_total";

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// Installs the process-wide Prometheus recorder (once; later calls return
/// the same handle). `None` when another recorder was installed first.
pub fn install() -> Option<PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let latency = [
                0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                30.0, 60.0,
            ];
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &latency)
                .map(|b| b.build_recorder());
            let recorder = match builder {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot build the metrics recorder");
                    return None;
                }
            };
            let handle = recorder.handle();
            if let Err(e) = metrics::set_global_recorder(recorder) {
                tracing::warn!(error = %e, "another metrics recorder is installed; /metrics stays empty");
                return None;
            }
            describe();
            Some(handle)
        })
        .clone()
}

fn describe() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(RPC_STARTED, "RPCs started");
    describe_counter!(RPC_HANDLED, "RPCs completed, by gRPC status code");
    describe_histogram!(
        RPC_SECONDS,
        Unit::Seconds,
        "RPC latency until the response ends"
    );
    describe_gauge!(IN_FLIGHT, "RPCs in progress");
    describe_counter!(SHED, "requests refused by a limit");
    describe_counter!(
        AUTH_FAILURES,
        "requests refused for a missing or invalid token"
    );
    describe_counter!(TLS_RELOADS, "TLS certificate reloads");
    describe_gauge!(ACCOUNT_UP, "1 while the account can take actions");
    describe_gauge!(
        ACCOUNT_STATE,
        "1 for the account's current connection state"
    );
    describe_counter!(RECONNECTS, "reconnect attempts");
    describe_counter!(
        PEER_FRAMES_DROPPED,
        "event frames from the peer dropped before decoding, by reason"
    );
    describe_gauge!(PENDING_CALLS, "actions waiting for the peer's reply");
    describe_histogram!(
        PEER_ACTION_SECONDS,
        Unit::Seconds,
        "OneBot action latency by action and retcode"
    );
    describe_gauge!(QUEUE_DEPTH, "entries in the offline queue");
    describe_counter!(QUEUE_ENTRIES, "offline-queue entries by outcome");
    describe_counter!(RATE_LIMITED, "sends and pokes hitting a rate limit");
    describe_counter!(AUDIT_RECORDS, "audit records written, by decision");
    describe_counter!(APPROVALS, "approval state changes, by state");
    describe_counter!(
        SINK_PUBLISHED,
        "events an event sink published and its broker acknowledged"
    );
    describe_counter!(SINK_FAILURES, "failed publish attempts of an event sink");
    describe_counter!(
        SINK_LOST,
        "events a sink could not publish: the journal no longer held them"
    );
    describe_gauge!(SINK_LAG, "journal entries an event sink is behind");
    describe_gauge!(
        SINK_ACCOUNT_LAG,
        "events of an account an event sink has not had acknowledged yet"
    );
    describe_counter!(
        UPLOAD_BYTES,
        Unit::Bytes,
        "bytes staged through UploadMedia"
    );
    describe_counter!(SENT_MESSAGES, "messages the peer acknowledged");
    describe_counter!(
        SEND_OUTCOME_UNKNOWN,
        "sends the peer may or may not have delivered"
    );
    describe_counter!(RISK_CONTROLLED, "sends refused by risk control");
    describe_counter!(JOURNAL_FAILURES, "journal entries whose commit failed");
    describe_counter!(ARCHIVE_MESSAGES, "messages newly stored in the archive");
    describe_counter!(
        ARCHIVE_BACKFILLED,
        "messages stored by gap-healing backfills"
    );
    describe_counter!(ARCHIVE_DELETED, "archived messages deleted, by reason");
    describe_counter!(ARCHIVE_DROPPED, "messages the archive did not take");
    describe_gauge!(ARCHIVE_LAG, "journal entries the archive has not taken yet");
}

/// An event frame of `account`'s peer was dropped before decoding
/// (`reason`: `too_large`).
pub fn peer_frame_dropped(account: &str, reason: &'static str) {
    counter!(PEER_FRAMES_DROPPED, "account" => account.to_string(), "reason" => reason)
        .increment(1);
}

/// The adapter started a reconnect attempt of `account`.
pub fn reconnect(account: &str) {
    counter!(RECONNECTS, "account" => account.to_string()).increment(1);
}

/// One action of an account waiting for the peer's reply (counted in
/// [`PENDING_CALLS`] until dropped).
#[derive(Debug)]
pub struct PendingCall {
    gauge: metrics::Gauge,
}

impl PendingCall {
    /// Counts a call of `account` as pending.
    pub fn start(account: &str) -> Self {
        let gauge = gauge!(PENDING_CALLS, "account" => account.to_string());
        gauge.increment(1.0);
        Self { gauge }
    }
}

impl Drop for PendingCall {
    fn drop(&mut self) {
        self.gauge.decrement(1.0);
    }
}

/// Outcome of one OneBot action, for [`peer_action`].
#[derive(Debug, Clone, Copy)]
pub enum ActionOutcome {
    /// The peer replied with this retcode (0 = ok).
    Retcode(i64),
    /// No reply in time.
    Timeout,
    /// The connection dropped while waiting.
    Lost,
    /// The action could not be sent or the reply not decoded.
    Error,
}

/// The peer answered `action` of `account` after `elapsed`: recorded under
/// the answer's `retcode` (0 when it has none).
pub fn peer_reply(account: &str, action: &str, retcode: Option<i64>, elapsed: Duration) {
    let retcode = retcode.unwrap_or(0);
    peer_action(account, action, ActionOutcome::Retcode(retcode), elapsed);
}

/// One OneBot action of `account` took `elapsed`.
pub fn peer_action(account: &str, action: &str, outcome: ActionOutcome, elapsed: Duration) {
    let retcode = match outcome {
        ActionOutcome::Retcode(c) => c.to_string(),
        ActionOutcome::Timeout => "timeout".into(),
        ActionOutcome::Lost => "lost".into(),
        ActionOutcome::Error => "error".into(),
    };
    histogram!(
        PEER_ACTION_SECONDS,
        "account" => account.to_string(),
        "action" => action.to_string(),
        "retcode" => retcode
    )
    .record(elapsed.as_secs_f64());
}

/// What happened to offline-queue entries, for [`queue_entries`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueOutcome {
    /// Entered the queue.
    Queued,
    /// Dropped after the queue TTL.
    Expired,
    /// Sent after the account came back.
    Flushed,
    /// Dropped after a definite failure, an unknown outcome, or a group no
    /// longer whitelisted.
    Dropped,
}

/// `n` offline-queue entries of `account` had `outcome`.
pub fn queue_entries(account: &str, outcome: QueueOutcome, n: u64) {
    let outcome = match outcome {
        QueueOutcome::Queued => "queued",
        QueueOutcome::Expired => "expired",
        QueueOutcome::Flushed => "flushed",
        QueueOutcome::Dropped => "dropped",
    };
    counter!(QUEUE_ENTRIES, "account" => account.to_string(), "outcome" => outcome).increment(n);
}

/// A send or poke of `account` hit the `scope` rate limit (`group`,
/// `account`, `poke`, ...): `refused` when waiting would pass its deadline,
/// else it was delayed.
pub fn rate_limited(account: &str, scope: &str, refused: bool) {
    counter!(
        RATE_LIMITED,
        "account" => account.to_string(),
        "scope" => scope.to_string(),
        "outcome" => if refused { "refused" } else { "delayed" }
    )
    .increment(1);
}

/// An audit record of `account` with `decision` was written
/// (`store_failed`: the store refused one).
pub fn audit_record(account: &str, decision: &str) {
    counter!(AUDIT_RECORDS, "account" => account.to_string(), "decision" => decision.to_string())
        .increment(1);
}

/// Event sink `sink` published `n` events of `account`.
pub fn sink_published(sink: &str, account: &str, n: u64) {
    counter!(SINK_PUBLISHED, "sink" => sink.to_string(), "account" => account.to_string())
        .increment(n);
}

/// A publish attempt of event sink `sink` failed.
pub fn sink_failed(sink: &str) {
    counter!(SINK_FAILURES, "sink" => sink.to_string()).increment(1);
}

/// Event sink `sink` found `n` events of `account` gone from the journal.
pub fn sink_lost(sink: &str, account: &str, n: u64) {
    counter!(SINK_LOST, "sink" => sink.to_string(), "account" => account.to_string()).increment(n);
}

/// Event sink `sink` is `entries` journal entries behind.
pub fn sink_lag(sink: &str, entries: u64) {
    gauge!(SINK_LAG, "sink" => sink.to_string()).set(entries as f64);
}

/// Event sink `sink` has `events` events of `account` not yet acknowledged.
pub fn sink_account_lag(sink: &str, account: &str, events: u64) {
    gauge!(SINK_ACCOUNT_LAG, "sink" => sink.to_string(), "account" => account.to_string())
        .set(events as f64);
}

/// An approval of `account` entered `state`.
pub fn approval(account: &str, state: &'static str) {
    counter!(APPROVALS, "account" => account.to_string(), "state" => state).increment(1);
}

/// `n` bytes of `kind` (`image`, `video`, `file`) were staged for
/// `account`.
pub fn upload_bytes(account: &str, kind: &'static str, n: u64) {
    counter!(UPLOAD_BYTES, "account" => account.to_string(), "kind" => kind).increment(n);
}

/// The peer acknowledged `n` messages (or file uploads) of `account`.
pub fn sent_messages(account: &str, n: u64) {
    counter!(SENT_MESSAGES, "account" => account.to_string()).increment(n);
}

/// A send of `account` ended with an unknown outcome.
pub fn send_outcome_unknown(account: &str) {
    counter!(SEND_OUTCOME_UNKNOWN, "account" => account.to_string()).increment(1);
}

/// Risk control refused a send of `account`.
pub fn risk_controlled(account: &str) {
    counter!(RISK_CONTROLLED, "account" => account.to_string()).increment(1);
}

/// `n` journal entries could not be committed.
pub fn journal_failures(n: usize) {
    counter!(JOURNAL_FAILURES).increment(n as u64);
}

/// `n` messages of `account` seen as `source` were newly archived.
pub fn archived(account: &str, source: &'static str, n: u64) {
    if n > 0 {
        counter!(ARCHIVE_MESSAGES, "account" => account.to_string(), "source" => source)
            .increment(n);
    }
}

/// A backfill of `account` stored `n` messages it had missed.
pub fn backfilled(account: &str, n: u64) {
    counter!(ARCHIVE_BACKFILLED, "account" => account.to_string()).increment(n);
}

/// `n` archived messages were deleted for `reason`.
pub fn archive_deleted(reason: &'static str, n: u64) {
    if n > 0 {
        counter!(ARCHIVE_DELETED, "reason" => reason).increment(n);
    }
}

/// `n` messages were not archived for `reason`.
pub fn archive_dropped(reason: &'static str, n: u64) {
    counter!(ARCHIVE_DROPPED, "reason" => reason).increment(n);
}

/// The journal entries the archive has not taken yet.
pub fn archive_lag(entries: u64) {
    gauge!(ARCHIVE_LAG).set(entries as f64);
}

/// A request was refused by `limit`.
pub fn shed(limit: &'static str) {
    counter!(SHED, "limit" => limit).increment(1);
}

/// A request was refused for a missing or bad token.
pub fn auth_failure(reason: &'static str) {
    counter!(AUTH_FAILURES, "reason" => reason).increment(1);
}

/// A TLS reload finished.
pub fn tls_reload(ok: bool) {
    counter!(TLS_RELOADS, "result" => if ok { "ok" } else { "error" }).increment(1);
}

/// One account's gauges at a scrape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountGauge {
    /// The account id.
    pub account: String,
    /// True while the account can take actions.
    pub up: bool,
    /// Name of its connection state (one of the names in `states`).
    pub state: &'static str,
    /// Entries in its offline queue.
    pub queue_depth: usize,
}

/// Sets the per-account gauges: [`ACCOUNT_UP`], [`ACCOUNT_STATE`] (1 for the
/// account's state, 0 for every other name in `states`) and
/// [`QUEUE_DEPTH`].
pub fn set_account_gauges(accounts: &[AccountGauge], states: &[&'static str]) {
    for a in accounts {
        let id = a.account.clone();
        gauge!(ACCOUNT_UP, "account" => id.clone()).set(if a.up { 1.0 } else { 0.0 });
        for s in states {
            gauge!(ACCOUNT_STATE, "account" => id.clone(), "state" => *s).set(if *s == a.state {
                1.0
            } else {
                0.0
            });
        }
        gauge!(QUEUE_DEPTH, "account" => id).set(a.queue_depth as f64);
    }
}

/// Received media captured on receipt.
pub const MEDIA_CAPTURED: &str = "onebot_gateway_media_captured_total";
/// Bytes of received media captured on receipt.
pub const MEDIA_CAPTURED_BYTES: &str = "onebot_gateway_media_captured_bytes_total";
/// Captures that failed (`reason`).
pub const MEDIA_CAPTURE_FAILURES: &str = "onebot_gateway_media_capture_failures_total";

/// A received item of `kind` (`n` bytes) of `account` was captured.
pub fn media_captured(account: &str, kind: &'static str, n: u64) {
    counter!(MEDIA_CAPTURED, "account" => account.to_string(), "kind" => kind).increment(1);
    counter!(MEDIA_CAPTURED_BYTES, "account" => account.to_string(), "kind" => kind).increment(n);
}

/// A capture of `kind` of `account` failed for `reason`.
pub fn media_capture_failed(account: &str, kind: &'static str, reason: &'static str) {
    counter!(
        MEDIA_CAPTURE_FAILURES,
        "account" => account.to_string(),
        "kind" => kind,
        "reason" => reason
    )
    .increment(1);
}

/// Records this thread's metrics into a recorder of its own, for tests that
/// read what the code under test counted (a `current_thread` runtime runs
/// every task on the test's thread).
#[cfg(any(test, feature = "testkit"))]
pub struct Capture {
    handle: PrometheusHandle,
    _guard: metrics::LocalRecorderGuard<'static>,
}

#[cfg(any(test, feature = "testkit"))]
impl Capture {
    /// Starts capturing on this thread.
    pub fn start() -> Capture {
        let recorder = Box::leak(Box::new(PrometheusBuilder::new().build_recorder()));
        let handle = recorder.handle();
        let guard = metrics::set_default_local_recorder(recorder);
        Capture {
            handle,
            _guard: guard,
        }
    }

    /// The value of counter `name` with exactly `labels` (0 when never
    /// counted).
    pub fn counter(&self, name: &str, labels: &[(&str, &str)]) -> u64 {
        let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
        let prefix = format!("{name}{{{}}} ", labels.join(","));
        self.handle
            .render()
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The helpers record under the documented names and labels (a local
    /// recorder: the process-wide one is not touched).
    #[test]
    fn helpers_record_documented_names_and_labels() {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), &[0.1, 1.0])
            .unwrap()
            .build_recorder();
        let handle = recorder.handle();
        let waiting = metrics::with_local_recorder(&recorder, || {
            reconnect("a");
            reconnect("a");
            drop(PendingCall::start("a"));
            peer_reply("a", "get_msg", Some(1404), Duration::from_millis(5));
            peer_action(
                "a",
                "send_group_msg",
                ActionOutcome::Retcode(1200),
                Duration::from_millis(50),
            );
            peer_action(
                "a",
                "get_group_list",
                ActionOutcome::Timeout,
                Duration::from_secs(2),
            );
            queue_entries("a", QueueOutcome::Queued, 2);
            queue_entries("a", QueueOutcome::Flushed, 1);
            queue_entries("a", QueueOutcome::Expired, 1);
            rate_limited("a", "group", true);
            upload_bytes("a", "image", 1024);
            sent_messages("a", 3);
            send_outcome_unknown("a");
            risk_controlled("a");
            queue_entries("a", QueueOutcome::Dropped, 1);
            set_account_gauges(
                &[AccountGauge {
                    account: "a".into(),
                    up: true,
                    state: "connected",
                    queue_depth: 4,
                }],
                &["connecting", "connected"],
            );
            shed("concurrency");
            auth_failure("invalid");
            tls_reload(true);
            [
                PendingCall::start("a"),
                PendingCall::start("a"),
                PendingCall::start("a"),
            ]
        });
        let page = handle.render();
        drop(waiting);
        for line in [
            "onebot_gateway_reconnects_total{account=\"a\"} 2",
            "onebot_gateway_pending_calls{account=\"a\"} 3",
            "onebot_gateway_peer_action_seconds_bucket{account=\"a\",action=\"send_group_msg\",retcode=\"1200\",le=\"0.1\"} 1",
            "onebot_gateway_peer_action_seconds_count{account=\"a\",action=\"get_group_list\",retcode=\"timeout\"} 1",
            "onebot_gateway_peer_action_seconds_count{account=\"a\",action=\"get_msg\",retcode=\"1404\"} 1",
            "onebot_gateway_queue_entries_total{account=\"a\",outcome=\"queued\"} 2",
            "onebot_gateway_queue_entries_total{account=\"a\",outcome=\"flushed\"} 1",
            "onebot_gateway_queue_entries_total{account=\"a\",outcome=\"expired\"} 1",
            "onebot_gateway_rate_limited_total{account=\"a\",scope=\"group\",outcome=\"refused\"} 1",
            "onebot_gateway_upload_bytes_total{account=\"a\",kind=\"image\"} 1024",
            "onebot_gateway_sent_messages_total{account=\"a\"} 3",
            "onebot_gateway_send_outcome_unknown_total{account=\"a\"} 1",
            "onebot_gateway_risk_controlled_total{account=\"a\"} 1",
            "onebot_gateway_queue_entries_total{account=\"a\",outcome=\"dropped\"} 1",
            "onebot_gateway_account_up{account=\"a\"} 1",
            "onebot_gateway_account_state{account=\"a\",state=\"connected\"} 1",
            "onebot_gateway_account_state{account=\"a\",state=\"connecting\"} 0",
            "onebot_gateway_queue_depth{account=\"a\"} 4",
            "onebot_gateway_shed_total{limit=\"concurrency\"} 1",
            "onebot_gateway_auth_failures_total{reason=\"invalid\"} 1",
            "onebot_gateway_tls_reloads_total{result=\"ok\"} 1",
        ] {
            assert!(page.contains(line), "missing {line}:\n{page}");
        }
    }
}
