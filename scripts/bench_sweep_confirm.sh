#!/usr/bin/env bash
# Wall time of a transaction-level sweep with cycle-level confirmation: the 16 points of
# testbenches/sweeps/llm7b_decode_units_dma.yaml (one Llama-2-7B decode step on the
# datacenter NPU, compute units x DMA channels) at `fidelity: transaction`, then
# `--confirm 2` reruns the two best points (least simulated time) at fidelity cycle and
# prints both figures and their difference. Prints the load average first (a busy machine
# makes every figure longer), the confirmation lines, and the whole command's wall time.
# Passes (exit 0) when every point and both confirmations finish and the whole sweep
# takes under LIMIT_S seconds (default 300). The CPU seconds of every process, over the
# --jobs count, say what the wall time would be on an otherwise idle machine.
#   BUILD_DIR  build directory (default build);  JOBS  points at once (default 2)
#   SPEC       the sweep file (default the one above);  CONFIRM  points to confirm (default 2)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${BUILD_DIR:-build}
[[ -x "$build/npusim" ]] || scripts/build.sh >&2
spec=${SPEC:-testbenches/sweeps/llm7b_decode_units_dma.yaml}
jobs=${JOBS:-2}
confirm=${CONFIRM:-2}
limit=${LIMIT_S:-300}
work=$(mktemp -d "${TMPDIR:-/tmp}/npusim-bench-confirm.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
start=$(date +%s.%N)
set +e
/usr/bin/time -f "%U %S" -o "$work/cpu" "$build/npusim" sweep "$spec" --out "$work/out" \
  --jobs "$jobs" --confirm "$confirm" >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
wall=$(/usr/bin/python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" \
  "$start" "$(date +%s.%N)")
grep -E '^(confirm|  [0-9]{4} )' "$work/stdout" || true
if [[ $rc -ne 0 || ! -f $work/out/confirm.json ]]; then
  echo "bench_sweep_confirm: FAIL: npusim sweep exited with $rc after $wall s; its last words:"
  tail -n 20 "$work/stderr" "$work/stdout"
  exit 1
fi
/usr/bin/python3 - "$work/out" "$wall" "$limit" "$rc" "$work/cpu" "$jobs" <<'PY'
import json, sys
out, wall, limit, rc = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
cpu = sum(float(x) for x in open(sys.argv[5]).read().split()[-2:])
jobs = int(sys.argv[6])
points = json.load(open(f"{out}/results.json"))["points"]
ok = sum(p["status"] == "ok" for p in points)
point_wall = sum(p["wall_s"] for p in points)
confirm = json.load(open(f"{out}/confirm.json"))
confirmed = sum(p["status"] == "ok" for p in confirm["points"])
print(f"points: {ok}/{len(points)} ok at fidelity transaction, {point_wall:.1f} s of point "
      f"wall time; {confirmed}/{len(confirm['points'])} confirmed at fidelity cycle")
print(f"confirmation error: {confirm['confirmation_error_pct']:.2f}% ({confirm['objective']})")
print(f"whole sweep: {wall:.1f} s wall (limit {limit:.0f} s); {cpu:.1f} CPU seconds (user + "
      f"system, every point's process), {cpu / jobs:.1f} s over {jobs} cores")
good = rc == 0 and ok == len(points) and len(points) >= 16 and confirmed == len(confirm["points"])
good = good and len(confirm["points"]) > 0 and wall < limit
print("bench_sweep_confirm: " + ("PASS" if good else "FAIL"))
sys.exit(0 if good else 1)
PY
