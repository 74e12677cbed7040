#!/usr/bin/env bash
# Simulator speed on DRAM-heavy runs: simulated DRAM traffic (bytes read and written by
# the DDR) per wall-clock second, simulated time, wall time and peak RSS, on the burst
# path and on the 64-byte path (interconnect.granularity) side by side, with the
# difference of their simulated times; under each case, the two paths' simulated time and
# launch phase means compared (scripts/compare_paths.py).
# Under each case also the ceiling its DDR sets: `npusim membench` of 4,000,000 sequential
# 64-byte reads on the same config, the DDR model driven alone (no DMA, interconnect, SRAM
# or host), as requests and DRAM bytes per wall second.
# Usage: scripts/bench_traffic.sh [CASE...]   CASE: matmul2048 llm7b_decode resnet50_b8
#   (default: all three). Set NO_BUILD=1 to skip the build step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -n "${NO_BUILD:-}" ]] || scripts/build.sh >&2
build=${BUILD_DIR:-build}
(($# > 0)) || set -- matmul2048 llm7b_decode resnet50_b8
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

case_args() {
  case $1 in
  matmul2048) echo "configs/edge-npu.yaml testbenches/bench/matmul2048.yaml" ;;
  llm7b_decode) echo "configs/datacenter-npu.yaml testbenches/workloads/llm7b_decode.yaml" ;;
  resnet50_b8) echo "configs/edge-npu.yaml testbenches/workloads/resnet50_b8.yaml" ;;
  *) echo "bench_traffic.sh: unknown case '$1'" >&2 && exit 2 ;;
  esac
}

printf '%-13s %-5s %10s %14s %9s %12s %9s %8s\n' case path "DRAM (GB)" "simulated (ms)" "wall (s)" \
  "DRAM GB/wall s" "RSS (MiB)" "vs 64B"
for c in "$@"; do
  read -r config testbench < <(case_args "$c")
  for path in burst 64B; do
    /usr/bin/time -f "%e %M" -o "$out/time" "$build/npusim" run --config "$config" \
      --testbench "$testbench" --set "interconnect.granularity=$path" --max-wall-time 3600s \
      --out "$out/$c-$path" >/dev/null
    read -r wall rss <"$out/time"
    /usr/bin/python3 - "$out" "$c" "$path" "$wall" "$rss" <<'PY'
import json, os, sys
out, case, path, wall, rss = sys.argv[1:]
r = json.load(open(f"{out}/{case}-{path}/report.json"))
ddr = r["blocks"]["ddr"]
gb = (ddr["read_bytes"] + ddr["write_bytes"]) / 1e9
sim = r["sim"]["simulated_ns"]
other = f"{out}/{case}-burst/report.json"
diff = ""
if path == "64B" and os.path.exists(other):
    fast = json.load(open(other))["sim"]["simulated_ns"]
    diff = f"{100 * (fast - sim) / sim:+.2f}%"
print(f"{case:<13} {path:<5} {gb:>10.3f} {sim / 1e6:>14.3f} {float(wall):>9.2f} "
      f"{gb / max(float(wall), 1e-9):>12.3f} {int(rss) // 1024:>9} {diff:>8}")
PY
  done
  /usr/bin/python3 scripts/compare_paths.py "$out/$c-burst/report.json" "$out/$c-64B/report.json" |
    sed 's/^/    /'
  requests=4000000
  /usr/bin/time -f "%e" -o "$out/time" "$build/npusim" membench --config "$config" \
    --pattern seq_read --requests "$requests" >"$out/$c-membench.json"
  /usr/bin/python3 - "$out/$c-membench.json" "$(cat "$out/time")" "$requests" <<'PY'
import json, sys
result, wall, requests = json.load(open(sys.argv[1])), float(sys.argv[2]), int(sys.argv[3])
rate = requests / max(wall, 1e-9)
print(f"    DDR alone (membench seq_read, {requests:,} requests): {rate / 1e6:.1f} M requests "
      f"= {rate * 64 / 1e9:.2f} GB per wall second ({result['bandwidth_gbps']:.1f} GB/s simulated)")
PY
done
