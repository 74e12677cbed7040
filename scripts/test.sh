#!/usr/bin/env bash
# The test command: installs what is missing, builds (scripts/build.sh), then runs every
# CTest test once (unit, model, end-to-end, README figures, format check). The sanitizer
# pass (scripts/sanitize.sh) and the slow runs are CI's (.ci/run), after this.
# Extra arguments go to ctest, e.g. `scripts/test.sh -R ddr`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/build.sh

BUILD_DIR=${BUILD_DIR:-build}
JOBS=$(nproc 2>/dev/null || echo 2)

ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j"$JOBS" "$@"
