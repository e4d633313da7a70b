"""Weights and activations for the ggml peer comparisons (tests/check_peer.py,
bench/peer/one_matrix_gguf.py).

Weights: Gaussian-ish floats (sigma 0.02, 1% of them x5, as trained LLM weights
look) quantized with the `gguf` package's quantizer (bit-exact with ggml's
reference quantizers) where it has one; for the types it only dequantizes
(the K-quants), valid random blocks as tests/gen_format_vectors.py makes them,
but with realistic scales: random codes and sub-scales, positive fp16 super-block
scales drawn around a base that gives weights of about +-0.05 to 0.1.
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

TYPES = {t.name: t for t in (T.F16, T.Q4_0, T.Q8_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K, T.Q6_K,
                             T.IQ4_NL, T.IQ4_XS, T.MXFP4, T.BF16)}


def weight_floats(rng, n, k):
    w = rng.standard_normal((n, k)) * 0.02
    w *= np.where(rng.uniform(size=(n, k)) < 0.01, 5.0, 1.0)
    return w.astype(np.float32)


def weights(rng, t, n, k):
    """n rows of k in GGUF block layout, as uint8 of shape (n, row bytes)."""
    if t == T.F16:
        return weight_floats(rng, n, k).astype(np.float16).view(np.uint8).reshape(n, -1)
    if t in K_BLOCKS:
        offs, size, base = K_BLOCKS[t]
        b = rng.integers(0, 256, size=(n * k // 256, size), dtype=np.uint8)
        for o in offs:
            d = (base * rng.uniform(0.5, 1.5, size=b.shape[0])).astype(np.float16)
            b[:, o:o + 2] = d.view(np.uint8).reshape(-1, 2)
        return b.reshape(n, -1)
    return np.ascontiguousarray(quants.quantize(weight_floats(rng, n, k), t)).reshape(n, -1)


def dequantize(t, w, n, k):
    if t == T.F16:
        return w.view(np.float16).astype(np.float64).reshape(n, k)
    return quants.dequantize(w, t).astype(np.float64).reshape(n, k)


def activations(rng, m, k):
    x = rng.standard_normal((m, k))
    outliers = rng.choice(k, size=max(1, k // 128), replace=False)
    x[:, outliers] *= 4.0
    return x.astype(np.float32)
