#!/usr/bin/env bash
# Bounded memory on a long run: 1,000,000 asynchronous launches of a tiny kernel on four
# streams (testbenches/launch_rate.yaml with 250,000 rounds instead of 25,000), run with
# --out (and --trace when `npusim run --help` offers it). Prints launches, simulated and
# wall time, peak RSS and the size of the files written.
# Usage: scripts/bench_million.sh [CONFIG] [LAUNCHES]
#        (defaults configs/edge-npu.yaml and 1000000; LAUNCHES a multiple of 4)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/build.sh >&2

config=${1:-configs/edge-npu.yaml}
launches=${2:-1000000}
build=${BUILD_DIR:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rounds=$((launches / 4))
sed -e "s/^name: launch-rate/name: launch-rate-$launches/" \
  -e "s/count: 25000/count: $rounds/" testbenches/launch_rate.yaml >"$work/million.yaml"
grep -q "count: $rounds" "$work/million.yaml" || {
  echo "bench_million.sh: testbenches/launch_rate.yaml no longer has 'count: 25000'" >&2
  exit 1
}

extra=()
if "$build/npusim" run --help | grep -q -- '--trace'; then
  extra=(--trace "$work/run.trace.json")
fi

/usr/bin/time -f "%e %M" -o "$work/time" "$build/npusim" run --config "$config" \
  --testbench "$work/million.yaml" --out "$work/run" "${extra[@]}" >/dev/null
read -r wall rss <"$work/time"
/usr/bin/python3 - "$work" "$wall" "$rss" "${#extra[@]}" <<'PY'
import json, os, sys
work, wall, rss, traced = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4] != "0"
report = json.load(open(os.path.join(work, "run", "report.json")))
def mib(path):
    return os.path.getsize(path) / 2**20
print(f"launches:              {report['sim']['launches']}")
print(f"simulated time:        {report['sim']['simulated_ns'] / 1e6:.3f} ms")
print(f"simulation wall time:  {report['sim']['wall_s']:.2f} s")
print(f"whole run wall time:   {wall:.2f} s (with reports)")
print(f"peak RSS:              {rss / 1024:.0f} MiB")
print(f"launches.csv:          {mib(os.path.join(work, 'run', 'launches.csv')):.0f} MiB")
if traced:
    print(f"trace:                 {mib(os.path.join(work, 'run.trace.json')):.0f} MiB")
else:
    print("trace:                 not written (this npusim has no --trace)")
PY
