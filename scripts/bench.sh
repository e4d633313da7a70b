#!/usr/bin/env bash
# The main job: install what is needed, build qmatmul (Release), and run its
# benchmark on the built-in defaults. Extra arguments go to `qmatmul bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >&2 # set-up and build chatter on stderr: stdout has only the results
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DQMM_BUILD_TESTS=OFF >&2
cmake --build build --target qmatmul_tool >&2
exec ./build/tools/qmatmul/qmatmul bench "$@"
