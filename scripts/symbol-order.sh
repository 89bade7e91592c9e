#!/usr/bin/env bash
# Writes server/link/symbol-order.txt: the functions the release gateway runs from start to
# idle (one account on the sandbox peer, connected, nothing to do), then those a first history,
# member list, status, text send and video upload and send add, in that order. server/build.rs
# hands the file to the linker, which lays those functions out first and side by side (see
# ARCHITECTURE.md, "Memory at idle"). Run it after upgrading the toolchain or dependencies, or
# when bench reports a higher idle RSS; it takes a few minutes (a release build and two runs
# under valgrind's callgrind, which lists every function executed).
# Needs: valgrind, python3.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
command -v valgrind >/dev/null || { echo "symbol-order.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }

cargo build --release --locked -p onebot-gateway
BIN="$ROOT/target/release/onebot-gateway"
WORK="$(mktemp -d)"
cleanup() { kill "${SANDBOX_PID:-}" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

"$BIN" sandbox --listen 127.0.0.1:0 >"$WORK/sandbox.log" 2>&1 &
SANDBOX_PID=$!
for _ in $(seq 100); do grep -q 'ws://' "$WORK/sandbox.log" && break; sleep 0.1; done
URL="$(grep -o 'ws://[^ "]*' "$WORK/sandbox.log" | head -1)"
[ -n "$URL" ] || { echo "symbol-order.sh: the sandbox did not start:" >&2; cat "$WORK/sandbox.log" >&2; exit 1; }

# One traced gateway run: $1 names its output; $2 is the function that runs against it once it
# is connected (at $ADDR).
traced_run() {
  local name=$1 then=$2 data="$WORK/data-$1"
  cat >"$WORK/$name.toml" <<TOML
[server]
listen = "127.0.0.1:0"
data_dir = "$data"

[accounts.default]
ws_url = "$URL"
groups = [20000003]
TOML
  valgrind --tool=callgrind --demangle=no --compress-strings=no --dump-instr=no \
    --callgrind-out-file="$WORK/$name.callgrind" \
    "$BIN" serve --config "$WORK/$name.toml" >"$WORK/$name.log" 2>&1 &
  local pid=$!
  for _ in $(seq 600); do grep -q 'connected to the OneBot implementation' "$WORK/$name.log" && break; sleep 0.1; done
  grep -q 'connected to the OneBot implementation' "$WORK/$name.log" \
    || { echo "symbol-order.sh: the traced gateway did not connect:" >&2; cat "$WORK/$name.log" >&2; exit 1; }
  ADDR="http://$(grep -o 'gRPC listening local=[0-9.:]*' "$WORK/$name.log" | head -1 | cut -d= -f2)"
  "$then"
  kill -INT "$pid"
  wait "$pid" || true
}

# Start to idle: five seconds once connected (the timers that run at idle fire in them).
idle() { sleep 5; }
# The common calls, each once; a video goes through UploadMedia and the streamed send.
{ printf '\000\000\000\030ftypmp42\000\000\000\000mp42isom'; head -c 2097152 /dev/urandom; } >"$WORK/clip.mp4"
common_calls() {
  "$BIN" history --addr "$ADDR" group:20000003 >/dev/null
  "$BIN" members --addr "$ADDR" 20000003 >/dev/null
  "$BIN" accounts --addr "$ADDR" >/dev/null
  "$BIN" send --addr "$ADDR" --group 20000003 "symbol order" >/dev/null
  "$BIN" send --addr "$ADDR" --group 20000003 --video "$WORK/clip.mp4" >/dev/null
}
traced_run idle idle
traced_run calls common_calls

nm --defined-only "$BIN" | awk '$2 ~ /^[tTwW]$/ { print $3 }' >"$WORK/text-symbols"
python3 - "$WORK" >"$ROOT/server/link/symbol-order.txt" <<'PY'
import sys
work = sys.argv[1]
text = set(open(f"{work}/text-symbols").read().split())
seen = set()
print("# Written by scripts/symbol-order.sh; never edit by hand. The functions the release")
print("# gateway runs from start to idle, then those its common calls add (see server/build.rs).")
# Each run's new functions sorted by name (a crate's, a module's side by side), so the file
# changes only where what runs changed.
for run in ("idle", "calls"):
    names = set()
    for line in open(f"{work}/{run}.callgrind", errors="replace"):
        if line.startswith("fn="):
            name = line[3:].strip()
            if name in text and name not in seen:
                names.add(name)
    seen |= names
    for name in sorted(names):
        print(name)
PY
echo "symbol-order.sh: $(grep -vc '^#' "$ROOT/server/link/symbol-order.txt") functions in server/link/symbol-order.txt"
