#!/usr/bin/env bash
# Test stage `peer`: qmatmul's MUL_MAT and MUL_MAT_ID against ggml's CPU back end (Debian's libggml, in the
# cached trixie root of scripts/setup-ggml-peer.sh), issue #11's two accuracy rules: MUL_MAT for every type
# qmatmul packs (and F16) at k = 4096 / 2048 (and 2880 for the 32-blocks), n = 256, m = 1 / 8; MUL_MAT_ID
# (issue #16) for 9 types on 8 experts, 1 and 16 tokens, shared and per-expert x, uniform and skewed routing,
# plus every row bit for bit as qmm_mul_mat of its expert (tests/check_peer.py states the rules and cases).
# Needs root for the chroot; the first run makes the root (a few minutes), later ones find it cached.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
PY="$PWD/.venv/bin/python"
[ -x "$PY" ] || PY=python3
out="$PWD/build-peer"
bash bench/peer/build.sh "$out"
echo "test-peer: built in $(($(date +%s) - t0)) s" >&2
rm -rf "$out/accuracy"
"$PY" tests/check_peer.py "$out/accuracy" "$out" bash scripts/setup-ggml-peer.sh run "$PWD"
echo "test-peer: $(($(date +%s) - t0)) s in all" >&2
