#!/usr/bin/env bash
# Regenerates every binding from proto/ (Rust via protox; other SDKs via buf generate).
# --check: regenerate, then fail if anything differs from what is committed.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
cargo xtask codegen >/dev/null
if [ "${1:-}" = "--check" ]; then
  if ! git diff --exit-code --stat -- client-sdk proto; then
    echo "generated code is out of date: run ./scripts/codegen.sh and commit" >&2
    exit 1
  fi
fi
