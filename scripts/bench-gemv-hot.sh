#!/usr/bin/env bash
# Decode (m = 1) GB/s of packed bytes, hot and cold (bench/gemv_hot.c), per type:
# L2-sized (4096 x 256: ~300 KiB per thread), L3-sized (one 4096 x 4096 matrix,
# no rotation) and cold (copies rotated through >= 256 MiB), 1 and 2 threads.
#   bash scripts/bench-gemv-hot.sh [BUILD_DIR] (QMM_HOT_TYPES="Q4_K Q6_K Q4_0 Q8_0")
# A measuring tool: figures on a loaded machine are only good as ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
[ -f "$B/libqmatmul.a" ] || cmake --build "$B" -j2 >/dev/null
cc -O2 -std=c11 -D_GNU_SOURCE -Iinclude bench/gemv_hot.c "$B/libqmatmul.a" -lpthread -lm -o "$B/gemv_hot"
echo "# $(date -u '+%F %T UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
for t in ${QMM_HOT_TYPES:-Q4_K Q6_K Q4_0 Q8_0}; do
  for th in 1 2; do
    "$B/gemv_hot" "$t" 4096 256 1 "$th" 4000
    "$B/gemv_hot" "$t" 4096 4096 1 "$th" 400
    "$B/gemv_hot" "$t" 4096 4096 "${QMM_HOT_COPIES:-30}" "$th" 300
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
