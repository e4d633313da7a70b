/* AMX probe (compiled with -mamx-tile -mamx-int8): TDPBSUD, the instruction
 * the AMX int8 families are built from. The tiles need the process's AMX
 * permission, which qmm_cpu_describe requests (no permission: no AMX
 * features, and this probe is not run). */
#include <immintrin.h>
#include <string.h>

#include "probe.h"
#include "qmatmul.h"

/* Four independent C tiles (0-3), each fed by one of two A tiles (4, 5) and
 * one of two B tiles (6, 7) loaded once: 4 TDPBSUD per step, each 16 x 16
 * int32 sums of 64 s8*u8 products (16 x 16 x 64 x 2 ops). */
static uint64_t int8_amx(uint64_t iters) {
    /* the 64-byte tile configuration (palette 1): byte 0 the palette, bytes
     * 16 + 2t the row bytes of tile t (little endian), byte 48 + t its rows
     * (the bench sees only public headers, not the kernels' struct) */
    uint8_t cfg[64] __attribute__((aligned(64)));
    memset(cfg, 0, sizeof cfg);
    cfg[0] = 1;
    for (int t = 0; t < 8; t++) {
        cfg[16 + 2 * t] = 64;
        cfg[48 + t] = 16;
    }
    uint8_t a[1024] __attribute__((aligned(64))), b[1024] __attribute__((aligned(64)));
    int32_t c[256] __attribute__((aligned(64)));
    memset(a, (int)(iters & 7) + 1, sizeof a);
    memset(b, 3, sizeof b);
    __asm__ volatile("" : : "m"(cfg) : "memory"); /* GCC 12's _tile_loadconfig declares 8 bytes read: all 64 are */
    _tile_loadconfig(cfg);
    _tile_loadd(4, a, 64);
    _tile_loadd(5, a, 64);
    _tile_loadd(6, b, 64);
    _tile_loadd(7, b, 64);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (uint64_t i = 0; i < iters; i++) {
        _tile_dpbsud(0, 4, 6);
        _tile_dpbsud(1, 4, 7);
        _tile_dpbsud(2, 5, 6);
        _tile_dpbsud(3, 5, 7);
    }
    uint64_t sum = 0;
    _tile_stored(0, c, 64);
    sum += (uint32_t)c[0];
    _tile_stored(3, c, 64);
    sum += (uint32_t)c[255];
    _tile_release();
    return sum;
}

const qmm_probe qmm_probe_int8_amx = {"tdpbsud-amx",
                                      QMM_PROBE_INT8,
                                      QMM_CPU_AMX_TILE | QMM_CPU_AMX_INT8,
                                      "AMX TDPBSUD alone, 4 independent C tiles; 16 x 16 x 64 s8*u8 multiplies + adds per "
                                      "instruction",
                                      NULL,
                                      int8_amx,
                                      4 * 16 * 16 * 64 * 2,
                                      NULL};
