#!/usr/bin/env bash
# Stage run: `qmatmul run` against llama.cpp on a real model, token for token.
# SmolLM2-135M (scripts/fetch-models.sh) as shipped (Q4_1), requantized with
# the gguf package to Q8_0 and Q4_0 (tests/requantize_gguf.py, cached beside
# the model) and by llama.cpp's own quantizer to its IQ3_S file type
# (tests/llama_quantize.py: IQ3_S and IQ4_NL matrices); llama-cpp-python built once into a wheel for this CPU
# (scripts/llama-wheel.sh, cached) and installed in .venv; the comparison is
# tests/check_run_llama.py; the mean KL divergence of each type from its F32-weight
# twin (requantize_gguf.py F32, cached too), qmatmul's against llama.cpp's:
# tests/check_run_kl.py; the tokenizers (gpt2: SmolLM2, SentencePiece:
# gemma-3-270m's vocabulary) against llama.cpp's: tests/check_run_tokenizer.py.
# QMM_RUN_BENCH=1 also prints the speed table rows (docs/performance.md),
# QMM_RUN_BENCH_REPEAT=N times (default 1), each after the load average: on a
# shared machine report the range. Uses build-ci-gcc (configured here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="$PWD/.venv/bin/python"
[ -x "$PY" ] || bash scripts/setup.sh
threads=${QMM_RUN_THREADS:-2}

build=build-ci-gcc
[ -f "$build/build.ninja" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc \
  -DQMM_WERROR=ON -DPython3_EXECUTABLE="$PY" >/dev/null
cmake --build "$build" -j "$(nproc)" --target qmatmul_tool >/dev/null
bin="$PWD/$build/tools/qmatmul/qmatmul"

source scripts/llama-models.sh
models=()
for t in Q8_0 Q4_0; do
  models+=("$(requantized "$src" "$t" "$t")")
done
models+=("$src")
# An i-quant file as llama.cpp's own quantizer makes it: IQ3_S FFN down matrices, IQ4_NL elsewhere.
models+=("$(llama_quantized "$src" IQ3_S)")
# The F32-weight twins (each type's matrices dequantized) for the KL comparison.
types=(Q8_0 Q4_0 Q4_1 IQ3_S) # as in models
kl_pairs=()
for i in "${!types[@]}"; do
  # named by the model's file too: a twin is remade when its model is
  kl_pairs+=(--pair "${types[i]}" "${models[i]}" "$(requantized "${models[i]}" F32 "${types[i]}.F32.$(basename "${models[i]}" | sha256sum | cut -c1-8)")")
done

# Clear refusals: another architecture, a context too short.
refuses() { # expected-message command...
  local want=$1 out
  shift
  if out=$("$@" 2>&1); then
    echo "test-run: '$*' succeeded, expected a refusal" >&2
    return 1
  fi
  grep -q "$want" <<<"$out" || { echo "test-run: '$*' said '$out', expected '$want'" >&2; return 1; }
}
refuses "architecture 'gemma3' is not supported" "$bin" run "$gemma" --tokens 1,2,3
refuses "do not fit a context of 8" "$bin" run "$src" --tokens 1,2,3,4,5 -n 8 --ctx 8
echo "test-run: refusals ok"

"$PY" tests/check_run_tokenizer.py "$bin" "$gemma" "$src"
"$PY" tests/check_run_llama.py "$bin" "${models[@]}" --threads "$threads"
kl_start=$SECONDS
"$PY" tests/check_run_kl.py "$bin" "${kl_pairs[@]}" --threads "$threads"
echo "test-run: KL comparison took $((SECONDS - kl_start)) s"
if [ "${QMM_RUN_BENCH:-0}" = 1 ]; then
  for _ in $(seq "${QMM_RUN_BENCH_REPEAT:-1}"); do
    echo "test-run: $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    "$PY" tests/check_run_llama.py "$bin" "${models[@]}" --threads "$threads" --bench
  done
fi
