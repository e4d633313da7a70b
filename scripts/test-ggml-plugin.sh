#!/usr/bin/env bash
# Test stage `ggml`: qmatmul's ggml plugin (libggml-qmatmul.so, plugins/ggml) inside the engines people run.
#  1. Built by -DQMM_GGML_PLUGIN=ON with no ggml installed; it exports ggml_backend_init and nothing of ggml's.
#  2. ggml 0.25.3 (llama-cpp-python 0.3.36) op by op: tests/ggml_plugin_ops.c (every packed type, from ggml's own
#     quantizers: weights read back losslessly, MUL_MAT / MUL_MAT_ID / GET_ROWS bit for bit as qmatmul's own calls).
#  3. llama.cpp through llama-cpp-python 0.3.36 (ggml 0.25.3), the plugin loaded with ggml_backend_load()
#     before the model: SmolLM2-135M as shipped (Q4_1) and requantized to Q8_0 / Q4_0, and gemma-3-270m
#     Q4_K_M (an architecture `qmatmul run` refuses: llama.cpp runs it, qmatmul does its matmuls) give
#     llama.cpp's greedy tokens and logits with a QMM model buffer (tests/check_ggml_plugin.py).
#  4. Debian's libggml1 (1.0.0, since 2026-12 1.1.1; the cached trixie root of scripts/setup-ggml-peer.sh): its
#     test-backend-ops,
#     with the plugin on GGML_BACKEND_PATH, must run to the end with the plugin's one refusal line (a ggml
#     whose interface the plugin does not declare registers nothing; plugins/ggml/ggml_abi.h says why).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
PY="$PWD/.venv/bin/python"
[ -x "$PY" ] || bash scripts/setup.sh
threads=${QMM_RUN_THREADS:-2}

build=build-ci-plugin
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DQMM_WERROR=ON -DQMM_GGML_PLUGIN=ON \
  -DQMM_BUILD_TESTS=OFF -DQMM_BUILD_TOOLS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
plugin="$PWD/$build/plugins/ggml/libggml-qmatmul.so"
exports=$(nm -D --defined-only "$plugin" | awk '$2 == "T" {print $3}')
[ "$exports" = ggml_backend_init ] || { echo "test-ggml-plugin: exports '$exports', want ggml_backend_init alone" >&2; exit 1; }
if nm -D --undefined-only "$plugin" | grep -q ' ggml_'; then
  echo "test-ggml-plugin: the plugin links against ggml" >&2
  exit 1
fi
echo "test-ggml-plugin: built in $(($(date +%s) - t0)) s" >&2

source scripts/llama-models.sh
models=("$src" "$gemma")
for t in Q8_0 Q4_0; do
  models+=("$(requantized "$src" "$t" "$t")")
done
# op by op in ggml 0.25.3, every packed type, against qmatmul itself and ggml's CPU back end (built against the
# headers and libraries llama-cpp-python installs, and the qmatmul library of this build)
site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
gcc -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$site/include" -Iinclude tests/ggml_plugin_ops.c \
  -o "$build/ggml_plugin_ops" "$build/libqmatmul.a" -L"$site/llama_cpp/lib" -lggml -lggml-base -lggml-cpu \
  -Wl,-rpath,"$site/llama_cpp/lib" -lm -lpthread
"$build/ggml_plugin_ops" "$plugin"                        # on ggml's OpenMP team (the host has one)
QMM_GGML_OWN_POOL=1 "$build/ggml_plugin_ops" "$plugin"    # on qmatmul's own pool
"$PY" tests/check_ggml_plugin.py "$plugin" "${models[@]}" --threads "$threads"
echo "test-ggml-plugin: llama.cpp checks done at $(($(date +%s) - t0)) s" >&2

# Debian's libggml1 (whatever version trixie-backports has): refused with one line, and the host runs on without it
root=$(bash scripts/setup-ggml-peer.sh | tail -1)
tbo=$(cd "$root" && ls -d usr/libexec/*/ggml/1/test-backend-ops | head -1)
dir="$PWD/$build/plugins/ggml"
log=$(bash scripts/setup-ggml-peer.sh run "$dir" env GGML_BACKEND_PATH="$plugin" "/$tbo" support -o MUL_MAT 2>&1 |
  head -c 200000) || true
refusal=$(grep -oE "qmatmul: ggml [0-9][0-9.]* is not supported" <<<"$log" | head -1) || true
if [ -z "$refusal" ]; then
  echo "test-ggml-plugin: Debian's ggml's test-backend-ops did not log the plugin's refusal:" >&2
  tail -20 <<<"$log" >&2
  exit 1
fi
if grep -q "Backend QMM" <<<"$log"; then
  echo "test-ggml-plugin: Debian's ggml registered a QMM device it cannot drive" >&2
  exit 1
fi
echo "test-ggml-plugin: Debian's ggml refused as it should (\"$refusal\"; $(grep -c . <<<"$log") lines of test-backend-ops output)" >&2
echo "test-ggml-plugin: $(($(date +%s) - t0)) s in all" >&2
