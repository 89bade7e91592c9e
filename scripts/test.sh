#!/usr/bin/env bash
# The one test command: installs what it needs, runs every check and test.
# Usage: ./scripts/test.sh            every stage, in order (what CI runs)
#        ./scripts/test.sh STAGE...   only these stages (tools are installed first)
#        ./scripts/test.sh --list     the stages
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

step() { printf '\n==> %s\n' "$*"; }

# Each stage is a function; STAGES is their order.
STAGES=(fmt proto codegen clippy deny lint-deploy build deploy-configs test reliability soak sdk mcp)

stage_fmt() {
  step "cargo fmt --check"
  cargo fmt --all -- --check
}

stage_proto() {
  step "buf lint / buf format"
  buf lint
  buf lint proto/vendor
  buf format --diff --exit-code
  step "buf breaking (against the released wire contract, proto/baseline.binpb)"
  # The baseline is rebuilt only when a new API version is released:
  #   buf build --exclude-source-info -o proto/baseline.binpb
  buf breaking --against proto/baseline.binpb
}

stage_codegen() {
  step "codegen drift"
  ./scripts/codegen.sh --check
}

stage_clippy() {
  step "cargo clippy"
  cargo clippy --workspace --all-targets -- -D warnings
  step "cargo clippy --features otlp (the optional OpenTelemetry exporter)"
  cargo clippy -p onebot-gateway --lib --features otlp -- -D warnings
  step "cargo clippy --no-default-features (a binary without the embedded sandbox)"
  cargo clippy -p onebot-gateway --no-default-features -- -D warnings
}

stage_deny() {
  step "cargo deny (licenses, bans, sources; advisories need GitHub, unreachable here)"
  cargo deny check licenses bans sources
}

stage_lint-deploy() {
  step "Dockerfile lint (hadolint)"
  hadolint Dockerfile
  step "Kubernetes manifests against the bundled schemas (kubernetes-validate)"
  kubernetes-validate --strict --quiet deploy/k8s/*.yaml deploy/k8s/sharded/*.yaml deploy/k8s/ha/*.yaml
}

stage_build() {
  step "cargo build --release (binary used by SDK and grpcurl tests)"
  cargo build --release -p onebot-gateway
}

stage_deploy-configs() {
  step "deploy configs load and validate (compose and Kubernetes ConfigMap)"
  ./scripts/check-deploy-configs.sh
}

stage_test() {
  # The archive's test suite runs against PostgreSQL too: a throwaway server on loopback.
  step "PostgreSQL on loopback for the archive's tests"
  local pg_url
  if pg_url="$(./scripts/postgres.sh start)"; then
    export ONEBOT_GATEWAY_TEST_POSTGRES="$pg_url"
    trap './scripts/postgres.sh stop' EXIT
    echo "PostgreSQL at $pg_url"
    if pg_ca="$(./scripts/postgres.sh ca)"; then
      export ONEBOT_GATEWAY_TEST_POSTGRES_CA="$pg_ca"
    fi
  elif [ "${CI:-}" = true ]; then
    # CI installs the server itself (scripts/install-tools.sh), so a server that cannot start
    # there is a failure, not a reason to skip the PostgreSQL half of the suite.
    echo "PostgreSQL could not start in CI; the archive's PostgreSQL tests must run there" >&2
    exit 1
  else
    echo "NOTICE: PostgreSQL could not start here; the archive's PostgreSQL tests are skipped"
  fi
  # Includes the layering check (server/tests/architecture.rs): each crate
  # depends only on the layers under it.
  step "cargo test"
  cargo test --workspace
}

stage_reliability() {
  step "reliability: faults and bad input, 15 s of property fuzzing per target, one table"
  FUZZ_SECS=15 ./scripts/reliability-report.sh
}

stage_soak() {
  step "soak: 180 s of steady mixed load on the release gateway (flat memory, no errors)"
  # Long enough for the bounded caches to fill in the first third (see bench/src/soak.rs).
  cargo run --release -q -p bench -- soak --seconds 180
}

stage_sdk() {
  step "SDK tests"
  ./scripts/sdk-tests.sh
}

stage_mcp() {
  step "MCP clients that are not ours (MCP Python SDK over HTTP and stdio, MCP Inspector CLI)"
  # The release binary the tests start (a no-op after the build stage).
  cargo build --release -p onebot-gateway
  ./scripts/mcp-tests.sh
}

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${STAGES[@]}"
  exit 0
fi
selected=("$@")
if [ ${#selected[@]} -eq 0 ]; then
  selected=("${STAGES[@]}")
fi
for s in "${selected[@]}"; do
  if ! declare -F "stage_$s" >/dev/null; then
    echo "unknown stage $s; the stages are: ${STAGES[*]}" >&2
    exit 2
  fi
done

step "install tools"
./scripts/install-tools.sh

for s in "${selected[@]}"; do
  "stage_$s"
done

echo
echo "all checks passed"
