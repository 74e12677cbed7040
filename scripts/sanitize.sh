#!/usr/bin/env bash
# Builds npusim and its tests with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-sanitize/ (or $SANITIZE_BUILD_DIR) and runs every CTest test there. Any finding
# (a memory error, a leak, undefined behaviour) fails its test: nothing recovers.
# Extra arguments go to ctest, e.g. `scripts/sanitize.sh -R CliTest`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh
build=${SANITIZE_BUILD_DIR:-build-sanitize}
jobs=$(nproc 2>/dev/null || echo 2)
# GCC leaves float-cast-overflow out of "undefined"; it is asked for by name.
# -O1 with line tables: quick to build, readable stack traces; assertions stay on.
flags="-O1 -g1 -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all"
flags+=" -fno-omit-frame-pointer"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$build" -j"$jobs"

# SystemC switches between its processes' stacks with QuickThreads, which AddressSanitizer
# does not see: its fake stacks for use-after-return would be torn between coroutines.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_stack_use_after_return=0:detect_leaks=1:halt_on_error=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
exec ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$jobs" "$@"
