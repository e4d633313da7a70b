#!/usr/bin/env bash
# Stage run: `qmatmul run` against llama.cpp on a real model, token for token.
# SmolLM2-135M (scripts/fetch-models.sh) as shipped (Q4_1) and requantized with
# the gguf package to Q8_0 and Q4_0 (tests/requantize_gguf.py, cached beside
# the model); llama-cpp-python built once into a wheel for this CPU
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

if ! "$PY" -c 'import llama_cpp, sys; sys.exit(llama_cpp.__version__ != "0.3.36")' 2>/dev/null; then
  wheel=$(bash scripts/llama-wheel.sh "$PY")
  "$PY" -m pip install -q --disable-pip-version-check "$wheel"
fi

# Read the whole list, then pick lines: `| head -1` would close the pipe
# while fetch-models.sh still prints, a SIGPIPE that pipefail turns into a
# failure of the stage (seen under load).
fetched=$(QMM_PYTHON="$PY" bash scripts/fetch-models.sh)
src=$(sed -n 1p <<<"$fetched")
gemma=$(sed -n 2p <<<"$fetched")
# Requantized files are named by the source and the script that made them.
key=$(sha256sum "$src" | cut -c1-64)
key=$(printf '%s %s' "$key" "$(sha256sum tests/requantize_gguf.py | cut -c1-64)" | sha256sum | cut -c1-12)
# Called in $(...), where set -e does not hold: every step returns on failure.
requantized() { # IN TYPE NAME: prints the cached path of IN requantized to TYPE, made if missing
  local out
  out="$(dirname "$src")/requantized/$(basename "$src" .Q4_1.gguf).$3.$key.gguf"
  if [ ! -f "$out" ]; then
    mkdir -p "$(dirname "$out")" || return
    "$PY" tests/requantize_gguf.py "$1" "$out.tmp.$$" "$2" >&2 || { rm -f "$out.tmp.$$"; return 1; }
    mv "$out.tmp.$$" "$out" || return
  fi
  echo "$out"
}
models=()
for t in Q8_0 Q4_0; do
  models+=("$(requantized "$src" "$t" "$t")")
done
models+=("$src")
# The F32-weight twins (each type's matrices dequantized) for the KL comparison.
types=(Q8_0 Q4_0 Q4_1) # as in models
kl_pairs=()
for i in "${!types[@]}"; do
  kl_pairs+=(--pair "${types[i]}" "${models[i]}" "$(requantized "${models[i]}" F32 "${types[i]}.F32")")
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
