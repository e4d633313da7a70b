# Shared by the aarch64 toolchain files: run every test (ctest, try_run) under qemu-aarch64.
# The CPU model comes from the cache variable QMM_QEMU_CPU, else the environment variable of that name when
# cmake configures, else "max" (SVE 512, SME, SME2). The environment variable also wins at run time (see
# qemu-aarch64-run.sh), so one build can be tested under several CPUs: QMM_QEMU_CPU=neoverse-n1 ctest.
find_program(QMM_QEMU_AARCH64 qemu-aarch64 REQUIRED)
if(NOT DEFINED QMM_QEMU_CPU)
  if(DEFINED ENV{QMM_QEMU_CPU} AND NOT "$ENV{QMM_QEMU_CPU}" STREQUAL "")
    set(QMM_QEMU_CPU "$ENV{QMM_QEMU_CPU}" CACHE STRING "qemu-aarch64 -cpu default for ctest")
  else()
    set(QMM_QEMU_CPU "max" CACHE STRING "qemu-aarch64 -cpu default for ctest")
  endif()
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR
    ${CMAKE_CURRENT_LIST_DIR}/qemu-aarch64-run.sh ${QMM_QEMU_AARCH64} ${QMM_AARCH64_SYSROOT} ${QMM_QEMU_CPU})
