#!/usr/bin/env bash
# Simulator speed on the launch path: 100,000 async launches of a tiny kernel on four
# streams (testbenches/launch_rate.yaml). Prints launches per wall second of
# simulation, total wall time and peak RSS.
# Usage: scripts/bench_launches.sh [CONFIG]   (default configs/edge-npu.yaml)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/build.sh >&2

config=${1:-configs/edge-npu.yaml}
build=${BUILD_DIR:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

/usr/bin/time -f "%e %M" -o "$out/time" "$build/npusim" run --config "$config" \
  --testbench testbenches/launch_rate.yaml --out "$out/run" >/dev/null
read -r wall rss <"$out/time"
/usr/bin/python3 - "$out/run/report.json" "$wall" "$rss" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
launches = report["sim"]["launches"]
sim_wall = report["sim"]["wall_s"]
print(f"launches:                 {launches}")
print(f"simulated time:           {report['sim']['simulated_ns'] / 1e6:.3f} ms")
print(f"simulation wall time:     {sim_wall:.3f} s -> {launches / sim_wall:,.0f} launches per wall second")
print(f"whole run (with reports): {float(sys.argv[2]):.2f} s, peak RSS {int(sys.argv[3]) // 1024} MiB")
PY
