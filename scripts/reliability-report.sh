#!/usr/bin/env bash
# Runs the fault and bad-input tests and prints one table: each fault, what was checked, the
# result, and the totals (faults survived N/N, bad inputs tried M, lost 0).
#
# Usage: ./scripts/reliability-report.sh            (fuzz budget: 15 s per target)
#        FUZZ_SECS=60 ./scripts/reliability-report.sh
# Needs nginx (scripts/install-tools.sh) and root for the full-disk test's tmpfs, as CI has.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export ONEBOT_FUZZ_REPORT="$WORK/inputs"
export ONEBOT_FUZZ_SECS="${FUZZ_SECS:-15}"
: >"$ONEBOT_FUZZ_REPORT"
# The [ha] rows need PostgreSQL: the test stage's server, else a throwaway one.
if [ -z "${ONEBOT_GATEWAY_TEST_POSTGRES:-}" ] && pg_url="$(./scripts/postgres.sh start)"; then
  export ONEBOT_GATEWAY_TEST_POSTGRES="$pg_url"
  if pg_ca="$(./scripts/postgres.sh ca)"; then
    export ONEBOT_GATEWAY_TEST_POSTGRES_CA="$pg_ca"
  fi
fi

# test name | fault | what was checked
ROWS=(
  "hardening::a_corrupted_or_truncated_store_is_refused_and_left_untouched|store file garbage, truncated to 1/3, header zeroed|start refused naming the file and the remedy; file byte for byte unchanged"
  "hardening::a_full_data_directory_fails_the_send_and_keeps_the_queue|data directory full (4 MiB tmpfs) while texts are queued|send fails UNAVAILABLE STORAGE_FAILED; 3 queued kept; store reopens once space is back; flushed once each, in order"
  "kill9::kill_9_during_a_flush_loses_nothing_and_repeats_at_most_the_frame_in_flight|kill -9 during a flush of 30 queued texts|all 30 delivered in order by the next process; at most the frame in flight repeated"
  "kill9::kill_9_during_an_upload_leaks_no_staged_file_past_its_ttl|kill -9 during an UploadMedia|no temporary file after restart; staged file gone after its TTL"
  "kill9::queued_messages_survive_kill_9|kill -9 with texts queued offline|delivered in order after restart"
  "hardening::a_hostile_peer_resets_or_drops_and_the_account_recovers|peer: invalid UTF-8, 65 MiB frame, foreign echoes of every JSON type, 100k-deep JSON, 4000 malformed frames|link reset or frame dropped; account reconnects; calls answered; RSS < +48 MiB"
  "hardening::hostile_clients_leave_memory_bounded_and_others_served|1000 idle connections, a stream never read under 3000 1 KiB events, an upload stalled after its header|others served within 5 s; unread stream dropped (EVENT_STREAM_LAGGED); stalled upload ended; RSS < +72 MiB"
  "shares::one_token_holding_its_share_of_stalled_calls_leaves_another_served|one read-only token opens 256 unary calls that never send their message|128 held (its share), 128 refused OVERLOADED concurrency_per_client; another token served at once"
  "shares::one_token_holding_its_share_of_mcp_sessions_leaves_another_served|one token tries to open 256 MCP sessions|128 opened, the rest 503 Retry-After; another token opens a session and is served"
  "shares::a_unary_call_whose_message_never_arrives_is_dropped_and_frees_its_slot|a unary call whose request message never arrives|dropped DEADLINE_EXCEEDED after first_message_timeout_ms; its slot serves the next call"
  "shares::an_upload_leases_the_bytes_that_arrived_not_what_it_declares|an upload declares 30 MiB of a 31 MiB quota, sends 10 bytes, stalls|a 2 MiB upload still fits: the stalled one holds 10 bytes"
  "shares::a_session_belongs_to_the_token_that_opened_it|another token names an MCP session (POST, GET, DELETE)|404 each time; the session stays its owner's"
  "shares::mcp_tool_calls_take_slots_of_the_concurrency_limit|an MCP tool call waiting with max_concurrent_requests = 1|gRPC refused OVERLOADED concurrency, another tool call 503 Retry-After"
  "memory::a_flooding_peer_leaves_memory_bounded_across_a_restart|peer: a ~20 MB event frame, then twenty ~3 MB ones with a stream that never reads them open; kill -9 and a start over that journal (real binary)|20 MB event dropped and logged by size, next event arrives, RSS < idle +64 MiB; twenty 3 MB < +200 MiB; restarted idle < clean start +64 MiB"
  "adapter::an_event_frame_above_the_cap_is_dropped_undecoded_and_replies_keep_the_large_cap|peer: event frames above limits.max_event_frame_bytes (with and without an echo)|dropped undecoded, link kept, next event published; a reply above the cap still reaches its call"
  "faults::pending_calls_fail_within_a_second_when_the_peer_dies_and_the_account_recovers|peer killed with calls pending|calls fail within 1 s; account recovers"
  "faults::a_slow_peer_cannot_hold_a_call_past_its_deadline|slow peer|call ends at the caller's deadline"
  "faults::the_account_timeout_bounds_a_call_without_a_deadline|slow peer, no deadline|account timeout ends the call"
  "faults::garbage_frames_from_the_peer_do_not_break_the_connection|garbage frames beside replies|connection stays up"
  "faults::a_peer_that_drops_the_connection_on_an_action_fails_only_that_call|peer drops the link on one action|only that call fails"
  "faults::replies_out_of_order_reach_their_own_callers|replies out of order|each reaches its caller"
  "faults::a_send_in_flight_when_the_peer_dies_is_reported_unknown_never_lost|peer dies with a send in flight|SEND_OUTCOME_UNKNOWN, never silently lost"
  "faults::queued_entries_flush_once_each_and_in_order_across_a_peer_restart|peer restart with a queue|flushed once each, in order"
  "proxy::an_idle_event_stream_outlives_the_proxys_read_timeout|nginx grpc_read_timeout 2 s on an idle stream|8 heartbeats over 7 s (3 timeouts) keep it; an event is delivered after"
  "proxy::without_heartbeats_the_proxy_cuts_an_idle_stream|the same without heartbeats (control)|nginx cuts the stream after its timeout"
  "proxy::the_rust_sdk_event_stream_resumes_across_a_proxy_restart|nginx killed and restarted with a stream open|SDK resumes from its position; every event once"
  "proxy::every_rpc_through_nginx_over_h2c_and_tls|every RPC through nginx (h2c, TLS at the proxy)|answers as direct; 30 MiB upload in 64 KiB chunks and DownloadMedia back; grpcurl list"
  "proxy::error_details_and_deadlines_cross_the_proxy_intact|errors and deadlines through nginx|ErrorInfo/BadRequest/RetryInfo identical to direct; deadline honoured"
  "ha::the_standby_leads_within_the_term_after_kill_9_of_the_leader|[ha]: kill -9 of the leader of an account two gateways share (real PostgreSQL)|the standby, which held no connection and refused NOT_LEADER naming the leader, serves within ttl + 5 s; one connection to the peer"
  "ha::a_paused_leader_lets_the_account_go_when_it_runs_again|[ha]: the leader paused (SIGSTOP) past its lease, then resumed|the standby takes over; the resumed one closes its connection, refuses NOT_LEADER naming the new leader, ends its event streams NOT_LEADER, and journals nothing after the handover (fenced)"
  "ha::the_event_sequence_continues_on_the_new_leader_after_kill_9|[ha]: kill -9 of the leader with events journaled|a stream resumed on the new leader with the old leader's after_sequence gets its events from the shared journal; the sequence goes on with no gap and no repeat"
  "ha::a_text_queued_on_the_leader_is_sent_once_by_the_new_one_after_kill_9|[ha]: kill -9 of the leader with a text in its offline queue|the new leader reads the shared queue and sends the text once, before the next send"
  "ha::the_new_leaders_nats_sink_publishes_what_the_killed_leader_journaled|[ha]: kill -9 of the leader while NATS is down, with events journaled and unpublished (real nats-server)|the new leader's sink publishes them from the shared journal before its own: every event in JetStream once, in order"
  "ha::an_image_captured_by_the_leader_downloads_from_the_new_one_after_kill_9|[ha]: kill -9 of the leader after it captured an image, the peer and its media host gone|the new leader serves the bytes from the shared database"
  "shard::one_address_reaches_every_shard_by_account_metadata|3 gateway processes behind one nginx map|each account reaches its shard; unknown account ACCOUNT_NOT_CONFIGURED"
  "fuzz::fuzz_the_frame_decoder|fuzz: frame decoder|no panic; decode/encode stable"
  "fuzz::fuzz_the_cq_code_parser|fuzz: CQ-code parser|no panic; parse(encode(x)) stable"
  "fuzz::fuzz_the_tool_argument_parser|fuzz: tool arguments, JavaScript numbers|no panic; white space never changes a number"
  "fuzz::fuzz_the_config_loader|fuzz: config loader (TOML and environment)|no panic; errors name the configuration"
  "exposure::a_second_reverse_connection_cannot_take_over_the_account|a second reverse connection with the same X-Self-ID and the right token|HTTP 409 while the first is attached; account stays on the first; a replacement accepted after it ends"
  "redaction::a_reverse_account_without_a_token_on_loopback_logs_a_warning|a reverse account without access_token on a loopback listener (beyond loopback: a config error)|a WARN line at start naming the account"
  "exposure::health_names_are_hidden_and_watches_without_a_token_capped|health Check/Watch of account names without a token; watches without a token beyond the cap|NOT_FOUND as an unknown service for known and unknown ids; RESOURCE_EXHAUSTED OVERLOADED past the per-address cap"
  "exposure::received_media_and_quotes_keep_the_scope_of_their_chat|a group-A token sends group B's received picture or quotes B's message|PERMISSION_DENIED TOKEN_SCOPE, B not named, nothing sent"
  "redaction::secrets_stay_out_of_text_logs_and_errors|TRACE logs of every crate, log-crate records bridged (tungstenite's handshake)|no OneBot token, bearer token or URL token in any line"
  "exposure::an_empty_or_corrupted_store_file_is_refused_naming_it_and_the_remedy|zero-length and garbage gateway.sqlite3, message-ids.sqlite3, journal.sqlite3, archive.sqlite3|start refused naming the file, what is lost and the remedy; file unchanged"
  "exposure::data_files_and_directories_are_owner_only|data directory, stores, SQLite side files, staging, a staged upload|0700 directories, 0600 files"
  "exposure::a_fifo_is_refused_and_outside_reads_as_missing|a FIFO under media_roots; a path outside the roots beside a missing one|FIFO refused (PATH_NOT_FOUND) without blocking; outside and missing: one code, reason and message; nothing sent"
  "domain::events::tests::a_stalled_subscriber_holds_no_event_the_buffer_let_go|an event subscriber that never reads while the resume buffer turns over by bytes|the events it did not read are freed with the buffer; it gets EVENT_STREAM_LAGGED naming what it missed"
  "store::shared::journal::tests::a_new_leader_continues_the_sequence_and_a_fenced_one_commits_nothing|[ha]: a gateway paused through a handover appends events to the shared journal (real PostgreSQL)|nothing of its account is committed (the rest of its batch is), it is told to step down, the new leader's numbering is untouched"
  "store::shared::state::tests::a_gateway_that_lost_the_lease_writes_nothing_and_the_new_leader_goes_on|[ha]: a gateway that lost its lease writes the shared offline queue (real PostgreSQL)|the write is refused NOT_LEADER and rolled back whole; the new leader sees the old entries and writes on"
  "store::journal::tests::submitters_wait_while_the_writer_holds_its_bytes|4 MiB events submitted while the journal's writer is stalled on its disk|at most 32 MiB and one entry queued; the submitter waits, then every event goes through in order"
  "mcp::tests::a_batch_of_tool_calls_is_refused_and_runs_nothing|a JSON-RPC batch of two qq_send tool calls in one POST|refused whole (4xx), nothing reaches the peer; single calls still served"
  "media::media_ids_of_a_routed_read_belong_to_the_routed_account|GetHistory and GetMessage routed by x-onebot-account with an empty account_id|the media ids they return download on the routed account"
  "exposure::malformed_protobuf_is_invalid_argument_not_internal|invalid protobuf bytes over raw HTTP/2 (unary, server stream, upload, health)|INVALID_ARGUMENT INVALID_REQUEST, never INTERNAL"
)

echo "running the fault and bad-input tests (fuzz budget ${ONEBOT_FUZZ_SECS} s per target)..." >&2
# One `cargo test --workspace` with the rows' names as filters: the same selection, hence the same
# features and binaries, as the test stage, so nothing is compiled again. A row named
# `<binary>::<test>` is a test of that binary (a crate's unit tests or a server test file); any other
# row is a test of the e2e binary.
filters=()
for row in "${ROWS[@]}"; do
  name="${row%%|*}"
  case "$name" in
    domain::* | store::* | mcp::* | kill9::* | shard::* | memory::* | adapter::* | ha::*) name="${name#*::}" ;;
  esac
  filters+=("$name")
done
set +e
cargo test --workspace --no-fail-fast -- "${filters[@]}" >"$WORK/test.log" 2>&1
status=$?
set -e
# "Running <source> (…/deps/<binary>-<hash>)" starts a binary's output; "test <name> ... ok" follows.
awk '/^ *Running / {
       bin = $NF; sub(/\)$/, "", bin); sub(/.*\//, "", bin); sub(/-[0-9a-f]+$/, "", bin)
       sub(/^onebot_gateway_/, "", bin)
       prefix = (bin == "e2e") ? "" : bin "::"
     }
     /^test .* \.\.\. (ok|FAILED)$/ {print prefix $2, $4}' "$WORK/test.log" >"$WORK/results"

survived=0
total=0
failed=()
printf '| %-3s | %-70s | %-90s | %-6s |\n' "#" "fault or bad input" "what was checked" "result"
printf '|-----|%s|%s|--------|\n' "$(printf -- '-%.0s' {1..72})" "$(printf -- '-%.0s' {1..92})"
for row in "${ROWS[@]}"; do
  IFS='|' read -r name fault checked <<<"$row"
  total=$((total + 1))
  result="$(awk -v n="$name" '$1 == n {print $2}' "$WORK/results" | tail -1)"
  case "$result" in
    ok) result="ok"; survived=$((survived + 1)) ;;
    FAILED) result="FAILED"; failed+=("$name") ;;
    *) result="not run"; failed+=("$name") ;;
  esac
  printf '| %-3s | %-70s | %-90s | %-6s |\n' "$total" "$fault" "$checked" "$result"
done
inputs="$(awk '{n += $NF} END {print n + 0}' "$ONEBOT_FUZZ_REPORT")"
echo
echo "bad inputs per source:"
awk '{n = $NF; $NF = ""; sum[$0] += n} END {for (k in sum) printf "  %-70s %d\n", k, sum[k]}' \
  "$ONEBOT_FUZZ_REPORT" | sort
echo
if [ ${#failed[@]} -eq 0 ]; then
  lost=0
else
  lost="unknown (failed: ${failed[*]})"
fi
echo "faults survived $survived/$total, bad inputs tried $inputs, lost $lost"
if [ ${#failed[@]} -ne 0 ] || [ "$status" -ne 0 ]; then
  echo "see the test output:" >&2
  if grep -q -- '^---- ' "$WORK/test.log"; then
    grep -A30 -- '^---- ' "$WORK/test.log" >&2
  else
    # No test failed by itself: cargo stopped before or between the binaries (a build error, a
    # full disk, a crash); its last lines say which.
    echo "cargo test exited $status without a failing test; its last lines:" >&2
    tail -n 60 "$WORK/test.log" >&2
  fi
  exit 1
fi
