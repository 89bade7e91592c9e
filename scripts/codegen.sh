#!/usr/bin/env bash
# Regenerates every binding from proto/: Rust via protox (`cargo xtask codegen`), the other
# SDKs via `buf generate` (buf.gen.yaml, local plugins installed by scripts/install-tools.sh),
# plus the TypeScript code of the vendored upstream protos (buf.gen.vendor.yaml: proto/vendor).
# --check: regenerate, then fail if anything differs from what is committed (drift), including
# generated files that are new or no longer generated.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

# Folders that hold only generated code: cleared first so removed protos leave nothing behind.
GENERATED=(
  client-sdk/typescript/src/gen
  client-sdk/python/src/onebot
  client-sdk/go/onebot
  client-sdk/java/src/main/java/dev/onebotgateway/v1
)

for tool in .tools/bin/protoc .tools/bin/protoc-gen-grpc-java .tools/go/bin/protoc-gen-go \
  .tools/go/bin/protoc-gen-go-grpc .tools/venv/bin/protoc-gen-mypy node_modules/.bin/protoc-gen-es; do
  if [ ! -x "$tool" ]; then
    echo "missing $tool: run ./scripts/install-tools.sh" >&2
    exit 1
  fi
done

cargo xtask codegen >/dev/null
rm -rf "${GENERATED[@]}"
# protoc-gen-mypy reports every file it writes on stderr; keep only real errors visible.
buf generate 2> >(grep -v '^Writing mypy to ' >&2)
buf generate --template buf.gen.vendor.yaml
# PEP 561 marker: the generated Python modules ship their .pyi stubs.
touch client-sdk/python/src/onebot/gateway/v1/py.typed

if [ "${1:-}" = "--check" ]; then
  if ! git diff --exit-code --stat -- client-sdk proto \
    || [ -n "$(git ls-files --others --exclude-standard -- client-sdk proto)" ]; then
    git status --short -- client-sdk proto >&2
    echo "generated code is out of date: run ./scripts/codegen.sh and commit" >&2
    exit 1
  fi
fi
