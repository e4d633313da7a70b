#!/usr/bin/env python3
"""Writes a ~1B-parameter llama model llama.cpp runs: Llama-3.2-1B's layer shapes (16 layers, hidden 2048,
FFN 8192, 32 query and 8 KV heads of 64), SmolLM2's vocabulary and tokenizer (copied from its GGUF), random
weights of one quantized type. For timing engines on a model of a size people run: the text it writes is
noise.

usage: llama_1b_gguf.py SMOLLM2.gguf OUT.gguf [TYPE]   (TYPE: Q4_0 (default) or Q8_0)

Random quants with a per-block scale of 1 / (4.6 sqrt(k)) keep every layer's output near unit size, so the
logits stay finite through the 16 layers.
"""
import sys

import gguf
import numpy as np

Q = gguf.GGMLQuantizationType
BLOCK = {Q.Q4_0: 18, Q.Q8_0: 34}  # bytes per 32 weights


def main():
    src, out = sys.argv[1], sys.argv[2]
    qtype = Q[sys.argv[3]] if len(sys.argv) > 3 else Q.Q4_0
    layers, hidden, ffn, heads, kv_heads, head_dim = 16, 2048, 8192, 32, 8, 64
    reader = gguf.GGUFReader(src)
    vocab = int(reader.fields["llama.vocab_size"].parts[-1][0]) if "llama.vocab_size" in reader.fields else None
    rng = np.random.default_rng(1)
    w = gguf.GGUFWriter(out, arch="llama")
    w.add_name("random-llama-3.2-1b-shapes")
    w.add_block_count(layers)
    w.add_context_length(2048)
    w.add_embedding_length(hidden)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(500000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(2 if qtype == Q.Q4_0 else 7)
    # SmolLM2's tokenizer, as its GGUF states it
    for name, field in reader.fields.items():
        if not name.startswith("tokenizer."):
            continue
        vtype = field.types[0]
        if vtype == gguf.GGUFValueType.ARRAY:
            etype = field.types[-1]
            if etype == gguf.GGUFValueType.STRING:
                val = [bytes(field.parts[i]).decode("utf-8", "replace") for i in field.data]
            else:
                val = [field.parts[i][0].item() for i in field.data]
            w.add_array(name, val)
        elif vtype == gguf.GGUFValueType.STRING:
            w.add_string(name, bytes(field.parts[-1]).decode())
        elif vtype == gguf.GGUFValueType.BOOL:
            w.add_bool(name, bool(field.parts[-1][0]))
        else:
            w.add_uint32(name, int(field.parts[-1][0]))
    n_vocab = len(reader.fields["tokenizer.ggml.tokens"].data)
    if vocab is None:
        vocab = n_vocab
    w.add_vocab_size(n_vocab)

    def quant(name, k, n):
        bb = BLOCK[qtype]
        raw = rng.integers(0, 256, size=(n, k // 32, bb), dtype=np.uint8)
        d = np.float16(1.0 / (4.6 * np.sqrt(k)) * (1.0 if qtype == Q.Q4_0 else 0.06))
        raw[:, :, 0:2] = np.frombuffer(d.tobytes(), dtype=np.uint8)
        w.add_tensor(name, raw.reshape(n, k // 32 * bb), raw_dtype=qtype)

    def ones(name, n):
        w.add_tensor(name, np.ones(n, dtype=np.float32))

    quant("token_embd.weight", hidden, n_vocab)
    ones("output_norm.weight", hidden)
    quant("output.weight", hidden, n_vocab)
    for i in range(layers):
        p = f"blk.{i}."
        ones(p + "attn_norm.weight", hidden)
        quant(p + "attn_q.weight", hidden, heads * head_dim)
        quant(p + "attn_k.weight", hidden, kv_heads * head_dim)
        quant(p + "attn_v.weight", hidden, kv_heads * head_dim)
        quant(p + "attn_output.weight", heads * head_dim, hidden)
        ones(p + "ffn_norm.weight", hidden)
        quant(p + "ffn_gate.weight", hidden, ffn)
        quant(p + "ffn_up.weight", hidden, ffn)
        quant(p + "ffn_down.weight", ffn, hidden)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
