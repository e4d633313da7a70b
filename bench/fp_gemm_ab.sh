#!/usr/bin/env bash
# A/B of two builds' F32 / F16 / BF16 GEMMs (the history of docs/performance.md, "Stop 21"):
# fp_gemm_bench of BASE and NEW alternated back to back, ROUNDS times, for
# each thread count and ISA (AVX-512 where the CPU has it, AVX2 by hiding it),
# at m = 64 and 512, with the load average before each run. Wall time, best
# of --reps calls: on a shared machine take ranges over the rounds, and trust
# only a quiet run (load below the core count).
#   bash bench/fp_gemm_ab.sh BASE_BUILD NEW_BUILD [ROUNDS] [extra fp_gemm_bench options]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: fp_gemm_ab.sh BASE_BUILD NEW_BUILD [ROUNDS] [options]"; exit 1; }
A=$1 B=$2
shift 2
R=${1:-2}
[ $# -gt 0 ] && shift
for d in "$A" "$B"; do [ -x "$d/fp_gemm_bench" ] || { echo "fp_gemm_ab: no $d/fp_gemm_bench"; exit 1; }; done
isas=("")
grep -q avx512f /proc/cpuinfo && isas=("" "avx512f")
for hide in "${isas[@]}"; do
  for t in 1 2; do
    for r in $(seq "$R"); do
      for side in "$A" "$B"; do
        echo "# $(date -u +%H:%M:%S) load: $(cut -d' ' -f1-3 /proc/loadavg) round $r threads $t ${hide:+hide=$hide} build $side"
        QMM_HIDE_FEATURES=$hide "$side/fp_gemm_bench" --preset llama-3.2-1b --type all --m 64,512 --threads "$t" --reps 8 "$@"
      done
    done
  done
done
