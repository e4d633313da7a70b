# Arm kernel translation units, each with its own target flags.
# qmm_add_kernel(src/kernels/arm/<file>.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q4_0_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q8_0_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q4_1_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q5_0_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q5_1_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q6_k_neon_dotprod.c -march=armv8.2-a+dotprod)
# i8mm: Armv8.2 + the extensions, not -march=armv8.6-a, so the compiler cannot use any other post-8.2 instruction
# (CPUs such as Neoverse V1 have i8mm without being Armv8.6).
qmm_add_kernel(src/kernels/arm/matmul_q4_0_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q8_0_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q4_1_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q5_0_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q5_1_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q6_k_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
# K-quants (Q2_K..Q5_K): one body (neon_k_quant_body.h) per type and instruction set, panels in neon_k_quant.h.
qmm_add_kernel(src/kernels/arm/matmul_q4_k_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q5_k_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q2_k_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q3_k_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q4_k_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q5_k_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q2_k_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q3_k_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
# IQ4_NL, MXFP4, IQ4_XS: the table types on the same driver (neon_table.h)
qmm_add_kernel(src/kernels/arm/matmul_iq4_nl_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_mxfp4_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_iq4_xs_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_iq4_nl_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_mxfp4_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_iq4_xs_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
# fp32 / fp16 weights: base Armv8-A Advanced SIMD (fcvtl widens fp16 without FEAT_FP16).
qmm_add_kernel(src/kernels/arm/matmul_f32_neon.c -march=armv8-a)
qmm_add_kernel(src/kernels/arm/matmul_f16_neon.c -march=armv8-a)
qmm_add_kernel(src/kernels/arm/matmul_bf16_neon.c -march=armv8-a)

# SVE (vector-length agnostic) and SME families: their shared layouts are in
# sve_sme_layout.h. SME needs a compiler with the SME ACLE (clang >= 18); the
# files get armv8.6-a+sme, not armv9-a, so that no non-streaming SVE is ever
# generated (SME CPUs without SVE exist: Apple M4). Frame pointers on: clang 19
# omits the LR save in a leaf __arm_locally_streaming function although its
# prologue calls __arm_get_current_vg (seen with 19.1.7: the return crashes).
qmm_add_kernel(src/kernels/arm/matmul_q4_0_sve_dotprod.c -march=armv8.2-a+sve)
qmm_add_kernel(src/kernels/arm/matmul_q8_0_sve_dotprod.c -march=armv8.2-a+sve)
qmm_add_kernel(src/kernels/arm/matmul_q4_0_sve_i8mm.c -march=armv8.2-a+sve+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q8_0_sve_i8mm.c -march=armv8.2-a+sve+i8mm)
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-march=armv8.6-a+sme")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
check_c_source_compiles("#include <arm_sme.h>
__arm_locally_streaming __arm_new(\"za\") void f(void) { svzero_za(); }
int main(void) { return 0; }" QMM_CC_HAS_SME)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_TRY_COMPILE_TARGET_TYPE)
if(QMM_CC_HAS_SME)
  qmm_add_kernel(src/kernels/arm/matmul_q4_0_sme2.c -march=armv8.6-a+sme2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
  qmm_add_kernel(src/kernels/arm/matmul_q8_0_sme2.c -march=armv8.6-a+sme2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
  qmm_add_kernel(src/kernels/arm/matmul_q4_0_sme.c -march=armv8.6-a+sme -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
  qmm_add_kernel(src/kernels/arm/matmul_q8_0_sme.c -march=armv8.6-a+sme -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
  qmm_add_kernel(src/kernels/arm/matmul_f32_sme.c -march=armv8.6-a+sme -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
  qmm_add_kernel(src/kernels/arm/matmul_f16_sme.c -march=armv8.6-a+sme -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
  set_property(SOURCE src/registry/arm_table.c APPEND PROPERTY COMPILE_DEFINITIONS QMM_HAVE_SME_KERNELS=1)
else()
  message(STATUS "qmatmul: the C compiler lacks the SME ACLE: SME families not built")
endif()
