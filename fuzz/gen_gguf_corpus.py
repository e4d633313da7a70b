#!/usr/bin/env python3
"""Small GGUF seeds for fuzz_gguf (written with the gguf package). usage: gen_gguf_corpus.py DIR"""
import os
import sys

import numpy as np
import gguf

Q = gguf.GGMLQuantizationType


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(5)

    w = gguf.GGUFWriter(os.path.join(out, "values.gguf"), arch="llama")
    w.add_uint8("u8", 7)
    w.add_int16("i16", -3)
    w.add_uint32("u32", 70000)
    w.add_int64("i64", -(1 << 33))
    w.add_float32("f32", 0.5)
    w.add_float64("f64", 1.25)
    w.add_bool("b", True)
    w.add_string("s", "text")
    w.add_array("ai", [1, 2, 3])
    w.add_array("as", ["x", "yz"])
    w.add_array("nested", [[1], [2, 3]])
    w.add_tensor("t.f32", np.arange(8, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()

    w = gguf.GGUFWriter(os.path.join(out, "weights.gguf"), arch="llama")
    w.add_tensor("a.q4_0", gguf.quants.quantize(rng.standard_normal((2, 32)).astype(np.float32), Q.Q4_0), raw_dtype=Q.Q4_0)
    w.add_tensor("b.q8_0", gguf.quants.quantize(rng.standard_normal((3, 32)).astype(np.float32), Q.Q8_0), raw_dtype=Q.Q8_0)
    w.add_tensor("c.f16", rng.standard_normal((2, 16)).astype(np.float16))
    w.add_tensor("d.f32", rng.standard_normal((2, 3, 4)).astype(np.float32))
    w.add_tensor("e.q4_k", rng.integers(0, 256, (1, 144), dtype=np.uint8), raw_dtype=Q.Q4_K)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()

    w = gguf.GGUFWriter(os.path.join(out, "align64.gguf"), arch="llama")
    w.add_custom_alignment(64)
    w.add_tensor("x", rng.standard_normal((1, 32)).astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
