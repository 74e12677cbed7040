#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer and UndefinedBehaviorSanitizer) in
# build-fuzz/ and runs one of them.
# Usage: scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_OPTION...]
#   TARGET   config, testbench, trace, sweep, onnx, report or diff (tests/fuzz/TARGET_fuzz.cpp)
#   SECONDS  how long to fuzz
# New inputs collect in build-fuzz/fuzz/TARGET/corpus; a crash, hang or leak is written to
# build-fuzz/fuzz/TARGET/ (crash-*, timeout-*, leak-*, oom-*) and the script exits 1.
# Copy such a file into tests/fuzz/regressions/TARGET/ once it is fixed: the replay test
# runs it from then on.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if (($# < 2)); then
  sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
if [[ ! -f tests/fuzz/${target}_fuzz.cpp ]]; then
  echo "fuzz: unknown target '$target'; targets:" \
    "$(cd tests/fuzz && ls ./*_fuzz.cpp | sed 's|./||; s|_fuzz.cpp||' | tr '\n' ' ')" >&2
  exit 2
fi

scripts/setup.sh
build=${FUZZ_BUILD_DIR:-build-fuzz}
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DNPU_FUZZ=ON -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target "${target}_fuzz"

work=$build/fuzz/$target
mkdir -p "$work/corpus"
seeds=()
while IFS= read -r dir; do
  [[ -d "$dir" ]] && seeds+=("$dir")
done <"$build/tests/fuzz/$target.seeds"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
exec "$build/tests/fuzz/${target}_fuzz" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" "$@" \
  "$work/corpus" "${seeds[@]}"
