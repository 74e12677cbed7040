#!/usr/bin/env bash
# Simulator speed at both fidelity levels (ddr.model: transaction and cycle) on the DRAM-heavy
# runs: simulated DRAM traffic (bytes the DDR read and wrote) per wall-clock second, simulated
# time, wall time and peak RSS of the whole `npusim run` (from /usr/bin/time), and how far the
# transaction level's simulated time is from the cycle level's. Under each case, the two runs
# compared by scripts/compare_paths.py (each launch phase's mean, kernel phase means).
# Usage: scripts/bench_fidelity.sh [CASE...]   CASE: matmul2048 llm7b_decode llm7b_prefill
#   (default: all three). NO_BUILD=1 skips the build step; CYCLE=0 runs the transaction level
#   only (the cycle level of llm7b_prefill takes ten minutes or more); REPEAT=N takes the best
#   wall time of N transaction-level runs (default 1). The load average is printed first:
#   wall times on a busy machine are longer.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[[ -n "${NO_BUILD:-}" ]] || scripts/build.sh >&2
build=${BUILD_DIR:-build}
cycle=${CYCLE:-1}
repeat=${REPEAT:-1}
(($# > 0)) || set -- matmul2048 llm7b_decode llm7b_prefill
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

case_args() {
  case $1 in
  matmul2048) echo "configs/edge-npu.yaml testbenches/bench/matmul2048.yaml" ;;
  llm7b_decode) echo "configs/datacenter-npu.yaml testbenches/workloads/llm7b_decode.yaml" ;;
  llm7b_prefill) echo "configs/datacenter-npu.yaml testbenches/workloads/llm7b_prefill.yaml" ;;
  *) echo "bench_fidelity.sh: unknown case '$1'" >&2 && exit 2 ;;
  esac
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
printf '%-14s %-11s %9s %14s %9s %14s %9s %9s\n' case fidelity "DRAM (GB)" "simulated (ms)" \
  "wall (s)" "DRAM GB/wall s" "RSS (MiB)" "vs cycle"
for c in "$@"; do
  read -r config testbench < <(case_args "$c")
  models=(transaction)
  ((cycle)) && models+=(cycle)
  for model in "${models[@]}"; do
    runs=1
    [[ $model == transaction ]] && runs=$repeat
    best=""
    for ((i = 0; i < runs; i++)); do
      /usr/bin/time -f "%e %M" -o "$out/time" "$build/npusim" run --config "$config" \
        --testbench "$testbench" --set "ddr.model=$model" --max-wall-time 3600s \
        --out "$out/$c-$model" >/dev/null
      read -r wall rss <"$out/time"
      if [[ -z $best ]] || awk -v a="$wall" -v b="${best% *}" 'BEGIN{exit !(a<b)}'; then
        best="$wall $rss"
      fi
    done
    /usr/bin/python3 - "$out" "$c" "$model" $best <<'PY'
import json, os, sys
out, case, model, wall, rss = sys.argv[1:]
r = json.load(open(f"{out}/{case}-{model}/report.json"))
ddr = r["blocks"]["ddr"]
gb = (ddr["read_bytes"] + ddr["write_bytes"]) / 1e9
sim = r["sim"]["simulated_ns"]
diff = ""
ref = f"{out}/{case}-cycle/report.json"
if model == "cycle":
    fast = json.load(open(f"{out}/{case}-transaction/report.json"))["sim"]["simulated_ns"]
    diff = f"{100 * (fast - sim) / sim:+.2f}%"
print(f"{case:<14} {model:<11} {gb:>9.3f} {sim / 1e6:>14.3f} {float(wall):>9.2f} "
      f"{gb / max(float(wall), 1e-9):>14.3f} {int(rss) // 1024:>9} {diff:>9}")
PY
  done
  if ((cycle)); then
    /usr/bin/python3 scripts/compare_paths.py "$out/$c-transaction/report.json" \
      "$out/$c-cycle/report.json" --names transaction cycle | sed 's/^/    /'
  fi
done
