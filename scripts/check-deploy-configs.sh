#!/usr/bin/env bash
# Loads every configuration shipped under deploy/ with the release binary (`serve
# --print-config` validates and exits): deploy/gateway.toml (docker compose) and the
# config.toml embedded in deploy/k8s/configmap.yaml, and the shard configurations of
# deploy/k8s/sharded/configmap.yaml. Secrets are not needed to validate.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"

BIN="${ONEBOT_GATEWAY_BIN:-$ROOT/target/release/onebot-gateway}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

python3 - "$WORK/k8s.toml" <<'PY'
import sys
import yaml  # PyYAML, installed with kubernetes-validate

with open("deploy/k8s/configmap.yaml", encoding="utf-8") as f:
    doc = yaml.safe_load(f)
with open(sys.argv[1], "w", encoding="utf-8") as out:
    out.write(doc["data"]["config.toml"])
# The sharded variant: one configuration per StatefulSet ordinal.
with open("deploy/k8s/sharded/configmap.yaml", encoding="utf-8") as f:
    shards = yaml.safe_load(f)
for name, text in shards["data"].items():
    with open(sys.argv[1].replace("k8s.toml", name), "w", encoding="utf-8") as out:
        out.write(text)
# The [ha] variant: its lease URL comes from the Secret, as the StatefulSet sets it.
with open("deploy/k8s/ha/configmap.yaml", encoding="utf-8") as f:
    ha = yaml.safe_load(f)
with open(sys.argv[1].replace("k8s.toml", "ha.toml"), "w", encoding="utf-8") as out:
    out.write(ha["data"]["config.toml"])
PY

for config in deploy/gateway.toml "$WORK"/*.toml; do
  ha_url=()
  case "$config" in
    */ha.toml) ha_url=(env ONEBOT_GATEWAY__HA__URL=postgres://gateway@postgres:5432/gateway) ;;
  esac
  if ! "${ha_url[@]}" "$BIN" serve --config "$config" --print-config >/dev/null; then
    echo "invalid configuration: $config" >&2
    exit 1
  fi
  echo "ok: $config"
done
