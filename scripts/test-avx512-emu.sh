#!/usr/bin/env bash
# Runs the AVX-512 kernel families on a host without AVX-512: their files are
# compiled against SIMDe's emulation of the intrinsics (tests/avx512_emu/), the
# CPU is reported with the AVX-512 features, and the oracle tests run against
# the reference families bit for bit. This checks the algorithms (layouts,
# exact integer tricks, quantizer, order of the float steps); the instruction
# selection is the compiler's. Needs SIMDe's headers: $SIMDE_INCLUDE, or the
# PyPI package cmeel-simde in .venv (installed here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build-avx512-emu}
if [ -z "${SIMDE_INCLUDE:-}" ]; then
  find_simde() { find .venv/lib -path '*cmeel.prefix/include/simde/x86/avx512.h' 2>/dev/null | head -1; }
  h=$(find_simde)
  if [ -z "$h" ] && [ -x .venv/bin/pip ]; then
    .venv/bin/pip install -q --disable-pip-version-check cmeel-simde==0.8.2
    h=$(find_simde)
  fi
  [ -n "$h" ] || { echo "test-avx512-emu: SIMDe not found (set SIMDE_INCLUDE or run scripts/setup.sh)"; exit 77; }
  SIMDE_INCLUDE=${h%/simde/x86/avx512.h}
fi
CC=gcc # SIMDe's native aliases clash with clang 14's mask typedefs
mkdir -p "$B/obj"
CF=(-O2 -g -std=c11 -D_GNU_SOURCE -ffp-contract=off -fno-math-errno -Wall -Wextra -Wno-unused-parameter -Iinclude -Isrc
  -DQMM_ARCH_X86=1 '-DQMM_VERSION_STRING="avx512-emu"')
EMU=(-Dqmm_cpu_detect=qmm_emu_cpu_detect -include cpu/cpu.h)
objs=()
for f in src/*/*.c src/kernels/ref/*.c; do
  o="$B/obj/$(echo "$f" | tr / _).o"
  if [ "$f" = src/cpu/cpu.c ]; then "$CC" "${CF[@]}" -c "$f" -o "$o"; else "$CC" "${CF[@]}" "${EMU[@]}" -c "$f" -o "$o"; fi
  objs+=("$o")
done
for f in src/kernels/x86/*avx512*.c; do
  o="$B/obj/$(echo "$f" | tr / _).o"
  "$CC" "${CF[@]}" -Wno-unused-function -Wno-psabi -mavx2 -mfma -mf16c -Itests/avx512_emu -isystem "$SIMDE_INCLUDE" -c "$f" -o "$o"
  objs+=("$o")
done
# The table also lists the AMX, AVX-VNNI and AVX2 families: built natively
# (their features are the host's; the emulated CPU adds no AMX or AVX-VNNI,
# so those skip where the host lacks them).
for f in src/kernels/x86/*_amx.c; do
  o="$B/obj/$(echo "$f" | tr / _).o"
  "$CC" "${CF[@]}" -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma -mf16c -mamx-tile -mamx-int8 -c "$f" -o "$o"
  objs+=("$o")
done
for f in src/kernels/x86/*avx2*.c src/kernels/x86/*avxvnni*.c; do
  o="$B/obj/$(echo "$f" | tr / _).o"
  case "$f" in *avxvnni*) vnni=-mavxvnni ;; *) vnni= ;; esac
  "$CC" "${CF[@]}" -mavx2 -mfma -mf16c $vnni -c "$f" -o "$o"
  objs+=("$o")
done
"$CC" "${CF[@]}" -c tests/avx512_emu/emu_cpu_avx512.c -o "$B/obj/emu_cpu.o"
rm -f "$B/libemu.a"
ar rcs "$B/libemu.a" "${objs[@]}" "$B/obj/emu_cpu.o"
fail=0
for t in test_kernels test_act_avx512 test_packed test_mul_mat; do
  "$CC" "${CF[@]}" "${EMU[@]}" -Itests "tests/$t.c" -o "$B/$t" "$B/libemu.a" -lm -lpthread
  out=$("$B/$t" 2>&1) || fail=1
  echo "$t: $(echo "$out" | grep -E '^(ok|skip) +avx512' | tr -s ' ' | tr '\n' ' ')$(echo "$out" | tail -1)"
done
exit $fail
