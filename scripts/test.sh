#!/usr/bin/env bash
# The test command: build, then run every CTest test (unit, integration, format), then
# build and run the same suite under AddressSanitizer and UndefinedBehaviorSanitizer
# (scripts/sanitize.sh, in build-sanitize/). NPU_SANITIZE=0 skips the second pass.
# Extra arguments go to ctest in both passes, e.g. `scripts/test.sh -R ddr`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/build.sh

BUILD_DIR=${BUILD_DIR:-build}
JOBS=$(nproc 2>/dev/null || echo 2)

ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j"$JOBS" "$@"
if [[ "${NPU_SANITIZE:-1}" != 0 ]]; then
  scripts/sanitize.sh "$@"
fi
