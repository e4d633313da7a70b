# Cross build for aarch64 Linux with clang-19 (SME/SME2 intrinsics) against Debian's arm64 cross sysroot
# (libc6-dev-arm64-cross, the gcc cross runtime) and compiler-rt builtins for arm64 (libclang-rt-19-dev:arm64),
# linked by lld. scripts/setup-arm.sh installs all of it. Tests run under qemu-aarch64 (QMM_QEMU_CPU).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(QMM_AARCH64_SYSROOT /usr/aarch64-linux-gnu CACHE PATH "aarch64 libraries for the cross build and qemu -L")
set(QMM_CLANG_SUFFIX "-19" CACHE STRING "clang version suffix")

set(CMAKE_C_COMPILER clang${QMM_CLANG_SUFFIX})
set(CMAKE_CXX_COMPILER clang++${QMM_CLANG_SUFFIX})
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
# Debian's cross gcc puts headers and libraries under /usr/aarch64-linux-gnu and its gcc runtime under
# /usr/lib/gcc-cross; clang finds both for --target=aarch64-linux-gnu without a --sysroot. compiler-rt
# provides the SME support routines (__arm_sme_state, __arm_tpidr2_save, ...) that libgcc lacks.
set(CMAKE_C_FLAGS_INIT "-rtlib=compiler-rt")
set(CMAKE_CXX_FLAGS_INIT "-rtlib=compiler-rt")
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT "-fuse-ld=lld${QMM_CLANG_SUFFIX} -rtlib=compiler-rt --unwindlib=libgcc")
endforeach()

set(CMAKE_FIND_ROOT_PATH ${QMM_AARCH64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

include(${CMAKE_CURRENT_LIST_DIR}/qmm_qemu_emulator.cmake)
