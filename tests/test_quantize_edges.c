/* qmm_quantize on inputs where ggml's weight quantizers convert an
 * out-of-range or NaN float to an integer (undefined behaviour, which the
 * sanitizer stage reports): blocks so small that 1 / d overflows, NaN and
 * infinite weights. The result is defined (formats.c: q4_nibble, q8_value)
 * and ordinary blocks keep ggml's bytes (test_formats checks those). */
#include <math.h>

#include "formats/formats.h"
#include "qmatmul.h"
#include "test_util.h"

#define K 64

static void fill(float *x, float v) {
    for (int i = 0; i < K; i++)
        x[i] = (i & 1) ? -v : v;
}

static void check_type(qmm_type t) {
    float x[K], y[K];
    uint8_t q[2 * sizeof(qmm_block_q8_0)];
    const char *tn = qmm_type_name(t);
    /* tiny blocks: 1 / d is inf; fp16 d is 0, so every value dequantizes to 0 */
    const float tiny[] = {1e-38f, 0x1p-140f, 0x1p-149f};
    for (size_t c = 0; c < sizeof tiny / sizeof tiny[0]; c++) {
        fill(x, tiny[c]);
        CHECK_OK(qmm_quantize(t, x, q, 1, K));
        CHECK_OK(qmm_dequantize(t, q, y, 1, K));
        int zeros = 0;
        for (int i = 0; i < K; i++)
            zeros += y[i] == 0.0f;
        CHECK(zeros == K, "%s tiny %g: %d of %d values dequantize to 0", tn, tiny[c], zeros, K);
        if (t == QMM_TYPE_Q8_0) {
            const qmm_block_q8_0 *b = (const qmm_block_q8_0 *)q;
            const int end = tiny[c] / 127.0f != 0.0f ? 127 : 0; /* d underflows to 0: id = 0, q = 0 */
            CHECK(b[0].qs[0] == end && b[0].qs[1] == -end, "Q8_0 tiny %g: q %d %d, expected +-%d", tiny[c], b[0].qs[0],
                  b[0].qs[1], end);
        }
    }
    /* a NaN among ordinary values: the NaN gets the zero level, the rest as usual */
    for (int i = 0; i < K; i++)
        x[i] = (float)(i % 7) - 3.0f;
    x[5] = NAN;
    CHECK_OK(qmm_quantize(t, x, q, 1, K));
    CHECK_OK(qmm_dequantize(t, q, y, 1, K));
    CHECK(y[5] == 0.0f, "%s: NaN weight dequantizes to %g, not 0", tn, y[5]);
    CHECK(y[6] != 0.0f, "%s: the ordinary weight next to it is %g", tn, y[6]);
    /* an infinite weight: d is inf, every q defined */
    fill(x, 1.0f);
    x[3] = INFINITY;
    CHECK_OK(qmm_quantize(t, x, q, 1, K));
}

int main(void) {
    check_type(QMM_TYPE_Q4_0);
    check_type(QMM_TYPE_Q8_0);
    return qmm_test_summary();
}
