#!/usr/bin/env bash
# Records one `qmatmul bench` run for docs/performance.md: runs the bench with --json, then adds a
# "recorded" object (the command, date, commit, machine class, the 1-minute load before and after) and
# writes docs/perf/NAME.json; scripts/perf_page.py turns it into the page's table.
#   scripts/perf-record.sh NAME "MACHINE CLASS" [qmatmul bench arguments...]
# e.g. scripts/perf-record.sh zen4-q4_0 "AMD Zen 4 (AVX-512 VNNI)" --type Q4_0
# Measure on a quiet machine: a run whose load before exceeds 1.5 is refused.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 NAME 'MACHINE CLASS' [bench arguments...]" >&2; exit 2; }
name=$1 class=$2
shift 2
PY="$PWD/.venv/bin/python"
[ -x "$PY" ] || PY=python3
build=build-perf
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQMM_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" --target qmatmul_tool >/dev/null
# a bench just before (ours, of 2 threads) lifts the 1-minute load past 1.5: let it decay, up to 3 minutes
for _ in $(seq 36); do
  awk -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { exit !(l > 1.2) }' || break
  sleep 5
done
before=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$before" 'BEGIN { exit !(l > 1.5) }'; then
  echo "perf-record: the 1-minute load is $before (> 1.5): not a figure; measure on a quiet machine" >&2
  exit 1
fi
tmp=$(mktemp)
"$build/tools/qmatmul/qmatmul" bench "$@" --quiet --json "$tmp"
after=$(cut -d' ' -f1 /proc/loadavg)
mkdir -p docs/perf
"$PY" - "$tmp" "docs/perf/$name.json" "qmatmul bench $*" "$class" "$before" "$after" "$(git rev-parse --short HEAD)" <<'EOF'
import datetime, json, sys
src, dst, command, cls, before, after, commit = sys.argv[1:]
d = json.load(open(src))
d["recorded"] = {"command": command, "machine_class": cls, "date": datetime.date.today().isoformat(), "commit": commit,
                 "load_before": before, "load_after": after}
json.dump(d, open(dst, "w"), indent=1)
open(dst, "a").write("\n")
EOF
rm -f "$tmp"
echo "perf-record: docs/perf/$name.json (load $before before, $after after)"
