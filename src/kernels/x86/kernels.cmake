# x86 kernel translation units, each with its own target flags.
# qmm_add_kernel(src/kernels/x86/<file>.c -mavx2 -mfma -mf16c)
set(QMM_X86_AVX512_FLAGS -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vnni -mfma -mf16c)
qmm_add_kernel(src/kernels/x86/matmul_q4_0_avx512vnni.c ${QMM_X86_AVX512_FLAGS})
qmm_add_kernel(src/kernels/x86/matmul_q8_0_avx512vnni.c ${QMM_X86_AVX512_FLAGS})
qmm_add_kernel(src/kernels/x86/matmul_f32_avx512.c ${QMM_X86_AVX512_FLAGS})
qmm_add_kernel(src/kernels/x86/matmul_f16_avx512.c ${QMM_X86_AVX512_FLAGS})
