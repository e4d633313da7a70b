# Arm kernel translation units, each with its own target flags.
# qmm_add_kernel(src/kernels/arm/<file>.c -march=armv8.2-a+dotprod)
