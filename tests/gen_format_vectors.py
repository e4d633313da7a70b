#!/usr/bin/env python3
"""Writes GGUF block-format test vectors with the `gguf` package (the format's
reference implementation in Python, bit-exact with ggml's reference
quantizers) for tests/test_formats.c.

File layout (little-endian): u32 count of records; each record is
u32 type (0 F32, else a GGML type, plus RANDOM_BLOCKS), u32 rows, u32 k,
u32 nbytes, then nbytes of data. Records come as: input floats, then pairs:
a type's bytes and their dequantized floats (a type 0 record). Bytes of a
type without the RANDOM_BLOCKS flag are the gguf package's quantization of
the input; with it, random valid blocks (random bytes, finite fp16 scales),
for the types the library only dequantizes and to reach every bit pattern."""
import struct
import sys

import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import quants
from gguf.constants import GGML_QUANT_SIZES


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


RANDOM_BLOCKS = 0x100

# Byte offsets of each block's fp16 fields, and the block size.
FP16_FIELDS = {
    T.Q4_0: ((0,), 18), T.Q8_0: ((0,), 34),
    T.Q4_1: ((0, 2), 20), T.Q5_0: ((0,), 22), T.Q5_1: ((0, 2), 24),
    T.Q2_K: ((80, 82), 84), T.Q3_K: ((108,), 110), T.Q4_K: ((0, 2), 144), T.Q5_K: ((0, 2), 176), T.Q6_K: ((208,), 210),
    T.IQ4_NL: ((0,), 18), T.IQ4_XS: ((0,), 136), T.MXFP4: ((), 17), T.BF16: ((), 2),
}


def random_blocks(rng, t, rows, k):
    """Random bytes with every fp16 field finite (any sign, subnormals and the
    largest values included); MXFP4's E8M0 byte and BF16 values take every bit
    pattern (BF16: inf and NaN too)."""
    offs, size = FP16_FIELDS[t]
    blck, bsize = GGML_QUANT_SIZES[t]
    assert bsize == size
    nblk = rows * k // blck
    b = rng.integers(0, 256, size=(nblk, size), dtype=np.uint8)
    for o in offs:
        h = b[:, o:o + 2].copy().view(np.uint16)
        h = np.where((h & 0x7C00) == 0x7C00, h & np.uint16(0xBFFF), h).astype(np.uint16)
        b[:, o:o + 2] = h.view(np.uint8)
    return b.reshape(rows, -1)


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
    for t in (T.Q4_1, T.Q5_0, T.Q5_1, T.BF16):
        q = quants.quantize(x, t)
        out.append(rec(int(t), rows, k, np.ascontiguousarray(q)))
        out.append(rec(0, rows, k, np.ascontiguousarray(quants.dequantize(q, t).astype(np.float32))))
    rng = np.random.default_rng(20261201)
    for t in (T.Q4_0, T.Q8_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K,
              T.IQ4_NL, T.IQ4_XS, T.MXFP4, T.BF16):
        rows_r, k_r = 8, 512
        q = random_blocks(rng, t, rows_r, k_r)
        out.append(rec(int(t) | RANDOM_BLOCKS, rows_r, k_r, np.ascontiguousarray(q)))
        with np.errstate(over="ignore"):  # MXFP4 e = 255: 2^127 * 12 is inf, in ggml too
            deq = quants.dequantize(q, t).astype(np.float32)
        out.append(rec(0, rows_r, k_r, np.ascontiguousarray(deq)))
    with open(path, "wb") as f:
        f.write(struct.pack("<I", len(out)))
        for r in out:
            f.write(r)


if __name__ == "__main__":
    main(sys.argv[1])
