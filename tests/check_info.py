#!/usr/bin/env python3
"""Checks `qmatmul info` (text and --json): one line per weight type starting
with the type's name, the JSON agrees with the text, every selected family's
required features are present, and on x86 Linux the detected features agree
with the kernel's /proc/cpuinfo flags."""
import json
import platform
import subprocess
import sys

exe = sys.argv[1:]  # the program, after its emulator's command when cross-compiled
text = subprocess.run([*exe, "info"], check=True, capture_output=True, text=True).stdout
js = json.loads(subprocess.run([*exe, "info", "--json"], check=True, capture_output=True, text=True).stdout)
fails = 0


def check(cond, msg):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", msg)


lines = text.splitlines()
for t in ("F32", "F16", "Q4_0", "Q8_0"):
    rows = [l for l in lines if l.startswith(t + ":")]
    check(len(rows) == 1, f"one line starting with {t}: in\n{text}")
    if rows:
        check(js["chains"][t]["primary"] in rows[0], f"text and JSON agree on {t}")
feats = set(js["cpu"]["features"])
check(js["threads"] >= 1, "threads")
if platform.machine() == "x86_64" and js["cpu"]["arch"] == "x86_64":
    flags = set()
    for l in open("/proc/cpuinfo"):
        if l.startswith("flags"):
            flags = set(l.split(":", 1)[1].split())
            break
    mapping = {"avx2": "avx2", "fma": "fma", "f16c": "f16c", "avx512f": "avx512f", "avx512bw": "avx512bw",
               "avx512vl": "avx512vl", "avx512_vnni": "avx512_vnni", "avx512_bf16": "avx512_bf16", "avx_vnni": "avx_vnni",
               "amx_int8": "amx_int8"}
    for ours, linux in mapping.items():
        check((ours in feats) == (linux in flags), f"feature {ours}: qmatmul {'has' if ours in feats else 'lacks'} it, "
                                                   f"/proc/cpuinfo {'has' if linux in flags else 'lacks'} it")
print(text)
print(f"{0 if fails else 1} passed, {fails} failed")
sys.exit(1 if fails else 0)
