#!/usr/bin/env python3
"""Seeds for fuzz_run_model: a tiny llama model (gguf package, random weights),
with a gpt2 vocabulary, alone and followed by its packed-weight cache (written by
the qmatmul command given), in fuzz_run_model.c's input format.

usage: gen_run_corpus.py QMATMUL DIR
"""
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import gguf

Q = gguf.GGMLQuantizationType


def model(path, vocab_tokens, seed):
    rng = np.random.default_rng(seed)
    d, ff, vocab = 32, 32, len(vocab_tokens)
    w = gguf.GGUFWriter(path, arch="llama")
    w.add_block_count(1)
    w.add_embedding_length(d)
    w.add_feed_forward_length(ff)
    w.add_head_count(2)
    w.add_head_count_kv(1)
    w.add_context_length(64)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_freq_base(10000.0)
    w.add_tokenizer_model("gpt2")
    w.add_token_list(vocab_tokens)
    w.add_token_types([1] * vocab)
    w.add_token_merges(["a b", "ab c"])
    w.add_eos_token_id(vocab - 1)

    def q(n, k, t):
        return gguf.quants.quantize(rng.standard_normal((n, k)).astype(np.float32), t)

    w.add_tensor("token_embd.weight", q(vocab, d, Q.Q8_0), raw_dtype=Q.Q8_0)
    w.add_tensor("blk.0.attn_norm.weight", np.ones(d, dtype=np.float32))
    w.add_tensor("blk.0.attn_q.weight", q(d, d, Q.Q4_0), raw_dtype=Q.Q4_0)
    w.add_tensor("blk.0.attn_k.weight", q(d // 2, d, Q.Q4_0), raw_dtype=Q.Q4_0)
    w.add_tensor("blk.0.attn_v.weight", q(d // 2, d, Q.Q8_0), raw_dtype=Q.Q8_0)
    w.add_tensor("blk.0.attn_output.weight", rng.standard_normal((d, d)).astype(np.float16))
    w.add_tensor("blk.0.ffn_norm.weight", np.ones(d, dtype=np.float32))
    w.add_tensor("blk.0.ffn_gate.weight", q(ff, d, Q.Q4_0), raw_dtype=Q.Q4_0)
    w.add_tensor("blk.0.ffn_up.weight", q(ff, d, Q.Q8_0), raw_dtype=Q.Q8_0)
    w.add_tensor("blk.0.ffn_down.weight", rng.standard_normal((d, ff)).astype(np.float32))
    w.add_tensor("output_norm.weight", np.ones(d, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def seed(out, name, flags, model_bytes, cache_bytes=b""):
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes([flags]) + struct.pack("<I", len(model_bytes)) + model_bytes + cache_bytes)


def main():
    qmatmul, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    tokens = ["a", "b", "c", "ab", "abc", "Ġ", "Hello", ",", "!", "1", "2", "Ġw", "or", "ld"] + ["t%d" % i for i in range(18)]
    with tempfile.TemporaryDirectory() as tmp:
        m = os.path.join(tmp, "m.gguf")
        model(m, tokens, 1)
        mb = open(m, "rb").read()
        subprocess.run([qmatmul, "pack", m, "-o", os.path.join(tmp, "m.qmp"), "--quiet"], check=True)
        cb = open(os.path.join(tmp, "m.qmp"), "rb").read()
        seed(out, "model", 0, mb)
        seed(out, "model_tokenizer", 2, mb)
        seed(out, "model_cache", 3, mb, cb)
        # the cache of another model of the same tensor names, under this one's hash
        m2 = os.path.join(tmp, "m2.gguf")
        model(m2, tokens + ["x%d" % i for i in range(32)], 2)
        subprocess.run([qmatmul, "pack", m2, "-o", os.path.join(tmp, "m2.qmp"), "--quiet"], check=True)
        forged = bytearray(open(os.path.join(tmp, "m2.qmp"), "rb").read())
        forged[24:32] = cb[24:32]
        seed(out, "model_foreign_cache", 1, mb, bytes(forged))


if __name__ == "__main__":
    main()
