#!/usr/bin/env bash
# Simulator speed on the realistic workloads (testbenches/workloads/*.yaml): runs each
# one and prints its launches, simulated time, wall time of the whole run and peak RSS.
# Usage: scripts/bench_workloads.sh [CONFIG] [WORKLOAD...]
#   CONFIG defaults to configs/edge-npu.yaml; WORKLOAD names a file in
#   testbenches/workloads without .yaml (default: all but the llm7b_* ones, which need a
#   datacenter config and minutes each: name them, e.g.
#   scripts/bench_workloads.sh configs/datacenter-npu.yaml llm7b_decode).
# Set NO_BUILD=1 to skip the build step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -n "${NO_BUILD:-}" ]] || scripts/build.sh >&2

config=${1:-configs/edge-npu.yaml}
shift || true
build=${BUILD_DIR:-build}
if (($# == 0)); then
  set -- $(cd testbenches/workloads && ls *.yaml | sed 's/\.yaml$//' | grep -v '^llm7b_')
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '%-16s %9s %14s %10s %9s\n' workload launches "simulated (ms)" "wall (s)" "RSS (MiB)"
for w in "$@"; do
  /usr/bin/time -f "%e %M" -o "$out/time" "$build/npusim" run --config "$config" \
    --testbench "testbenches/workloads/$w.yaml" --out "$out/$w" >/dev/null
  read -r wall rss <"$out/time"
  /usr/bin/python3 - "$out/$w/report.json" "$w" "$wall" "$rss" <<'PY'
import json, sys
sim = json.load(open(sys.argv[1]))["sim"]
print(f"{sys.argv[2]:<16} {sim['launches']:>9} {sim['simulated_ns'] / 1e6:>14.3f} "
      f"{float(sys.argv[3]):>10.2f} {int(sys.argv[4]) // 1024:>9}")
PY
done
