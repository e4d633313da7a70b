#!/usr/bin/env python3
"""Writes a GGUF file holding one weight matrix, blk.0.attn_q.weight, of TYPE with n rows of k
(bench/peer/peer_data.py's weights: every type it has, IQ4_NL, IQ4_XS, MXFP4 and BF16 included), for
`qmatmul bench --model` in scripts/bench-vs-ggml.sh: the same single matrix the ggml peer times.
With NE and U: instead, the experts tensors of one MoE layer, blk.0.ffn_{gate,up}_exps.weight [k, n, NE]
and blk.0.ffn_down_exps.weight [n, k, NE], with llama.expert_count NE and llama.expert_used_count U (a test
file for `bench --model` on *_exps tensors).

usage: one_matrix_gguf.py OUT.gguf TYPE [K N [NE U]]   (default 4096 4096)"""
import os
import sys

import numpy as np
import gguf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_data  # noqa: E402


def main():
    out, tname = sys.argv[1], sys.argv[2].upper()
    k, n = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (4096, 4096)
    if tname not in peer_data.TYPES:
        sys.exit(f"one_matrix_gguf: no generator for type {tname} (have {' '.join(peer_data.TYPES)})")
    t = peer_data.TYPES[tname]
    blk = gguf.GGML_QUANT_SIZES[t][0]
    if k % blk:
        sys.exit(f"one_matrix_gguf: k = {k} is not a multiple of {tname}'s block of {blk}")
    rng = np.random.default_rng(11)

    def matrix(rows, cols):  # 64 distinct rows tiled, as the peer does (kernel time does not depend on the values)
        return np.tile(peer_data.weights(rng, t, 64, cols), (rows // 64, 1)) if rows % 64 == 0 else \
            peer_data.weights(rng, t, rows, cols)

    wr = gguf.GGUFWriter(out, arch="llama")
    if len(sys.argv) > 6:
        ne, u = int(sys.argv[5]), int(sys.argv[6])
        if n % blk:
            sys.exit(f"one_matrix_gguf: n = {n} (down's k) is not a multiple of {tname}'s block of {blk}")
        wr.add_name(f"one-moe-layer-{tname}-{ne}x{n}x{k}")
        wr.add_expert_count(ne)
        wr.add_expert_used_count(u)
        for name, rows, cols in (("gate", n, k), ("up", n, k), ("down", k, n)):
            w = np.stack([matrix(rows, cols) for _ in range(ne)])  # [ne, rows, row bytes]: GGUF [cols, rows, ne]
            wr.add_tensor(f"blk.0.ffn_{name}_exps.weight", w, raw_dtype=t)
    else:
        wr.add_name(f"one-matrix-{tname}-{n}x{k}")
        wr.add_tensor("blk.0.attn_q.weight", matrix(n, k), raw_dtype=t)
    wr.write_header_to_file()
    wr.write_kv_data_to_file()
    wr.write_tensors_to_file()
    wr.close()


if __name__ == "__main__":
    main()
