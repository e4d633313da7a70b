/* SME probes (compiled with -march=armv8.6-a+sme, only where the compiler
 * has the SME ACLE): the outer products of the SME kernel families, smopa
 * (int8, 4-way) and fmopa (fp32), into the four 32-bit ZA tiles, which are
 * independent accumulators. The work per instruction scales with the
 * streaming vector length, read at run time. */
#include <arm_sme.h>

#include "probe.h"
#include "qmatmul.h"

/* One za32 tile is (SVL/32)^2 int32; smopa adds 4 s8 products to each. */
static double smopa_ops(void) {
    const double tile = (double)svcntsw() * (double)svcntsw();
    return 8 * tile * 4 * 2; /* 8 instructions per iteration, 2 ops per MAC */
}
static double fmopa_ops(void) {
    const double tile = (double)svcntsw() * (double)svcntsw();
    return 8 * tile * 2;
}

__arm_locally_streaming __arm_new("za") static uint64_t int8_smopa(uint64_t iters) {
    const svbool_t pb = svptrue_b8();
    const svint8_t a = svdup_n_s8((int8_t)((iters & 7) | 1)), b = svdup_n_s8(3);
    svzero_za();
    for (uint64_t i = 0; i < iters; i++) {
        svmopa_za32_s8_m(0, pb, pb, a, b);
        svmopa_za32_s8_m(1, pb, pb, a, b);
        svmopa_za32_s8_m(2, pb, pb, a, b);
        svmopa_za32_s8_m(3, pb, pb, a, b);
        svmopa_za32_s8_m(0, pb, pb, b, a);
        svmopa_za32_s8_m(1, pb, pb, b, a);
        svmopa_za32_s8_m(2, pb, pb, b, a);
        svmopa_za32_s8_m(3, pb, pb, b, a);
    }
    const svbool_t pw = svptrue_b32();
    svint32_t s = svread_hor_za32_s32_m(svdup_n_s32(0), pw, 0, 0);
    s = svadd_s32_x(pw, s, svread_hor_za32_s32_m(svdup_n_s32(0), pw, 3, 0));
    return (uint64_t)(uint32_t)svaddv_s32(pw, s);
}

__arm_locally_streaming __arm_new("za") static uint64_t fma_fmopa(uint64_t iters) {
    const svbool_t pw = svptrue_b32();
    const svfloat32_t a = svdup_n_f32(0.999999f), b = svdup_n_f32((float)(iters & 1) * 1e-7f + 1e-7f);
    svzero_za();
    for (uint64_t i = 0; i < iters; i++) {
        svmopa_za32_f32_m(0, pw, pw, a, b);
        svmopa_za32_f32_m(1, pw, pw, a, b);
        svmopa_za32_f32_m(2, pw, pw, a, b);
        svmopa_za32_f32_m(3, pw, pw, a, b);
        svmopa_za32_f32_m(0, pw, pw, b, a);
        svmopa_za32_f32_m(1, pw, pw, b, a);
        svmopa_za32_f32_m(2, pw, pw, b, a);
        svmopa_za32_f32_m(3, pw, pw, b, a);
    }
    svfloat32_t s = svread_hor_za32_f32_m(svdup_n_f32(0), pw, 0, 0);
    s = svadd_f32_x(pw, s, svread_hor_za32_f32_m(svdup_n_f32(0), pw, 3, 0));
    return (uint64_t)svaddv_f32(pw, s);
}

const qmm_probe qmm_probe_int8_smopa = {
    "smopa",     QMM_PROBE_INT8,
    QMM_CPU_SME, "smopa za32 alone into the 4 ZA tiles; (SVL/32)^2 x 4 s8 multiplies + as many adds per instruction",
    NULL,        int8_smopa,
    0,           smopa_ops};
const qmm_probe qmm_probe_fma_fmopa = {
    "fmopa",     QMM_PROBE_FMA,
    QMM_CPU_SME, "fmopa za32 fp32 alone into the 4 ZA tiles; (SVL/32)^2 FMAs per instruction, 2 flops each",
    NULL,        fma_fmopa,
    0,           fmopa_ops};
