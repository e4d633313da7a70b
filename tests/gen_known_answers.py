#!/usr/bin/env python3
"""Writes tests/data/ggml_known_answers.bin: blocks made by ggml's own quantizers (Debian's libggml, through the
ggml peer's `quantize` command in the trixie root of scripts/setup-ggml-peer.sh) and ggml's own dequantization
of them, for the types whose quantizers the `gguf` package lacks (the i-quant grid types) and the ternary types.
tests/test_known_answers.c reads the file on every platform (under qemu too): GET_ROWS must give ggml's values
bit for bit and every family the CPU runs the reference's product bit for bit. The peer stage
(scripts/test-peer.sh) regenerates the file and fails when it differs from the checked-in one.

usage: gen_known_answers.py BIN_DIR OUT PEER_RUN...   (BIN_DIR: bench/peer/build.sh's output)

File layout (little-endian): u32 count of records; each record u32 type (0: F32), u32 rows, u32 k, u32 nbytes,
then nbytes. Record 0: the input floats; then per type its blocks and their dequantized floats (type 0)."""
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

TYPES = {"IQ1_S": 19, "IQ1_M": 29, "IQ2_XXS": 16, "IQ2_XS": 17, "IQ2_S": 22, "IQ3_XXS": 18, "IQ3_S": 21,
         "TQ1_0": 34, "TQ2_0": 35}
ROWS, K = 4, 512


def rec(t, data):
    b = data.tobytes()
    return struct.pack("<IIII", t, ROWS, K, len(b)) + b


def main(bin_dir, out, run):
    rng = np.random.default_rng(20261206)
    # trained-weight-like rows (sigma 0.02, 1% x5), and one row with a ternary-friendly spread
    x = (rng.standard_normal((ROWS, K)) * 0.02 * np.where(rng.uniform(size=(ROWS, K)) < 0.01, 5.0, 1.0))
    x[ROWS - 1] = rng.choice([-0.03, 0.0, 0.03], size=K) + rng.standard_normal(K) * 0.002
    x = x.astype(np.float32)
    recs = [rec(0, x)]
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(out))) as tmp:
        xin = os.path.join(tmp, "x.f32")
        x.tofile(xin)
        for name, code in TYPES.items():
            q, d = os.path.join(tmp, name + ".bin"), os.path.join(tmp, name + ".f32")
            subprocess.run(run + [os.path.join(bin_dir, "ggml_mul_mat"), "quantize", name, str(K), str(ROWS), xin, q, d],
                           check=True)
            recs.append(rec(code, np.fromfile(q, dtype=np.uint8)))
            recs.append(rec(0, np.fromfile(d, dtype=np.float32)))
    with open(out, "wb") as f:
        f.write(struct.pack("<I", len(recs)))
        for r in recs:
            f.write(r)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:])
