#!/usr/bin/env bash
# Builds llama-cpp-python==0.3.36 (llama.cpp compiled from its source distribution for this
# CPU) into a wheel once, caches it, and prints the wheel's path. The build targets the host
# CPU's instruction set, so the cache key is a hash of the CPU's feature flags and the Python
# version: a cached wheel never runs on a CPU (or interpreter) it was not built for.
# Usage: scripts/llama-wheel.sh [PYTHON]   (default: python3)
set -euo pipefail
py=${1:-python3}
version=0.3.36
flags=$( (grep -m1 -E '^(flags|Features)' /proc/cpuinfo || uname -m) | sha256sum | cut -c1-16)
pyver=$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
dir="${QMM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/qmatmul}/wheels/llama-cpp-python-$version-$pyver-$(uname -m)-$flags"
wheel=$(ls "$dir"/llama_cpp_python-"$version"-*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
  mkdir -p "$dir"
  tmp=$(mktemp -d "$dir/.build.XXXXXX")
  echo "llama-wheel: building llama-cpp-python==$version for this CPU (slow, once)" >&2
  CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
    "$py" -m pip wheel -q --disable-pip-version-check --no-deps --no-binary llama-cpp-python \
    -w "$tmp" "llama-cpp-python==$version" >&2
  built=$(ls "$tmp"/llama_cpp_python-"$version"-*.whl)
  mv "$built" "$dir/"
  rm -rf "$tmp"
  wheel="$dir/$(basename "$built")"
fi
echo "$wheel"
