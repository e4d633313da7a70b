#!/usr/bin/env bash
# qmatmul against ggml's CPU back end as Debian users get it (libggml from trixie-backports, its dynamically
# loaded CPU variant, weights in ggml's repacked buffer where it has one: bench/peer/ggml_mul_mat.c), on one
# 4096 x 4096 matrix, 2 threads, decode (m = 1, cold weights) and prefill (m = 512, or QMM_PEER_M), for issue #11's targets
# (decode >= 1.15 x ggml, prefill >= 1.5 x ggml). Both sides time the same way (the method of `qmatmul bench`:
# decode rotates through copies of the matrix totalling >= 8 x LLC and >= 256 MiB). qmatmul runs
# `qmatmul bench --model` on a GGUF file of that one matrix (bench/peer/one_matrix_gguf.py).
#
#   scripts/bench-vs-ggml.sh [ROUNDS]     (default 3; each round runs every type on both, alternating which first)
#   QMM_PEER_TYPES="Q4_K Q6_K ..."        the types (default Q4_K Q6_K Q5_0 Q4_1 Q4_0 Q8_0 F16)
#   QMM_PEER_TIME=X                       the --time of both (default 0.5)
#   QMM_PEER_K=K QMM_PEER_N=N             the matrix (default 4096 x 4096; gpt-oss's rows: QMM_PEER_K=2880 for
#                                         the 32-element block types, not IQ4_XS or the K-quants, which need k % 256 == 0)
#   QMM_PEER_M=M                          the prefill batch (default 512; issue #47 also asks for m = 32)
#   QMM_PEER_PROBE_TIME=X                 the --time of the read probes (default 0.1)
#   QMM_PEER_MAX_LOAD=L                   start every run below this 1-minute load average (waits up to 300 s)
#
# Prints a markdown table: per type the best over the rounds of each side's median time per call, GB/s of the
# GGUF weight bytes (decode) or GOP/s of 2 m n k (prefill), and ggml time / qmatmul time against the target.
# Right after each type's pair of runs, `qmatmul bench --probes` measures this machine's read limit on 2 threads
# (its streaming read probes, buffers of max(8 x LLC, 256 MiB): the weights' access pattern, from memory); the
# table shows the best of those probes per type, each side's decode GB/s as % of it, and the largest decode
# speed-up physically possible over ggml (limit / ggml's GB/s): a target above that bound cannot be met on this
# machine whatever qmatmul does, and the row says so.
# Raw results stay in build-peer/bench/. Needs root (the chroot of scripts/setup-ggml-peer.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || bash scripts/setup.sh >&2
PY="$PWD/.venv/bin/python"
rounds=${1:-3}
types=${QMM_PEER_TYPES:-Q4_K Q6_K Q5_0 Q4_1 Q4_0 Q8_0 F16}
K=${QMM_PEER_K:-4096}
N=${QMM_PEER_N:-4096}
M=${QMM_PEER_M:-512}
. scripts/lib/peer-common.sh
peer_start bench-vs-ggml bench

for t in $types; do
  "$PY" bench/peer/one_matrix_gguf.py "$res/$t.gguf" "$t" "$K" "$N"
done

llc=
run_qmm() { # type round
  echo "bench-vs-ggml: round $2: qmatmul $1 (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  "$peer_qmatmul" bench --model "$res/$1.gguf" --no-ref --threads 2 --m "$M" --time "$tscale" --json "$res/qmm-$1-$2.json" -q >/dev/null
  # the peer rotates through as many bytes as qmatmul: the same LLC size (round 1 runs qmatmul first)
  [ -n "$llc" ] || llc=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["machine"]["llc_bytes"])' \
    "$res/qmm-$1-$2.json")
}
run_ggml() { # type round
  echo "bench-vs-ggml: round $2: ggml $1 (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  bash scripts/setup-ggml-peer.sh run "$out" "$out/ggml_mul_mat" bench "$1" --k "$K" --n "$N" --m "$M" --threads 2 --time "$tscale" \
    ${llc:+--llc "$llc"} >"$res/ggml-$1-$2.jsonl"
}
# shellcheck disable=SC2086 # the types are words
peer_rounds "$rounds" $types

"$PY" - "$res" "$rounds" "$types" "$loads" "$(($(date +%s) - t0))" "$K" "$N" "$M" <<'PY'
import glob, json, os, sys, time

sys.path.insert(0, "scripts/lib")
from peer_report import READ_LIMIT_NOTE, limit_cells

res, rounds, types, loads, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), [float(x) for x in sys.argv[4].split()], sys.argv[5]
K, N, M = int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
first = json.load(open(glob.glob(os.path.join(res, "qmm-*.json"))[0]))
ggml_rows = [json.loads(l) for f in glob.glob(os.path.join(res, "ggml-*.jsonl")) for l in open(f) if l.startswith("{")]
g0 = ggml_rows[0]
print(f"Machine: {first['machine']['cpu']}, features {first['machine']['features']}, LLC {first['machine']['llc_bytes'] >> 20} MiB; "
      f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; 1-minute load average {min(loads):.1f} to {max(loads):.1f} "
      f"during the run ({secs} s){' -- LOADED: the figures are noisy' if max(loads) > 2.5 else ''}.")
print(f"ggml {g0['ggml_version']} ({g0['cpu_variant']}), 2 threads both; best of {rounds} rounds of each side's median "
      f"time per call; k = {K}, n = {N}; GB/s of the GGUF weight bytes; speed-up = ggml time / qmatmul time.")
print()
print(READ_LIMIT_NOTE)
print()
print("| type | qmatmul kernel | ggml weights | decode qmatmul ms (GB/s) | decode ggml ms (GB/s) | decode speed-up (>= 1.15) "
      "| read limit GB/s (probe, its median) | decode % of limit: qmatmul / ggml | decode speed-up bound (limit / ggml) "
      f"| prefill m={M} qmatmul ms (GOP/s) | prefill ggml ms (GOP/s) | prefill speed-up (>= 1.5) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")


for t in types:
    q = {"decode": [], "prefill": []}
    kern = "?"
    for r in range(1, rounds + 1):
        d = json.load(open(os.path.join(res, f"qmm-{t}-{r}.json")))
        for row in d["rows"]:
            q[row["phase"]].append(row["seconds"]["median"])
            kern = row["kernel"]
    g = {"decode": [], "prefill": []}
    gbuf = {}
    for row in ggml_rows:
        if row["type"].upper() == t.upper():
            g[row["phase"]].append(row["seconds"]["median"])
            gbuf[row["phase"]] = row["weight_buffer"]
            wbytes = row["weight_bytes"]
    cells = []
    for ph, target in (("decode", 1.15), ("prefill", 1.5)):
        tq, tg = min(q[ph]), min(g[ph])
        rate = (lambda s: wbytes / s * 1e-9) if ph == "decode" else (lambda s: 2.0 * M * N * K / s * 1e-9)
        sp = tg / tq
        cells += [f"{tq * 1e3:.3f} ({rate(tq):.1f})", f"{tg * 1e3:.3f} ({rate(tg):.1f})",
                  f"{sp:.2f} {'met' if sp >= target else 'not met'}"]
        if ph == "decode":
            cells += limit_cells(res, t, rounds, rate(tq), rate(tg), target)
    bufs = "/".join(sorted(set(gbuf.values())))
    print(f"| {t} | `{kern}` | {bufs} | " + " | ".join(cells) + " |")
PY
