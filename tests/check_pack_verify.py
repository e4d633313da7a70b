#!/usr/bin/env python3
"""Checks `qmatmul pack` and `qmatmul verify` on GGUF files written by the gguf
package (cache_gguf_gen.py): a fresh cache verifies (exit 0) and names the
model; a flipped byte anywhere (header, index, padding, every blob), a
truncation, trailing bytes and a foreign file exit 1 with a message; a cache
checked against another model's GGUF exits 3.

usage: check_pack_verify.py [EMULATOR...] QMATMUL_EXE GGUF_DIR WORK_DIR"""
import os
import random
import subprocess
import sys

exe, gdir, work = sys.argv[1:-2], sys.argv[-2], sys.argv[-1]  # exe: [emulator...] program
os.makedirs(work, exist_ok=True)
fails = 0


def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", msg)


def run(*args):
    return subprocess.run([*exe, *args], capture_output=True, text=True)


ga, gb = os.path.join(gdir, "model_a.gguf"), os.path.join(gdir, "model_b.gguf")
qmp = os.path.join(work, "a.qmp")
r = run("pack", ga, "-o", qmp, "--quiet")
check(r.returncode == 0 and "16 weights" in r.stdout, f"pack: {r.returncode} {r.stdout} {r.stderr}")
r = run("verify", qmp, "--gguf", ga)
check(r.returncode == 0 and "OK" in r.stdout, f"verify fresh: {r.returncode} {r.stdout} {r.stderr}")
r = run("verify", qmp, "--gguf", gb)
check(r.returncode == 3 and "another model" in r.stderr, f"verify other model: {r.returncode} {r.stderr}")
check(not [f for f in os.listdir(work) if ".tmp." in f], "no temporary files left")

data = open(qmp, "rb").read()
bad = os.path.join(work, "bad.qmp")


def verify_bytes(b):
    open(bad, "wb").write(b)
    return run("verify", bad)


# flipped bytes: every 13th of the header and index page, then samples over the file (test_cache flips every byte)
rng = random.Random(7)
positions = list(range(0, 4096, 13)) + rng.sample(range(4096, len(data)), 120) + [len(data) - 1]
undetected = []
for p in positions:
    b = bytearray(data)
    b[p] ^= 1 << rng.randrange(8)
    r = verify_bytes(bytes(b))
    if r.returncode != 1 or not r.stderr.strip():
        undetected.append(p)
check(not undetected, f"{len(undetected)} flipped bytes not reported with exit 1: {undetected[:10]}")
r = verify_bytes(data[: len(data) - 1000])
check(r.returncode == 1 and "truncated" in r.stderr, f"truncation: {r.returncode} {r.stderr}")
r = verify_bytes(data + b"\0")
check(r.returncode == 1 and "after its end" in r.stderr, f"trailing byte: {r.returncode} {r.stderr}")
r = verify_bytes(open(ga, "rb").read())
check(r.returncode == 1 and "not a qmatmul cache" in r.stderr, f"foreign file: {r.returncode} {r.stderr}")
r = run("verify", os.path.join(work, "missing.qmp"))
check(r.returncode == 1, f"missing file: {r.returncode}")
r = run("verify")
check(r.returncode == 2, f"usage: {r.returncode}")
r = run("pack", os.path.join(work, "missing.gguf"), "-o", os.path.join(work, "x.qmp"))
check(r.returncode == 1 and not os.path.exists(os.path.join(work, "x.qmp")), f"pack of a missing file: {r.returncode}")

print(f"{len(positions)} flipped-byte files checked; {'FAILED' if fails else 'ok'}")
sys.exit(1 if fails else 0)
