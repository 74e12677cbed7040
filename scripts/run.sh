#!/usr/bin/env bash
# The main job: build, then run the hello testbench on the edge-npu configuration.
# Extra arguments go to `npusim run`. Build output goes to stderr so that stdout
# carries only what npusim prints.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/build.sh >&2

BUILD_DIR=${BUILD_DIR:-build}
exec "./$BUILD_DIR/npusim" run --config configs/edge-npu.yaml --testbench testbenches/hello.yaml "$@"
