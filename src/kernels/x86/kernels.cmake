# x86 kernel translation units, each with its own target flags.
# qmm_add_kernel(src/kernels/x86/<file>.c -mavx2 -mfma -mf16c)
