#!/usr/bin/env bash
# Simulator speed of the DDR model alone against Ramulator 2.1 and DRAMSys 5.1: the same
# request streams as run_all.sh, N requests each (default 1,000,000, so that start-up is a
# small part), through `npusim membench --trace`, ramulator_mb and DRAMSys, each timed as a
# whole process by /usr/bin/time (reading the trace included). Prints a Markdown table of
# 64-byte requests per wall second, in millions, with each run's simulated bandwidth (GB/s)
# to show that the three did the same work, and npusim's rate over each reference's.
#
# Needs: the references built by build_refs.sh into WORKDIR, a built npusim, python3.
#   The traces are written on the first run into WORKDIR/speed-N/traces (gen_traces.py with
#   N requests, and their DRAMSys .stl copies).
# Usage: validation/ddr/speed.sh [WORKDIR]
#   WORKDIR defaults to $WORKDIR, then validation/ddr/work.
#   N            requests per stream (default 1000000)
#   STREAMS      streams to run (default: seq_read rand_read seq_write mix_w50)
#   NPUSIM, RAMULATOR_MB, DRAMSYS  the three binaries (defaults as in run_all.sh)
set -euo pipefail

# shellcheck source=validation/ddr/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
N=${N:-1000000}
export DRAMSYS=${DRAMSYS:-$WORK/dramsys-build/bin/DRAMSys}
STREAMS=${STREAMS:-seq_read rand_read seq_write mix_w50}

for b in "$NPUSIM" "$RAMULATOR_MB" "$DRAMSYS"; do
  [ -x "$b" ] || { echo "error: no executable $b (build npusim; run build_refs.sh)" >&2; exit 1; }
done

# run_dramsys.sh reads WORKDIR/traces: this size's traces get a work folder of their own.
SPEED=$WORK/speed-$N
if [ ! -f "$SPEED/traces/copy.trace" ]; then
  echo "writing $N-request traces to $SPEED/traces" >&2
  /usr/bin/python3 "$HERE/gen_traces.py" "$SPEED/traces" "$N"
fi
for t in $STREAMS; do
  [ -f "$SPEED/traces/$t.stl" ] ||
    /usr/bin/python3 "$HERE/to_stl.py" "$SPEED/traces/$t.trace" "$SPEED/traces/$t.stl"
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Runs a simulator with its JSON line to stdout; prints "REQUESTS_PER_S BANDWIDTH".
timed() { # NAME COMMAND...
  local name=$1
  shift
  /usr/bin/time -f "%e" -o "$TMP/$name.time" "$@" >"$TMP/$name.json"
  /usr/bin/python3 - "$TMP/$name.json" "$TMP/$name.time" "$N" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
try:
    result = json.loads(text)  # npusim: one object over several lines
except ValueError:
    result = json.loads([l for l in text.splitlines() if l.startswith("{")][-1])
wall = float(open(sys.argv[2]).read().split()[-1])
print(f"{int(sys.argv[3]) / max(wall, 1e-3) / 1e6:.2f} {result['bandwidth_gbps']:.3f}")
PY
}

ratio() { /usr/bin/python3 -c "print('%.1fx' % ($1 / $2))"; }

echo "| stream | npusim (M req/s, GB/s) | Ramulator 2.1 | DRAMSys 5.1 | npusim / Ramulator | npusim / DRAMSys |"
echo "|---|---|---|---|---|---|"
for t in $STREAMS; do
  echo "running $t" >&2
  read -r n nb < <(timed npusim "$NPUSIM" membench \
    --config "$HERE/configs/npusim_ddr4_3200.yaml" --trace "$SPEED/traces/$t.trace") || true
  read -r r rb < <(timed ramulator "$RAMULATOR_MB" "$HERE/configs/ramulator2_ddr4_3200.yaml" \
    "$SPEED/traces/$t.trace") || true
  read -r d db < <(timed dramsys "$HERE/run_dramsys.sh" "$t" plain "$SPEED") || true
  # A simulator that failed left no figures (process substitution hides its exit status).
  if [ -z "$nb" ] || [ -z "$rb" ] || [ -z "$db" ]; then
    echo "error: a simulator failed on $t (see the messages above)" >&2
    exit 1
  fi
  echo "| $t | $n ($nb) | $r ($rb) | $d ($db) | $(ratio "$n" "$r") | $(ratio "$n" "$d") |"
done
