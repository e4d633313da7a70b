#!/usr/bin/env bash
# Installs what building, benchmarking and testing qmatmul on the host needs,
# from Debian's packages and PyPI, by name. Idempotent; the Arm toolchain and
# emulator come from scripts/setup-arm.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

pkgs=(cmake ninja-build gcc clang llvm python3 python3-venv python3-pip pkg-config git ca-certificates)
missing=()
for p in "${pkgs[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python for test data: numpy, and gguf (the format's reference writer);
# cmeel-simde: SIMDe headers, to run the AVX-512 families where the CPU lacks them.
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import gguf, numpy' 2>/dev/null ||
  ! .venv/bin/pip show -q cmeel-simde >/dev/null 2>&1; then
  echo "setup: creating .venv with gguf and numpy"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check gguf numpy cmeel-simde==0.8.2
fi
