#!/usr/bin/env bash
# MCP clients that are not ours against the real gateway binary:
# 1. the official MCP Python SDK (tests/mcp, pytest): Streamable HTTP (both protocol eras) and
#    stdio (`onebot-gateway mcp`), each tool compared with CallTool, schemas, resources,
#    subscriptions, qq_wait_messages, Origin and token checks, and the same tools on a Milky
#    account (test_milky.py); the tests start their own gateways (embedded sandbox, speaking
#    OneBot v11 or Milky) and inject messages through the sandbox's HTTP API;
# 2. the MCP Inspector's CLI mode (npm @modelcontextprotocol/inspector, pinned by
#    tests/mcp/inspector/package-lock.json): lists and calls tools over Streamable HTTP and stdio.
# Needs scripts/install-tools.sh and `cargo build --release -p onebot-gateway` first
# (scripts/test.sh does both); ONEBOT_GATEWAY_BIN overrides the binary.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

BIN="${ONEBOT_GATEWAY_BIN:-$ROOT/target/release/onebot-gateway}"
if [ ! -x "$BIN" ]; then
  echo "missing $BIN: run cargo build --release -p onebot-gateway" >&2
  exit 1
fi
export ONEBOT_GATEWAY_BIN="$BIN"

printf '\n--> MCP Python SDK (tests/mcp)\n'
PYTHONPATH="$ROOT/client-sdk/python/src${PYTHONPATH:+:$PYTHONPATH}" \
  "$TOOLS/venv/bin/python" -m pytest -q tests/mcp

printf '\n--> MCP Inspector CLI\n'
INSPECTOR="$ROOT/tests/mcp/inspector/node_modules/.bin/mcp-inspector"
if [ ! -x "$INSPECTOR" ]; then
  echo "missing $INSPECTOR: run scripts/install-tools.sh" >&2
  exit 1
fi
WORK="$(mktemp -d)"
GW_PID=""
cleanup() {
  if [ -n "$GW_PID" ]; then
    kill "$GW_PID" 2>/dev/null || true
    wait "$GW_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
# The embedded sandbox on a free port too, so a gateway running on the defaults does not collide.
ONEBOT_GATEWAY__SANDBOX__LISTEN=127.0.0.1:0 \
  "$BIN" serve --listen "127.0.0.1:$PORT" --data-dir "$WORK/data" >"$WORK/gateway.log" 2>&1 &
GW_PID=$!
ADDR="http://127.0.0.1:$PORT"
if ! "$BIN" health --addr "$ADDR" --wait 60s >/dev/null; then
  echo "the gateway did not become healthy; its log:" >&2
  cat "$WORK/gateway.log" >&2
  exit 1
fi

# expect FILE PYTHON-EXPRESSION [REGISTRY]: the JSON the inspector printed satisfies the
# expression (`out`; `registry`: the tool names of REGISTRY, a `tools list --json`).
expect() {
  python3 - "$@" <<'EOF'
import json, sys
out = json.load(open(sys.argv[1]))
registry = [t["name"] for t in json.load(open(sys.argv[3]))["tools"]] if len(sys.argv) > 3 else None
if not eval(sys.argv[2], {"out": out, "registry": registry}):
    sys.exit(f"unexpected inspector output for {sys.argv[2]}:\n{json.dumps(out, ensure_ascii=False)[:2000]}")
EOF
}

# The tools as CallTool lists them: MCP must list the same, in the same order.
"$BIN" tools list --addr "$ADDR" --json >"$WORK/registry.json"
for transport in http stdio; do
  if [ "$transport" = http ]; then
    TARGET=("$ADDR/mcp" --transport http)
  else
    TARGET=("$BIN" mcp --addr "$ADDR")
  fi
  timeout 120 "$INSPECTOR" --cli "${TARGET[@]}" --method tools/list >"$WORK/list.json"
  expect "$WORK/list.json" \
    '[t["name"] for t in out["tools"]] == registry and len(registry) >= 10 and out["tools"][0]["annotations"]["readOnlyHint"] is True' \
    "$WORK/registry.json"
  timeout 120 "$INSPECTOR" --cli "${TARGET[@]}" --method tools/call \
    --tool-name qq_get_history --tool-arg target=group:20000002 --tool-arg count=30 >"$WORK/call.json"
  expect "$WORK/call.json" \
    'out["content"][0]["text"].startswith("[09:58:12] 张三(10001): 大家好") and out["structuredContent"]["count"] == 3 and not out.get("isError")'
  # A failed tool call: the inspector prints the result and exits 5 (tool_is_error).
  rc=0
  timeout 120 "$INSPECTOR" --cli "${TARGET[@]}" --method tools/call \
    --tool-name qq_poke --tool-arg userId=10003 --tool-arg groupId=20000002 \
    >"$WORK/fail.json" 2>"$WORK/fail.err" || rc=$?
  if [ "$rc" != 5 ]; then
    echo "the inspector exited $rc on a failed tool call:" >&2
    cat "$WORK/fail.err" >&2
    exit 1
  fi
  expect "$WORK/fail.json" \
    'out["isError"] is True and out["structuredContent"]["status"] == "failed"'
  echo "inspector over $transport: tools/list and tools/call ok"
done
