#!/bin/sh
# CMAKE_CROSSCOMPILING_EMULATOR of the aarch64 toolchain files:
#   qemu-aarch64-run.sh <qemu> <sysroot> <default cpu> <program> [args...]
# The CPU is $QMM_QEMU_CPU when set at run time, else the configured default.
qemu=$1
sysroot=$2
cpu=${QMM_QEMU_CPU:-$3}
shift 3
exec "$qemu" -L "$sysroot" -cpu "$cpu" "$@"
