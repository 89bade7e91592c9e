#!/usr/bin/env bash
# Installs every tool the checks and tests need, into .tools/ and node_modules/ (idempotent:
# each step is skipped when its pinned version is already installed).
# Fresh-machine requirements: Rust (rustup), Go, Python 3, Node 20 + npm, Java 17 + Maven, and
# Debian's apt (as root, or sudo) for the system packages below (nginx, nats-server; the
# PostgreSQL server is installed from Debian's packages when running as root).
set -euo pipefail
source "$(dirname "$0")/env.sh"
mkdir -p "$TOOLS/bin" "$GOBIN"
cd "$ROOT"

# Pinned versions of the code generators (the SDKs' runtime versions must match them:
# client-sdk/go/go.mod, client-sdk/java/pom.xml, client-sdk/python/pyproject.toml).
PROTOC_GEN_GO_VERSION=v1.36.12      # google.golang.org/protobuf
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2   # google.golang.org/grpc/cmd/protoc-gen-go-grpc
PROTOC_VERSION=4.36.2               # com.google.protobuf:protoc (= protobuf-java runtime)
GRPC_JAVA_VERSION=1.83.1            # io.grpc:protoc-gen-grpc-java (= grpc-java runtime)
GRPCURL_VERSION=v1.9.3
CARGO_DENY_VERSION=0.20.2           # licenses, bans, sources (deny.toml)
NGINX_SERIES=1.22                   # Debian 12's nginx (the proxy the tests run in front of the gateway)

# nginx from Debian's archive: the gRPC reverse proxy of the proxy, sharding and SDK tests
# (tests/src/nginx.rs, scripts/sdk-tests.sh), which start it themselves with their own
# configuration on loopback. Only the binary is used: the package's own service is kept from
# starting. The series is pinned; the point release is whatever the archive carries (old ones
# leave the mirrors with each security update).
nginx_bin() { command -v nginx || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true; }
if [ -z "$(nginx_bin)" ] || ! "$(nginx_bin)" -v 2>&1 | grep -q "nginx/$NGINX_SERIES\."; then
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  no_start=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${as_root[@]}" chmod +x /usr/sbin/policy-rc.d
    no_start=1
  fi
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
    "nginx=$NGINX_SERIES.*"
  [ -z "$no_start" ] || "${as_root[@]}" rm -f /usr/sbin/policy-rc.d
fi

# nats-server from Debian's archive (2.9 on bookworm, JetStream included): the broker of the
# NATS event sink's tests (tests/src/nats.rs), which start it themselves on loopback with their
# own store directory. Only the binary is used: the package's service is kept from starting.
if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/bin/nats-server ]; then
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  no_start=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${as_root[@]}" chmod +x /usr/sbin/policy-rc.d
    no_start=1
  fi
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
    nats-server
  [ -z "$no_start" ] || "${as_root[@]}" rm -f /usr/sbin/policy-rc.d
fi

# PostgreSQL server for the archive's PostgreSQL tests (scripts/postgres.sh starts it): Debian's
# `postgresql` package (PostgreSQL 15 on bookworm). Elsewhere those tests are skipped.
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  else
    echo "NOTICE: no PostgreSQL server and no root apt-get here; the archive's PostgreSQL tests will be skipped"
  fi
fi

# Rust toolchain pinned by rust-toolchain.toml (rustup installs it on first use).
rustup show active-toolchain >/dev/null

# buf and protoc-gen-es (npm), pinned by package-lock.json.
if [ ! -x node_modules/.bin/buf ] || [ ! -x node_modules/.bin/protoc-gen-es ] \
  || [ package-lock.json -nt node_modules/.install-stamp ]; then
  npm ci --no-audit --no-fund
  touch node_modules/.install-stamp
fi

# The MCP Inspector (its CLI runs in scripts/mcp-tests.sh), pinned by its own package-lock.json.
INSPECTOR_DIR=tests/mcp/inspector
if [ ! -x "$INSPECTOR_DIR/node_modules/.bin/mcp-inspector" ] \
  || [ "$INSPECTOR_DIR/package-lock.json" -nt "$INSPECTOR_DIR/node_modules/.install-stamp" ]; then
  (cd "$INSPECTOR_DIR" && npm ci --no-audit --no-fund)
  touch "$INSPECTOR_DIR/node_modules/.install-stamp"
fi

# The official Milky schemas (@saltify/milky-types), for the tests that validate every Milky
# request and reply (tests/milky-schema/validate.mjs), pinned by their package-lock.json.
MILKY_SCHEMA_DIR=tests/milky-schema
if [ ! -d "$MILKY_SCHEMA_DIR/node_modules/@saltify/milky-types" ] \
  || [ "$MILKY_SCHEMA_DIR/package-lock.json" -nt "$MILKY_SCHEMA_DIR/node_modules/.install-stamp" ]; then
  (cd "$MILKY_SCHEMA_DIR" && npm ci --no-audit --no-fund)
  touch "$MILKY_SCHEMA_DIR/node_modules/.install-stamp"
fi

# Go tools via the Go module proxy; a stamp per pinned version.
go_tool() { # name package version
  if [ ! -x "$GOBIN/$1" ] || [ ! -f "$GOBIN/.$1-$3" ]; then
    go install "$2@$3"
    rm -f "$GOBIN/.$1-"*
    touch "$GOBIN/.$1-$3"
  fi
}
go_tool grpcurl github.com/fullstorydev/grpcurl/cmd/grpcurl "$GRPCURL_VERSION"
go_tool protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go "$PROTOC_GEN_GO_VERSION"
go_tool protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc "$PROTOC_GEN_GO_GRPC_VERSION"

# protoc and protoc-gen-grpc-java: native executables published on Maven Central.
case "$(uname -m)" in
  x86_64) CLASSIFIER=linux-x86_64 ;;
  aarch64 | arm64) CLASSIFIER=linux-aarch_64 ;;
  *) echo "unsupported architecture $(uname -m) for protoc" >&2; exit 1 ;;
esac
maven_exe() { # group:artifact version target-name
  local target="$TOOLS/bin/$3"
  if [ ! -x "$target" ] || [ ! -f "$target.$2" ]; then
    local dir
    dir="$(mktemp -d)"
    mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
      -Dartifact="$1:$2:exe:$CLASSIFIER" -DoutputDirectory="$dir" -Dmdep.stripVersion=true
    install -m 0755 "$dir"/*.exe "$target"
    rm -rf "$dir" "$target".*
    touch "$target.$2"
  fi
}
maven_exe com.google.protobuf:protoc "$PROTOC_VERSION" protoc
maven_exe io.grpc:protoc-gen-grpc-java "$GRPC_JAVA_VERSION" protoc-gen-grpc-java

# Python virtualenv for SDK generation and tests, plus the Python SDK itself (editable).
if [ ! -x "$TOOLS/venv/bin/python" ]; then
  python3 -m venv "$TOOLS/venv"
fi
if [ requirements-dev.txt -nt "$TOOLS/venv/.install-stamp" ] \
  || [ client-sdk/python/pyproject.toml -nt "$TOOLS/venv/.install-stamp" ] \
  || [ ! -f "$TOOLS/venv/.install-stamp" ]; then
  "$TOOLS/venv/bin/pip" install --quiet --disable-pip-version-check -r requirements-dev.txt
  "$TOOLS/venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
    --no-build-isolation -e client-sdk/python
  touch "$TOOLS/venv/.install-stamp"
fi

# cargo-deny, built from crates.io into .tools/bin once (~4 minutes on 2 cores; a stamp per
# pinned version, so CI caches it with .tools/).
if [ ! -x "$TOOLS/bin/cargo-deny" ] || [ ! -f "$TOOLS/bin/.cargo-deny-$CARGO_DENY_VERSION" ]; then
  cargo install cargo-deny --version "$CARGO_DENY_VERSION" --locked --root "$TOOLS"
  rm -f "$TOOLS/bin/.cargo-deny-"*
  touch "$TOOLS/bin/.cargo-deny-$CARGO_DENY_VERSION"
fi
