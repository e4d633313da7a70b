# Cross build for aarch64 Linux with Debian's gcc-aarch64-linux-gnu (scripts/setup-arm.sh installs it).
# Tests run under qemu-aarch64; the emulated CPU is QMM_QEMU_CPU (cache or environment; default max).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(QMM_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "aarch64 libraries for the cross build and qemu -L")

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(CMAKE_FIND_ROOT_PATH ${QMM_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

include(${CMAKE_CURRENT_LIST_DIR}/qmm_qemu_emulator.cmake)
