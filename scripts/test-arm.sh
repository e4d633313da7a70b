#!/usr/bin/env bash
# The Arm matrix: cross-builds for aarch64 (clang-19, and gcc as a compile check), then runs the whole ctest suite
# under qemu-aarch64 for each emulated CPU, and checks kernel selection there: per weight type, the family that
# `qmatmul info` selects is the first family of that type that test_kernels ran and passed ("ok <name>"), and
# the selection matches what the CPU should get (dotprod on Neoverse N1, the reference on Cortex-A72, i8mm or
# better on max, an SME family on max when the build has one, none with sme=off). Prints each stage's time.
#   QMM_ARM_CPUS="max neoverse-n1"  the -cpu settings to run (default: all six below)
#   QMM_ARM_BUILD=dir               the clang build directory (default build-arm)
#   QMM_ARM_SKIP_GCC=1              skip the gcc compile check
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${QMM_ARM_BUILD:-build-arm}
BUILD_GCC=${BUILD}-gcc
JOBS=$(nproc)
DEFAULT_CPUS=("max" "max,sve-default-vector-length=16" "max,sme=off" "max,sve=off" "neoverse-n1" "cortex-a72")
if [ -n "${QMM_ARM_CPUS:-}" ]; then read -r -a CPUS <<<"$QMM_ARM_CPUS"; else CPUS=("${DEFAULT_CPUS[@]}"); fi
PYARGS=()
[ -x .venv/bin/python ] && PYARGS=(-DPython3_EXECUTABLE="$ROOT/.venv/bin/python")

# Selection is checked as the library makes it by default.
unset QMM_KERNEL QMM_HIDE_FEATURES QMM_SME QMM_CAP
t_all=$(date +%s)
fails=0
timed() { # name command...
    local name=$1 t0 rc
    shift
    t0=$(date +%s)
    echo "--- arm: $name"
    if "$@"; then rc=0; else rc=$?; fi
    echo "--- arm: $name: $([ $rc -eq 0 ] && echo ok || echo FAILED) in $(($(date +%s) - t0)) s"
    [ $rc -eq 0 ] || fails=$((fails + 1))
    return 0
}

configure_build() { # dir toolchain (output in dir/arm-build.log, shown on failure)
    mkdir -p "$1"
    if cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DQMM_WERROR=ON \
        -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/toolchain-aarch64-$2.cmake" "${PYARGS[@]}" >"$1/arm-build.log" 2>&1 &&
        cmake --build "$1" -j "$JOBS" >>"$1/arm-build.log" 2>&1; then
        tail -n 1 "$1/arm-build.log"
    else
        tail -n 40 "$1/arm-build.log"
        return 1
    fi
}

# The emulator command of the build, as ctest runs it.
qemu_run() { # cpu program args...
    local cpu=$1
    shift
    QMM_QEMU_CPU=$cpu "$ROOT/cmake/qemu-aarch64-run.sh" "$(command -v qemu-aarch64)" /usr/aarch64-linux-gnu max "$@"
}

# Checks selection for one CPU from `qmatmul info --json` and test_kernels' output in ctest's log.
check_selection() { # cpu
    local cpu=$1 log="$BUILD/Testing/Temporary/LastTest.log" info
    info=$(qemu_run "$cpu" "$BUILD/tools/qmatmul/qmatmul" info --json) || { echo "qmatmul info failed"; return 1; }
    awk '/^[0-9]+\/[0-9]+ Test: /{on = ($3 == "test_kernels")} on && /^(ok|skip) /{print $1, $2}' "$log" >"$BUILD/kernels-$cpu.txt"
    python3 - "$cpu" "$BUILD/kernels-$cpu.txt" "$info" <<'PY'
import json, re, sys
cpu, kfile, info = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
runs = [l.split() for l in open(kfile) if l.strip()]
ok = [n for s, n in runs if s == "ok"]
every = [n for s, n in runs]
feats = set(info["cpu"]["features"])
bad = 0
def fail(msg):
    global bad
    bad += 1
    print(f"  FAIL [{cpu}]: {msg}")
if not runs:
    fail("no 'ok'/'skip' lines from test_kernels in ctest's log")
# every type of the chains; the quantized types with no SIMD family in this build stay on the reference
for t in info["chains"]:
    suf = "_" + t.lower()
    prim = info["chains"][t]["primary"]
    mine = [n for n in ok if n.endswith(suf)]
    have = lambda prefix: any(n.startswith(prefix) and n.endswith(suf) for n in every)
    print(f"  {cpu:34s} {t:5s} -> {prim}")
    if prim not in ok:
        fail(f"{t}: selected {prim} did not run (ok) in test_kernels")
    elif mine and mine[0] != prim:
        fail(f"{t}: selected {prim}, but the first family of the type that test_kernels passed is {mine[0]}")
    want = None  # a regular expression the primary must match
    quant = t not in ("F32", "F16", "BF16")  # the float types: NEON wherever there is NEON
    if quant and not any(not n.startswith("ref") and n.endswith(suf) for n in every):
        want = "ref" + suf
    elif cpu == "neoverse-n1":
        want = "neon_dotprod" + suf if quant else "neon" + suf
    elif cpu == "cortex-a72":
        want = "ref" + suf if quant else "neon" + suf
    elif cpu.startswith("max"):
        if "sme" in feats and have("sme"):
            want = "sme.*" + suf
        elif quant:
            want = "(neon_i8mm|sve|sme).*" + suf
        else:
            want = "(neon|sve|sme).*" + suf
        if "sme" not in feats and prim.startswith("sme"):
            fail(f"{t}: SME family {prim} selected without SME")
    if want and not re.fullmatch(want, prim):
        fail(f"{t}: selected {prim}, expected /{want}/ on {cpu}")
sys.exit(1 if bad else 0)
PY
}

run_cpu() { # cpu
    local cpu=$1 shapes=
    local out="$BUILD/ctest-$cpu.log"
    # test_kernels' full sweep runs once, at `max`, where every family runs
    # (each has all its features there); the other settings check selection,
    # detection, vector lengths and missing features, for which the shapes a
    # vector length can change suffice (QMM_TEST_SHAPES=vl, tests/test_util.h:
    # the long-k sweeps walk the same block loops more times; test_mul_mat's
    # thread sweeps run fewer thread counts, the pool code being the same)
    [ "$cpu" != max ] && shapes=vl
    if QMM_TEST_SHAPES=$shapes QMM_QEMU_CPU=$cpu ctest --test-dir "$BUILD" -j "$JOBS" --output-on-failure --timeout 600 >"$out" 2>&1; then
        grep -E "tests passed|Total Test time" "$out"
    else
        tail -n 60 "$out"
        return 1
    fi
    check_selection "$cpu"
}

timed "setup (scripts/setup-arm.sh)" bash scripts/setup-arm.sh
timed "build clang-19 ($BUILD)" configure_build "$BUILD" clang
if [ "${QMM_ARM_SKIP_GCC:-0}" != 1 ]; then
    timed "build gcc ($BUILD_GCC, compile check)" configure_build "$BUILD_GCC" gcc
fi
for cpu in "${CPUS[@]}"; do
    timed "ctest -cpu $cpu" run_cpu "$cpu"
done

# A whole model on Arm gives x86's bits: the kernels reproduce the reference
# on every ISA, and the model's own C (tools/qmatmul/run) must not depend on
# the compiler either (gcc 12 once fused its rope behind -ffp-contract=off).
# SmolLM2-135M as shipped (Q4_1), a short prompt, x86 (the gcc stage's build)
# against clang-19 aarch64 under qemu: prompt, generated ids and the last
# prompt position's logits, bit for bit.
model_bits() { # cpu
    local cpu=$1 x86="${QMM_X86_BUILD:-$ROOT/build-ci-gcc}/tools/qmatmul/qmatmul" model
    model="${QMM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/qmatmul}/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    if [ ! -x "$x86" ] || [ ! -f "$model" ]; then
        echo "  skipped: needs $x86 (the gcc stage) and $model (the models stage)"
        return 0
    fi
    local args=(run "$model" --tokens 1,9690,314,253,1345,282,4000,30,2 -n 4 -t 2)
    "$x86" "${args[@]}" --json "$BUILD/model-x86.json" >/dev/null || { echo "  x86 run failed"; return 1; }
    qemu_run "$cpu" "$BUILD/tools/qmatmul/qmatmul" "${args[@]}" --json "$BUILD/model-$cpu.json" >/dev/null ||
        { echo "  aarch64 run failed"; return 1; }
    python3 - "$BUILD/model-x86.json" "$BUILD/model-$cpu.json" "$cpu" <<'PY'
import json, struct, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
bits = lambda v: [struct.pack("<f", x) for x in v]
same = [k for k in ("prompt", "generated") if a[k] == b[k]]
diff = sum(x != y for x, y in zip(bits(a["logits"]), bits(b["logits"]))) + abs(len(a["logits"]) - len(b["logits"]))
print(f"  {sys.argv[3]}: prompt and generated ids {'equal' if len(same) == 2 else 'DIFFER'}; "
      f"{diff} of {len(a['logits'])} logits differ from x86's bits")
sys.exit(0 if len(same) == 2 and diff == 0 and a["logits"] else 1)
PY
}
for cpu in max neoverse-n1; do
    timed "model bits -cpu $cpu" model_bits "$cpu"
done
echo "--- arm: all in $(($(date +%s) - t_all)) s, $fails failed"
[ "$fails" -eq 0 ]
