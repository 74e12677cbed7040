#!/usr/bin/env bash
# Memory-system benchmark: DMA DDR -> SRAM bandwidth against the DDR model's own
# sequential-read bandwidth (membench), and the cost of simulating 1 GiB of DMA.
# Usage: scripts/bench_dma.sh [CONFIG]   (default configs/edge-npu.yaml)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/build.sh >&2

config=${1:-configs/edge-npu.yaml}
build=${BUILD_DIR:-build}
sets=(--set sram.buffer_space=256KiB)

run_dma() { # bytes -> "GB/s wall_s rss_kib"
  local log
  log=$(mktemp)
  /usr/bin/time -f "time %e %M" "$build/testbenches/dma_bandwidth" --config "$config" "${sets[@]}" \
    --bytes "$1" --chunk 64KiB --streams 4 >/dev/null 2>"$log"
  local gbps wall rss
  gbps=$(sed -n 's/.* \([0-9.]*\) GB\/s$/\1/p' "$log")
  read -r wall rss < <(sed -n 's/^time \([0-9.]*\) \([0-9]*\)$/\1 \2/p' "$log")
  rm -f "$log"
  echo "$gbps $wall $rss"
}

read -r dma64 wall64 rss64 < <(run_dma 64MiB)
read -r dma1g wall1g rss1g < <(run_dma 1GiB)
seq=""
if "$build/npusim" --help | grep -q membench; then
  seq=$("$build/npusim" membench --config "$config" --pattern seq_read --requests 200000 |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["bandwidth_gbps"])')
fi

echo "config: $config"
printf '%-44s %s\n' "DMA DDR->SRAM, 64 MiB in 64 KiB chunks:" "$dma64 GB/s (wall ${wall64} s)"
if [[ -n "$seq" ]]; then
  printf '%-44s %s\n' "membench seq_read on the same DDR:" "$seq GB/s"
  /usr/bin/python3 -c "print('%-44s %.1f%% (target >= 90%%)' % ('DMA / seq_read:', 100 * $dma64 / $seq))"
fi
printf '%-44s %s\n' "DMA of 1 GiB:" "$dma1g GB/s, wall ${wall1g} s (target < 15 s), peak RSS $((rss1g / 1024)) MiB (target < 512 MiB)"
