#!/usr/bin/env bash
# Simulator speed on the launch path: 100,000 async launches of a tiny kernel on four
# streams (testbenches/launch_rate.yaml). Prints launches per wall second of simulation
# (best of RUNS runs, and each run's), the whole run's wall time and peak RSS, and the
# machine's load. With CALLGRIND=1 it also prints the instructions per launch that
# valgrind's callgrind counts (independent of the machine's load): the same testbench cut
# to 1,000 and to 10,000 launches, the difference divided by 9,000 (so start-up and the
# fixed part of the reports drop out), for the whole run and for the simulation alone
# (inside sc_start), and the simulation's instructions by where they are spent.
# Usage: [RUNS=5] [CALLGRIND=1] scripts/bench_launches.sh [CONFIG]
#        (default configs/edge-npu.yaml; BUILD_DIR=build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/build.sh npusim >&2

config=${1:-configs/edge-npu.yaml}
build=${BUILD_DIR:-build}
runs=${RUNS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "load:                     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
best=0
for ((i = 1; i <= runs; ++i)); do
  /usr/bin/time -f "%e %M" -o "$out/time" "$build/npusim" run --config "$config" \
    --testbench testbenches/launch_rate.yaml --out "$out/run" >/dev/null
  read -r wall rss <"$out/time"
  /usr/bin/python3 - "$out/run/report.json" "$wall" "$rss" "$i" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
launches = report["sim"]["launches"]
sim_wall = report["sim"]["wall_s"]
if sys.argv[4] == "1":
    print(f"launches:                 {launches}")
    print(f"simulated time:           {report['sim']['simulated_ns'] / 1e6:.3f} ms")
print(f"run {sys.argv[4]}: simulation {sim_wall:.3f} s -> {launches / sim_wall:,.0f} launches per wall "
      f"second; whole run {float(sys.argv[2]):.2f} s, peak RSS {int(sys.argv[3]) // 1024} MiB")
PY
  rate=$(/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sim"]; print(int(s["launches"]/s["wall_s"]))' "$out/run/report.json")
  ((rate > best)) && best=$rate
done
echo "best of $runs:               $best launches per wall second"

[[ "${CALLGRIND:-0}" == 1 ]] || exit 0
if ! command -v valgrind >/dev/null; then
  echo "installing valgrind" >&2
  apt-get install -y --no-install-recommends valgrind >&2
fi
# Instructions of one run of `launches` launches: whole run, or inside sc_start only.
instructions() {
  local launches=$1 only=$2 file="$out/cg.$1.$2"
  sed "s/count: 25000/count: $((launches / 4))/" testbenches/launch_rate.yaml >"$out/tb.yaml"
  local toggle=()
  [[ "$only" == sim ]] && toggle=(--toggle-collect='sc_core::sc_start*')
  valgrind --tool=callgrind "${toggle[@]}" --callgrind-out-file="$file" "$build/npusim" run \
    --config "$config" --testbench "$out/tb.yaml" --out "$out/cg_run" >/dev/null 2>"$file.log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$file.log"
}
for part in all sim; do
  small=$(instructions 1000 $part)
  large=$(instructions 10000 $part)
  label=$([[ $part == all ]] && echo "whole run" || echo "simulation")
  printf "callgrind, %-14s %'d instructions per launch\n" "$label:" $(((large - small) / 9000))
done
# Where the simulation's instructions go (10,000 launches, by object and source folder).
callgrind_annotate --auto=no --threshold=100 "$out/cg.10000.sim" 2>/dev/null | /usr/bin/python3 -c '
import re, sys
groups = {}
total = 0
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S.*)$", line)
    if not m or "PROGRAM TOTALS" in line:
        if m:
            total = int(m.group(1).replace(",", ""))
        continue
    ir, where = int(m.group(1).replace(",", "")), m.group(2)
    key = "other"
    for pattern, name in [(r"libsystemc", "SystemC kernel (scheduler, thread switches, events)"),
                          (r"npu::(Ddr|Dram|BankQueue|AllBank|PerBank|AddressMapper)", "DDR"),
                          (r"npu::(HostCpu|Driver|HostMemory)", "host CPU and driver"),
                          (r"npu::(Scheduler|Descriptor|.*Dispatch)", "hardware scheduler"),
                          (r"npu::(ComputeUnit|Tiling|TilePlan)", "compute units"),
                          (r"npu::(Router|Pcie)", "interconnect"),
                          (r"npu::(ICache|TagStore)", "instruction cache"),
                          (r"npu::(LaunchCollector|Simulation|Runtime)", "launch records (runtime)"),
                          (r"npu::(LaunchTable|.*csv|.*put_ns|.*Csv)", "launch table and CSV"),
                          (r"npu::", "other npusim code"),
                          (r"libc\.so|ld-linux|libstdc|malloc", "C and C++ runtime (malloc, memcpy)")]:
        if re.search(pattern, where):
            key = name
            break
    groups[key] = groups.get(key, 0) + ir
print("simulation instructions at 10,000 launches, by where they run (exclusive):")
for name, ir in sorted(groups.items(), key=lambda kv: -kv[1]):
    print(f"  {name:52s} {ir / 10000:8,.0f} per launch  {100 * ir / max(total, 1):5.1f}%")
'
