#!/usr/bin/env bash
# Configures and builds npusim in build/ (or $BUILD_DIR). Safe to re-run.
#   scripts/build.sh            everything: the binary, the Python package, the tests
#   scripts/build.sh TARGET...  only those targets and what they need (scripts/run.sh: npusim)
#   BUILD_TYPE  CMake build type (default RelWithDebInfo)
#   BUILD_DIR   build directory relative to the repo root (default build)
#   UNITY       ON (default): each target compiles as one translation unit; OFF: per file
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh

BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}
BUILD_DIR=${BUILD_DIR:-build}
JOBS=$(nproc 2>/dev/null || echo 2)

# One translation unit per target (UNITY=OFF for one per file, as a plain cmake configure
# gives): a cold build takes about half the CPU time. RelWithDebInfo keeps line tables only
# (-g1: backtraces and profiles name files and lines), a quarter cheaper to compile than
# full debug information; BUILD_TYPE=Debug has it all.
# A new build folder uses Ninja (ninja-build): it compiles a library while the libraries it
# links are still compiling, where Make waits for each to be archived first. With one
# translation unit per library, that is most of a cold build's waiting on two cores. A
# folder made earlier keeps its generator (CMake refuses to change it).
generator=()
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]] && command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
cmake -S . -B "$BUILD_DIR" "${generator[@]}" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
  -DCMAKE_UNITY_BUILD="${UNITY:-ON}" -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
targets=()
for target in "$@"; do
  targets+=(--target "$target")
done
cmake --build "$BUILD_DIR" -j"$JOBS" "${targets[@]}"
