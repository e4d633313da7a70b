#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan, clang), then the threading tests under ThreadSanitizer
# (build-tsan), then the whole suite under gcc's UndefinedBehaviorSanitizer
# (build-ubsan-gcc): each compiler's UBSan finds what the other misses (gcc's
# checks member access through misaligned pointers, as in an over-aligned
# struct from calloc, which clang's let pass).
# Any sanitizer report fails the run: UBSan is built with
# -fno-sanitize-recover=all and every *SAN_OPTIONS halts on the first error.
# Prints each stage's time.
#
# Environment:
#   CC               compiler (default clang; gcc works too)
#   QMM_CMAKE_ARGS   extra configure arguments (e.g. -DQMM_PORTABLE_ONLY=ON)
#   QMM_SAN_STAGES   stages to run (default "asan tsan ubsan-gcc")
#   QMM_TSAN_TESTS   ctest regex of the threading tests (default "^test_mul_mat$")
#   QMM_JOBS         ctest parallelism (default: nproc)
set -u
cd "$(dirname "$0")/.."

CC=${CC:-clang}
STAGES=${QMM_SAN_STAGES:-"asan tsan ubsan-gcc"}
TSAN_TESTS=${QMM_TSAN_TESTS:-'^test_mul_mat$'}
JOBS=${QMM_JOBS:-$(nproc)}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

configure() { # dir sanitizer [compiler]
    local dir=$1 san=$2 cc=${3:-$CC}
    mkdir -p "$dir"
    local args=(-S . -B "$dir" -G Ninja -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQMM_WERROR=ON
        -DQMM_SANITIZE="$san")
    # the repo's venv (scripts/setup.sh) has the gguf package the Python-fed tests need
    if [ -x .venv/bin/python ]; then
        args+=(-DPython3_EXECUTABLE="$PWD/.venv/bin/python")
    fi
    # shellcheck disable=SC2206
    args+=(${QMM_CMAKE_ARGS:-})
    if ! cmake "${args[@]}" > "$dir/qmm-configure.log" 2>&1; then
        if grep -q "no SIMD kernel family" "$dir/qmm-configure.log"; then
            echo "run-sanitizers: no SIMD kernel family for this target yet; testing the portable build"
            cmake "${args[@]}" -DQMM_PORTABLE_ONLY=ON > "$dir/qmm-configure.log" 2>&1 || { cat "$dir/qmm-configure.log"; return 1; }
        else
            cat "$dir/qmm-configure.log"
            return 1
        fi
    fi
}

fail=0
total0=$(date +%s)
for stage in $STAGES; do
    t0=$(date +%s)
    case $stage in
    asan) dir=build-asan san="address,undefined" cc=$CC ;;
    tsan) dir=build-tsan san=thread cc=$CC ;;
    ubsan-gcc) dir=build-ubsan-gcc san=undefined cc=gcc ;;
    *)
        echo "run-sanitizers: unknown stage '$stage'"
        fail=1
        continue
        ;;
    esac
    configure "$dir" "$san" "$cc" || { fail=1; continue; }
    if ! ninja -C "$dir" > "$dir/qmm-build.log" 2>&1; then
        tail -n 40 "$dir/qmm-build.log"
        fail=1
        continue
    fi
    t1=$(date +%s)
    if [ "$stage" = tsan ]; then
        # the shorter thread sweeps (QMM_TEST_SHAPES=vl, tests/test_util.h): 1..8 threads
        # and every chunk multiplier, caps, stress and the caller's pool, without the
        # 13..512-thread runs, which under TSan took 220 of 270 s and race nothing new
        # (a race needs two threads; TSan sees it by happens-before, not by timing)
        (cd "$dir" && QMM_TEST_SHAPES=vl ctest --output-on-failure -j "$JOBS" -R "$TSAN_TESTS") > "$dir/qmm-test.log" 2>&1
    elif [ "$stage" = ubsan-gcc ]; then
        # every test, with the short sweeps of the thread-count and MoE tests (QMM_TEST_SHAPES=vl,
        # QMM_TEST_QUICK): what gcc's UBSan adds is in the library's glue and the tools, which the
        # short sweeps run whole; the kernels' arithmetic is clang's asan stage's (full sweeps)
        (cd "$dir" && QMM_TEST_SHAPES=vl QMM_TEST_QUICK=1 ctest --output-on-failure -j "$JOBS") > "$dir/qmm-test.log" 2>&1
    else
        (cd "$dir" && ctest --output-on-failure -j "$JOBS") > "$dir/qmm-test.log" 2>&1
    fi
    rc=$?
    t2=$(date +%s)
    # a report that did not fail its test (it would have: halt_on_error) still fails the stage
    if grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:' "$dir/qmm-test.log"; then
        rc=1
    fi
    summary=$(grep -E 'tests passed|tests failed' "$dir/qmm-test.log" | tail -n 1)
    if [ "$rc" -ne 0 ]; then
        echo "FAIL $stage: build $((t1 - t0)) s, tests $((t2 - t1)) s: $summary (log $dir/qmm-test.log)"
        grep -E -A 3 'ERROR: |WARNING: ThreadSanitizer|runtime error:|\*\*\*Failed|Failed  ' "$dir/qmm-test.log" | head -n 40 | sed 's/^/    /'
        fail=1
    else
        echo "ok   $stage: build $((t1 - t0)) s, tests $((t2 - t1)) s: $summary"
    fi
done
echo "run-sanitizers: $([ $fail -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - total0 )) s"
exit $fail
