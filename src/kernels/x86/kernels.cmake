# x86 kernel translation units, each with its own target flags.
# qmm_add_kernel(src/kernels/x86/<file>.c -mavx2 -mfma -mf16c)
# AVX-VNNI and AVX2 families (x86-64-v3), below the AVX-512 ones in priority
qmm_add_kernel(src/kernels/x86/matmul_q4_0_avxvnni.c -mavx2 -mfma -mf16c -mavxvnni)
qmm_add_kernel(src/kernels/x86/matmul_q8_0_avxvnni.c -mavx2 -mfma -mf16c -mavxvnni)
qmm_add_kernel(src/kernels/x86/act_q8_avx2.c -mavx2 -mfma -mf16c)
qmm_add_kernel(src/kernels/x86/matmul_q4_0_avx2.c -mavx2 -mfma -mf16c)
qmm_add_kernel(src/kernels/x86/matmul_q8_0_avx2.c -mavx2 -mfma -mf16c)
qmm_add_kernel(src/kernels/x86/matmul_f32_avx2.c -mavx2 -mfma)
qmm_add_kernel(src/kernels/x86/matmul_f16_avx2.c -mavx2 -mfma -mf16c)
