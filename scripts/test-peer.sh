#!/usr/bin/env bash
# Test stage `peer`: qmatmul's MUL_MAT against ggml's CPU back end (Debian's libggml, in the cached trixie
# root of scripts/setup-ggml-peer.sh), issue #11's two accuracy rules, for every quantized type qmatmul packs
# (and F16) at k = 4096 / 2048, n = 256, m = 1 / 8 (tests/check_peer.py states the rules). Needs root for the
# chroot; the first run makes the root (a few minutes), later ones find it cached.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
PY="$PWD/.venv/bin/python"
[ -x "$PY" ] || PY=python3
out="$PWD/build-peer"
bash bench/peer/build.sh "$out"
echo "test-peer: built in $(($(date +%s) - t0)) s" >&2
rm -rf "$out/accuracy"
"$PY" tests/check_peer.py "$out/accuracy" "$out/qmm_mul_mat" bash scripts/setup-ggml-peer.sh run "$PWD" "$out/ggml_mul_mat"
echo "test-peer: $(($(date +%s) - t0)) s in all" >&2
