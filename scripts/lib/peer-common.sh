# shellcheck shell=bash disable=SC2034 # the variables set here are the sourcing script's
# Sourced by scripts/bench-vs-ggml.sh and scripts/bench-moe-vs-ggml.sh: the rounds of qmatmul / ggml pairs, each
# followed by the read probes, and the load average sampled along. The caller runs peer_start, then defines
# run_qmm CASE ROUND and run_ggml CASE ROUND and runs peer_rounds. scripts/lib/peer_report.py reads what peer_probe
# writes.

# peer_start NAME SUBDIR: the settings both share (QMM_PEER_TIME, QMM_PEER_PROBE_TIME), both sides built by
# bench/peer/build.sh into out=build-peer, an empty results folder res=build-peer/SUBDIR; NAME prefixes the messages.
peer_start() {
  peer_name=$1
  tscale=${QMM_PEER_TIME:-0.5}
  ptime=${QMM_PEER_PROBE_TIME:-0.1}
  out="$PWD/build-peer"
  t0=$(date +%s)
  bash bench/peer/build.sh "$out"
  peer_qmatmul="$out/qmm/tools/qmatmul/qmatmul"
  res="$out/$2"
  rm -rf "$res"
  mkdir -p "$res"
}

# peer_probe CASE ROUND: the read limit, measured right after the case's decode pair, into $res/probe-CASE-ROUND.txt
peer_probe() {
  echo "$peer_name: round $2: read probes after $1 (load $(cut -d' ' -f1 /proc/loadavg))" >&2
  "$peer_qmatmul" bench --probes --threads 2 --time "$ptime" -q | grep -E '^ *read ' >"$res/probe-$1-$2.txt" || true
}

# peer_settle: with QMM_PEER_MAX_LOAD set, waits (up to 300 s) until the 1-minute load average is below it, so that
# every run starts on a quiet machine (a run's own two threads raise the average while it lasts).
peer_settle() {
  [ -n "${QMM_PEER_MAX_LOAD:-}" ] || return 0
  local waited=0
  while awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$QMM_PEER_MAX_LOAD" 'BEGIN { exit !(l >= m) }' && [ "$waited" -lt 300 ]; do
    sleep 5
    waited=$((waited + 5))
  done
}

# peer_rounds ROUNDS CASE...: every round runs each case on both sides (odd rounds qmatmul first, even rounds ggml
# first), then its read probes; loads gets the 1-minute load average as the first case starts (after peer_settle:
# not the data files' writing) and after each.
peer_rounds() {
  local rounds=$1 r c
  shift
  peer_settle
  loads=$(cut -d' ' -f1 /proc/loadavg)
  for r in $(seq 1 "$rounds"); do
    for c in "$@"; do
      if [ $((r % 2)) = 1 ]; then
        peer_settle
        run_qmm "$c" "$r"
        peer_settle
        run_ggml "$c" "$r"
      else
        peer_settle
        run_ggml "$c" "$r"
        peer_settle
        run_qmm "$c" "$r"
      fi
      peer_probe "$c" "$r"
      loads="$loads $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
}
