#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, -fsanitize=fuzzer,address,undefined)
# and runs each for a bounded time on a scratch copy of its seed corpus
# (fuzz/corpus/<target>/ is only read). Exits non-zero on any crash, leak,
# timeout, out-of-memory or sanitizer report; the reproducer is kept in
# $QMM_FUZZ_OUT/<target>/ (crash-*, leak-*, timeout-*, oom-*).
#
# Environment:
#   QMM_FUZZ_SECONDS  run time per target (default 60)
#   QMM_FUZZ_JOBS     targets run at once (default: one per core; each target is one process)
#   QMM_FUZZ_TARGETS  which targets (default: all five)
#   QMM_FUZZ_BUILD    build directory (default build-fuzz)
#   QMM_FUZZ_OUT      logs, scratch corpora, findings (default $QMM_FUZZ_BUILD/fuzz-runs)
#   QMM_CMAKE_ARGS    extra configure arguments (e.g. -DQMM_PORTABLE_ONLY=ON)
#   CC                compiler (default clang; libFuzzer needs clang)
set -u
cd "$(dirname "$0")/.."

SECS=${QMM_FUZZ_SECONDS:-60}
JOBS=${QMM_FUZZ_JOBS:-$(nproc)}
TARGETS=${QMM_FUZZ_TARGETS:-"fuzz_gguf fuzz_blob fuzz_cache fuzz_mul_mat_args fuzz_run_model"}
BUILD=${QMM_FUZZ_BUILD:-build-fuzz}
OUT=${QMM_FUZZ_OUT:-$BUILD/fuzz-runs}
CC=${CC:-clang}

configure() {
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQMM_FUZZ=ON \
        -DQMM_BUILD_TESTS=OFF -DQMM_BUILD_TOOLS=OFF -DQMM_WERROR=ON ${QMM_CMAKE_ARGS:-} "$@" > "$BUILD/qmm-configure.log" 2>&1
}
t0=$(date +%s)
mkdir -p "$BUILD"
if ! configure; then
    if grep -q "no SIMD kernel family" "$BUILD/qmm-configure.log"; then
        echo "run-fuzzers: no SIMD kernel family for this target yet; fuzzing the portable build"
        configure -DQMM_PORTABLE_ONLY=ON || { cat "$BUILD/qmm-configure.log"; exit 1; }
    else
        cat "$BUILD/qmm-configure.log"
        exit 1
    fi
fi
# shellcheck disable=SC2086
ninja -C "$BUILD" $TARGETS > "$BUILD/qmm-build.log" 2>&1 || { tail -n 50 "$BUILD/qmm-build.log"; exit 1; }
echo "run-fuzzers: built $TARGETS in $(( $(date +%s) - t0 )) s; ${SECS} s per target, $JOBS at a time"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

run_one() {
    local t=$1 dir="$OUT/$1"
    rm -rf "$dir"
    mkdir -p "$dir/corpus"
    local start
    start=$(date +%s)
    "$BUILD/fuzz/$t" -max_total_time="$SECS" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
        -artifact_prefix="$dir/" "$dir/corpus" "fuzz/corpus/$t" > "$dir.log" 2>&1
    local rc=$?
    local runs
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir.log" | grep -o '[0-9]*$' | tail -n 1)
    local cov
    cov=$(grep -E '^#[0-9]+' "$dir.log" | tail -n 1 | grep -o 'cov: [0-9]*' || true)
    local found
    found=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) | wc -l)
    if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ] || grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)|runtime error:' "$dir.log"; then
        echo "FAIL $t: exit $rc after $(( $(date +%s) - start )) s, ${runs:-?} runs, $found finding(s); log $dir.log"
        grep -E -m 5 'ERROR:|runtime error:|SUMMARY:|Test unit written' "$dir.log" | sed 's/^/    /'
        return 1
    fi
    echo "ok   $t: $(( $(date +%s) - start )) s, ${runs:-?} runs, ${cov:-cov: ?}, corpus $(ls "$dir/corpus" | wc -l) new inputs"
    return 0
}

mkdir -p "$OUT"
fail=0
pids=()
names=()
for t in $TARGETS; do
    run_one "$t" &
    pids+=($!)
    names+=("$t")
    if [ "${#pids[@]}" -ge "$JOBS" ]; then
        wait "${pids[0]}" || fail=1
        pids=("${pids[@]:1}")
    fi
done
for p in "${pids[@]}"; do
    wait "$p" || fail=1
done
echo "run-fuzzers: $([ $fail -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - t0 )) s"
exit $fail
