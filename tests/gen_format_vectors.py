#!/usr/bin/env python3
"""Writes GGUF block-format test vectors with the `gguf` package (the format's
reference implementation in Python, bit-exact with ggml's reference
quantizers) for tests/test_formats.c.

File layout (little-endian): u32 count of records; each record is
u32 type (0 F32 input, 1 F16, 2 Q4_0, 8 Q8_0), u32 rows, u32 k, u32 nbytes,
then nbytes of data. Records come as: input floats, then each type's
quantized bytes, then its dequantized floats (as type 0 records)."""
import struct
import sys

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import quants


def inputs():
    rng = np.random.default_rng(20261130)
    k = 256
    rows = [
        rng.standard_normal(k),
        rng.uniform(-1, 1, k) * 1e-3,
        rng.uniform(-1, 1, k) * 1e4,
        np.zeros(k),
        np.concatenate([np.full(32, 0.5), np.arange(32) - 16.0, np.arange(32) / 7.0, -np.arange(32) / 3.0,
                        np.full(32, -2.5), np.linspace(-8, 7, 32), np.full(32, 1e-30), np.full(32, 6.0e4)]),
        rng.standard_normal(k) * np.where(rng.uniform(size=k) < 0.1, 100.0, 1.0),
    ]
    return np.array(rows, dtype=np.float32)


def rec(t, rows, k, data):
    b = data.tobytes()
    return struct.pack("<IIII", t, rows, k, len(b)) + b


def main(path):
    x = inputs()
    rows, k = x.shape
    out = [rec(0, rows, k, x)]
    for t in (T.F16, T.Q4_0, T.Q8_0):
        q = x.astype(np.float16) if t == T.F16 else quants.quantize(x, t)
        out.append(rec(int(t), rows, k, np.ascontiguousarray(q)))
        deq = q.astype(np.float32) if t == T.F16 else quants.dequantize(q, t)
        out.append(rec(0, rows, k, np.ascontiguousarray(deq.astype(np.float32))))
    with open(path, "wb") as f:
        f.write(struct.pack("<I", len(out)))
        for r in out:
            f.write(r)


if __name__ == "__main__":
    main(sys.argv[1])
