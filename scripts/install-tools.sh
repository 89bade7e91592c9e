#!/usr/bin/env bash
# Installs every tool the checks and tests need, into .tools/ and node_modules/ (idempotent).
# Fresh-machine requirements: Rust (rustup), Go, Python 3, Node 20 + npm, Java 17 + Maven.
set -euo pipefail
source "$(dirname "$0")/env.sh"
mkdir -p "$TOOLS/bin" "$GOBIN"
cd "$ROOT"

# Rust toolchain pinned by rust-toolchain.toml (rustup installs it on first use).
rustup show active-toolchain >/dev/null

# buf (npm) and the TypeScript toolchain, pinned by package-lock.json.
if [ ! -x node_modules/.bin/buf ] || [ package-lock.json -nt node_modules/.install-stamp ]; then
  npm ci --no-audit --no-fund
  touch node_modules/.install-stamp
fi

# grpcurl via the Go module proxy.
if [ ! -x "$GOBIN/grpcurl" ]; then
  go install github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.3
fi

# Python virtualenv for SDK generation and tests.
if [ ! -x "$TOOLS/venv/bin/python" ]; then
  python3 -m venv "$TOOLS/venv"
fi
if [ requirements-dev.txt -nt "$TOOLS/venv/.install-stamp" ] || [ ! -f "$TOOLS/venv/.install-stamp" ]; then
  "$TOOLS/venv/bin/pip" install --quiet --disable-pip-version-check -r requirements-dev.txt
  touch "$TOOLS/venv/.install-stamp"
fi
