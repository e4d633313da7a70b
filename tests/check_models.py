#!/usr/bin/env python3
"""Checks qmatmul on a real model (scripts/test-models.sh runs it), against the GGUF's own
tensors as the `gguf` package reads and dequantizes them:
- pack: every 2-D tensor of a packable type is in the cache with its type and shape, none
  skipped, and `qmatmul pack` said so; the cache verifies;
- inspect: the tensor table (name, type, shape, bytes, offset) and every metadata key;
- bench --model: every packable (type, k, n) of the model has its decode and prefill rows,
  every tensor was packed, nothing but the 1-D tensors skipped;
- GET_ROWS (tests/model_ops.c, from the cache): rows of a few tensors of each type (the first,
  second, panel-boundary, middle and last rows, random ones, a repeat) bit for bit equal to
  gguf.quants.dequantize of the same bytes;
- MUL_MAT on one tensor per type, against float64 products of the gguf-dequantized weights,
  within the error bounds of docs/formats.md (derived at mul_bounds below).

The pack, GET_ROWS and MUL_MAT checks run for every kernel set given (default: native),
each a name and the QMM_HIDE_FEATURES its pack and model_ops ran with (native: none; e.g.
avx2:avx512f, ref:avx2,fma,avx512f): the outputs of every set must also be the same bits.

usage: check_models.py MODEL_OPS MODEL.gguf PREFIX [NAME:HIDE_FEATURES...]
PREFIX.NAME.qmp is the cache `qmatmul pack` wrote for set NAME; PREFIX.NAME.pack.out/.pack.err
and PREFIX.NAME.verify.out what pack and verify printed; PREFIX.inspect.txt and
PREFIX.bench.json what inspect and bench (native) printed. Working files go to PREFIX.ops/."""
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
from gguf import GGMLQuantizationType as QT
from gguf import GGUFReader
from gguf.quants import dequantize

model_ops, gguf_path, prefix = sys.argv[1:4]
kernel_sets = [tuple(a.split(":", 1)) for a in sys.argv[4:]] or [("native", "")]
# docs/formats.md: the types `qmatmul pack` packs (2-D tensors of these, and nothing else)
DOC_PACKABLE = {"F32", "F16", "BF16", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K",
                "IQ4_NL", "IQ4_XS", "MXFP4", "IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "TQ1_0",
                "TQ2_0"}
# Types with a min (value = scale part - min part) and the byte range of a block holding its
# quants: zeroing them makes the gguf package dequantize the min part alone (docs/formats.md).
MIN_QUANT_BYTES = {"Q4_1": (4, 20), "Q5_1": (4, 24), "Q2_K": (16, 80), "Q4_K": (16, 144), "Q5_K": (16, 176)}
fails = 0
t_step = time.monotonic()


def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", msg)
    return cond


def step(name):
    global t_step
    now = time.monotonic()
    print(f"  check_models: {name} in {now - t_step:.1f} s", flush=True)
    t_step = now


reader = GGUFReader(gguf_path)
tensors = {t.name: t for t in reader.tensors}
model = os.path.basename(gguf_path)
step(f"{model}: read by the gguf package ({len(tensors)} tensors)")

# ---------------------------------------------------------------- pack, verify, list
ops_dir = prefix + ".ops"
os.makedirs(ops_dir, exist_ok=True)


def run_ops(kset, requests):
    """model_ops on kernel set kset's cache, with its hidden features (the cache must match them)."""
    env = dict(os.environ, QMM_HIDE_FEATURES=kset[1])
    r = subprocess.run([model_ops, gguf_path, f"{prefix}.{kset[0]}.qmp"], input="".join(requests), capture_output=True,
                       text=True, env=env)
    check(r.returncode == 0 and r.stdout.count("ok\n") == len(requests),
          f"model_ops ({kset[0]}): exit {r.returncode}, {r.stdout.count('ok')} of {len(requests)} requests: {r.stderr.strip()}")
    return r.stdout


two_d = [t for t in reader.tensors if len(t.shape) == 2]
expected = {t.name: (t.tensor_type.name, int(t.shape[0]), int(t.shape[1])) for t in two_d if t.tensor_type.name in DOC_PACKABLE}
other_2d = sorted(f"{t.name} ({t.tensor_type.name})" for t in two_d if t.tensor_type.name not in DOC_PACKABLE)
by_type = {}
for name, (tname, _, _) in expected.items():
    by_type[tname] = by_type.get(tname, 0) + 1
print(f"  {model}: {len(reader.tensors)} tensors, {len(two_d)} 2-D; packable: {len(expected)} "
      f"({', '.join(f'{c} {t}' for t, c in sorted(by_type.items()))})"
      + (f"; 2-D of other types (not packed): {', '.join(other_2d)}" if other_2d else ""))
check(not [t for t in reader.tensors if len(t.shape) > 2], "no tensor of more than 2 dimensions")
n_1d = sum(1 for t in reader.tensors if len(t.shape) == 1)

for kset in kernel_sets:
    kname, p = kset[0], f"{prefix}.{kset[0]}"
    listing = run_ops(kset, ["list\n"]).splitlines()
    packable = {line.split()[1] for line in listing if line.startswith("packable ")}
    check(packable == DOC_PACKABLE, f"qmm_type_packable gives {sorted(packable)}, docs/formats.md {sorted(DOC_PACKABLE)}")
    cached = {}
    for line in listing:
        if line.startswith("tensor "):
            _, name, tname, k, n, kernel = line.split()
            cached[name] = (tname, int(k), int(n), kernel)
    missing = sorted(set(expected) - set(cached))
    extra = sorted(set(cached) - set(expected))
    check(not missing, f"{kname}: matrices not in the cache: {missing[:10]} ({len(missing)})")
    check(not extra, f"{kname}: cache entries that are no packable 2-D tensor of the GGUF: {extra[:10]}")
    for name in sorted(set(expected) & set(cached)):
        check(cached[name][:3] == expected[name], f"{name}: cached as {cached[name][:3]}, the GGUF has {expected[name]}")
    pack_out, pack_err = open(p + ".pack.out").read(), open(p + ".pack.err").read()
    check(f": {len(expected)} weights," in pack_out, f"{kname}: pack reports {len(expected)} weights: {pack_out.strip()}")
    check("warning" not in pack_err, f"{kname}: pack warned: {[l for l in pack_err.splitlines() if 'warning' in l][:5]}")
    check(f"({n_1d} tensors skipped)" in pack_err, f"{kname}: pack skips the {n_1d} 1-D tensors only")
    verify_out = open(p + ".verify.out").read()
    check(f"intact, {len(expected)} tensors" in verify_out and "OK, usable on this CPU" in verify_out,
          f"{kname}: verify: {verify_out.strip()}")
    kernels = sorted({f"{v[0]}: {v[3]}" for v in cached.values()})
    step(f"{model}: {kname}: pack and verify: {len(cached)} of {len(expected)} matrices cached ({', '.join(kernels)})")

# ---------------------------------------------------------------- inspect
inspect = open(prefix + ".inspect.txt").read()
table = {}
for m in re.finditer(r"^  (\S+) +(\S+) +\[([^\]]*)\] +(\d+) +(\d+)$", inspect, re.M):
    table[m[1]] = (m[2], [int(v) for v in m[3].split(",")], int(m[4]), int(m[5]))
check(f"tensors ({len(reader.tensors)}):" in inspect, "inspect: tensor count")
for t in reader.tensors:
    want = (t.tensor_type.name, [int(v) for v in t.shape], int(t.n_bytes), int(t.data_offset - reader.data_offset))
    check(table.get(t.name) == want, f"inspect: {t.name}: {table.get(t.name)}, the gguf package says {want}")
keys = [k for k in reader.fields if not k.startswith("GGUF.")]
check(f"metadata ({len(keys)} keys):" in inspect, f"inspect: {len(keys)} metadata keys")
for k in keys:
    check(f"\n  {k} = " in inspect, f"inspect: metadata key {k}")
step(f"{model}: inspect: {len(table)} tensors, {len(keys)} keys match")

# ---------------------------------------------------------------- bench --model
bench = json.load(open(prefix + ".bench.json"))
shapes = {(tn, k, n) for tn, k, n in expected.values()}
for phase in ("decode", "prefill"):
    rows = [r for r in bench["rows"] if r["phase"] == phase]
    got = {(r["type"], r["k"], r["n"]) for r in rows}
    check(got == shapes, f"bench {phase}: shapes {sorted(got ^ shapes)} differ from the model's")
    check(sum(r["count"] for r in rows) == len(expected), f"bench {phase}: {sum(r['count'] for r in rows)} tensors")
    check(all(r["seconds"]["median"] > 0 for r in rows), f"bench {phase}: a time is not positive")
check(bench["model"]["packed_tensors"] == len(expected), f"bench packed {bench['model']['packed_tensors']} tensors")
check(bench["model"]["skipped"] == [f"{n_1d} 1-D tensors (norms, biases): not weight matrices"]
      and bench["model"]["skipped_not_listed"] == 0, f"bench skipped {bench['model']['skipped']}")
step(f"{model}: bench --model: {len(shapes)} shapes of {sorted(by_type)} in both phases")

# ---------------------------------------------------------------- GET_ROWS
rng = np.random.default_rng(20261201)


def row_ids(n):
    """First, second, around a 16-row panel boundary, middle, last two, random ones, and a repeat: in mixed order."""
    ids = {i for i in (0, 1, 15, 16, 17, n // 2, n - 2, n - 1) if 0 <= i < n}
    ids |= set(int(i) for i in rng.integers(0, n, 8))
    ids = [int(i) for i in rng.permutation(sorted(ids))]
    return ids + [ids[0], n - 1]


def reference_rows(t, ids):
    return dequantize(np.asarray(t.data[ids]), t.tensor_type).reshape(len(ids), int(t.shape[0])).astype(np.float32)


def bits_equal(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


names_of_type = {}
for t in reader.tensors:
    if t.name in expected:
        names_of_type.setdefault(t.tensor_type.name, []).append(t.name)
row_tensors = []
for tname, names in sorted(names_of_type.items()):
    row_tensors += [nm for nm in dict.fromkeys([names[0], names[len(names) // 2], names[-1]])]
if "token_embd.weight" in expected and "token_embd.weight" not in row_tensors:
    row_tensors.append("token_embd.weight")
jobs = []
for i, name in enumerate(row_tensors):
    jobs.append((name, row_ids(int(tensors[name].shape[1])), i))
for kset in kernel_sets:
    run_ops(kset, [f"rows {name} {ops_dir}/{kset[0]}.rows{i}.f32 {' '.join(map(str, ids))}\n" for name, ids, i in jobs])
n_rows = 0
for name, ids, i in jobs:
    t = tensors[name]
    k = int(t.shape[0])
    want = reference_rows(t, ids)
    for kname, _ in kernel_sets:
        got = np.fromfile(f"{ops_dir}/{kname}.rows{i}.f32", dtype=np.float32)
        if not check(got.size == want.size, f"{kname}: {name}: {got.size} values from get_rows, want {want.size}"):
            continue
        got = got.reshape(want.shape)
        if not bits_equal(got, want):
            bad = np.argwhere(got.view(np.uint32) != want.view(np.uint32))
            r, c = bad[0]
            check(False, f"{kname}: get_rows {name} ({t.tensor_type.name}, k {k}): {len(bad)} values differ, first row "
                  f"{ids[r]} element {c}: {got[r, c]!r} vs gguf {want[r, c]!r}")
        n_rows += len(ids)
        # the comparison sees one flipped low bit (it compares bits, not values)
        flipped = got.copy()
        flipped.view(np.uint32)[len(ids) - 1, k - 1] ^= 1
        check(not bits_equal(flipped, want), "self-check: a flipped bit is seen")
step(f"{model}: get_rows: {n_rows} rows of {len(jobs)} tensors x {len(kernel_sets)} kernel sets ({', '.join(sorted(names_of_type))}) bit-exact")

# ---------------------------------------------------------------- MUL_MAT
U = 2.0**-24  # fp32 unit roundoff
U64 = 2.0**-53
ETA = 2.0**-150  # half the smallest fp32 subnormal


def gamma(n, u=U):
    return n * u / (1 - n * u)


def activations(k, m):
    """Rows of x: 0 and 4+ N(0, 1); 1 integers times 2^-6 with a +-127 in every block (they quantize
    exactly: d = 2^-6); 2 N(0, 1) times 2^e per block, e in -20..8; 3 mostly zero, whole zero blocks."""
    x = rng.standard_normal((m, k)).astype(np.float32)
    nb = k // 32
    q = rng.integers(-127, 128, (nb, 32))
    q[np.arange(nb), rng.integers(0, 32, nb)] = rng.choice([-127, 127], nb)
    x[1] = (q.reshape(k) * 2.0**-6).astype(np.float32)
    x[2] *= np.repeat(2.0 ** rng.integers(-20, 9, nb), 32).astype(np.float32)
    x[3] *= (rng.random(k) < 0.05).astype(np.float32)
    x[3, : 2 * 32] = 0
    return x


def quantize_activations(x):
    """docs/formats.md's activation quantizer, in fp32 (normal blocks: no block here is tiny)."""
    m, k = x.shape
    blocks = x.reshape(m, k // 32, 32)
    amax = np.abs(blocks).max(axis=2)
    d = (amax / np.float32(127)).astype(np.float32)
    check(not np.any((amax > 0) & (d <= np.float32(2.0**-128))), "no tiny activation block (their path is not emulated)")
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, np.float32(1) / d, np.float32(0)).astype(np.float32)
    q = np.clip(np.rint(blocks * inv[..., None]), -127, 127)
    return (q * d.astype(np.float64)[..., None]).reshape(m, k), d.astype(np.float64)


def mul_bounds(w, parts, x, xq, d, tname):
    """Bounds on |y - w xq| (check 1: the exact product of the quantized activations) and on
    |y - w x| (check 2: the unquantized ones), from docs/formats.md's error bound, per output.

    There, y is within gamma_{N+1} sum|T| + (1 + gamma_N) eta sum(|isum| + |imin|) of sum T, the
    exact product of the activation blocks xq with weights w' = d sc q - dmin m computed exactly;
    N = fma steps per output (k/32 per 32-block, twice that for types with a min). Here:
    - sum|T| <= sum_l P_l |xq_l| with P_l >= |A'_l| + |B'_l|, the exact scale part A' and min part B'
      of w'_l (each T is the sum of A' xq or of B' xq over a block);
    - the gguf package's fp32 w_l rounds each product and the sum once (formats.md: "at most u
      relative per product and sum"): |w_l - w'_l| <= 3.0001 u (|A'_l| + |B'_l|). The min part B
      dequantized alone (quants zeroed) is within u |B'|, so A = w - B is within 4.0001 u (|A'| + |B'|)
      of A', and P = (|A| + |B|) / (1 - 4.0001 u) >= |A'| + |B'|;
    - |isum| and |imin| are below 2^24 (formats.md), so the eta term is at most (1 + gamma_N) eta
      (k/32) 2^25;
    - the float64 product of the reference is within gamma64_k sum |w xq|;
    - check 2 adds formats.md's activation term sum_l |w'_l| (0.5 d_b + 2.0001 u |x_l|) (|w'| <= P), and
      |xq| <= |x| + that term's e_l in the sum|T| bound.
    F32/F16 weights: |y - sum w x| <= gamma_k sum |w x| + (1 + gamma_k) k eta (no activation blocks)."""
    k = w.shape[1]
    ax = np.abs(x.astype(np.float64))
    if tname in ("F32", "F16"):
        b = (gamma(k) + gamma(k, U64)) * (np.abs(w) @ ax.T) + (1 + gamma(k)) * k * ETA
        return b, b
    nb = k // 32
    n_fma = 2 * nb if tname in MIN_QUANT_BYTES else nb
    p = (np.abs(w - parts) + np.abs(parts)) / (1 - 4.0001 * U)
    tiny = (1 + gamma(n_fma)) * ETA * nb * 2.0**25
    b1 = (gamma(n_fma + 1) + 3.0001 * U + gamma(k, U64)) * (p @ np.abs(xq).T) + tiny
    e = 0.5 * np.repeat(d, 32, axis=1) + 2.0001 * U * ax
    b2 = (gamma(n_fma + 1) * (p @ (ax + e).T) + p @ e.T + 3.0001 * U * (p @ ax.T) + gamma(k, U64) * (np.abs(w) @ ax.T)
          + tiny)
    return b1, b2


def min_parts(t, sel):
    """The min part of each dequantized weight (0 for types without one): the rows dequantized with
    their quants zeroed."""
    tname, k = t.tensor_type.name, int(t.shape[0])
    if tname not in MIN_QUANT_BYTES:
        return np.zeros((len(sel), k))
    lo, hi = MIN_QUANT_BYTES[tname]
    raw = np.array(t.data[sel])
    blocks = raw.reshape(len(sel), -1, raw.shape[1] * 256 // k if tname.endswith("_K") else raw.shape[1] * 32 // k)
    blocks[:, :, lo:hi] = 0
    return dequantize(blocks.reshape(raw.shape), t.tensor_type).reshape(len(sel), k).astype(np.float64)


M = 11  # row 0 alone (m = 1: the GEMV kernels), then all 11 (the GEMM tiles and a tail)
mul_tensors = []
for tname, names in sorted(names_of_type.items()):
    others = [nm for nm in names if nm != "token_embd.weight"]
    mul_tensors.append((others or names)[0])
jobs = []
for i, name in enumerate(mul_tensors):
    x = activations(int(tensors[name].shape[0]), M)
    xfile = os.path.join(ops_dir, f"x{i}.f32")
    x.tofile(xfile)
    jobs += [(name, x[:m], xfile, f"{i}_{m}") for m in (1, M)]
for kset in kernel_sets:
    run_ops(kset, [f"mul {name} {xfile} {x.shape[0]} {ops_dir}/{kset[0]}.y{tag}.f32\n" for name, x, xfile, tag in jobs])
worst1 = worst2 = 0.0
for name, x, _, tag in jobs:
    t = tensors[name]
    tname, k, n = t.tensor_type.name, int(t.shape[0]), int(t.shape[1])
    m = x.shape[0]
    # a sample of the outputs of tall matrices (the token embedding): the first and last 1024 and 2048 others
    sel = np.arange(n) if n <= 4096 else np.unique(np.concatenate([np.arange(1024), np.arange(n - 1024, n),
                                                                     rng.choice(n, 2048, replace=False)]))
    w = dequantize(np.asarray(t.data[sel]), t.tensor_type).reshape(len(sel), k).astype(np.float64)
    check(bool(np.all(np.isfinite(w))), f"{name}: finite weights")
    parts = min_parts(t, sel)
    xq, d = quantize_activations(x) if tname not in ("F32", "F16") else (x.astype(np.float64), None)
    b1, b2 = mul_bounds(w, parts, x, xq, d, tname)
    ref1, ref2 = w @ xq.T, w @ x.astype(np.float64).T
    first = None
    for kname, _ in kernel_sets:
        y = np.fromfile(f"{ops_dir}/{kname}.y{tag}.f32", dtype=np.float32)
        if not check(y.size == n * m, f"{kname}: mul {name}: {y.size} outputs, want {n * m}"):
            continue
        # every kernel family gives the reference's bits (the project's rule), here on real weights
        if first is None:
            first = (kname, y)
        elif not bits_equal(y, first[1]):
            check(False, f"mul {name} ({tname}, m {m}): {kname} and {first[0]} differ in "
                  f"{int(np.sum(y.view(np.uint32) != first[1].view(np.uint32)))} of {y.size} outputs")
        ys = y.reshape(m, n).astype(np.float64)[:, sel].T  # (outputs, m), as the bounds
        err1, err2 = np.abs(ys - ref1), np.abs(ys - ref2)
        for label, err, b in (("w xq (quantized activations)", err1, b1), ("w x", err2, b2)):
            if not np.all(err <= b):
                i, j = np.unravel_index(np.argmax(err / b), err.shape)
                check(False, f"{kname}: mul {name} ({tname}, m {m}): |y - {label}| = {err[i, j]:.3e} > bound "
                      f"{b[i, j]:.3e} at output {sel[i]}, x row {j}")
        worst1, worst2 = max(worst1, float(np.max(err1 / b1))), max(worst2, float(np.max(err2 / b2)))
        # the tight check sees the largest term of output 0 dropped, for every x row
        for j in range(m):
            terms = np.abs(w[0] * xq[j])
            li = int(np.argmax(terms))
            if terms[li] > 0:
                check(abs(ys[0, j] - w[0, li] * xq[j, li] - ref1[0, j]) > b1[0, j],
                      f"self-check: mul {name}: dropping w[0][{li}] x[{j}][{li}] stays within the bound")
step(f"{model}: mul_mat on {', '.join(mul_tensors)} (m = 1 and {M}) within the bounds, the same bits from {len(kernel_sets)} kernel sets; largest error / bound: "
     f"{worst1:.3g} (w xq), {worst2:.3g} (w x)")

print(f"check_models: {model}: {'all checks passed' if fails == 0 else f'{fails} checks FAILED'}")
sys.exit(1 if fails else 0)
