/* A tiny program built against the installed qmatmul package. */
#include <qmatmul.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    qmm_context *ctx;
    if (qmm_context_create(NULL, &ctx) != QMM_OK)
        return 1;
    float w[2 * 32], x[32], y[2];
    for (int i = 0; i < 64; i++)
        w[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < 32; i++)
        x[i] = 1.0f;
    qmm_weights *pw;
    if (qmm_weights_pack(ctx, QMM_TYPE_F32, 32, 2, w, sizeof w, &pw) != QMM_OK)
        return 1;
    const int64_t xne[2] = {32, 1}, yne[2] = {2, 1};
    qmm_tensor xt, yt;
    qmm_tensor_init(&xt, QMM_TYPE_F32, 2, xne, x);
    qmm_tensor_init(&yt, QMM_TYPE_F32, 2, yne, y);
    qmm_status st = qmm_mul_mat(ctx, pw, &xt, &yt);
    printf("qmatmul %s: %s, y = [%g, %g] by %s\n", qmm_version(), qmm_status_str(st), y[0], y[1], qmm_weights_kernel(pw));
    qmm_weights_free(pw);
    qmm_context_free(ctx);
    /* sum over i of (i % 7) - 3 for i < 32, and for 32 <= i < 64 */
    return (st == QMM_OK && y[0] == -6.0f && y[1] == 3.0f) ? 0 : 1;
}
