#!/usr/bin/env bash
# Builds and runs every test: host builds with gcc and clang (warnings are
# errors), the portable-only build (QMM_PORTABLE_ONLY: no SIMD families; its
# tests too), the install/package check, sanitizers (ASan+UBSan, TSan), the Arm
# matrix under qemu-aarch64, bounded fuzzing, and the formatting check. Each
# stage prints its time; the last line counts the stages that passed.
# QMM_SKIP_STAGES="arm fuzz" skips stages by name (for local iteration).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
PY="$PWD/.venv/bin/python"
JOBS=$(nproc)
passed=0
failed=0
failed_names=""
t_all=$(date +%s)

stage() {
  local name=$1
  shift
  case " ${QMM_SKIP_STAGES:-} " in *" $name "*)
    echo "=== stage $name: skipped (QMM_SKIP_STAGES)"
    return 0
    ;;
  esac
  local t0
  t0=$(date +%s)
  echo "=== stage $name"
  if "$@"; then
    passed=$((passed + 1))
    echo "=== stage $name: ok in $(($(date +%s) - t0)) s"
  else
    failed=$((failed + 1))
    failed_names="$failed_names $name"
    echo "=== stage $name: FAILED in $(($(date +%s) - t0)) s"
  fi
}

host_build() { # dir compiler [extra configure arguments]
  local dir=$1 cc=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" -DQMM_WERROR=ON \
    -DPython3_EXECUTABLE="$PY" "$@" >/dev/null &&
    cmake --build "$dir" -j "$JOBS" &&
    ctest --test-dir "$dir" --output-on-failure -j "$JOBS"
}

format_check() {
  local bad
  bad=$(git ls-files '*.c' '*.h' | xargs clang-format --dry-run 2>&1 | grep -c 'warning:')
  [ "$bad" -eq 0 ] || { git ls-files '*.c' '*.h' | xargs clang-format --dry-run 2>&1 | grep 'warning:' | cut -d: -f1 | sort | uniq -c; return 1; }
}

required() { # name script [args]: a stage whose script must exist (a renamed or lost script fails CI)
  local name=$1 script=$2
  shift 2
  if [ -f "$script" ]; then stage "$name" bash "$script" "$@"; else stage "$name" missing_script "$script"; fi
}
missing_script() {
  echo "test.sh: $1 is missing: its stage cannot run" >&2
  return 1
}

stage setup bash scripts/setup.sh
stage gcc host_build build-ci-gcc gcc
stage clang host_build build-ci-clang clang
# the build a target without SIMD families gets (QMM_PORTABLE_ONLY): the tests
# must build and pass there too
stage portable host_build build-ci-portable gcc -DQMM_PORTABLE_ONLY=ON
stage install bash scripts/check-install.sh build-ci-gcc
stage format format_check
required models scripts/test-models.sh
required avx512-emu scripts/test-avx512-emu.sh
required sanitizers scripts/run-sanitizers.sh
required arm scripts/test-arm.sh
required arm-vl scripts/test-arm-vl.sh
required fuzz scripts/run-fuzzers.sh
required peer scripts/test-peer.sh
required run scripts/test-run.sh
required ggml scripts/test-ggml-plugin.sh

echo "=== all stages in $(($(date +%s) - t_all)) s${failed_names:+; failed:$failed_names}"
echo "stages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
