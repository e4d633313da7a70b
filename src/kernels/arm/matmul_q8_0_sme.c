/* Q8_0 x int8 activations with SME. GEMM: SMOPA 4-way int8 outer products
 * into ZA (sve_sme_int8_body.h), exact int32 block sums per output, then the
 * per-block float step per output in block order. GEMV: SDOT across weight
 * rows in streaming mode (one activation row would fill one ZA row only).
 * Built for armv8.6-a+sme, not armv9-a: every SVE instruction here runs in
 * streaming mode (the entry points are __arm_locally_streaming), so a CPU
 * with SME but without non-streaming SVE (Apple M4) runs it. */
#include <arm_sme.h>

#define QMM_SVESME_KIND QMM_SVESME_KIND_Q8_0
#define QMM_SVESME_FN   __arm_streaming
#define QMM_SVESME_SME  1
#include "kernels/arm/sve_sme_int8_body.h"

QMM_SVESME_FAMILY(sme_q8_0, QMM_TYPE_Q8_0, QMM_CPU_SME, QMM_CPU_SME | QMM_CPU_SME2)
