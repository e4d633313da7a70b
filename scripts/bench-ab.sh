#!/usr/bin/env bash
# Before / after: `qmatmul bench` of a base revision against the working tree, alternated (A B, then B A,
# ...) so drift hits both alike; prints a markdown table of each configuration's median tokens/s over the
# rounds (decode and prefill of the preset's layer) and the after / before ratio, with the spread.
#   scripts/bench-ab.sh BASE_REV [ROUNDS]
#   QMM_AB_CONFIGS="Q4_0 Q4_K Q4_0:avx512f"  what to run: TYPE, or TYPE:FEATURES to hide (as QMM_HIDE_FEATURES;
#                                             avx512f hides the AVX-512 families, so the AVX2 ones run)
#   QMM_AB_TIME=0.3                           the bench's --time (its budgets scaled)
# Measure on a quiet machine: it refuses to start at a 1-minute load above 1.5 (the bench's own two threads
# then keep the load near 2 while it runs).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 BASE_REV [ROUNDS]" >&2; exit 2; }
base=$(git rev-parse --short "$1")
rounds=${2:-2}
configs=${QMM_AB_CONFIGS:-"Q4_0 Q8_0 Q4_K Q6_K IQ4_XS F16 Q4_0:avx512f Q4_K:avx512f Q6_K:avx512f"}
time_scale=${QMM_AB_TIME:-0.3}
PY="$PWD/.venv/bin/python"
[ -x "$PY" ] || PY=python3
ab=build-ab
mkdir -p "$ab"
if [ ! -d "$ab/base-$base" ]; then
  git worktree add --detach "$ab/base-$base" "$base" >/dev/null 2>&1
fi
build() { # source_dir build_dir
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQMM_BUILD_TESTS=OFF >/dev/null
  cmake --build "$2" --target qmatmul_tool >/dev/null
}
build "$ab/base-$base" "$ab/base-$base/build"
build . "$ab/head"
A="$ab/base-$base/build/tools/qmatmul/qmatmul" B="$ab/head/tools/qmatmul/qmatmul"
# the builds (or a bench just before) lift the 1-minute load: let it decay, up to 5 minutes
for _ in $(seq 60); do
  awk -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { exit !(l > 1.2) }' || break
  sleep 5
done
load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" 'BEGIN { exit !(l > 1.5) }'; then
  echo "bench-ab: the 1-minute load is $load (> 1.5): measure on a quiet machine" >&2
  exit 1
fi
out="$ab/runs-$base-$(git rev-parse --short HEAD)"
rm -rf "$out" && mkdir -p "$out"
echo "bench-ab: $base (A) against the working tree at $(git rev-parse --short HEAD) (B), $rounds rounds, load $load" >&2
for r in $(seq "$rounds"); do
  for c in $configs; do
    t=${c%%:*} hide=""
    [ "$c" != "$t" ] && hide=${c#*:}
    order="A B"
    [ $((r % 2)) -eq 0 ] && order="B A"
    for side in $order; do
      bin=$A
      [ "$side" = B ] && bin=$B
      QMM_HIDE_FEATURES=$hide "$bin" bench --type "$t" --no-ref --quiet --time "$time_scale" \
        --json "$out/$side-${t}-${hide:-all}-$r.json" >/dev/null
    done
  done
done
"$PY" - "$out" "$base" "$(git rev-parse --short HEAD)" "$load" "$rounds" "$configs" <<'PY'
import glob, json, os, statistics, sys
out, base, head, load, rounds, configs = sys.argv[1:]
print(f"`QMM_AB_CONFIGS=\"{configs}\" scripts/bench-ab.sh {base} {rounds}`: A = {base}, B = {head}; "
      f"{rounds} alternated rounds, median [min - max] tokens/s of the Llama-3-8B layer x 32, 2 threads; load {load} at the start.\n")
print("| type | families | decode A | decode B | B / A | prefill A | prefill B | B / A |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for c in configs.split():
    t, _, hide = c.partition(":")
    row = {}
    fam = ""
    for side in "AB":
        ds, ps = [], []
        for f in sorted(glob.glob(os.path.join(out, f"{side}-{t}-{hide or 'all'}-*.json"))):
            d = json.load(open(f))
            ds.append(d["totals"]["decode_tokens_per_s"])
            ps.append(d["totals"]["prefill_tokens_per_s"])
            fam = sorted({r["kernel"] for r in d["rows"]})[0]
        row[side] = (ds, ps)
    cell = lambda v: f"{statistics.median(v):.2f} [{min(v):.2f} - {max(v):.2f}]"
    ratio = lambda a, b: f"{statistics.median(b) / statistics.median(a):.3f}"
    (da, pa), (db, pb) = row["A"], row["B"]
    print(f"| {t} | {fam} | {cell(da)} | {cell(db)} | {ratio(da, db)} | {cell(pa)} | {cell(pb)} | {ratio(pa, pb)} |")
PY
