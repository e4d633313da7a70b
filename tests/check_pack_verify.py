#!/usr/bin/env python3
"""Checks `qmatmul pack` and `qmatmul verify` on GGUF files written by the gguf
package (cache_gguf_gen.py): a fresh cache verifies (exit 0) and names the
model; a flipped byte anywhere (header, index, padding, every blob), a
truncation, trailing bytes and a foreign file exit 1 with a message; a cache
checked against another model's GGUF exits 3. pack refuses to write over its
own GGUF (also through a hard or symbolic link) or onto a FIFO or directory,
removes the temporaries of killed writers but not a live (locked) one, and
skips (and names) zero-size and over-long-named matrices.

usage: check_pack_verify.py [EMULATOR...] QMATMUL_EXE GGUF_DIR WORK_DIR"""
import fcntl
import hashlib
import os
import random
import shutil
import stat
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
check(r.returncode == 0 and "18 weights" in r.stdout, f"pack: {r.returncode} {r.stdout} {r.stderr}")
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


# the output is the source: refused (by file identity), the model untouched
model = os.path.join(work, "model.gguf")
shutil.copyfile(ga, model)
digest = hashlib.sha256(open(model, "rb").read()).hexdigest()
hard, sym = os.path.join(work, "hard.qmp"), os.path.join(work, "sym.qmp")
for p in (hard, sym):
    if os.path.lexists(p):
        os.unlink(p)
os.link(model, hard)
os.symlink("model.gguf", sym)
for out in (model, hard, sym, os.path.join(work, ".", "model.gguf")):
    r = run("pack", model, "-o", out, "--quiet")
    check(r.returncode == 1 and "source GGUF" in r.stderr, f"pack -o {out} (the source): {r.returncode} {r.stderr}")
check(hashlib.sha256(open(model, "rb").read()).hexdigest() == digest, "the source GGUF was modified")
check(os.path.islink(sym) and os.stat(hard).st_ino == os.stat(model).st_ino, "the links were replaced")

# only a new path or a regular file is written: a FIFO and a directory are refused, before any byte
fifo, sub = os.path.join(work, "fifo.qmp"), os.path.join(work, "dir.qmp")
if os.path.lexists(fifo):
    os.unlink(fifo)
os.mkfifo(fifo)
os.makedirs(sub, exist_ok=True)
for out, kind in ((fifo, "FIFO"), (sub, "directory")):
    r = run("pack", ga, "-o", out, "--quiet")
    check(r.returncode == 1 and kind in r.stderr, f"pack -o {kind}: {r.returncode} {r.stderr}")
check(stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.path.isdir(sub), "the FIFO or directory was replaced")
check(not [f for f in os.listdir(work) if ".tmp." in f], "temporary files left by refused writes")

# temporaries: a stale one (its writer killed: no lock) is removed by the next write, a live (locked) one is kept
stale = qmp + ".tmp.999999.0"
open(stale, "wb").write(b"QMM~TEMP" + b"\0" * 100000)  # the library's marker (src/io/atomic_file.h)
users = qmp + ".tmp.999999.1"  # a user's file of that name, without the marker: kept
open(users, "wb").write(b"user data")
live = qmp + ".tmp.%d.5" % os.getpid()
lf = open(live, "wb")
fcntl.flock(lf, fcntl.LOCK_EX | fcntl.LOCK_NB)
r = run("pack", ga, "-o", qmp, "--quiet")
check(r.returncode == 0, f"pack with temporaries around: {r.returncode} {r.stderr}")
check(not os.path.exists(stale), "the stale temporary of a killed writer is still there")
check(os.path.exists(live), "the locked temporary of a live writer was removed")
check(os.path.exists(users), "a user's file named like a temporary (no marker) was removed")
os.unlink(users)
lf.close()
os.unlink(live)

# zero-size and over-long-named matrices: skipped and named, the rest packs; nothing to pack: exit 1, no file
odd = os.path.join(work, "odd.qmp")
r = run("pack", os.path.join(gdir, "odd_some.gguf"), "-o", odd, "--quiet")
check(r.returncode == 0 and "2 weights" in r.stdout, f"pack odd_some: {r.returncode} {r.stdout} {r.stderr}")
check("empty.weight" in r.stderr and "zero-size" in r.stderr and "1100 bytes" in r.stderr,
      f"skipped tensors named: {r.stderr}")
r = run("verify", odd)
check(r.returncode == 0 and "2 tensors" in r.stdout, f"verify odd: {r.returncode} {r.stdout} {r.stderr}")
none = os.path.join(work, "none.qmp")
r = run("pack", os.path.join(gdir, "odd_none.gguf"), "-o", none, "--quiet")
check(r.returncode == 1 and "nothing" in r.stderr and "empty.weight" in r.stderr and not os.path.exists(none),
      f"pack odd_none: {r.returncode} {r.stderr}")

print(f"{len(positions)} flipped-byte files checked; {'FAILED' if fails else 'ok'}")
sys.exit(1 if fails else 0)
