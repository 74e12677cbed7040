# Sourced by run_all.sh and speed.sh with their arguments: HERE (this folder), REPO, WORK (the
# first argument, else $WORKDIR, else validation/ddr/work; made if missing), and the npusim and
# Ramulator binaries (NPUSIM, RAMULATOR_MB, unless set).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
WORK=${1:-${WORKDIR:-$HERE/work}}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
NPUSIM=${NPUSIM:-$REPO/build/npusim}
RAMULATOR_MB=${RAMULATOR_MB:-$WORK/ramulator_mb}
