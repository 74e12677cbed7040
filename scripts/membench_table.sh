#!/usr/bin/env bash
# The DDR model against issue 3's bounds: membench on DDR4-3200, one channel and one
# rank, 100,000 requests per pattern (RoBaCoBg, plus seq_read with RoBaRaCoCh), printed
# as a Markdown table. Usage: scripts/membench_table.sh [REQUESTS]
# BUILD_DIR selects the build (default build); NO_BUILD=1 skips scripts/build.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ -z "${NO_BUILD:-}" ]]; then
  scripts/build.sh >&2
fi

requests=${1:-100000}
npusim=${BUILD_DIR:-build}/npusim
config=$(mktemp --suffix=.yaml)
trap 'rm -f "$config"' EXIT
cat >"$config" <<'YAML'
name: ddr4-3200-membench
ddr: {preset: DDR4-3200, channels: 1, ranks: 1, mapping: RoBaCoBg}
YAML

# 25.6 GB/s x (1 - tRFC/tREFI) = 24.42; four ACTs per tFAW x 64 B, refresh-adjusted = 11.49.
row() { # pattern mapping bound
  "$npusim" membench --config "$config" --set "ddr.mapping=$2" --pattern "$1" \
    --requests "$requests" | /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
lat = j["read_latency_ns"]["mean"]
print("| %s | %s | %.2f | %s | %.3f | %s | %s |" % (
    sys.argv[1], sys.argv[2], j["bandwidth_gbps"],
    "%.1f" % lat if j["reads"] else "-", j["row_hit_rate"],
    format(int(j["requests_per_wall_s"]), ","), sys.argv[3]))' "$1" "$2" "$3"
}

echo "DDR4-3200, 1 channel, 1 rank, $requests requests of 64 B, one offered per memory clock"
echo
echo "| pattern | mapping | bandwidth (GB/s) | mean read latency (ns) | row-hit rate | requests / wall s | bound (issue 3) |"
echo "|---|---|---|---|---|---|---|"
row seq_read RoBaCoBg ">= 23.20 (95% of 24.42)"
row rand_read RoBaCoBg "< 11.49 (tFAW)"
row seq_write RoBaCoBg "<= 24.42"
row mix_rw RoBaCoBg "<= 24.42"
row seq_read RoBaRaCoCh "well below RoBaCoBg seq_read (tCCD_L)"
