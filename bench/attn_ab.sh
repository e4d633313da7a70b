#!/usr/bin/env bash
# A/B of qmm_mul_mat_f16 at attention shapes between two builds (the history of docs/performance.md, "Attention"):
# fp_gemm_bench --attn at llama-3-8b (hd 128, 32 / 8 heads) and llama-3.2-1b (hd 64, 32 / 8), 1 and 2 threads,
# the builds alternated back to back (A B A B ...), best of --reps calls per row, the load average before each
# run; then `qmatmul bench --attn` (it adds SmolLM2's 9 / 3 heads) once per build. For a quiet machine: a load
# above the core count makes wall times the scheduler's.
#   bash bench/attn_ab.sh BASE_BUILD NEW_BUILD [ROUNDS (3)] [ROWS (1,64,512,2048)]
# A base build: git worktree add /tmp/base main && cmake -S /tmp/base -B /tmp/base/build -G Ninja
#   -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/base/build --target fp_gemm_bench qmatmul_tool
set -euo pipefail
A=${1:?base build dir} B=${2:?new build dir} R=${3:-3} ROWS=${4:-1,64,512,2048}
for d in "$A" "$B"; do
  [ -x "$d/fp_gemm_bench" ] && [ -x "$d/tools/qmatmul/qmatmul" ] || { echo "attn_ab: $d lacks fp_gemm_bench or qmatmul"; exit 1; }
done
load() { cut -d' ' -f1 /proc/loadavg; }
for t in 1 2; do
  for p in llama-3-8b llama-3.2-1b; do
    echo "## $p, $t thread(s): best ms per row (name m=rows), per build"
    for i in $(seq "$R"); do
      for d in "$A" "$B"; do
        reps=200
        [ "$ROWS" != 1 ] && reps=20
        printf '%-24s load %5s: ' "$(basename "$(dirname "$d")")/$(basename "$d")" "$(load)"
        "$d/fp_gemm_bench" --attn --threads "$t" --preset "$p" --rows "$ROWS" --reps "$reps" |
          awk '$3 == "f16" {printf "%s m=%s %s; ", $2, $7, $8} END {print ""}'
      done
    done
  done
done
for d in "$A" "$B"; do
  echo "## $d: qmatmul bench --attn --threads 2 (load $(load))"
  "$d/tools/qmatmul/qmatmul" bench --attn --threads 2 --no-ref --attn-rows "$ROWS"
done
