#!/usr/bin/env bash
# The main job: build, then run a testbench on a configuration and print the report.
# Extra arguments go to `npusim run`. Without --config it uses configs/edge-npu.yaml,
# without --testbench testbenches/hello.yaml, so for example
#   scripts/run.sh --testbench testbenches/sync_vs_async.yaml --config configs/datacenter-gpu.yaml
# It builds the npusim binary alone (scripts/test.sh builds the rest: the Python package and
# the tests). Build output goes to stderr so that stdout carries only what npusim prints.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/build.sh npusim >&2

defaults=()
given=" $* "
[[ "$given" == *" --config "* || "$given" == *" --config="* ]] ||
  defaults+=(--config configs/edge-npu.yaml)
[[ "$given" == *" --testbench "* || "$given" == *" --testbench="* ]] ||
  defaults+=(--testbench testbenches/hello.yaml)

BUILD_DIR=${BUILD_DIR:-build}
exec "./$BUILD_DIR/npusim" run "${defaults[@]}" "$@"
