#!/usr/bin/env bash
# llama.cpp (llama-cpp-python 0.3.36, ggml 0.25.3) with and without qmatmul's ggml plugin, side by side on this
# machine: prompt (72 tokens) and decode tokens per second on SmolLM2-135M (Q4_1 as shipped) and on a ~1B llama
# with random Q4_0 weights (Llama-3.2-1B's layer shapes, SmolLM2's vocabulary: bench/llama_1b_gguf.py, cached).
# Measure on a quiet machine: the 1-minute load is printed first and last.
#   QMM_BENCH_THREADS (default: the core count)   QMM_BENCH_REPS (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="$PWD/.venv/bin/python"
[ -x "$PY" ] || bash scripts/setup.sh
threads=${QMM_BENCH_THREADS:-$(nproc)}
build=build-bench-plugin
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQMM_GGML_PLUGIN=ON -DQMM_BUILD_TESTS=OFF \
  -DQMM_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
source scripts/llama-models.sh
big="$(dirname "$src")/bench/random-llama-1b.Q4_0.$(sha256sum bench/llama_1b_gguf.py | cut -c1-12).gguf"
if [ ! -f "$big" ]; then
  mkdir -p "$(dirname "$big")"
  "$PY" bench/llama_1b_gguf.py "$src" "$big.tmp.$$" Q4_0
  mv "$big.tmp.$$" "$big"
fi
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $threads threads; $(date -u +%F); commit $(git rev-parse --short HEAD)"
echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
"$PY" bench/ggml_plugin_bench.py "$PWD/$build/plugins/ggml/libggml-qmatmul.so" "$src" "$big" --threads "$threads" \
  --reps "${QMM_BENCH_REPS:-3}"
echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
