#!/usr/bin/env python3
"""GGUF files written by the `gguf` package (GGUFWriter) for the cache tests and the cache benchmark.

usage: cache_gguf_gen.py OUTDIR               small model-like files for tests/test_cache.c
       cache_gguf_gen.py --llama3-8b PATH      the Llama-3-8B shapes, Q4_0, random weights (~4.6 GB)

OUTDIR gets: model_a.gguf (Q4_0, Q8_0, F16, F32 matrices, 1-D norms, a 3-D tensor, a Q4_K tensor, an MXFP4 one
(k = 2880), a Q8_K one),
model_b.gguf (the same tensor table, other weights: a fine-tune), model_c.gguf (another table),
odd_some.gguf (two matrices that pack, a zero-size one and one with a 1100-byte name),
odd_none.gguf (only the zero-size and the long-named matrices: nothing packs).
"""
import os
import sys

import numpy as np
import gguf

Q = gguf.GGMLQuantizationType


def quantized(rng, n, k, qtype):
    return gguf.quants.quantize(rng.standard_normal((n, k)).astype(np.float32), qtype)


def write_model(path, seed, layers=2, d=96, ff=160, vocab=75):
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(path, arch="llama")
    w.add_block_count(layers)
    w.add_embedding_length(d)
    w.add_feed_forward_length(ff)
    w.add_string("general.name", "cache-test-%d" % seed)
    w.add_tensor("token_embd.weight", quantized(rng, vocab, d, Q.Q8_0), raw_dtype=Q.Q8_0)
    for i in range(layers):
        p = "blk.%d." % i
        w.add_tensor(p + "attn_norm.weight", rng.standard_normal(d).astype(np.float32))
        w.add_tensor(p + "attn_q.weight", quantized(rng, d, d, Q.Q4_0), raw_dtype=Q.Q4_0)
        w.add_tensor(p + "attn_k.weight", quantized(rng, d // 2, d, Q.Q4_0), raw_dtype=Q.Q4_0)
        w.add_tensor(p + "attn_v.weight", quantized(rng, d // 2, d, Q.Q8_0), raw_dtype=Q.Q8_0)
        w.add_tensor(p + "attn_output.weight", rng.standard_normal((d, d)).astype(np.float16))
        w.add_tensor(p + "ffn_gate.weight", quantized(rng, ff, d, Q.Q4_0), raw_dtype=Q.Q4_0)
        w.add_tensor(p + "ffn_up.weight", rng.standard_normal((ff, d)).astype(np.float32))
        w.add_tensor(p + "ffn_down.weight", quantized(rng, d, ff, Q.Q4_0), raw_dtype=Q.Q4_0)
    w.add_tensor("output_norm.weight", rng.standard_normal(d).astype(np.float32))
    w.add_tensor("output.weight", quantized(rng, vocab, d, Q.Q4_0), raw_dtype=Q.Q4_0)
    w.add_tensor("extra.3d", rng.standard_normal((2, 3, 32)).astype(np.float32))
    w.add_tensor("extra.q4_k", rng.integers(0, 256, (1, 144), dtype=np.uint8), raw_dtype=Q.Q4_K)
    w.add_tensor("extra.mxfp4", rng.integers(0, 256, (2, 2880 // 32 * 17), dtype=np.uint8), raw_dtype=Q.MXFP4)
    w.add_tensor("extra.q8_k", rng.integers(0, 256, (1, 292), dtype=np.uint8), raw_dtype=Q.Q8_K)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


LONG_NAME = "blk.0." + "x" * 1087 + ".weight"  # 1100 bytes: over the cache's 1023


def write_odd(path, with_good):
    """Matrices `pack` must skip (and name) without refusing the whole file."""
    rng = np.random.default_rng(4)
    w = gguf.GGUFWriter(path, arch="llama")
    w.add_string("general.name", "cache-test-odd")
    if with_good:
        w.add_tensor("good.q4_0", quantized(rng, 8, 64, Q.Q4_0), raw_dtype=Q.Q4_0)
    w.add_tensor("empty.weight", np.zeros((0, 32), dtype=np.float32))
    w.add_tensor(LONG_NAME, rng.standard_normal((4, 32)).astype(np.float32))
    if with_good:
        w.add_tensor("good.f16", rng.standard_normal((3, 32)).astype(np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def random_q4_0(rng, n, k):
    """n rows of k random Q4_0 weights: random nibbles, scales of realistic size."""
    blocks = n * (k // 32)
    raw = rng.integers(0, 256, (blocks, 18), dtype=np.uint8)
    d = (rng.random(blocks, dtype=np.float32) * 0.02 + 0.001).astype(np.float16)
    raw[:, 0:2] = d.view(np.uint8).reshape(blocks, 2)
    return raw.reshape(n, (k // 32) * 18)


def write_llama3_8b(path):
    # Llama-3-8B: 32 layers, d 4096, 8 KV heads of 128 (1024), FFN 14336, vocab 128256.
    layers, d, kv, ff, vocab = 32, 4096, 1024, 14336, 128256
    rng = np.random.default_rng(8)
    w = gguf.GGUFWriter(path, arch="llama")
    w.add_block_count(layers)
    w.add_embedding_length(d)
    w.add_feed_forward_length(ff)
    w.add_string("general.name", "llama-3-8b-random-q4_0")
    w.add_tensor("token_embd.weight", random_q4_0(rng, vocab, d), raw_dtype=Q.Q4_0)
    for i in range(layers):
        p = "blk.%d." % i
        w.add_tensor(p + "attn_norm.weight", np.ones(d, dtype=np.float32))
        w.add_tensor(p + "ffn_norm.weight", np.ones(d, dtype=np.float32))
        for name, n, k in (("attn_q", d, d), ("attn_k", kv, d), ("attn_v", kv, d), ("attn_output", d, d),
                           ("ffn_gate", ff, d), ("ffn_up", ff, d), ("ffn_down", d, ff)):
            w.add_tensor(p + name + ".weight", random_q4_0(rng, n, k), raw_dtype=Q.Q4_0)
    w.add_tensor("output_norm.weight", np.ones(d, dtype=np.float32))
    w.add_tensor("output.weight", random_q4_0(rng, vocab, d), raw_dtype=Q.Q4_0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--llama3-8b":
        write_llama3_8b(sys.argv[2])
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write_model(os.path.join(out, "model_a.gguf"), seed=1)
    write_model(os.path.join(out, "model_b.gguf"), seed=2)
    write_model(os.path.join(out, "model_c.gguf"), seed=3, layers=1, d=64, ff=96)
    write_odd(os.path.join(out, "odd_some.gguf"), True)
    write_odd(os.path.join(out, "odd_none.gguf"), False)


if __name__ == "__main__":
    main()
