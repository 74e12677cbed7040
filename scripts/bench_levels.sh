#!/usr/bin/env bash
# What a simulation costs at each fidelity level (ddr.model: cycle and transaction), per
# launch, per tile and per byte of DRAM traffic, on datacenter-npu. Three runs per level:
#   launches  testbenches/launch_rate.yaml    100,000 launches of a cycles kernel, no tiles
#   tiles     matmul_sram (below)  200 512^3 int8 matmuls over every unit, operands in SRAM
#   bytes     copy_ddr (below)     one 128 MiB copy DDR to DDR, no launch, no tile
# Each cost comes from the CPU seconds (user + system) of the whole `npusim run`, best of
# REPEAT runs (CPU time moves less than wall time on a loaded machine), less what the
# cheaper costs account for: per launch = launches run / launches; per tile = (tiles run -
# launches x per launch) / tiles; per GB = (bytes run - tiles x per tile - launches x per
# launch) / GB. Prints the load average first, then each run (simulated time, CPU and wall
# time, peak RSS), then the costs side by side.
#   BUILD_DIR  build directory (default build);  REPEAT  runs per case and level (default 1)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${BUILD_DIR:-build}
[[ -x "$build/npusim" ]] || scripts/build.sh >&2
repeat=${REPEAT:-1}
config=configs/datacenter-npu.yaml
work=$(mktemp -d "${TMPDIR:-/tmp}/npusim-bench-levels.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat >"$work/matmul_sram.yaml" <<'YAML'
# 200 times a 512 x 512 x 512 int8 matmul on every unit with its operands and result in
# the SRAM: its tiles move through the DMA between SRAM and the units' partitions, with no
# DRAM traffic but the launches' descriptors and completions.
name: matmul_sram
kernels:
  mm: {op: matmul, m: 512, n: 512, k: 512, dtype: int8, binary: 16KiB}
buffers:
  a: {size: 256KiB, memory: sram}
  b: {size: 256KiB, memory: sram}
  c: {size: 256KiB, memory: sram}
program:
  - repeat:
      count: 200
      body:
        - launch: {kernel: mm, args: [a, b, c]}
YAML
cat >"$work/copy_ddr.yaml" <<'YAML'
# One 128 MiB copy from DDR to DDR through the DMA engine: 0.27 GB of DRAM traffic, no
# kernel, no tile.
name: copy_ddr
buffers:
  src: {size: 128MiB, memory: ddr}
  dst: {size: 128MiB, memory: ddr}
program:
  - memcpy: {dst: dst, src: src, bytes: 128MiB}
YAML

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
declare -A testbench=([launches]=testbenches/launch_rate.yaml
  [tiles]=$work/matmul_sram.yaml [bytes]=$work/copy_ddr.yaml)
for level in cycle transaction; do
  for c in launches tiles bytes; do
    for ((i = 0; i < repeat; i++)); do
      /usr/bin/time -f "%e %M %U %S" -o "$work/$level-$c-$i.time" "$build/npusim" run \
        --config "$config" --testbench "${testbench[$c]}" --set "ddr.model=$level" \
        --quiet --out "$work/$level-$c-$i" >/dev/null
    done
  done
done
/usr/bin/python3 - "$work" "$repeat" <<'PY'
import json, sys
work, repeat = sys.argv[1], int(sys.argv[2])

def best(level, case):
    runs = []
    for i in range(repeat):
        r = json.load(open(f"{work}/{level}-{case}-{i}/report.json"))
        wall, rss, user, system = open(f"{work}/{level}-{case}-{i}.time").read().split()[-4:]
        runs.append((float(user) + float(system), r, float(wall), int(rss) // 1024))
    return min(runs, key=lambda x: x[0])

print(f"{'level':<12} {'run':<9} {'launches':>9} {'tiles':>7} {'DRAM (GB)':>10} "
      f"{'simulated (ms)':>15} {'CPU (s)':>8} {'wall (s)':>9} {'RSS (MiB)':>10}")
costs = {}
for level in ("cycle", "transaction"):
    figures = {}
    for case in ("launches", "tiles", "bytes"):
        cpu, r, wall, rss = best(level, case)
        blocks = r["blocks"]
        tiles = sum(b.get("tiles", 0) for k, b in blocks.items() if k.startswith("compute.unit"))
        gb = (blocks["ddr"]["read_bytes"] + blocks["ddr"]["write_bytes"]) / 1e9
        launches = r["sim"]["launches"]
        figures[case] = (cpu, launches, tiles, gb)
        print(f"{level:<12} {case:<9} {launches:>9} {tiles:>7} {gb:>10.3f} "
              f"{r['sim']['simulated_ns'] / 1e6:>15.3f} {cpu:>8.2f} {wall:>9.2f} {rss:>10}")
    w, n, _, _ = figures["launches"]
    per_launch = w / n
    w, n, t, _ = figures["tiles"]
    per_tile = (w - n * per_launch) / t
    w, n, t, gb = figures["bytes"]
    per_gb = (w - n * per_launch - t * per_tile) / gb
    costs[level] = (per_launch, per_tile, per_gb)
print(f"\n{'level':<12} {'per launch (us)':>16} {'per tile (us)':>14} {'per GB of DRAM (s)':>19} "
      f"{'GB per CPU s':>13}")
for level, (l, t, g) in costs.items():
    print(f"{level:<12} {l * 1e6:>16.2f} {t * 1e6:>14.2f} {g:>19.2f} {1 / g:>13.3f}")
PY
