#!/usr/bin/env bash
# Configures and builds npusim in build/ (or $BUILD_DIR). Safe to re-run.
#   BUILD_TYPE  CMake build type (default RelWithDebInfo)
#   BUILD_DIR   build directory relative to the repo root (default build)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/setup.sh

BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo}
BUILD_DIR=${BUILD_DIR:-build}
JOBS=$(nproc 2>/dev/null || echo 2)

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE"
cmake --build "$BUILD_DIR" -j"$JOBS"
