#!/usr/bin/env bash
# Builds the two reference DRAM simulators for the DDR comparison (run_all.sh) into WORKDIR:
#   WORKDIR/ramulator2/         Ramulator 2.1, copied from RAMULATOR2_SRC and patched to use the
#                               system yaml-cpp and fmt (patches/ramulator2-cmake.patch); no
#                               Python bindings; the build puts libramulator.so here
#   WORKDIR/ramulator_mb        the Ramulator trace driver (ramulator_mb.cpp)
#   WORKDIR/ramulator2_ddr4_3200.yaml  configs/ramulator2_ddr4_3200.py exported again, compared
#                               with the committed configs/ramulator2_ddr4_3200.yaml
#   WORKDIR/dramsys-build/bin/DRAMSys  DRAMSys 5.1, built out of tree from DRAMSYS_SRC (the source
#                               tree is not modified), without DRAMPower
#
# Needs (Debian 12): build-essential cmake python3 libyaml-cpp-dev libfmt-dev libsystemc-dev
#   nlohmann-json3-dev libsqlite3-dev; no network access.
# Source trees (plain checkouts or `git archive` exports):
#   RAMULATOR2_SRC  github.com/CMU-SAFARI/ramulator2 at c5b1c3a478b68853a61a0b8f99510d0dde7e6fd0
#   DRAMSYS_SRC     github.com/tukl-msd/DRAMSys tag v5.1 = 6b0146713a89b49eb9401fd3d50d36836ba2ab89
#                   (later versions fetch DRAMUtils at configure time)
#
# Usage: RAMULATOR2_SRC=/path/to/ramulator2 DRAMSYS_SRC=/path/to/DRAMSys \
#          validation/ddr/build_refs.sh [WORKDIR]
#   WORKDIR defaults to $WORKDIR, then validation/ddr/work.
#   JOBS (default 2) sets the make parallelism.
#   Running it again rebuilds only what changed; delete WORKDIR/ramulator2 to copy the
#   Ramulator source again.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=${1:-${WORKDIR:-$HERE/work}}
JOBS=${JOBS:-2}
: "${RAMULATOR2_SRC:?set RAMULATOR2_SRC to a Ramulator 2 source tree (commit c5b1c3a)}"
: "${DRAMSYS_SRC:?set DRAMSYS_SRC to a DRAMSys v5.1 source tree}"
RAMULATOR2_SRC=$(cd "$RAMULATOR2_SRC" && pwd)
DRAMSYS_SRC=$(cd "$DRAMSYS_SRC" && pwd)
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# Reports the commit of a source tree when it is a git checkout (exports carry no history).
check_version() { # DIR EXPECTED_COMMIT NAME
  local head
  if [ "$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)" = "$1" ]; then
    head=$(git -C "$1" rev-parse HEAD)
    if [ "$head" != "$2" ]; then
      echo "warning: $3 is at $head, the figures were made with $2" >&2
    fi
  else
    echo "note: $3 in $1 is not a git checkout; expecting commit $2" >&2
  fi
}
check_version "$RAMULATOR2_SRC" c5b1c3a478b68853a61a0b8f99510d0dde7e6fd0 "Ramulator 2"
check_version "$DRAMSYS_SRC" 6b0146713a89b49eb9401fd3d50d36836ba2ab89 "DRAMSys (v5.1)"

# --- Ramulator 2.1 -------------------------------------------------------------------------
# Its CMakeLists writes libramulator.so into the source folder, so it builds from a copy.
RAM=$WORK/ramulator2
if [ ! -f "$RAM/CMakeLists.txt" ]; then
  mkdir -p "$RAM"
  tar -C "$RAMULATOR2_SRC" --exclude=./.git --exclude=./build --exclude=./libramulator.so \
    -cf - . | tar -C "$RAM" -xf -
  if patch -p1 -d "$RAM" -s -f --dry-run < "$HERE/patches/ramulator2-cmake.patch" >/dev/null; then
    patch -p1 -d "$RAM" -s -f --no-backup-if-mismatch < "$HERE/patches/ramulator2-cmake.patch"
  elif grep -q 'find_package(yaml-cpp REQUIRED)' "$RAM/CMakeLists.txt"; then
    echo "note: $RAMULATOR2_SRC already has patches/ramulator2-cmake.patch" >&2
  else
    echo "error: patches/ramulator2-cmake.patch does not apply to $RAMULATOR2_SRC" >&2
    exit 1
  fi
fi
cmake -S "$RAM" -B "$WORK/ramulator2-build" -DCMAKE_BUILD_TYPE=Release \
  -DRAMULATOR_PYTHON_BINDINGS=OFF
nice -n 19 cmake --build "$WORK/ramulator2-build" -j "$JOBS"   # -> $RAM/libramulator.so

# The configuration is written in Python; Ramulator's exporter is pure Python.
PYTHONPATH=$RAM/python python3 -m ramulator export "$HERE/configs/ramulator2_ddr4_3200.py" \
  -o "$WORK/ramulator2_ddr4_3200.yaml"
if ! cmp -s "$WORK/ramulator2_ddr4_3200.yaml" "$HERE/configs/ramulator2_ddr4_3200.yaml"; then
  echo "warning: the exported Ramulator config differs from configs/ramulator2_ddr4_3200.yaml" >&2
fi

nice -n 19 g++ -O2 -std=c++20 -I"$RAM/src" -o "$WORK/ramulator_mb" "$HERE/ramulator_mb.cpp" \
  -L"$RAM" -Wl,-rpath,"$RAM" -lramulator -lyaml-cpp -lfmt

# --- DRAMSys 5.1 ---------------------------------------------------------------------------
# Debian's SystemC ships no CMake package: cmake/SystemCLanguage provides SystemC::systemc.
cmake -S "$DRAMSYS_SRC" -B "$WORK/dramsys-build" -DCMAKE_BUILD_TYPE=Release \
  -DDRAMSYS_USE_FETCH_CONTENT=OFF -DSystemCLanguage_DIR="$HERE/cmake/SystemCLanguage"
nice -n 19 cmake --build "$WORK/dramsys-build" -j "$JOBS"      # -> dramsys-build/bin/DRAMSys

echo "built: $WORK/ramulator_mb $WORK/dramsys-build/bin/DRAMSys"
