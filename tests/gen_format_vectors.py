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
    T.IQ2_XXS: ((0,), 66), T.IQ2_XS: ((0,), 74), T.IQ2_S: ((0,), 82), T.IQ3_XXS: ((0,), 98), T.IQ3_S: ((0,), 110),
    T.IQ1_S: ((0,), 50), T.IQ1_M: ((), 56), T.TQ1_0: ((52,), 54), T.TQ2_0: ((64,), 66),
}
IQ_TYPES = (T.IQ1_S, T.IQ1_M, T.IQ2_XXS, T.IQ2_XS, T.IQ2_S, T.IQ3_XXS, T.IQ3_S, T.TQ1_0, T.TQ2_0)


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
    if t == T.IQ1_M:  # d is the top nibbles of the 4 scale words: bit 14 of d is bit 6 of byte 55
        sc = b[:, 48:56].copy().view(np.uint16)
        d = (sc[:, 0] >> 12) | ((sc[:, 1] >> 8) & 0xF0) | ((sc[:, 2] >> 4) & 0xF00) | (sc[:, 3] & 0xF000)
        b[:, 55] = np.where((d & 0x7C00) == 0x7C00, b[:, 55] & 0xBF, b[:, 55])
    return b.reshape(rows, -1)


# Grid types: (grid entries, index groups per block, a setter of group i's index in a block's bytes).
def _set_iq2_xs(b, i, v):
    w = b[:, 2 + 2 * i] | (b[:, 3 + 2 * i].astype(np.uint16) << 8)
    w = (w & 0xFE00) | v
    b[:, 2 + 2 * i], b[:, 3 + 2 * i] = w & 0xFF, w >> 8


def _set_hi(b, lo_off, i, v, hi_byte, hi_shift, hi_bits):
    b[:, lo_off + i] = v & 0xFF
    m = ((1 << hi_bits) - 1) << hi_shift
    b[:, hi_byte] = (b[:, hi_byte] & ~np.uint8(m)) | ((v >> 8) << hi_shift).astype(np.uint8)


GRID_INDEX = {
    T.IQ2_XXS: (256, 32, lambda b, i, v: b.__setitem__((slice(None), 2 + 8 * (i // 4) + i % 4), v)),
    T.IQ2_XS: (512, 32, _set_iq2_xs),
    T.IQ2_S: (1024, 32, lambda b, i, v: _set_hi(b, 2, i, v, 66 + i // 4, 2 * (i % 4), 2)),
    T.IQ3_XXS: (256, 64, lambda b, i, v: b.__setitem__((slice(None), 2 + i), v)),
    T.IQ3_S: (512, 64, lambda b, i, v: _set_hi(b, 2, i, v, 66 + i // 8, i % 8, 1)),
    T.IQ1_S: (2048, 32, lambda b, i, v: _set_hi(b, 2, i, v, 34 + 2 * (i // 4) + (3 * (i % 4)) // 8,
                                                (3 * (i % 4)) % 8, 3) if (3 * (i % 4)) % 8 <= 5 else _set_iq1s_split(b, i, v)),
    T.IQ1_M: (2048, 32, lambda b, i, v: _set_hi(b, 0, i, v, 32 + i // 2, 4 * (i % 2), 3)),
}


def _set_iq1s_split(b, i, v):
    # group 2 of a 32-block: index bits 8..10 at bits 6..8 of the LE uint16 qh
    b[:, 2 + i] = v & 0xFF
    off = 34 + 2 * (i // 4)
    w = b[:, off] | (b[:, off + 1].astype(np.uint16) << 8)
    w = (w & ~np.uint16(7 << 6)) | ((v >> 8).astype(np.uint16) << 6)
    b[:, off], b[:, off + 1] = w & 0xFF, w >> 8


def grid_cover_blocks(rng, t):
    """Random valid blocks whose grid indices run through every entry of the type's grid."""
    size, groups, setter = GRID_INDEX[t]
    nblk = size // groups
    b = random_blocks(rng, t, 1, 256 * nblk).reshape(nblk, -1)
    for i in range(groups):
        setter(b, i, (np.arange(nblk, dtype=np.uint16) * groups + i) % size)
    return b.reshape(1, -1), 256 * nblk


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
              T.IQ4_NL, T.IQ4_XS, T.MXFP4, T.BF16) + IQ_TYPES:
        rows_r, k_r = 8, 512
        q = random_blocks(rng, t, rows_r, k_r)
        out.append(rec(int(t) | RANDOM_BLOCKS, rows_r, k_r, np.ascontiguousarray(q)))
        with np.errstate(over="ignore"):  # MXFP4 e = 255: 2^127 * 12 is inf, in ggml too
            deq = quants.dequantize(q, t).astype(np.float32)
        out.append(rec(0, rows_r, k_r, np.ascontiguousarray(deq)))
    for t in GRID_INDEX:  # every grid entry, against the package's dequantization
        q, k_g = grid_cover_blocks(rng, t)
        out.append(rec(int(t) | RANDOM_BLOCKS, 1, k_g, np.ascontiguousarray(q)))
        out.append(rec(0, 1, k_g, np.ascontiguousarray(quants.dequantize(q, t).astype(np.float32))))
    with open(path, "wb") as f:
        f.write(struct.pack("<I", len(out)))
        for r in out:
            f.write(r)


if __name__ == "__main__":
    main(sys.argv[1])
