#!/usr/bin/env python3
"""Every number the qmatmul commands parse (bench, info, inspect) is checked:
the whole string, in range. A bad one exits with status 2 and a message naming
the option, at once (before any work: a bench that starts is a failure, cut by
the timeout); good ones are accepted."""
import subprocess
import sys

exe = sys.argv[1:]  # the program, after its emulator's command when cross-compiled
fails = 0
passes = 0

BAD = [
    ("bench", "--threads", ["abc", "", "4x", " 4", "+4", "-1", "4097", "1e3", "99999999999999999999"]),
    ("bench", "--m", ["abc", "", "512x", "1", "65537", "-512", "0x10"]),
    ("bench", "--time", ["abc", "", "1x", "0", "-1", "101", "nan", "inf", "1e999", " 1"]),
    ("bench", "--llc", ["abc", "", "32M", "0", "-1", "1e9", "1099511627777", "99999999999999999999"]),
    ("info", "--threads", ["abc", "", "2x", "-1", "4097"]),
    ("inspect", "--items", ["abc", "", "8x", "-1", "99999999999"]),
    ("pack", "--threads", ["abc", "", " 2", "+2", "2x", "-1", "4097"]),
    ("run", "-t", ["abc", "", " 2", "+2", "0", "4097"]),
    ("run", "--ctx", ["", " 8", "+8", "0", "1048577"]),
]
GOOD = [  # accepted numbers: the command gets past its arguments
    (["info", "--threads", "1"], 0),
    (["info", "--threads", "0", "--json"], 0),
]


def run(args):
    try:
        p = subprocess.run([*exe, *args], capture_output=True, text=True, timeout=60)
        return p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        return None, "(timed out: the command ran instead of refusing its arguments)"


def check(cond, msg):
    global fails, passes
    if cond:
        passes += 1
    else:
        fails += 1
        print("FAIL:", msg)


for cmd, opt, values in BAD:
    for v in values:
        args = [cmd, opt, v] + {"inspect": ["missing.gguf"], "pack": ["missing.gguf", "-o", "x.qmp"],
                                 "run": ["missing.gguf", "--tokens", "1"]}.get(cmd, [])
        rc, err = run(args)
        check(rc == 2 and opt in err and "takes" in err, f"qmatmul {' '.join(args)!r}: status {rc}, stderr {err.strip()!r}")
for args, want in GOOD:
    rc, err = run(args)
    check(rc == want, f"qmatmul {' '.join(args)}: status {rc}, expected {want}: {err.strip()!r}")
print(f"{passes} passed, {fails} failed")
sys.exit(1 if fails else 0)
