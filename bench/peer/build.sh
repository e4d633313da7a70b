#!/usr/bin/env bash
# Builds what the ggml peer comparisons run, in build-peer/ (or $1): qmatmul (Release: the library and the
# `qmatmul` command), bench/peer/qmm_mul_mat.c and qmm_mul_mat_id.c against the library's public API, and,
# inside the cached trixie root of scripts/setup-ggml-peer.sh (made on the first run), bench/peer/ggml_mul_mat.c
# and ggml_mul_mat_id.c against ggml's headers. Chatter goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build-peer}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bash scripts/setup-ggml-peer.sh >&2
cmake -S . -B "$out/qmm" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQMM_BUILD_TESTS=OFF -DQMM_WERROR=ON >&2
cmake --build "$out/qmm" -j 2 --target qmatmul_tool qmatmul_static >&2
for p in qmm_mul_mat qmm_mul_mat_id; do
  cc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude "bench/peer/$p.c" "$out/qmm/libqmatmul.a" -lpthread -lm -o "$out/$p"
done
# The repo is bound into the root at its own path, so the peer reads sources and writes files where the host does.
for p in ggml_mul_mat ggml_mul_mat_id; do
  bash scripts/setup-ggml-peer.sh run "$PWD" gcc -std=c11 -O2 -Wall -Wextra -Werror "$PWD/bench/peer/$p.c" \
    -o "$out/$p" -lggml -lggml-base -lm
done
