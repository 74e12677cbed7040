#!/usr/bin/env bash
# membench's four DDR reference streams at both fidelity levels (ddr.model: cycle and
# transaction): bandwidth and DRAM energy of each, and the transaction level's difference
# from cycle. The DDR of each shipped config, and one DDR4-3200 channel (as the Ramulator 2
# and DRAMSys comparison of docs/validation.md).
# Usage: scripts/membench_fidelity.sh [REQUESTS]   (default 400000 64-byte requests)
#   NO_BUILD=1 skips the build step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -n "${NO_BUILD:-}" ]] || scripts/build.sh npusim >&2
build=${BUILD_DIR:-build}
requests=${1:-400000}
printf '%-16s %-10s %12s %12s %8s %12s %12s %8s\n' ddr stream "cycle GB/s" "tx GB/s" diff \
  "cycle uJ" "tx uJ" diff
run() { # config, label, stream, extra --set...
  local config=$1 label=$2 stream=$3
  shift 3
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  for model in cycle transaction; do
    "$build/npusim" membench --config "$config" "${sets[@]}" --set "ddr.model=$model" \
      --pattern "$stream" --requests "$requests" --quiet >"$out/$model.json"
  done
  /usr/bin/python3 - "$out" "$label" "$stream" <<'PY'
import json, sys
out, label, stream = sys.argv[1:]
c = json.load(open(f"{out}/cycle.json"))
t = json.load(open(f"{out}/transaction.json"))
def pct(a, b):
    return 100.0 * (a - b) / b if b else 0.0
cb, tb = c["bandwidth_gbps"], t["bandwidth_gbps"]
ce, te = c["energy"]["total_pj"] / 1e6, t["energy"]["total_pj"] / 1e6
print(f"{label:<16} {stream:<10} {cb:>12.3f} {tb:>12.3f} {pct(tb, cb):>+7.2f}% {ce:>12.1f} "
      f"{te:>12.1f} {pct(te, ce):>+7.2f}%")
PY
}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for stream in seq_read rand_read seq_write mix_rw; do
  run configs/edge-npu.yaml DDR4-3200x1 "$stream" ddr.preset=DDR4-3200 ddr.channels=1 \
    ddr.hash=false
  for config in edge-npu datacenter-npu; do
    run "configs/$config.yaml" "$config" "$stream"
  done
done
