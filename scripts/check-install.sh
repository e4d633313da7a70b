#!/usr/bin/env bash
# Installs a build into a temporary prefix and builds the consumer program in
# tests/package against it both ways: CMake's find_package and pkg-config;
# then builds the qmatmul command (tools/qmatmul + bench) against the installed
# shared library with only the installed headers, and runs `qmatmul info`: the
# command is a client of the public API, nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S tests/package -B "$prefix/consumer-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer-build" >/dev/null
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib64:${LD_LIBRARY_PATH:-}" "$prefix/consumer-build/consumer"
"$prefix/consumer-build/consumer_static"
libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -1)
PKG_CONFIG_PATH="$libdir" cc tests/package/consumer.c -o "$prefix/consumer-pc" $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs qmatmul)
LD_LIBRARY_PATH="$(dirname "$libdir")" "$prefix/consumer-pc"
PKG_CONFIG_PATH="$libdir" cc tests/package/consumer.c -o "$prefix/consumer-pc-static" \
  $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags qmatmul) "$(dirname "$libdir")/libqmatmul.a" -lpthread -lm
"$prefix/consumer-pc-static"

# The command from its sources: -I the installed include dir and bench/ (its
# own headers) only, so an internal header would not be found.
cc_bin=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cc_bin=${cc_bin:-cc}
tool_src=(tools/qmatmul/*.c tools/qmatmul/run/*.c bench/probe.c bench/report.c)
tool_objs=()
compile() { # source [flags]: one object in $prefix/tool-obj
  local src=$1 obj
  shift
  obj="$prefix/tool-obj/$(basename "$src" .c).o"
  "$cc_bin" -std=c11 -D_GNU_SOURCE $probe_def -Wall -Wextra -Wno-unused-parameter -Werror -O2 -I"$prefix/include" -Ibench \
    "$@" -c "$src" -o "$obj"
  tool_objs+=("$obj")
}
mkdir -p "$prefix/tool-obj"
case "$("$cc_bin" -dumpmachine)" in
x86_64*)
  probe_def=-DQMM_PROBE_X86=1
  compile bench/probe_x86_avx512.c -mavx512f -mavx512bw -mavx512vl -mavx512vnni
  compile bench/probe_x86_avx2.c -mavx2 -mfma
  compile bench/probe_x86_avxvnni.c -mavx2 -mavxvnni
  compile bench/probe_x86_amx.c -mamx-tile -mamx-int8
  ;;
aarch64*)
  probe_def=-DQMM_PROBE_ARM=1
  compile bench/probe_arm.c
  compile bench/probe_arm_dotprod.c -march=armv8.2-a+dotprod
  ;;
*) probe_def= ;;
esac
for src in "${tool_src[@]}"; do compile "$src"; done
libdir_so=$(dirname "$(ls "$prefix"/lib*/libqmatmul.so | head -1)")
"$cc_bin" "${tool_objs[@]}" -o "$prefix/qmatmul" -L"$libdir_so" -lqmatmul -lpthread -lm
LD_LIBRARY_PATH="$libdir_so" "$prefix/qmatmul" info >"$prefix/info.txt"
grep -q '^Q4_0: ' "$prefix/info.txt" || { echo "install: qmatmul info (installed library) printed no Q4_0 chain"; cat "$prefix/info.txt"; exit 1; }
# ldd into a variable first: `ldd | grep -q` under pipefail fails when grep exits early and ldd dies of SIGPIPE
linked=$(LD_LIBRARY_PATH="$libdir_so" ldd "$prefix/qmatmul")
grep -qF "$libdir_so/libqmatmul.so" <<<"$linked" || { echo "install: the command did not link the installed shared library"; exit 1; }
echo "install: find_package (shared, static) and pkg-config (shared, static) consumers ran;" \
  "the qmatmul command built against the installed headers and shared library ran 'info'"
