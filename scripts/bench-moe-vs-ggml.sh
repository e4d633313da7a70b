#!/usr/bin/env bash
# qmatmul's MUL_MAT_ID against ggml's (issue #16's targets: decode >= 1.15 x ggml, prefill >= 1.5 x ggml), as
# Debian users get ggml (libggml from trixie-backports, its dynamically loaded CPU variant, experts in ggml's
# CPU_REPACK buffer where it takes the MUL_MAT_ID: bench/peer/ggml_mul_mat_id.c) against qmatmul's public API
# (bench/peer/qmm_mul_mat_id.c), 2 threads each, on the expert FFN shapes of two models:
#   gpt-oss-20b-moe     32 experts, 4 per token, MXFP4, gate/up k = 2880 n = 2880, down k = 2880 n = 2880
#   qwen3-30b-a3b-moe   128 experts, 8 per token, Q4_K, gate/up k = 2048 n = 768, down k = 768 n = 2048
# gate_up: x has one row per token (shared by its experts); down: one row per chosen expert. Uniform routing.
# Both sides read the same files (bench/peer/moe_data.py: experts, x, ids) and time the same calls
# (bench/peer/peer_moe.h): decode = one token per call, rounds of tokens that choose every expert once,
# rotated over copies of the experts holding >= 8 x LLC and >= 256 MiB, so the chosen experts come from memory;
# prefill = 512 tokens in one call.
#
#   scripts/bench-moe-vs-ggml.sh [ROUNDS]   (default 3; each round runs every case on both, alternating which first)
#   QMM_MOE_PRESETS="..."                   the presets (default both)
#   QMM_MOE_TYPE=T                          one weight type for every preset instead of its own (k % block must be 0)
#   QMM_PEER_TIME=X                         the --time of both (default 0.5)
#   QMM_PEER_PROBE_TIME=X                   the --time of the read probes (default 0.1)
#   QMM_PEER_MAX_LOAD=L                     start every run below this 1-minute load average (waits up to 300 s)
#
# Prints a markdown table: per preset and matrix the best over the rounds of each side's median time per call,
# GB/s of the chosen experts' GGUF bytes (decode) or GOP/s of 2 k n u t (prefill), and ggml time / qmatmul time
# against the target; the 1-minute load average during the run, flagged when the figures are noisy. Right after
# each case's pair of runs, `qmatmul bench --probes` measures the read limit on 2 threads (streaming read probes,
# buffers > LLC); per case the table shows the best of them, each side's decode GB/s as % of it, and the largest
# decode speed-up possible over ggml (limit / ggml's GB/s), saying so where the target is above that bound. Raw JSON
# lines stay in build-peer/bench-moe/. Needs root (the chroot of scripts/setup-ggml-peer.sh); about 1 GiB of
# memory per side at a time, ~0.6 GiB of files.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || bash scripts/setup.sh >&2
PY="$PWD/.venv/bin/python"
rounds=${1:-3}
presets=${QMM_MOE_PRESETS:-gpt-oss-20b-moe qwen3-30b-a3b-moe}
. scripts/lib/peer-common.sh
peer_start bench-moe-vs-ggml bench-moe

# The LLC both sides rotate past, read here: the root has no /sys.
llc=$("$PY" -c '
import glob
v = 0
for p in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*/size"):
    s = open(p).read().strip()
    m = {"K": 1 << 10, "M": 1 << 20}.get(s[-1], 1)
    v = max(v, int(s.rstrip("KM")) * m)
print(v or 32 << 20)')

cases=
for p in $presets; do
  for m in gate_up down; do
    echo "bench-moe-vs-ggml: writing $p $m" >&2
    "$PY" bench/peer/moe_data.py bench "$res/data" "$p" "$m" ${QMM_MOE_TYPE:+"$QMM_MOE_TYPE"} >"$res/$p-$m.spec"
    cases="$cases $p-$m"
  done
done

run_qmm() { # case round
  echo "bench-moe-vs-ggml: round $2: qmatmul $1 (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  "$out/qmm_mul_mat_id" bench "$res/$1.spec" --threads 2 --time "$tscale" --llc "$llc" >"$res/qmm-$1-$2.jsonl"
}
run_ggml() { # case round
  echo "bench-moe-vs-ggml: round $2: ggml $1 (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  bash scripts/setup-ggml-peer.sh run "$out" "$out/ggml_mul_mat_id" bench "$res/$1.spec" --threads 2 --time "$tscale" \
    --llc "$llc" >"$res/ggml-$1-$2.jsonl"
}
# shellcheck disable=SC2086 # the cases are words
peer_rounds "$rounds" $cases
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')

"$PY" - "$res" "$rounds" "$cases" "$loads" "$(($(date +%s) - t0))" "$llc" "$cpu" <<'PY'
import json, os, sys, time

sys.path.insert(0, "scripts/lib")
from peer_report import READ_LIMIT_NOTE, limit_cells

res, rounds, cases, secs, llc, cpu = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[5], int(sys.argv[6]), sys.argv[7]
loads = [float(x) for x in sys.argv[4].split()]


def rows(side, case):
    out = []
    for r in range(1, rounds + 1):
        with open(os.path.join(res, f"{side}-{case}-{r}.jsonl")) as f:
            out += [json.loads(line) for line in f if line.startswith("{")]
    return out


g0 = rows("ggml", cases[0])[0]
print(f"Machine: {cpu}, {os.cpu_count()} CPUs visible, LLC {llc >> 20} MiB; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
      f"1-minute load average {min(loads):.1f} to {max(loads):.1f} during the run ({secs} s)"
      f"{' -- LOADED: the figures are noisy, do not quote them as results' if max(loads) > 2.5 else ''}.")
print(f"ggml {g0['ggml_version']} ({g0['cpu_variant']}) ggml_mul_mat_id against qmatmul qmm_mul_mat_id, 2 threads both; best of "
      f"{rounds} rounds of each side's median time per call; uniform routing; decode: 1 token, the chosen experts cold "
      f"(GB/s of their GGUF bytes); prefill: 512 tokens (GOP/s of 2 k n u t); speed-up = ggml time / qmatmul time.")
print(READ_LIMIT_NOTE)
print()
print("| preset | matrix | type | experts (used) | k | n | x rows / token | qmatmul kernel | ggml weights | decode qmatmul ms (GB/s) "
      "| decode ggml ms (GB/s) | decode speed-up (>= 1.15) | read limit GB/s (probe, its median) | decode % of limit: qmatmul / ggml "
      "| decode speed-up bound (limit / ggml) | prefill qmatmul ms (GOP/s) | prefill ggml ms (GOP/s) | prefill speed-up (>= 1.5) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")


for case in cases:
    preset, matrix = case.rsplit("-", 1)
    q, g = rows("qmm", case), rows("ggml", case)
    cells = []
    for ph, target in (("decode", 1.15), ("prefill", 1.5)):
        bq = min((x for x in q if x["phase"] == ph), key=lambda x: x["seconds"]["median"])
        bg = min((x for x in g if x["phase"] == ph), key=lambda x: x["seconds"]["median"])
        tq, tg = bq["seconds"]["median"], bg["seconds"]["median"]
        sp = tg / tq
        cells += [f"{tq * 1e3:.3f} ({bq['rate']:.1f})", f"{tg * 1e3:.3f} ({bg['rate']:.1f})",
                  f"{sp:.2f} {'met' if sp >= target else 'not met'}"]
        if ph == "decode":
            cells += limit_cells(res, case, rounds, bq["rate"], bg["rate"], target)
    bufs = "/".join(sorted({x["weight_buffer"] for x in g}))
    r0 = q[0]
    print(f"| {preset} | {matrix} | {r0['type']} | {r0['n_expert']} ({r0['n_used']}) | {r0['k']} | {r0['n']} | {r0['x_rows']} | "
          f"`{r0['kernel']}` | {bufs} | " + " | ".join(cells) + " |")
PY
