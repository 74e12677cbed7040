#!/usr/bin/env bash
# Benchmark of the local sweep launcher: 200 small points (testbenches/hello.yaml on
# edge-npu, 20 host parameter-packing times x 10 DMA channel counts). It runs them one at a time
# (--jobs 1) to measure each point's wall time alone, then with --jobs 2, and compares
# the parallel sweep's wall time with the ideal: the sum of the single-point times / 2.
# Passes (exit 0) when the parallel sweep takes at most 1.2x the ideal.
#   BUILD_DIR  build directory (default build)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build}
NPUSIM=$BUILD_DIR/npusim
[[ -x "$NPUSIM" ]] || scripts/build.sh

WORK=$(mktemp -d "${TMPDIR:-/tmp}/npusim-bench-sweep.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/bench.yaml" <<EOF
name: bench
config: $(pwd)/configs/edge-npu.yaml
testbench: $(pwd)/testbenches/hello.yaml
parameters:
  host.prepare: {from: 1us, to: 20us, step: 1us}
  dma.channels: {from: 1, to: 10}
metrics: [sim.simulated_ns]
EOF

now() { date +%s.%N; }
sum_wall() {
  /usr/bin/python3 -c 'import json, sys
points = json.load(open(sys.argv[1]))["points"]
assert len(points) == 200 and all(p["status"] == "ok" for p in points), "a point failed"
print(sum(p["wall_s"] for p in points))' "$1/results.json"
}

start=$(now)
"$NPUSIM" sweep "$WORK/bench.yaml" --out "$WORK/serial" --jobs 1 >/dev/null 2>&1
serial_s=$(/usr/bin/python3 -c "print($(now) - $start)")
single_sum=$(sum_wall "$WORK/serial")

start=$(now)
"$NPUSIM" sweep "$WORK/bench.yaml" --out "$WORK/parallel" --jobs 2 >/dev/null 2>&1
parallel_s=$(/usr/bin/python3 -c "print($(now) - $start)")
parallel_sum=$(sum_wall "$WORK/parallel")

if ! diff <(sed 's/,[^,]*$//' "$WORK/serial/results.csv") \
  <(sed 's/,[^,]*$//' "$WORK/parallel/results.csv") >/dev/null; then
  echo "bench_sweep: FAIL: --jobs 1 and --jobs 2 give different results.csv" >&2
  exit 1
fi

/usr/bin/python3 - "$single_sum" "$serial_s" "$parallel_s" "$parallel_sum" <<'EOF'
import sys
single_sum, serial_s, parallel_s, parallel_sum = map(float, sys.argv[1:])
ideal = single_sum / 2
ratio = parallel_s / ideal
print("200 points of hello.yaml on edge-npu")
print(f"  sum of single-point wall times (--jobs 1): {single_sum:8.2f} s")
print(f"  whole sweep with --jobs 1:                 {serial_s:8.2f} s")
print(f"  ideal with two jobs (sum / 2):             {ideal:8.2f} s")
print(f"  whole sweep with --jobs 2:                 {parallel_s:8.2f} s")
print(f"  (sum of its points' wall times:            {parallel_sum:8.2f} s)")
print(f"  ratio to the ideal:                        {ratio:8.3f} (target <= 1.2)")
sys.exit(0 if ratio <= 1.2 else 1)
EOF
