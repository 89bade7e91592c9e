#!/usr/bin/env bash
# The one test command: installs what it needs, runs every check and test.
# Usage: ./scripts/test.sh
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

step() { printf '\n==> %s\n' "$*"; }

step "install tools"
./scripts/install-tools.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "buf lint / buf format"
buf lint
buf lint proto/vendor
buf format --diff --exit-code

step "buf breaking (against the released wire contract, proto/baseline.binpb)"
# The baseline is rebuilt only when a new API version is released:
#   buf build --exclude-source-info -o proto/baseline.binpb
buf breaking --against proto/baseline.binpb

step "codegen drift"
./scripts/codegen.sh --check

step "cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo clippy --features otlp (the optional OpenTelemetry exporter)"
cargo clippy -p onebot-gateway --lib --features otlp -- -D warnings

step "cargo deny (licenses, bans, sources; advisories need GitHub, unreachable here)"
cargo deny check licenses bans sources

step "Dockerfile lint (hadolint)"
hadolint Dockerfile

step "Kubernetes manifests against the bundled schemas (kubernetes-validate)"
kubernetes-validate --strict --quiet deploy/k8s/*.yaml

step "cargo build --release (binary used by SDK and grpcurl tests)"
cargo build --release -p onebot-gateway

step "deploy configs load and validate (compose and Kubernetes ConfigMap)"
./scripts/check-deploy-configs.sh

step "cargo test"
cargo test --workspace

step "soak: 60 s of steady mixed load on the release gateway (flat memory, no errors)"
cargo run --release -q -p bench -- soak --seconds 60

step "SDK tests"
./scripts/sdk-tests.sh

echo
echo "all checks passed"
