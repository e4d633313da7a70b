#!/usr/bin/env bash
# The main job: install what is needed, build qmatmul (Release), and run its
# benchmark on the built-in defaults. Extra arguments go to `qmatmul bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DQMM_BUILD_TESTS=OFF >/dev/null
cmake --build build --target qmatmul_tool
exec ./build/tools/qmatmul/qmatmul bench "$@"
