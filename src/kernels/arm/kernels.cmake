# Arm kernel translation units, each with its own target flags.
# qmm_add_kernel(src/kernels/arm/<file>.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q4_0_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q8_0_neon_dotprod.c -march=armv8.2-a+dotprod)
# i8mm: Armv8.2 + the extensions, not -march=armv8.6-a, so the compiler cannot use any other post-8.2 instruction
# (CPUs such as Neoverse V1 have i8mm without being Armv8.6).
qmm_add_kernel(src/kernels/arm/matmul_q4_0_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
qmm_add_kernel(src/kernels/arm/matmul_q8_0_neon_i8mm.c -march=armv8.2-a+dotprod+i8mm)
# fp32 / fp16 weights: base Armv8-A Advanced SIMD (fcvtl widens fp16 without FEAT_FP16).
qmm_add_kernel(src/kernels/arm/matmul_f32_neon.c -march=armv8-a)
qmm_add_kernel(src/kernels/arm/matmul_f16_neon.c -march=armv8-a)
