#!/usr/bin/env bash
# Builds llama-cpp-python==0.3.36 (llama.cpp compiled from its source distribution for this
# CPU) into a wheel once, caches it, and prints the wheel's path. The build targets the host
# CPU's instruction set, so the cache key is a hash of the CPU's feature flags and the Python
# version: a cached wheel never runs on a CPU (or interpreter) it was not built for.
# Usage: scripts/llama-wheel.sh [PYTHON]   (default: python3)
set -euo pipefail
py=${1:-python3}
version=0.3.36
cpuflags=$(grep -m1 -E '^(flags|Features)' /proc/cpuinfo || uname -m)
# llama.cpp 0.3.36's AMX back end (compiled in by -march=native on a CPU with AMX) crashes on every model
# here (SIGSEGV in ggml_backend_amx_mul_mat on a Xeon with amx_int8, SmolLM2 Q4_0/Q4_1/Q8_0, while AMX
# itself works): on such a CPU llama.cpp is built for the same ISA without AMX (its AVX-512 VNNI kernels).
cmake_args=
if grep -qw amx_int8 <<<"$cpuflags"; then
  cmake_args="-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
  for f in avx:AVX avx2:AVX2 bmi2:BMI2 fma:FMA f16c:F16C avx512f:AVX512 avx512vbmi:AVX512_VBMI \
    avx512_vnni:AVX512_VNNI avx512_bf16:AVX512_BF16 avx_vnni:AVX_VNNI; do
    if grep -qw "${f%%:*}" <<<"$cpuflags"; then cmake_args="$cmake_args -DGGML_${f#*:}=ON"; fi
  done
fi
flags=$(printf '%s\n%s\n' "$cpuflags" "$cmake_args" | sha256sum | cut -c1-16)
pyver=$("$py" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
dir="${QMM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/qmatmul}/wheels/llama-cpp-python-$version-$pyver-$(uname -m)-$flags"
wheel=$(ls "$dir"/llama_cpp_python-"$version"-*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
  mkdir -p "$dir"
  tmp=$(mktemp -d "$dir/.build.XXXXXX")
  echo "llama-wheel: building llama-cpp-python==$version for this CPU (slow, once)" >&2
  [ -z "$cmake_args" ] || echo "llama-wheel: CMAKE_ARGS=$cmake_args" >&2
  CMAKE_ARGS="${cmake_args:-${CMAKE_ARGS:-}}" CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
    "$py" -m pip wheel -q --disable-pip-version-check --no-cache-dir --no-deps --no-binary llama-cpp-python \
    -w "$tmp" "llama-cpp-python==$version" >&2
  built=$(ls "$tmp"/llama_cpp_python-"$version"-*.whl)
  mv "$built" "$dir/"
  rm -rf "$tmp"
  wheel="$dir/$(basename "$built")"
fi
echo "$wheel"
