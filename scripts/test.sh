#!/usr/bin/env bash
# The test command: build, then run every CTest test (unit, integration, format).
# Extra arguments go to ctest, e.g. `scripts/test.sh -R ddr`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/build.sh

BUILD_DIR=${BUILD_DIR:-build}
JOBS=$(nproc 2>/dev/null || echo 2)

exec ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j"$JOBS" "$@"
