#!/usr/bin/env bash
# The model zoo: builds it (scripts/model_zoo.py: torchvision's architectures, torch.nn
# Transformer and recurrent layers exported at opsets 11 and 17 with a dynamic batch, and
# the Paddle2ONNX, tf2onnx and PyTorch models of npm packages), imports and runs every model
# on edge-npu and datacenter-npu with default options (scripts/zoo_run.py), and writes the
# table into docs/zoo-table.md.
# Usage: scripts/zoo.sh [ZOO_DIR] [model_zoo.py options...]   (ZOO_DIR default: build-zoo)
# Needs python3-torch and python3-torchvision (installed here when missing) and npm; the
# models take about 10 GB. Hours on two cores: the largest models simulate for minutes.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

zoo=${1:-build-zoo}
shift || true
scripts/setup.sh
if ! /usr/bin/python3 -c "import torch, torchvision" 2>/dev/null; then
  apt-get install -y --no-install-recommends python3-torch python3-torchvision
fi
command -v npm >/dev/null || apt-get install -y --no-install-recommends npm
UNITY=${UNITY:-ON} scripts/build.sh >/dev/null
/usr/bin/python3 scripts/model_zoo.py --out "$zoo" --opsets 11,17 "$@"
/usr/bin/python3 scripts/zoo_run.py "$zoo/zoo.tsv" --npusim build/npusim --table docs/zoo-table.md \
  --rows "$zoo/rows.jsonl"
