#!/usr/bin/env bash
# Runs one comparison stream through DRAMSys 5.1 and prints one JSON line with its bandwidth:
# requests x 64 B / DRAMSys's "Total Time" (the last response). With MODE power (DRAMPower
# on), also energy_pj: DRAMSys's "Total Energy" (DRAMPower's total x devices per rank).
#
# Needs: DRAMSys built by build_refs.sh, and WORKDIR/traces/STREAM.stl (run_all.sh writes the
#   traces: gen_traces.py, then to_stl.py). python3.
# Usage: validation/ddr/run_dramsys.sh STREAM [plain|record|power] [WORKDIR]
#   record also writes DRAMSys's command database (WORKDIR/dramsys-out/*.tdb).
#   WORKDIR defaults to $WORKDIR, then validation/ddr/work; DRAMSYS overrides the binary
#   (default WORKDIR/dramsys-build/bin/DRAMSys).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=${1:?usage: run_dramsys.sh STREAM [plain|record] [WORKDIR]}
MODE=${2:-plain}
WORK=${3:-${WORKDIR:-$HERE/work}}
WORK=$(cd "$WORK" && pwd)
BIN=${DRAMSYS:-$WORK/dramsys-build/bin/DRAMSys}
[ -x "$BIN" ] || { echo "error: no DRAMSys binary at $BIN (run build_refs.sh)" >&2; exit 1; }
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

# DRAMSys reads memspec/, addressmapping/, mcconfig/, simconfig/ and traces/ from one resource
# folder: the committed configs, linked, next to the generated traces.
RES=$WORK/dramsys-res
mkdir -p "$RES"
for d in memspec addressmapping mcconfig simconfig; do
  ln -sfn "$HERE/configs/dramsys/$d" "$RES/$d"
done
ln -sfn "$WORK/traces" "$RES/traces"
[ -f "$RES/traces/$T.stl" ] || { echo "error: no trace $RES/traces/$T.stl" >&2; exit 1; }

OUTDIR=$WORK/dramsys-out
mkdir -p "$OUTDIR"
cd "$OUTDIR"
cat > "$T.json" <<JSON
{ "simulation": {
    "simulationid": "$T",
    "memspec": "DDR4-3200AA_8Gb_x8.json",
    "addressmapping": "am_ddr4_RoBaCoBg.json",
    "mcconfig": "grpfrfcfswm_rw32.json",
    "simconfig": "$MODE.json",
    "tracesetup": [ { "clkMhz": 1600, "name": "$T.stl" } ] } }
JSON
OUT=$("$BIN" "$T.json" "$RES" 2>&1)
echo "$OUT" > "$T.$MODE.log"
N=$(wc -l < "$RES/traces/$T.stl")
TT=$(echo "$OUT" | grep -m1 "Total Time" | sed 's/.*Total Time: *//')
[ -n "$TT" ] || { echo "error: no Total Time in $OUTDIR/$T.$MODE.log" >&2; exit 1; }
TE=$(echo "$OUT" | grep -m1 "Total Energy" | sed 's/.*Total Energy: *//; s/ *pJ.*//' || true)
/usr/bin/python3 - "$T" "$N" "$TT" "$TE" <<'PY'
import sys
t, n, tt, te = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
scale = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0, "ps": 1e-3}[tt[1]]
ns = float(tt[0]) * scale
energy = f',"energy_pj":{float(te):.2f}' if te else ""
print(f'{{"sim":"dramsys5.1","stream":"{t}","requests":{n},"total_ns":{ns:.3f},'
      f'"cycles":{ns / 0.625:.0f},"bandwidth_gbps":{n * 64 / ns:.3f}{energy}}}')
PY
