#!/usr/bin/env python3
"""Writes GGUF test files with the `gguf` package (GGUFWriter) for tests/test_gguf.c.

usage: gguf_gen.py OUTDIR

The values here are mirrored in test_gguf.c (check_python_files); change both together.
"""
import os
import sys

import numpy as np
import gguf


def pattern(n, mul, add):
    return np.array([(i * mul + add) & 0xFF for i in range(n)], dtype=np.uint8)


def write_basic(path, alignment=None):
    w = gguf.GGUFWriter(path, arch="llama")
    if alignment is not None:
        w.add_custom_alignment(alignment)
    w.add_uint8("t.u8", 200)
    w.add_int8("t.i8", -5)
    w.add_uint16("t.u16", 60000)
    w.add_int16("t.i16", -30000)
    w.add_uint32("t.u32", 4000000000)
    w.add_int32("t.i32", -2000000000)
    w.add_float32("t.f32", 1.5)
    w.add_bool("t.bool", True)
    w.add_uint64("t.u64", (1 << 40) + 3)
    w.add_int64("t.i64", -(1 << 40))
    w.add_float64("t.f64", 2.25)
    w.add_string("t.str", "hello gguf")
    w.add_array("t.arr_i32", [1, -2, 3])
    w.add_array("t.arr_str", ["a", "bc", ""])
    w.add_array("t.arr_f32", [0.5, 0.25])
    w.add_array("t.arr_nested", [[1, 2], [3]])
    w.add_array("t.arr_nested_str", [["x"], ["y", "zz"]])
    # F32 [8, 3]: 0..23; F16 [16, 2]: 0..31 / 4; 3-D F32 [4, 3, 2]: 100..123
    w.add_tensor("a.f32", np.arange(24, dtype=np.float32).reshape(3, 8))
    w.add_tensor("b.f16", (np.arange(32, dtype=np.float32) / 4).astype(np.float16).reshape(2, 16))
    # quantized tensors as raw blocks: Q4_0 [64, 2], Q8_0 [32, 3], Q4_K [256, 1]
    w.add_tensor("c.q4_0", pattern(2 * 36, 7, 3).reshape(2, 36), raw_dtype=gguf.GGMLQuantizationType.Q4_0)
    w.add_tensor("d.q8_0", pattern(3 * 34, 5, 1).reshape(3, 34), raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    w.add_tensor("e.q4_k", pattern(144, 3, 9).reshape(1, 144), raw_dtype=gguf.GGMLQuantizationType.Q4_K)
    w.add_tensor("f.f32_3d", (np.arange(24, dtype=np.float32) + 100).reshape(2, 3, 4))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write_basic(os.path.join(out, "py_basic.gguf"))
    write_basic(os.path.join(out, "py_align64.gguf"), alignment=64)


if __name__ == "__main__":
    main()
