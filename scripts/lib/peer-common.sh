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

# peer_rounds ROUNDS CASE...: every round runs each case on both sides (odd rounds qmatmul first, even rounds ggml
# first), then its read probes; loads gets the 1-minute load average before the first case and after each.
peer_rounds() {
  local rounds=$1 r c
  shift
  loads=$(cut -d' ' -f1 /proc/loadavg)
  for r in $(seq 1 "$rounds"); do
    for c in "$@"; do
      if [ $((r % 2)) = 1 ]; then
        run_qmm "$c" "$r"
        run_ggml "$c" "$r"
      else
        run_ggml "$c" "$r"
        run_qmm "$c" "$r"
      fi
      peer_probe "$c" "$r"
      loads="$loads $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
}
