# Sourced by the scripts: where project-local tools live.
# Everything the tests need is installed under .tools/ (gitignored) by scripts/install-tools.sh.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
export GOBIN="$TOOLS/go/bin"
export GOPATH="${GOPATH:-$TOOLS/gopath}"
export PATH="$TOOLS/bin:$GOBIN:$ROOT/node_modules/.bin:$TOOLS/venv/bin:$HOME/.cargo/bin:$PATH"
# A CI run builds each crate once: incremental caches would only cost disk (gigabytes of
# target/debug/incremental) and time.
if [ "${CI:-}" = true ]; then
  export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
fi
