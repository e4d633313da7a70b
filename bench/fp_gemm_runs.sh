#!/usr/bin/env bash
# The F32 / F16 / BF16 GEMM and attention measurements of docs/performance.md
# ("F32 / F16 GEMM against the FMA limit"), for a quiet machine: fp_gemm_bench
# at both llama presets, 1 and 2 threads, AVX-512 (where the CPU has it) and
# AVX2 (QMM_HIDE_FEATURES=avx512f), then `qmatmul bench` for the three types
# and its --attn table. The load average is printed before and after each
# step: figures taken at a load above the core count are not the kernels'.
#   bash bench/fp_gemm_runs.sh [BUILD_DIR] [extra fp_gemm_bench options, e.g. --cpu-time]
set -euo pipefail
B=${1:-build}
shift || true
FPB="$B/fp_gemm_bench"
QB="$B/tools/qmatmul/qmatmul"
[ -x "$FPB" ] && [ -x "$QB" ] || { echo "fp_gemm_runs: build first (cmake --build $B)"; exit 1; }
load() { echo "# $(date -u +%H:%M:%S) load: $(cut -d' ' -f1-3 /proc/loadavg)"; }
isas=("")
grep -q avx512f /proc/cpuinfo && isas=("" "avx512f")
for hide in "${isas[@]}"; do
  for t in 1 2; do
    for p in llama-3.2-1b llama-3-8b; do
      load
      echo "## fp_gemm_bench --preset $p --threads $t ${hide:+(QMM_HIDE_FEATURES=$hide)}"
      QMM_HIDE_FEATURES=$hide "$FPB" --preset "$p" --type all --m 64,512 --threads "$t" --reps 8 "$@"
      QMM_HIDE_FEATURES=$hide "$FPB" --preset "$p" --attn --rows 1,64,512,2048,4096 --threads "$t" --reps 4 "$@"
    done
  done
done
for t in 1 2; do
  for T in F32 F16 BF16; do
    load
    "$QB" bench --preset llama-3.2-1b --type "$T" --no-ref --time 0.3 --threads "$t" --quiet
  done
  for p in llama-3.2-1b llama-3-8b; do
    load
    "$QB" bench --preset "$p" --attn --threads "$t" --quiet
  done
done
load
"$QB" bench --probes --quiet
