#!/usr/bin/env python3
"""Writes a synthetic GGUF model with Llama-3.2-1B shapes and random weights, with the `gguf`
package's GGUFWriter, to try `qmatmul bench --model` and `qmatmul inspect` without a download.

usage: synthetic_gguf.py OUT.gguf [LAYERS]   (default 2 layers, ~200 MiB)

Weights: Q4_0 attention and FFN, Q8_0 embedding and output, F32 norms; layer 0's ffn_down is
Q6_K, a type qmatmul does not pack yet, so the benchmark lists it as skipped. The values are
random: timing only.
"""
import sys

import numpy as np
import gguf

Q = gguf.GGMLQuantizationType
BLOCK = {Q.Q4_0: (32, 18), Q.Q8_0: (32, 34), Q.Q6_K: (256, 210)}


def main():
    out = sys.argv[1]
    layers = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    hidden, ffn, heads, kv_heads, head_dim, vocab = 2048, 8192, 32, 8, 64, 32000
    rng = np.random.default_rng(1)
    w = gguf.GGUFWriter(out, arch="llama")
    w.add_name("synthetic-llama-3.2-1b-shapes")
    w.add_block_count(layers)
    w.add_context_length(2048)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_array("tokenizer.ggml.tokens", ["<s>", "</s>"] + [f"t{i}" for i in range(998)])

    def quant(name, k, n, t):
        be, bb = BLOCK[t]
        raw = rng.integers(0, 256, size=(n, k // be * bb), dtype=np.uint8)
        if be == 32:  # a sane fp16 scale (0.01) in every block
            raw.reshape(n, k // 32, bb)[:, :, 0:2] = np.frombuffer(np.float16(0.01).tobytes(), dtype=np.uint8)
        w.add_tensor(name, raw, raw_dtype=t)

    quant("token_embd.weight", hidden, vocab, Q.Q8_0)
    for layer in range(layers):
        p = f"blk.{layer}."
        w.add_tensor(p + "attn_norm.weight", np.ones(hidden, dtype=np.float32))
        for name, k, n in [("attn_q", hidden, heads * head_dim), ("attn_k", hidden, kv_heads * head_dim),
                           ("attn_v", hidden, kv_heads * head_dim), ("attn_output", heads * head_dim, hidden),
                           ("ffn_gate", hidden, ffn), ("ffn_up", hidden, ffn)]:
            quant(p + name + ".weight", k, n, Q.Q4_0)
        quant(p + "ffn_down.weight", ffn, hidden, Q.Q6_K if layer == 0 else Q.Q4_0)
        w.add_tensor(p + "ffn_norm.weight", np.ones(hidden, dtype=np.float32))
    w.add_tensor("output_norm.weight", np.ones(hidden, dtype=np.float32))
    quant("output.weight", hidden, vocab, Q.Q8_0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
