//! Prometheus metrics: the names, one helper per event, and the `/metrics`
//! listener.
//!
//! Metrics go through the `metrics` facade; [`install`] sets the process-wide
//! Prometheus recorder once (only when `[metrics]` is configured; until then
//! every helper here is a no-op). Counters and histograms are recorded where
//! things happen (the helpers below); per-account gauges (connection state,
//! queue depth) are refreshed from the [`Gateway`] on every scrape.
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
//! | `onebot_gateway_queue_entries_total` | counter | `account`, `outcome` (`queued`, `expired`, `flushed`) |
//! | `onebot_gateway_rate_limited_total` | counter | `account`, `scope`, `outcome` (`refused`, `delayed`) |
//! | `onebot_gateway_upload_bytes_total` | counter | `account`, `kind` |

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use metrics::{counter, gauge, histogram};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::domain::{Gateway, MediaKind};
use crate::onebot::ConnState;

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
/// Bytes staged through UploadMedia.
pub const UPLOAD_BYTES: &str = "onebot_gateway_upload_bytes_total";

/// Every connection state, for the state gauge.
const STATES: [ConnState; 5] = [
    ConnState::Connecting,
    ConnState::Connected,
    ConnState::Backoff,
    ConnState::AuthFailed,
    ConnState::NotConfigured,
];

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
    describe_gauge!(PENDING_CALLS, "actions waiting for the peer's reply");
    describe_histogram!(
        PEER_ACTION_SECONDS,
        Unit::Seconds,
        "OneBot action latency by action and retcode"
    );
    describe_gauge!(QUEUE_DEPTH, "entries in the offline queue");
    describe_counter!(QUEUE_ENTRIES, "offline-queue entries by outcome");
    describe_counter!(RATE_LIMITED, "sends and pokes hitting a rate limit");
    describe_counter!(
        UPLOAD_BYTES,
        Unit::Bytes,
        "bytes staged through UploadMedia"
    );
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

/// The peer answered `action` of `account` with `frame` after `elapsed`:
/// recorded under the frame's `retcode` (0 when it has none).
pub fn peer_reply(account: &str, action: &str, frame: &serde_json::Value, elapsed: Duration) {
    let retcode = frame
        .get("retcode")
        .and_then(crate::onebot::model::int_of)
        .unwrap_or(0);
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
}

/// `n` offline-queue entries of `account` had `outcome`.
pub fn queue_entries(account: &str, outcome: QueueOutcome, n: u64) {
    let outcome = match outcome {
        QueueOutcome::Queued => "queued",
        QueueOutcome::Expired => "expired",
        QueueOutcome::Flushed => "flushed",
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

/// `n` bytes of `kind` were staged for `account`.
pub fn upload_bytes(account: &str, kind: MediaKind, n: u64) {
    let kind = match kind {
        MediaKind::Image => "image",
        MediaKind::Video => "video",
        MediaKind::File => "file",
    };
    counter!(UPLOAD_BYTES, "account" => account.to_string(), "kind" => kind).increment(n);
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

/// Sets the per-account gauges from the gateway's current state.
pub fn refresh_accounts(gw: &Gateway) {
    for account in gw.accounts() {
        let status = account.api.status();
        let configured = account.config.has_transport();
        let state = if configured {
            status.state
        } else {
            ConnState::NotConfigured
        };
        let id = account.id.clone();
        gauge!(ACCOUNT_UP, "account" => id.clone()).set(if configured && status.online {
            1.0
        } else {
            0.0
        });
        for s in STATES {
            gauge!(ACCOUNT_STATE, "account" => id.clone(), "state" => s.name())
                .set(if s == state { 1.0 } else { 0.0 });
        }
        gauge!(QUEUE_DEPTH, "account" => id).set(gw.queue_depth(&account.id) as f64);
    }
}

/// Serves `GET <path>` (Prometheus text format) on `listener` until
/// `shutdown`; other paths answer 404.
pub async fn serve(
    listener: TcpListener,
    path: String,
    handle: PrometheusHandle,
    gw: Arc<Gateway>,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    use axum::http::header;
    use axum::routing::get;

    let upkeep = {
        let handle = handle.clone();
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tick.tick() => handle.run_upkeep(),
                }
            }
        })
    };
    let app = axum::Router::new().route(
        &path,
        get(move || {
            let handle = handle.clone();
            let gw = gw.clone();
            async move {
                refresh_accounts(&gw);
                (
                    [(
                        header::CONTENT_TYPE,
                        "text/plain; version=0.0.4; charset=utf-8",
                    )],
                    handle.render(),
                )
            }
        }),
    );
    let result = axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await;
    upkeep.abort();
    result
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
            peer_reply(
                "a",
                "get_msg",
                &serde_json::json!({"status": "failed", "retcode": "1404"}),
                Duration::from_millis(5),
            );
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
            upload_bytes("a", MediaKind::Image, 1024);
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
            "onebot_gateway_shed_total{limit=\"concurrency\"} 1",
            "onebot_gateway_auth_failures_total{reason=\"invalid\"} 1",
            "onebot_gateway_tls_reloads_total{result=\"ok\"} 1",
        ] {
            assert!(page.contains(line), "missing {line}:\n{page}");
        }
    }
}
