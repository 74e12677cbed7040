#!/usr/bin/env bash
# Cost of energy accounting: runs one workload with the energy report on and off
# (`--set energy.enabled=false`), REPEAT times each, interleaved, and prints the best
# simulation wall time (report.json sim.wall_s) of each and the slowdown. The blocks'
# energy counters always run (a few additions per transaction); with BASELINE=path to an
# npusim built without them (e.g. from the commit before the energy model), that binary
# is timed too.
# Usage: scripts/bench_energy.sh [CONFIG [TESTBENCH]]
#   default configs/edge-npu.yaml, testbenches/launch_rate.yaml; REPEAT (default 5)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -n ${NO_BUILD:-} ]] || scripts/build.sh >&2

config=${1:-configs/edge-npu.yaml}
testbench=${2:-testbenches/launch_rate.yaml}
build=${BUILD_DIR:-build}
repeat=${REPEAT:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Best wall time of one run of $1 (binary) with the rest as extra arguments.
wall() {
  local bin=$1
  shift
  "$bin" run --config "$config" --testbench "$testbench" --out "$out/run" "$@" >/dev/null
  /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sim"]["wall_s"])' \
    "$out/run/report.json"
  rm -rf "$out/run"
}

on=() off=() base=()
for ((i = 0; i < repeat; i++)); do
  on+=("$(wall "$build/npusim")")
  off+=("$(wall "$build/npusim" --set energy.enabled=false)")
  [[ -z ${BASELINE:-} ]] || base+=("$(wall "$BASELINE")")
done
/usr/bin/python3 - "$config" "$testbench" "${on[*]}" "${off[*]}" "${base[*]:-}" <<'PY'
import sys
config, testbench = sys.argv[1], sys.argv[2]
on, off = min(map(float, sys.argv[3].split())), min(map(float, sys.argv[4].split()))
print(f"{testbench} on {config}, best of {len(sys.argv[3].split())} runs each")
print(f"energy report on:   {on:.3f} s")
print(f"energy report off:  {off:.3f} s  (on is {100 * (on / off - 1):+.1f}%)")
if sys.argv[5].strip():
    base = min(map(float, sys.argv[5].split()))
    print(f"without counters:   {base:.3f} s  (on is {100 * (on / base - 1):+.1f}%)")
PY
