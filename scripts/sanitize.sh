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
# AddressSanitizer checks the heap, globals and leaks, not stack frames. SystemC 2.3.4
# tells it about each switch between coroutine stacks, but gives the main stack's bounds
# as null: from the first switch back to sc_main on, AddressSanitizer ignores the
# unwinding of an exception thrown on the main stack ("ASan is ignoring requested
# __asan_handle_no_return ... top: 0x000000000000"), the redzones of the frames it skipped
# stay poisoned, and the next calls that reuse those addresses are reported as
# stack-buffer-overflow or stack-use-after-scope although nothing is wrong (every error
# path of a run was). No stack redzones, no such reports.
flags+=" --param=asan-stack=0"
# Without the Python package (NPUSIM_PYTHON=OFF): its tests run CPython, which is not built
# with the sanitizers. What its extension module does in C++ is tested here all the same,
# by python_core_test (many runs in one process, each in a fresh simulation context; the
# limits; the kinds of error).
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="" -DCMAKE_CXX_FLAGS="$flags" \
  -DNPUSIM_PYTHON=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_UNITY_BUILD=ON \
  -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 >/dev/null
cmake --build "$build" -j"$jobs"

# The sanitizers write their reports into files, one per process, printed below: the same
# null stack bounds make AddressSanitizer warn once on stderr in every process that throws
# on the main stack ("ASan is ignoring requested __asan_handle_no_return"), and the tests
# compare the simulator's stderr exactly. A finding still fails its test: it aborts the
# process.
logs=$(pwd)/$build/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"
# SystemC announces its stack switches without the fake-stack handle that use-after-return
# detection needs (and without stack redzones there is nothing for it to check).
# AddressSanitizer keeps freed blocks in a quarantine of 256 MiB by default, resident
# memory the tests of --max-memory would count as the simulator's: a run that allocates
# and frees as it goes (membench's request window) passes a 128 MiB limit within
# seconds, sooner the faster the machine. 16 MiB still catches a use of a block freed
# thousands of allocations earlier.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_stack_use_after_return=0:detect_leaks=1:halt_on_error=1:abort_on_error=1:quarantine_size_mb=16:log_path=$logs/asan}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:log_path=$logs/ubsan}
status=0
# --plots runs Python, which the sanitizers do not see: those combinations run in the
# normal pass only, as does the 4096^3 roofline run (half a minute of simulation that
# only repeats, many times over, the code paths of the smaller compute runs) and
# readme_figures (the same runs as the claims, workload and output tests), and the
# install test (packaging: it compiles an example against the installed libraries).
ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$jobs" \
  -E 'OutputCombinationTest.*_plots_|Roofline.Matmul4096OnEdgeNpuExecutes|readme_figures|InstallTest' "$@" || status=$?

reports=$(grep -l -E "ERROR|runtime error" "$logs"/* 2>/dev/null || true)
for report in $reports; do
  echo "sanitize: $report"
  cat "$report"
done
if [[ -n "$reports" ]]; then
  echo "sanitize: $(wc -w <<<"$reports") process(es) reported a finding (above)" >&2
  status=1
fi
exit "$status"
