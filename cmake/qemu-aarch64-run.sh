#!/bin/sh
# CMAKE_CROSSCOMPILING_EMULATOR of the aarch64 toolchain files:
#   qemu-aarch64-run.sh <qemu> <sysroot> <default cpu> <program> [args...]
# The CPU is $QMM_QEMU_CPU when set at run time, else the configured default.
# LD_LIBRARY_PATH pins the guest's libraries to the sysroot: qemu's -L falls back to host paths for files the
# sysroot lacks, so without it the cross ld.so would find /lib/aarch64-linux-gnu/libc.so.6 of the multiarch
# libc6:arm64 (another glibc build, installed with libclang-rt-19-dev:arm64) and threads would hang in a
# mismatched ld.so/libc pair.
qemu=$1
sysroot=$2
cpu=${QMM_QEMU_CPU:-$3}
shift 3
exec "$qemu" -L "$sysroot" -E LD_LIBRARY_PATH="$sysroot/lib" -cpu "$cpu" "$@"
