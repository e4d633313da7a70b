#!/usr/bin/env bash
# Installs a build into a temporary prefix and builds the consumer program in
# tests/package against it both ways: CMake's find_package and pkg-config.
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
echo "install: find_package (shared, static) and pkg-config (shared, static) consumers ran"
