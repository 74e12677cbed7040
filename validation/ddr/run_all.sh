#!/usr/bin/env bash
# Runs the DDR comparison streams through `npusim membench --trace`, Ramulator 2.1 and
# DRAMSys 5.1, and prints a Markdown table of bandwidth. Bandwidth = requests x 64 B /
# simulated time (first offer to the end of the last data burst), in GB/s; the last two
# columns are npusim's difference against each reference.
#
# Needs: the references built by build_refs.sh into WORKDIR, a built npusim, python3.
#   The traces (WORKDIR/traces: gen_traces.py, fixed seeds, and their DRAMSys .stl copies)
#   are written on the first run.
# Usage: validation/ddr/run_all.sh [WORKDIR]
#   WORKDIR defaults to $WORKDIR, then validation/ddr/work.
#   NPUSIM       npusim binary (default: build/npusim of this repository)
#   RAMULATOR_MB Ramulator driver (default WORKDIR/ramulator_mb)
#   DRAMSYS      DRAMSys binary (default WORKDIR/dramsys-build/bin/DRAMSys)
#   STREAMS      streams to run (default: seq_read rand_read seq_write mix_w25 mix_w50 mix_w75;
#                `copy` is also available)
set -euo pipefail

# shellcheck source=validation/ddr/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
STREAMS=${STREAMS:-seq_read rand_read seq_write mix_w25 mix_w50 mix_w75}
export WORKDIR=$WORK

for b in "$NPUSIM" "$RAMULATOR_MB"; do
  [ -x "$b" ] || { echo "error: no executable $b (build npusim; run build_refs.sh)" >&2; exit 1; }
done

# Traces: the same requests feed all three simulators.
if [ ! -f "$WORK/traces/copy.trace" ]; then
  echo "writing traces to $WORK/traces" >&2
  /usr/bin/python3 "$HERE/gen_traces.py" "$WORK/traces"
fi
for t in $STREAMS; do
  [ -f "$WORK/traces/$t.stl" ] ||
    /usr/bin/python3 "$HERE/to_stl.py" "$WORK/traces/$t.trace" "$WORK/traces/$t.stl"
done

bw() { /usr/bin/python3 -c 'import json,sys; print("%.3f" % json.load(sys.stdin)["bandwidth_gbps"])'; }
pct() { /usr/bin/python3 -c "print('%+.1f%%' % (100 * ($1 / $2 - 1)))"; }

echo "| stream | npusim | Ramulator 2.1 | DRAMSys 5.1 | npusim vs Ramulator | npusim vs DRAMSys |"
echo "|---|---|---|---|---|---|"
for t in $STREAMS; do
  echo "running $t" >&2
  n=$("$NPUSIM" membench --config "$HERE/configs/npusim_ddr4_3200.yaml" \
        --trace "$WORK/traces/$t.trace" | bw)
  r=$("$RAMULATOR_MB" "$HERE/configs/ramulator2_ddr4_3200.yaml" "$WORK/traces/$t.trace" | bw)
  d=$("$HERE/run_dramsys.sh" "$t" plain "$WORK" | bw)
  echo "| $t | $n | $r | $d | $(pct "$n" "$r") | $(pct "$n" "$d") |"
done
