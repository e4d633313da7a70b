#!/usr/bin/env bash
# The vector lengths the Arm matrix (scripts/test-arm.sh) does not reach: the
# kernel oracle tests (test_kernels, test_kernel_edges) under qemu-aarch64 with
# SVE at 128/256/2048 bits and the SME streaming length at 128/512/1024/2048
# bits, and SME without SVE at SVL 512 (Apple M4's shape). The SVE and SME
# families are vector-length agnostic and read the same packed blob at every
# length: this is where that is checked. Only they run here
# (QMM_TEST_KERNELS="sve_,sme": NEON and the reference do not depend on the
# vector length, and scripts/test-arm.sh runs them on every CPU setting), and
# test_kernels on the shapes a vector length can change (QMM_TEST_SHAPES=vl: k
# up to 256; the long-k sweeps run in scripts/test-arm.sh at the default lengths).
# test_kernel_edges (subnormal, huge, inf, NaN values: per-lane arithmetic that a
# vector length does not change, only how lanes are chunked, which test_kernels
# covers) runs at the first setting only, the 128-bit one with the most chunks
# per panel; scripts/test-arm.sh runs it on every setting at the default lengths.
# Prints one line per CPU setting and "N passed, N failed" (settings) at the end.
#   QMM_ARM_BUILD=dir   the clang aarch64 build (default build-arm; configured
#                       and built here when it has no test_kernels yet)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${QMM_ARM_BUILD:-build-arm}
CPUS=(
    "max,sve-default-vector-length=16,sme-default-vector-length=16"
    "max,sve-default-vector-length=32,sme-default-vector-length=64"
    "max,sve-default-vector-length=256,sme-default-vector-length=256"
    "max,sme-default-vector-length=128"
    "max,sve=off,sme-default-vector-length=64"
)
if [ ! -x "$BUILD/tests/test_kernels" ] || [ ! -x "$BUILD/tests/test_kernel_edges" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQMM_WERROR=ON \
        -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchain-aarch64-clang.cmake" >/dev/null &&
        cmake --build "$BUILD" -j "$(nproc)" >/dev/null || { echo "aarch64 build failed"; exit 1; }
fi
QEMU=$(command -v qemu-aarch64) || { echo "no qemu-aarch64"; exit 1; }
# One CPU setting per core at a time (each is one single-threaded qemu process at a time), printed in order.
run_cpu() { # cpu [edges]: its report on stdout, exit 0 if the oracles passed
    local cpu=$1 t0 ok=1 out last fams tests=test_kernels
    [ "${2:-}" = edges ] && tests="test_kernels test_kernel_edges"
    t0=$(date +%s)
    for t in $tests; do
        # the wrapper ctest uses: the cross sysroot's own libc (never a multiarch libc6:arm64 of another build)
        out=$(QMM_TEST_KERNELS="sve_,sme" QMM_TEST_SHAPES=vl QMM_QEMU_CPU=$cpu "$ROOT/cmake/qemu-aarch64-run.sh" "$QEMU" /usr/aarch64-linux-gnu max "$BUILD/tests/$t" 2>&1) || ok=0
        last=$(echo "$out" | tail -n 1)
        fams=$(echo "$out" | awk '/^ok /{printf "%s ", $2}')
        echo "  $cpu $t: $last"
        [ "$t" = test_kernels ] && echo "    ran: $fams"
        [ $ok -eq 1 ] || echo "$out" | grep -v '^ok \|^skip ' | head -n 20
    done
    echo "--- $cpu: $([ $ok -eq 1 ] && echo ok || echo FAILED) in $(($(date +%s) - t0)) s"
    [ $ok -eq 1 ]
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs_max=$(nproc)
for i in "${!CPUS[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
    (
        run_cpu "${CPUS[$i]}" "$([ "$i" = 0 ] && echo edges)" >"$tmp/$i.out" 2>&1
        echo $? >"$tmp/$i.rc"
    ) &
done
wait
passed=0
failed=0
for i in "${!CPUS[@]}"; do
    cat "$tmp/$i.out"
    if [ "$(cat "$tmp/$i.rc" 2>/dev/null)" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
