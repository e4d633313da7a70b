#!/usr/bin/env python3
"""Expert tensors, activations and routing for the MUL_MAT_ID peer comparisons (tests/check_peer.py,
scripts/bench-moe-vs-ggml.sh), in the files bench/peer/peer_moe.h reads:
  W    n_expert matrices of n rows of k, GGUF block layout, contiguous (a GGUF [k, n, n_expert] tensor);
       per expert bench/peer/peer_data.py's weights (realistic floats, quantized)
  X    F32 [k, xr, t]: xr = 1 (one row per token, shared by its experts: gate/up) or u (down)
  IDS  I32 [u, t]: u distinct experts per token, as a router's top-u picks them

Routings: "uniform" (every expert equally likely), "zipf" (expert of rank r, under a fixed random
relabelling, with weight 1 / (r + 1): a few experts get most tokens, as routers often do), "rounds"
(decode timing: rounds of n_expert / u tokens that choose every expert once, so that a rotation over
copies of W reads every chosen expert from memory; see peer_moe.h).

usage: moe_data.py bench OUTDIR PRESET MATRIX [TYPE]
  writes the files of one preset matrix (PRESETS below; TYPE overrides the preset's) under OUTDIR and
  prints the two bench spec lines (decode, prefill) for `qmm_mul_mat_id bench` / `ggml_mul_mat_id bench`."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_data  # noqa: E402

# name: (default type, n_expert, experts per token, {matrix: (k, n, x rows per token: 1 or "u", count per layer)})
PRESETS = {
    "gpt-oss-20b-moe": ("MXFP4", 32, 4, {"gate_up": (2880, 2880, 1, 2), "down": (2880, 2880, "u", 1)}),
    "qwen3-30b-a3b-moe": ("Q4_K", 128, 8, {"gate_up": (2048, 768, 1, 2), "down": (768, 2048, "u", 1)}),
}
PREFILL_TOKENS = 512
DECODE_ROUNDS = 4


def experts(rng, t, n_expert, n, k, distinct_rows=None):
    """(n_expert * n, row bytes) uint8. distinct_rows: per expert only that many distinct rows, tiled over
    n (kernel time does not depend on the values; the bench tensors stay quick to make)."""
    out = []
    for _ in range(n_expert):
        if distinct_rows and n % distinct_rows == 0 and n > distinct_rows:
            out.append(np.tile(peer_data.weights(rng, t, distinct_rows, k), (n // distinct_rows, 1)))
        else:
            out.append(peer_data.weights(rng, t, n, k))
    return np.ascontiguousarray(np.concatenate(out, axis=0))


def dequantize_experts(t, w, n_expert, n, k):
    return peer_data.dequantize(t, w, n_expert * n, k).reshape(n_expert, n, k)


def ids_uniform(rng, n_expert, u, tokens):
    return np.stack([rng.choice(n_expert, size=u, replace=False) for _ in range(tokens)]).astype(np.int32)


def ids_zipf(rng, n_expert, u, tokens):
    p = 1.0 / np.arange(1, n_expert + 1)
    p /= p.sum()
    label = rng.permutation(n_expert)  # which expert has which rank
    return np.stack([label[rng.choice(n_expert, size=u, replace=False, p=p)] for _ in range(tokens)]).astype(np.int32)


def ids_rounds(rng, n_expert, u, rounds):
    assert n_expert % u == 0, "the decode rotation needs u to divide n_expert"
    return np.concatenate([rng.permutation(n_expert).reshape(-1, u) for _ in range(rounds)]).astype(np.int32)


def reference(wd, x, ids):
    """float64 y [t, u, n] of dequantized experts wd [ne, n, k], x [t, xr, k], ids [t, u]."""
    tokens, u = ids.shape
    xr = x.shape[1]
    y = np.zeros((tokens, u, wd.shape[1]))
    x64 = x.astype(np.float64)
    for e in np.unique(ids):
        tt, uu = np.nonzero(ids == e)
        y[tt, uu] = x64[tt, uu % xr] @ wd[e].T
    return y


def write_bench(out, preset, matrix, tname=None):
    dtype, n_expert, u, mats = PRESETS[preset]
    k, n, xr, _ = mats[matrix]
    xr = u if xr == "u" else xr
    tname = (tname or dtype).upper()
    t = peer_data.TYPES[tname]
    rng = np.random.default_rng([2026, n_expert, k, n])
    base = os.path.join(os.path.abspath(out), f"{preset}_{matrix}_{tname}")  # the ggml peer runs with cwd /
    experts(rng, t, n_expert, n, k, distinct_rows=64).tofile(base + ".w")
    x = peer_data.activations(rng, PREFILL_TOKENS * xr, k)
    x.tofile(base + ".x_prefill")
    dec = ids_rounds(rng, n_expert, u, DECODE_ROUNDS)
    x[:dec.shape[0] * xr].tofile(base + ".x_decode")
    dec.tofile(base + ".ids_decode")
    ids_uniform(rng, n_expert, u, PREFILL_TOKENS).tofile(base + ".ids_prefill")
    common = f"{tname} {k} {n} {n_expert} {u}"
    print(f"decode {common} {dec.shape[0]} {xr} {base}.w {base}.x_decode {base}.ids_decode")
    print(f"prefill {common} {PREFILL_TOKENS} {xr} {base}.w {base}.x_prefill {base}.ids_prefill")


def main():
    if len(sys.argv) < 5 or sys.argv[1] != "bench" or sys.argv[3] not in PRESETS or sys.argv[4] not in PRESETS[sys.argv[3]][3]:
        sys.exit(__doc__.split("usage:")[1].strip().splitlines()[0] + "\n  presets: " +
                 ", ".join(f"{p} ({' '.join(v[3])})" for p, v in PRESETS.items()))
    os.makedirs(sys.argv[2], exist_ok=True)
    write_bench(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)


if __name__ == "__main__":
    main()
