#!/usr/bin/env python3
"""qmatmul's MUL_MAT against ggml's (the peer of bench/peer/ggml_mul_mat.c), issue #11's accuracy rules.

usage: check_peer.py WORKDIR QMM_MUL_MAT PEER_CMD...
  WORKDIR       where the case files go (must be visible to PEER_CMD at the same path)
  QMM_MUL_MAT   bench/peer/qmm_mul_mat.c built against the library
  PEER_CMD...   the command that runs the peer (e.g. scripts/setup-ggml-peer.sh run DIR .../ggml_mul_mat)

For every type qmatmul packs and every shape, random realistic weights (bench/peer/peer_data.py) and
activations, the products of qmatmul and of ggml (weights as ggml users get them: the CPU_REPACK buffer
where ggml supports it, and the plain CPU buffer), each compared with the float64 product of the
dequantized weights and the unquantized activations: e = sum((y - ref)^2) / sum(ref^2). Rules:
  1. e(qmatmul) <= e(ggml) * (1 + SLACK) for both ggml paths;
  2. sum((y_qmm - y_ggml)^2) / sum(y_ggml^2) <= 5e-4.
F16 (not a quantized type) is shown for information and checked by rule 2 only: both products are at fp32
rounding level there (e ~ 1e-14 to 1e-12), where rule 1 would compare summation orders, not schemes.
BF16 is checked by both: qmatmul multiplies the fp32 activations exactly (e at fp32 rounding level), ggml
rounds them to BF16 first (e ~ 1e-6), so rule 1 holds by a wide margin and would catch a rounding of x.
IQ4_NL, MXFP4 (and Q4_0, Q8_0, BF16) also run at k = 2880, gpt-oss's rows (90 blocks of 32); IQ4_XS and the
K-quants need k % 256 == 0.
SLACK = 0.02. Why any: where qmatmul and ggml quantize the activations by the same scheme (the legacy
types, IQ4_NL and MXFP4: Q8_0 / Q8_1 blocks of 32 in both), e is that quantization's error in both, and the
two differ only by rounding ties, the order of fp32 sums and the scale arithmetic (ggml stores the block
scale as fp16, which can by chance cancel some error): e(qmatmul) / e(ggml) measured 0.91 to 1.015 over
these cases and 6 seeds (CHECK_PEER_SEED; m = 1 spreads most). 2% stays far below what a coarser activation scheme costs (ggml's Q8_K, one scale per
256, against qmatmul's per-32 blocks for the K-quants: e 2x to 8x apart here), so the rule still catches a worse scheme.
Every case draws its data from its own generator (the seed and the case's name), so adding cases leaves the
others' data unchanged. Rule 2 compares with ggml, not with the truth: where ggml's own e is near 5e-4 (Q4_K
at m = 1, per-256 activation scales) d is about e(ggml) however exact qmatmul is; the default seed passes,
some other seeds make such a case fail rule 2 while qmatmul's e is 10x below ggml's.
Prints the table of errors; the last line counts the cases that passed and failed."""
import os
import json
import subprocess
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "peer"))
import peer_data  # noqa: E402

TYPES = ["Q4_0", "Q8_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K", "IQ4_NL", "IQ4_XS", "MXFP4", "BF16",
         "F16"]
SHAPES = [(4096, 256, 1), (4096, 256, 8), (2048, 256, 1), (2048, 256, 8)]  # k, n, m
# gpt-oss's rows (2880 = 90 blocks of 32, not a multiple of 256): for the types whose blocks allow it
SHAPES_2880 = [(2880, 256, 1), (2880, 256, 8)]
TYPES_2880 = {"IQ4_NL", "MXFP4", "Q4_0", "Q8_0", "BF16"}
SLACK = 0.02
MAX_DIFF = 5e-4


def case_rng(seed, *key):
    """Each case its own generator, from the seed and the case's name: adding a type or shape leaves the
    data of every other case as it was."""
    return np.random.default_rng([seed, zlib.crc32(repr(key).encode())])


def nse(y, ref):
    y = y.astype(np.float64)
    return float(np.sum((y - ref) ** 2) / np.sum(ref ** 2))


def main():
    work, qmm, peer = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]  # the peer runs with cwd /
    os.makedirs(work, exist_ok=True)
    seed = int(os.environ.get("CHECK_PEER_SEED", "20261201"))
    cases = []
    for tname in TYPES:
        t = peer_data.TYPES[tname]
        for k, n, m in SHAPES + (SHAPES_2880 if tname in TYPES_2880 else []):
            base = os.path.join(work, f"{tname}_{k}_{n}_{m}")
            rng = case_rng(seed, tname, k, n, m)
            w = peer_data.weights(rng, t, n, k)
            x = peer_data.activations(rng, m, k)
            w.tofile(base + ".w")
            x.tofile(base + ".x")
            ref = x.astype(np.float64) @ peer_data.dequantize(t, w, n, k).T  # m x n
            cases.append((tname, k, n, m, base, ref))

    def run(tag, cmd):
        lst = os.path.join(work, f"{tag}.list")
        with open(lst, "w") as f:
            for tname, k, n, m, base, _ in cases:
                f.write(f"{tname} {k} {n} {m} {base}.w {base}.x {base}.{tag}\n")
        argv = cmd + [lst, "2"] if tag == "qmm" else cmd + ["accuracy-batch", lst, "--threads", "2"]
        if tag == "plain":
            argv.append("--no-repack")
        out = subprocess.run(argv, capture_output=True, text=True)
        if out.returncode != 0:
            sys.stderr.write(out.stdout + out.stderr)
            sys.exit(f"check_peer: {tag} failed (exit {out.returncode})")
        return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]

    info_q = run("qmm", [qmm])
    info_r = run("repack", peer)
    info_p = run("plain", peer)
    print(f"ggml {info_r[0]['ggml_version']} ({info_r[0]['cpu_variant']}), 2 threads; e = sum((y-ref)^2)/sum(ref^2) "
          f"against the float64 product; d = sum((y_qmm-y_ggml)^2)/sum(y_ggml^2) (ggml as users get it)")
    print("| type | k | n | m | qmatmul kernel | ggml buffer | e qmatmul | e ggml | e ggml plain CPU | e ratio | d | ok |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    passed = failed = 0
    for i, (tname, k, n, m, base, ref) in enumerate(cases):
        yq = np.fromfile(base + ".qmm", dtype=np.float32).reshape(m, n)
        yr = np.fromfile(base + ".repack", dtype=np.float32).reshape(m, n)
        yp = np.fromfile(base + ".plain", dtype=np.float32).reshape(m, n)
        eq, er, ep = nse(yq, ref), nse(yr, ref), nse(yp, ref)
        d = nse(yq, yr.astype(np.float64))
        rule1 = tname == "F16" or (eq <= er * (1 + SLACK) and eq <= ep * (1 + SLACK))
        ok = bool(np.isfinite(yq).all()) and rule1 and d <= MAX_DIFF
        passed += ok
        failed += not ok
        print(f"| {tname} | {k} | {n} | {m} | {info_q[i]['kernel']} | {info_r[i]['weight_buffer']} | {eq:.3e} | {er:.3e} | "
              f"{ep:.3e} | {eq / min(er, ep):.4f} | {d:.2e} | {'ok' if ok else 'FAIL'} |")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
