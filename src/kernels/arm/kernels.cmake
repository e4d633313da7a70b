# Arm kernel translation units, each with its own target flags.
# qmm_add_kernel(src/kernels/arm/<file>.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q4_0_neon_dotprod.c -march=armv8.2-a+dotprod)
qmm_add_kernel(src/kernels/arm/matmul_q8_0_neon_dotprod.c -march=armv8.2-a+dotprod)
