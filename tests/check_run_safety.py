#!/usr/bin/env python3
"""The qmatmul commands against what a hostile or careless user hands them
(issue 49): crafted caches and models, FIFOs, numbers a model must not carry,
files that must not be lost. Small llama models are written here with the
`gguf` package (random weights); every check runs the real command.

usage: check_run_safety.py [EMULATOR...] QMATMUL WORKDIR

- a cache whose entry has another shape than the model's tensor, under the
  model's source hash (copied from a genuine cache, header CRC recomputed):
  `verify --gguf` says it is not that model's, `run --cache` does not use it
  (it writes a good cache in its place) and gives the tokens of a run
  without a cache;
- `run --cache` over a file that is not a qmatmul cache (text, another
  GGUF model, a FIFO): refused, the file unchanged; a cache with a damaged
  blob (checksum) is not used;
- a model stored with general.alignment = 1 (tensors at odd addresses)
  packs and runs to the tokens of the aligned file (under UBSan: no
  misaligned access);
- `--ctx` beyond the machine's memory: refused with the figure, at once;
- a FIFO as any input: refused at once (never blocks);
- a rope base or RMS epsilon that is NaN, infinite, negative or a string,
  and NaN norm weights: refused naming the key or tensor; NaN logits:
  reported, the run stops, and --json is never written with a bare nan;
- control characters in keys and tensor names: escaped by inspect and pack;
- `run --json` is written whole or not at all (a file size limit makes the
  write fail: the old file stays);
- `bench --probes --json` is refused, not ignored; `pack --bench --no-write`
  on a damaged cache fails cleanly (under ASan: no leak).
"""
import json
import os
import resource
import signal
import stat
import struct
import subprocess
import sys
import zlib

import numpy as np
import gguf

Q = gguf.GGMLQuantizationType
args = sys.argv[1:]
if len(args) < 2:
    sys.exit(__doc__)
exe, work = args[:-1], args[-1]
os.makedirs(work, exist_ok=True)
fails = passes = 0


def check(cond, msg):
    global fails, passes
    if cond:
        passes += 1
    else:
        fails += 1
        print("FAIL:", msg)


def run(*a, timeout=120, limit_fsize=None):
    def pre():
        if limit_fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_fsize, limit_fsize))

    try:
        p = subprocess.run([*exe, *a], capture_output=True, text=True, timeout=timeout,
                           preexec_fn=pre if limit_fsize is not None else None)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "(timed out)"


def path(name):
    return os.path.join(work, name)


def quantized(rng, n, k, qtype):
    return gguf.quants.quantize(rng.standard_normal((n, k)).astype(np.float32), qtype)


def write_model(dest, seed=1, d=64, ff=96, heads=4, kv_heads=2, layers=2, vocab=80, key_length=None, alignment=None,
                meta=None, norm_fill=None, output_nan=False, extra_tensors=()):
    """A llama model qmatmul run takes: Q8_0 / Q4_0 / F16 matrices, F32 norms."""
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(dest, arch="llama")
    if alignment is not None:
        w.add_custom_alignment(alignment)
    w.add_block_count(layers)
    w.add_embedding_length(d)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_context_length(256)
    meta = meta or {}
    if "eps" not in meta:
        w.add_layer_norm_rms_eps(1e-5)
    for key, (kind, value) in meta.get("raw", {}).items():
        getattr(w, "add_" + kind)(key, value)
    if key_length:
        w.add_key_length(key_length)
        w.add_value_length(key_length)
    hd = key_length or d // heads
    dq, dkv = heads * hd, kv_heads * hd
    for name, data in extra_tensors:
        w.add_tensor(name, data)
    w.add_tensor("token_embd.weight", quantized(rng, vocab, d, Q.Q8_0), raw_dtype=Q.Q8_0)

    def norm(n):
        v = (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)
        if norm_fill is not None:
            v[n // 2] = norm_fill
        return v

    for i in range(layers):
        p = "blk.%d." % i
        w.add_tensor(p + "attn_norm.weight", norm(d))
        w.add_tensor(p + "attn_q.weight", quantized(rng, dq, d, Q.Q4_0), raw_dtype=Q.Q4_0)
        w.add_tensor(p + "attn_k.weight", quantized(rng, dkv, d, Q.Q4_0), raw_dtype=Q.Q4_0)
        w.add_tensor(p + "attn_v.weight", quantized(rng, dkv, d, Q.Q8_0), raw_dtype=Q.Q8_0)
        w.add_tensor(p + "attn_output.weight", (0.1 * rng.standard_normal((d, dq))).astype(np.float16))
        w.add_tensor(p + "ffn_norm.weight", norm(d))
        w.add_tensor(p + "ffn_gate.weight", quantized(rng, ff, d, Q.Q4_0), raw_dtype=Q.Q4_0)
        w.add_tensor(p + "ffn_up.weight", quantized(rng, ff, d, Q.Q8_0), raw_dtype=Q.Q8_0)
        w.add_tensor(p + "ffn_down.weight", quantized(rng, d, ff, Q.Q4_0), raw_dtype=Q.Q4_0)
    w.add_tensor("output_norm.weight", norm(d))
    out = rng.standard_normal((vocab, d)).astype(np.float32)
    if output_nan:
        out[3, 5] = np.nan
    w.add_tensor("output.weight", out)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return dest


TOKENS = "1,5,9,20,33,7"


def tokens_of(model, *extra):
    rc, out, err = run("run", model, "--tokens", TOKENS, "-n", "6", "-t", "2", *extra)
    return rc, out.strip(), err


model = write_model(path("m.gguf"))
rc, ref_tokens, err = tokens_of(model)
check(rc == 0 and ref_tokens, f"run of the test model: {rc} {err}")

# ------------------------------------------------ 1. a cache forged to another shape
other = write_model(path("wide.gguf"), seed=2, d=128, ff=96, heads=4, kv_heads=2)  # attn_q [128, 128]
good_qmp, wide_qmp = path("m.qmp"), path("wide.qmp")
for g, q in ((model, good_qmp), (other, wide_qmp)):
    rc, _, err = run("pack", g, "-o", q, "--quiet")
    check(rc == 0, f"pack {g}: {rc} {err}")
genuine = open(good_qmp, "rb").read()
forged = bytearray(open(wide_qmp, "rb").read())
forged[24:32] = genuine[24:32]  # the model's source hash
forged[252:256] = b"\0\0\0\0"
forged[252:256] = struct.pack("<I", zlib.crc32(bytes(forged[:256])))
forged_path = path("forged.qmp")
open(forged_path, "wb").write(forged)
rc, out, err = run("verify", forged_path, "--gguf", model)
check(rc == 3 and "OK" not in out and "attn" in err, f"verify of a forged cache: {rc} {out!r} {err!r}")
rc, out, err = run("verify", good_qmp, "--gguf", model)
check(rc == 0, f"verify of the genuine cache: {rc} {err}")
rc, toks, err = tokens_of(model, "--cache", forged_path)
check(rc == 0 and toks == ref_tokens, f"run with the forged cache: {rc} {toks!r} vs {ref_tokens!r} {err[-300:]!r}")
rc, _, err = run("verify", forged_path, "--gguf", model)
check(rc == 0, f"the forged cache was not replaced by a good one: {rc} {err}")

# ------------------------------------------------ 2. files that are not caches are never replaced
text = path("notes.txt")
open(text, "w").write("my notes\n")
for victim in (text, other):
    before = open(victim, "rb").read()
    rc, _, err = tokens_of(model, "--cache", victim)
    check(rc not in (0, None) and "refusing" in err, f"run --cache {victim}: {rc} {err[-200:]!r}")
    check(open(victim, "rb").read() == before, f"run --cache overwrote {victim}")
# a cache of another model (or a damaged one) is a cache: rewritten
stale = path("stale.qmp")
open(stale, "wb").write(open(wide_qmp, "rb").read())
rc, toks, err = tokens_of(model, "--cache", stale)
check(rc == 0 and toks == ref_tokens, f"run --cache over another model's cache: {rc} {err[-200:]!r}")

# ------------------------------------------------ 9. a damaged blob is not used
damaged = path("damaged.qmp")
blob = bytearray(genuine)
size = len(blob)
blob[size - 4096:size - 64] = b"\x7f" * (4096 - 64)  # inside the last blob: its checksum no longer matches
open(damaged, "wb").write(blob)
rc, toks, err = tokens_of(model, "--cache", damaged)
check(rc == 0 and toks == ref_tokens and "checksum" in err, f"run --cache with a damaged blob: {rc} {toks!r} {err[-300:]!r}")
rc, _, err = run("verify", damaged, "--gguf", model)
check(rc == 0, f"the damaged cache was not rewritten: {rc} {err}")
# pack --bench --no-write on a damaged cache: a clean failure (ASan: no leak)
open(damaged, "wb").write(blob)
rc, _, err = run("pack", model, "-o", damaged, "--bench", "--no-write", "--quiet")
check(rc in (0, 1), f"pack --bench --no-write on a damaged cache: {rc} {err[-200:]!r}")
open(damaged, "wb").write(forged)
rc, _, err = run("pack", model, "-o", damaged, "--bench", "--no-write", "--quiet")
check(rc == 1, f"pack --bench --no-write on a forged cache: {rc} {err[-200:]!r}")
rc, _, err = run("pack", model, "-o", path("missing.qmp"), "--bench", "--no-write", "--quiet")  # the open fails
check(rc == 1 and "missing.qmp" in err, f"pack --bench --no-write of a missing cache: {rc} {err[-200:]!r}")

# ------------------------------------------------ 3. tensors at odd addresses
odd = write_model(path("odd.gguf"), alignment=1, extra_tensors=[("pad.bytes", np.zeros(3, dtype=np.int8))])
r = gguf.GGUFReader(odd)
offsets = [t.data_offset for t in r.tensors if t.name.endswith(".weight")]
check(any(o % 2 for o in offsets), f"the alignment-1 model has no odd tensor offset: {offsets[:6]}")
rc, toks, err = tokens_of(odd)
check(rc == 0 and toks == ref_tokens, f"run of the alignment-1 model: {rc} {toks!r} {err[-300:]!r}")
rc, _, err = run("pack", odd, "-o", path("odd.qmp"), "--quiet")
check(rc == 0, f"pack of the alignment-1 model: {rc} {err[-300:]!r}")

# ------------------------------------------------ 5. a context beyond the machine's memory
big_kv = write_model(path("bigkv.gguf"), d=64, heads=8, kv_heads=8, key_length=1024, layers=2, ff=64)
rc, _, err = run("run", big_kv, "--tokens", "1,2", "-n", "1", "--ctx", str(1 << 20), timeout=30)
check(rc == 1 and "GB" in err and "--ctx" in err, f"--ctx 2^20 with 68 GB of KV cache: {rc} {err[-300:]!r}")

# ------------------------------------------------ 7. FIFOs never block
fifo = path("pipe")
if os.path.exists(fifo):
    os.unlink(fifo)
os.mkfifo(fifo)
for a in (("run", fifo, "--tokens", "1"), ("run", model, "--tokens", "1", "--cache", fifo), ("inspect", fifo),
          ("verify", fifo), ("pack", fifo, "-o", path("x.qmp")), ("pack", model, "-o", fifo),
          ("run", model, "--tokens", "1", "-n", "1", "--json", fifo)):
    rc, _, err = run(*a, timeout=20)
    check(rc not in (0, None), f"qmatmul {' '.join(a)} with a FIFO: {rc} {err[-200:]!r}")
check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")

# ------------------------------------------------ 8. numbers a model must not carry
nan = float("nan")
bad_meta = [
    ("rope_nan", {"raw": {"llama.rope.freq_base": ("float32", nan)}}, "llama.rope.freq_base"),
    ("rope_inf", {"raw": {"llama.rope.freq_base": ("float32", float("inf"))}}, "llama.rope.freq_base"),
    ("rope_neg", {"raw": {"llama.rope.freq_base": ("float32", -10000.0)}}, "llama.rope.freq_base"),
    ("rope_str", {"raw": {"llama.rope.freq_base": ("string", "10000")}}, "llama.rope.freq_base"),
    ("eps_nan", {"eps": 1, "raw": {"llama.attention.layer_norm_rms_epsilon": ("float32", nan)}},
     "layer_norm_rms_epsilon"),
    ("eps_zero", {"eps": 1, "raw": {"llama.attention.layer_norm_rms_epsilon": ("float32", 0.0)}},
     "layer_norm_rms_epsilon"),
    ("eps_neg", {"eps": 1, "raw": {"llama.attention.layer_norm_rms_epsilon": ("float32", -1e-5)}},
     "layer_norm_rms_epsilon"),
]
for name, meta, key in bad_meta:
    m = write_model(path(name + ".gguf"), meta=meta)
    rc, _, err = run("run", m, "--tokens", "1,2", "-n", "2")
    check(rc == 1 and key in err, f"{name}: {rc} {err[-200:]!r}")
m = write_model(path("norm_nan.gguf"), norm_fill=nan)
rc, _, err = run("run", m, "--tokens", "1,2", "-n", "2")
check(rc == 1 and "norm" in err and "finite" in err, f"NaN norm weight: {rc} {err[-200:]!r}")
m = write_model(path("out_nan.gguf"), output_nan=True)
js = path("nan.json")
if os.path.exists(js):
    os.unlink(js)
rc, out, err = run("run", m, "--tokens", "1,2", "-n", "4", "--json", js)
check(rc == 1 and "not finite" in err, f"NaN logits: {rc} {err[-200:]!r}")
check(not os.path.exists(js) or "nan" not in open(js).read().lower(), "a JSON file with a bare nan")

# ------------------------------------------------ 11. control characters are escaped
evil = path("evil.gguf")
w = gguf.GGUFWriter(evil, arch="llama")
w.add_string("evil.\x1b[2J.key", "value")
w.add_tensor("evil.\x1b]0;title\x07.weight", np.zeros((2, 32), dtype=np.float32))
w.add_tensor("norm.\x1b[31m", np.zeros(32, dtype=np.float32))
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
rc, out, err = run("inspect", evil)
check(rc == 0 and "\x1b" not in out + err and "\\x1b" in out, f"inspect escapes names: {rc} {out!r}")
rc, out, err = run("pack", evil, "-o", path("evil.qmp"))
check("\x1b" not in out + err and "\x07" not in out + err, f"pack escapes names: {rc} {err!r}")
rc, out, err = run("verify", path("evil.qmp"))
check("\x1b" not in out + err, f"verify escapes names: {rc} {out!r}")

# ------------------------------------------------ 12. --json whole or not at all; --probes --json
js = path("out.json")
open(js, "w").write('{"old": true}\n')
rc, out, err = run("run", model, "--tokens", TOKENS, "-n", "2", "--json", js, limit_fsize=256)  # the JSON is ~1.5 KB
check(rc == 1 and open(js).read() == '{"old": true}\n', f"--json on a full disk: {rc} {err[-200:]!r}")
check(not [f for f in os.listdir(work) if f.startswith("out.json.")], "a temporary --json file was left")
rc, out, err = run("run", model, "--tokens", TOKENS, "-n", "2", "--json", js, "--all-logits")
doc = json.load(open(js)) if rc == 0 else {}
rows = doc.get("all_logits", [])
check(rc == 0 and len(rows) == 6 and rows[-1] == doc.get("logits"), f"--all-logits: {rc} {len(rows)} rows {err[-200:]!r}")
rc, _, err = run("bench", "--probes", "--json", path("probes.json"), "--time", "0.05")
check(rc == 2 and "--json" in err and not os.path.exists(path("probes.json")), f"bench --probes --json: {rc} {err!r}")

print(f"{passes} passed, {fails} failed")
sys.exit(1 if fails else 0)
