#!/usr/bin/env bash
# End-to-end tests of the client SDKs against the real gateway binary on the sandbox.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
echo "no SDK tests yet"
