"""Weights and activations for the ggml peer comparisons (tests/check_peer.py,
bench/peer/one_matrix_gguf.py, bench/peer/moe_data.py).

Weights: Gaussian-ish floats (sigma 0.02, 1% of them x5, as trained LLM weights
look) quantized with the `gguf` package's quantizer (bit-exact with ggml's
reference quantizers) where it has one (F16, BF16, the legacy types, MXFP4, TQ1_0, TQ2_0); for
the types it only dequantizes:
- the K-quants: valid random blocks as tests/gen_format_vectors.py makes them,
  but with realistic scales: random codes and sub-scales, positive fp16
  super-block scales drawn around a base that gives weights of about +-0.05 to 0.1;
- the i-quant grid types (IQ1_*, IQ2_*, IQ3_*): random valid blocks with a realistic positive d (every grid
  index, sign and sub-scale code is valid; ggml's quantizers for them need an importance matrix and a search);
  TQ1_0 and TQ2_0 from the `gguf` package's quantizer;
- IQ4_NL, IQ4_XS: the same floats through a plain nearest-level quantizer written
  here (not ggml's search, which tries several scales): the block's largest |w|
  lands on the level -127 (IQ4_XS: each 32-block's scale as a 6-bit multiple of a
  per-256 fp16 d), every value on its nearest level. Valid blocks whose indices
  and sub-scales are distributed as a real model's are, which is what the
  accuracy rules need (both sides multiply the same blocks).
Activations: Gaussian with a few outlier channels (1 in 128, x 4), as hidden states have."""
import numpy as np
from gguf import GGMLQuantizationType as T
from gguf import quants

# Byte offsets of the fp16 super-block fields (d, then dmin where there is one),
# the block size in bytes, and a base scale for d (and dmin).
K_BLOCKS = {
    T.Q2_K: ((80, 82), 84, 0.004),
    T.Q3_K: ((108,), 110, 0.001),
    T.Q4_K: ((0, 2), 144, 0.0002),
    T.Q5_K: ((0, 2), 176, 0.0001),
    T.Q6_K: ((208,), 210, 0.00002),
}

# The i-quant grid types: random valid blocks (every index, sign and sub-scale code is valid) with a positive
# fp16 d at its offset (None: IQ1_M, whose d is the top nibbles of its 4 scale words, bytes 48..55), the block
# size, and a base d giving weights of about +-0.05 (the integer form's factor times sub-scale times level).
IQ_BLOCKS = {
    T.IQ2_XXS: (0, 66, 0.0003), T.IQ2_XS: (0, 74, 0.0003), T.IQ2_S: (0, 82, 0.0003),
    T.IQ3_XXS: (0, 98, 0.0001), T.IQ3_S: (0, 110, 0.0001), T.IQ1_S: (0, 50, 0.003), T.IQ1_M: (None, 56, 0.003),
}

TYPES = {t.name: t for t in (T.F32, T.F16, T.Q4_0, T.Q8_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K,
                             T.IQ4_NL, T.IQ4_XS, T.MXFP4, T.BF16, T.IQ1_S, T.IQ1_M, T.IQ2_XXS, T.IQ2_XS, T.IQ2_S,
                             T.IQ3_XXS, T.IQ3_S, T.TQ1_0, T.TQ2_0)}


def weight_floats(rng, n, k):
    w = rng.standard_normal((n, k)) * 0.02
    w *= np.where(rng.uniform(size=(n, k)) < 0.01, 5.0, 1.0)
    return w.astype(np.float32)


IQ4_LEVELS = np.array([-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113], dtype=np.float32)


IQ4_MIDPOINTS = (IQ4_LEVELS[1:] + IQ4_LEVELS[:-1]) / 2


def _nearest_level(v):
    """Index of the IQ4 level nearest to each value of v (in level units; the levels ascend)."""
    return np.searchsorted(IQ4_MIDPOINTS, v).astype(np.uint8)


def _q4_nibbles(idx):
    """(..., 32) indices -> (..., 16) bytes: element j low nibble, j + 16 high (Q4_0's order)."""
    return idx[..., :16] | (idx[..., 16:] << 4)


def _signed_absmax(b):
    """Per row of b (last axis), the value of largest magnitude, sign kept."""
    return np.take_along_axis(b, np.abs(b).argmax(axis=-1)[..., None], axis=-1)[..., 0]


def _divide_or_zero(a, d):
    safe = np.where(d == 0, 1, d)
    return np.where(d == 0, 0, a / safe)


def quantize_iq4_nl(w):
    """(n, k) floats -> (n, k / 32 * 18) IQ4_NL blocks: d = -max / 127 so the largest |w| is level -127."""
    n, k = w.shape
    b = w.reshape(-1, 32).astype(np.float32)
    d = (_signed_absmax(b) / -127.0).astype(np.float16)
    idx = _nearest_level(_divide_or_zero(b, d.astype(np.float32)[:, None]))
    return np.concatenate([d.view(np.uint8).reshape(-1, 2), _q4_nibbles(idx)], axis=1).reshape(n, -1)


def quantize_iq4_xs(w):
    """(n, k) floats -> (n, k / 256 * 136) IQ4_XS blocks: per 32-block the scale s_j = -max_j / 127, a
    per-256 fp16 d = max |s_j| / 31, ls_j = round(s_j / d) in -31..31 (stored + 32), then nearest levels."""
    n, k = w.shape
    b = w.reshape(-1, 8, 32).astype(np.float32)
    s = _signed_absmax(b) / -127.0  # (nsb, 8)
    d = (np.abs(s).max(axis=1) / 31.0).astype(np.float16)
    df = d.astype(np.float32)
    ls = np.clip(np.rint(_divide_or_zero(s, df[:, None])), -32, 31).astype(np.int32)
    idx = _nearest_level(_divide_or_zero(b, (df[:, None] * ls)[..., None]))
    u = (ls + 32).astype(np.uint32)  # 6 bits
    scales_l = ((u[:, 0::2] & 15) | ((u[:, 1::2] & 15) << 4)).astype(np.uint8)  # (nsb, 4)
    scales_h = np.zeros(u.shape[0], dtype=np.uint16)
    for j in range(8):
        scales_h |= ((u[:, j] >> 4) << (2 * j)).astype(np.uint16)
    out = np.concatenate([d.view(np.uint8).reshape(-1, 2), scales_h.view(np.uint8).reshape(-1, 2), scales_l,
                          _q4_nibbles(idx).reshape(-1, 128)], axis=1)
    return out.reshape(n, -1)


def weights(rng, t, n, k):
    """n rows of k in GGUF block layout, as uint8 of shape (n, row bytes)."""
    if t == T.IQ4_NL:
        return quantize_iq4_nl(weight_floats(rng, n, k))
    if t == T.IQ4_XS:
        return quantize_iq4_xs(weight_floats(rng, n, k))
    if t == T.F32:
        return weight_floats(rng, n, k).view(np.uint8).reshape(n, -1)
    if t == T.F16:
        return weight_floats(rng, n, k).astype(np.float16).view(np.uint8).reshape(n, -1)
    if t in IQ_BLOCKS:
        off, size, base = IQ_BLOCKS[t]
        b = rng.integers(0, 256, size=(n * k // 256, size), dtype=np.uint8)
        d = (base * rng.uniform(0.5, 1.5, size=b.shape[0])).astype(np.float16).view(np.uint16)
        if off is None:
            for i in range(4):
                b[:, 49 + 2 * i] = (b[:, 49 + 2 * i] & 0x0F) | (((d >> (4 * i)) & 0x0F) << 4).astype(np.uint8)
        else:
            b[:, off:off + 2] = d.view(np.uint8).reshape(-1, 2)
        return b.reshape(n, -1)
    if t in K_BLOCKS:
        offs, size, base = K_BLOCKS[t]
        b = rng.integers(0, 256, size=(n * k // 256, size), dtype=np.uint8)
        for o in offs:
            d = (base * rng.uniform(0.5, 1.5, size=b.shape[0])).astype(np.float16)
            b[:, o:o + 2] = d.view(np.uint8).reshape(-1, 2)
        return b.reshape(n, -1)
    return np.ascontiguousarray(quants.quantize(weight_floats(rng, n, k), t)).reshape(n, -1)


def dequantize(t, w, n, k):
    if t == T.F32:
        return w.view(np.float32).astype(np.float64).reshape(n, k)
    if t == T.F16:
        return w.view(np.float16).astype(np.float64).reshape(n, k)
    return quants.dequantize(w, t).astype(np.float64).reshape(n, k)


def activations(rng, m, k):
    x = rng.standard_normal((m, k))
    outliers = rng.choice(k, size=max(1, k // 128), replace=False)
    x[:, outliers] *= 4.0
    return x.astype(np.float32)
