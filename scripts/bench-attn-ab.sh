#!/usr/bin/env bash
# A/B of `qmatmul bench --attn` between two builds, run back to back in
# alternation (the machine may be shared): per row, the best of the runs' min
# and the median of their medians, with the load average before each run.
# usage: scripts/bench-attn-ab.sh BASE_QMATMUL NEW_QMATMUL [rounds=3] [threads=2] [rows=1,64,512,2048] [time=0.2]
set -euo pipefail
base=$1 new=$2 rounds=${3:-3} threads=${4:-2} rows=${5:-1,64,512,2048} tscale=${6:-0.2}
out=$(mktemp -d)
for r in $(seq 1 "$rounds"); do
  for side in base new; do
    bin=$base
    [ "$side" = new ] && bin=$new
    echo "round $r $side: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    "$bin" bench --attn --attn-rows "$rows" --threads "$threads" --no-ref --time "$tscale" -q --json "$out/$side.$r.json" >/dev/null
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
runs = {s: [json.load(open(f"{out}/{s}.{r}.json")) for r in range(1, rounds + 1)] for s in ("base", "new")}
lim = runs["base"][0]["limits"]
print(f"{'row':40s} {'base min':>9s} {'new min':>9s} {'base med':>9s} {'new med':>9s}  (ms; rounds {rounds})")
for i, row in enumerate(runs["base"][0]["rows"]):
    b = [x["rows"][i]["seconds"] for x in runs["base"]]
    n = [x["rows"][i]["seconds"] for x in runs["new"]]
    bm, nm = min(s["min"] for s in b) * 1e3, min(s["min"] for s in n) * 1e3
    bd, nd = statistics.median(s["median"] for s in b) * 1e3, statistics.median(s["median"] for s in n) * 1e3
    print(f"{row['matrix']:40s} {bm:9.3f} {nm:9.3f} {bd:9.3f} {nd:9.3f}  min x{bm / nm:.2f}")
PY
rm -rf "$out"
