#!/usr/bin/env bash
# End-to-end tests of the client SDKs against the real gateway binary on its sandbox peer.
#
# Usage: ./scripts/sdk-tests.sh [rust|python|typescript|go|java ...]   (default: all)
#
# For each language: starts `onebot-gateway serve` (no account configured, so it runs on the
# embedded sandbox: account `default`, playground group 20000003) on a free loopback port with a
# fresh data directory and its sandbox on another free port, waits for it with
# `onebot-gateway health --wait` (polls the gRPC health service until SERVING, with a deadline),
# then runs that language's own test runner with ONEBOT_GATEWAY_ADDR=http://127.0.0.1:<port>,
# ONEBOT_GATEWAY_SANDBOX_URL=http://127.0.0.1:<sandbox port> (the sandbox's HTTP API) and
# ONEBOT_GATEWAY_TEST_IMAGE=<a 5 MiB PNG>. Python and TypeScript test the package as their
# READMEs install it, from a fresh venv / a new npm project.
# An nginx (Debian's package, from scripts/install-tools.sh) runs in front of each gateway as a
# gRPC proxy (docs/operations.md's configuration): ONEBOT_GATEWAY_PROXY_ADDR is its address and
# ONEBOT_GATEWAY_PROXY_RESTART a command that kills it and starts it again on the same port, for
# the tests of each SDK's event stream resuming across a proxy restart.
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
LANGS=("$@")
if [ ${#LANGS[@]} -eq 0 ]; then
  LANGS=(rust python typescript go java)
fi

WORK="$(mktemp -d)"
GW_PID=""
stop_gateway() {
  if [ -n "$GW_PID" ]; then
    kill "$GW_PID" 2>/dev/null || true
    wait "$GW_PID" 2>/dev/null || true
    GW_PID=""
  fi
}
NGINX="${ONEBOT_NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
PROXY="$WORK/proxy"
stop_proxy() {
  if [ -f "$PROXY/nginx.pid" ]; then
    kill -9 "$(cat "$PROXY/nginx.pid")" 2>/dev/null || true
    rm -f "$PROXY/nginx.pid"
  fi
}
trap 'stop_proxy; stop_gateway; rm -rf "$WORK"' EXIT

# A valid 5 MiB PNG (stored deflate blocks of seeded random RGBA pixels): the image the
# scenario uploads and sends.
export ONEBOT_GATEWAY_TEST_IMAGE="$WORK/image-5mib.png"
python3 - "$ONEBOT_GATEWAY_TEST_IMAGE" <<'EOF'
import random, struct, sys, zlib
width, height = 1024, 1280  # 1280 rows of 1 + 4096 bytes: just over 5 MiB
rng = random.Random(7)
raw = b"".join(b"\x00" + rng.randbytes(width * 4) for _ in range(height))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = (b"\x89PNG\r\n\x1a\n"
       + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(raw, 0))
       + chunk(b"IEND", b""))
assert len(png) >= 5 * 1024 * 1024
open(sys.argv[1], "wb").write(png)
EOF

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_gateway() {
  local port sandbox_port data
  port="$(free_port)"
  sandbox_port="$(free_port)"
  data="$(mktemp -d "$WORK/data.XXXX")"
  # The embedded sandbox on a port of its own, never the fixed default: runs side by side
  # never collide, and the tests reach its HTTP API (POST /sandbox_inject_message makes a
  # sandbox user say something).
  ONEBOT_GATEWAY__SANDBOX__LISTEN="127.0.0.1:$sandbox_port" \
    "$BIN" serve --listen "127.0.0.1:$port" --data-dir "$data" >"$data.log" 2>&1 &
  GW_PID=$!
  export ONEBOT_GATEWAY_ADDR="http://127.0.0.1:$port"
  export ONEBOT_GATEWAY_SANDBOX_URL="http://127.0.0.1:$sandbox_port"
  if ! "$BIN" health --addr "$ONEBOT_GATEWAY_ADDR" --wait 60s >/dev/null; then
    echo "the gateway did not become healthy; its log:" >&2
    cat "$data.log" >&2
    exit 1
  fi
}

# nginx in front of the gateway at $ONEBOT_GATEWAY_ADDR: one process (daemonized once its
# listener is bound), its own config, pid, log and temp directories.
start_proxy() {
  local port
  port="$(free_port)"
  mkdir -p "$PROXY"/{body,proxy,fastcgi,uwsgi,scgi}
  cat >"$PROXY/nginx.conf" <<CONF
daemon on;
master_process off;
worker_processes 1;
pid $PROXY/nginx.pid;
error_log $PROXY/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $PROXY/body;
  proxy_temp_path $PROXY/proxy;
  fastcgi_temp_path $PROXY/fastcgi;
  uwsgi_temp_path $PROXY/uwsgi;
  scgi_temp_path $PROXY/scgi;
  upstream gateway {
    server ${ONEBOT_GATEWAY_ADDR#http://};
    keepalive 32;
  }
  server {
    listen 127.0.0.1:$port http2;
    client_max_body_size 0;
    client_body_timeout 60s;
    grpc_read_timeout 60s;
    grpc_send_timeout 60s;
    keepalive_timeout 75s;
    location / {
      grpc_pass grpc://gateway;
    }
  }
}
CONF
  cat >"$PROXY/restart" <<SCRIPT
#!/usr/bin/env bash
# Kills the proxy (every connection through it breaks) and starts it again on the same port.
set -euo pipefail
# The old process is gone (its listening socket closed) when its pidfd turns readable.
python3 - "$PROXY/nginx.pid" <<'PY'
import os, select, signal, sys
with open(sys.argv[1]) as f:
    process = os.pidfd_open(int(f.read()))
signal.pidfd_send_signal(process, signal.SIGKILL)
select.select([process], [], [])
PY
"$NGINX" -p "$PROXY" -c "$PROXY/nginx.conf" -e "$PROXY/error.log"
SCRIPT
  chmod +x "$PROXY/restart"
  if ! "$NGINX" -p "$PROXY" -c "$PROXY/nginx.conf" -e "$PROXY/error.log"; then
    echo "nginx did not start (installed by scripts/install-tools.sh); its log:" >&2
    cat "$PROXY/error.log" >&2 || true
    exit 1
  fi
  export ONEBOT_GATEWAY_PROXY_ADDR="http://127.0.0.1:$port"
  export ONEBOT_GATEWAY_PROXY_RESTART="$PROXY/restart"
}

run_lang() {
  case "$1" in
    rust)
      cargo test -p onebot-gateway-client --features e2e --test e2e
      ;;
    python)
      # The package as its README installs it (pip install <folder>) into a fresh venv, with
      # the test tools at the versions requirements-dev.txt pins: the tests import the
      # installed package, never the source tree.
      local venv="$WORK/python-venv"
      python3 -m venv "$venv"
      "$venv/bin/pip" install --quiet --disable-pip-version-check -c requirements-dev.txt \
        "./client-sdk/python[typing]" pytest mypy
      (cd client-sdk/python \
        && "$venv/bin/python" -c 'import onebot_gateway, sys; f = onebot_gateway.__file__; assert f.startswith(sys.prefix), f"imported {f}, not the installed package"' \
        && "$venv/bin/python" -m mypy --strict src/onebot_gateway tests examples \
        && "$venv/bin/python" -m pytest -q -p no:cacheprovider tests)
      ;;
    typescript)
      # The README's install: `npm ci` in the SDK's folder (its prepare script builds dist/),
      # then `npm install --install-links <folder>` in a new project, with the test tools at
      # the versions the SDK's package.json pins. The offline tests of the source run in the
      # folder; the helpers, end-to-end and README tests run in the new project, against the
      # installed copy.
      local sdk="$ROOT/client-sdk/typescript" app="$WORK/typescript-app"
      (cd "$sdk" && npm ci --no-audit --no-fund && npm run typecheck \
        && node --import tsx --test test/unit.test.ts test/readme.test.ts)
      mkdir -p "$app"
      local tools
      tools="$(cd "$sdk" && node -p 'const d = require("./package.json").devDependencies; ["typescript", "tsx", "@types/node"].map((n) => `${n}@${d[n]}`).join(" ")')"
      # shellcheck disable=SC2086 # $tools is a list of package specs
      (cd "$app" && npm init -y >/dev/null && npm pkg set type=module \
        && npm install --no-audit --no-fund --install-links "$sdk" $tools \
        && test ! -L node_modules/@onebot-gateway/client \
        && node -e 'import("@onebot-gateway/client").then((m) => { if (typeof m.Client !== "function") throw new Error("no Client export"); })' \
        && cp -r "$sdk/examples" "$sdk/README.md" "$sdk/tsconfig.json" . \
        && mkdir test && cp "$sdk/test/helpers.test.ts" "$sdk/test/e2e.test.ts" "$sdk/test/readme.test.ts" test/ \
        && npx tsc -p tsconfig.json \
        && node --import tsx --test test/*.test.ts)
      ;;
    go)
      (cd client-sdk/go && test -z "$(gofmt -l .)" && go vet ./... && go test -count=1 ./...)
      ;;
    java)
      (cd client-sdk/java && mvn -B --no-transfer-progress test)
      ;;
    *)
      echo "unknown SDK $1 (rust, python, typescript, go, java)" >&2
      exit 2
      ;;
  esac
}

for lang in "${LANGS[@]}"; do
  printf '\n--> %s SDK\n' "$lang"
  start_gateway
  start_proxy
  run_lang "$lang"
  stop_proxy
  stop_gateway
done
