/* qmatmul bench --help: the options, and the methods of every measurement. */
#include <stdio.h>

#include "bench_internal.h"

void bench_usage(FILE *f) {
    fprintf(f, "usage: qmatmul bench [--preset NAME] [--type T] [--m N] [--threads N] [--model FILE.gguf]\n"
               "                     [--json FILE] [--plot FILE.svg] [--no-ref] [--kernel NAME] [--time X]\n"
               "                     [--quiet] [--probes]\n"
               "\n"
               "Runs the matmuls of one transformer layer of a model preset with random weights, decode\n"
               "(m = 1) and prefill (m = --m), on --threads threads, and prints per matrix and phase the\n"
               "kernel family that ran, the time per call (median [min - max]), GB/s of weights (decode)\n"
               "or GFLOP/s (prefill), the percentage of this machine's measured limit, and the speed-up\n"
               "over the portable reference family; then tokens/s estimated from the layer x layers.\n"
               "\n"
               "  --preset NAME   llama-3-8b (default), llama-3.2-1b, qwen2.5-7b; mixture-of-experts FFN (MUL_MAT_ID):\n"
               "                  gpt-oss-20b-moe (32 experts, 4 per token, k = n = 2880, MXFP4), qwen3-30b-a3b-moe\n"
               "                  (128 experts, 8 per token, gate/up 2048 -> 768, down 768 -> 2048, Q4_K); --type overrides\n"
               "  --type T        weight type: Q4_0 (default), Q4_1, Q5_0, Q5_1, Q8_0, Q2_K..Q6_K, IQ4_NL, IQ4_XS, MXFP4, BF16, "
               "F16, F32\n"
               "  --m N           prefill rows (tokens), default 512\n"
               "  --threads N     0 (default): every core available\n"
               "  --model FILE    benchmark every 2-D weight of a packable type of a GGUF file instead\n"
               "                  (identical shapes grouped; pack time and size; skipped tensors listed), and its\n"
               "                  experts tensors (*_exps, 3-D) as the MoE presets, <arch>.expert_used_count per token\n"
               "  --json FILE     every figure and the machine's description as JSON\n"
               "  --plot FILE     a roofline SVG: intensity vs throughput, the limits as lines\n"
               "  --no-ref        skip the reference family\n"
               "  --kernel NAME   force a kernel family for its type (as QMM_KERNEL)\n"
               "  --time X        scale every time budget by X (default 1; the defaults take ~1 minute;\n"
               "                  --time 0.1 for a quick look)\n"
               "  --quiet, -q     no progress line (it is shown only when stderr is a terminal anyway)\n"
               "  --probes        only run every probe this CPU has (below) and print best and median:\n"
               "                  run it after a bench to check the limits the bench used\n"
               "\n"
               "Methods. Decode calls rotate through copies of the packed weights holding >= 8 x LLC\n"
               "and >= 256 MiB (as the read probe), so weights come from memory; time per call is the median.\n"
               "Prefill: median of up to 15 calls per matrix after a warm-up; calls are kept to 30-250 ms\n"
               "(a short call usually runs uninterrupted on a shared machine): a matrix whose full call\n"
               "would be longer runs on its first n' columns (a multiple of 64) and its time is scaled\n"
               "by n / n' (marked * in the table; n' in the JSON). The reference family runs fewer\n"
               "calls: decode on the full matrix, prefill as above.\n"
               "MoE rows (qmm_mul_mat_id; m = tokens x experts per token): decode = 1 token, uniform routing, in\n"
               "rounds of tokens that choose every expert once, each round on every packed copy of the experts\n"
               "in turn (copies >= 8 x LLC and >= 256 MiB, + 1), so the chosen experts come from memory; GB/s of\n"
               "their packed bytes. Prefill = --m tokens, uniform and zipf routing (rank r with weight 1/(r+1)),\n"
               "up to 15 calls after a warm-up. gate and up: x shared by a token's experts; down: one x row per\n"
               "expert. No reference family on MoE rows.\n"
               "\n"
               "Limits: on the same thread count, 201 runs (x --time) of ~1 ms each; the limit is the\n"
               "best run (other processes can only slow a probe down), the median is shown beside it.\n"
               "A run lasts from the first thread's start to the last thread's end. The probes:\n");
    qmm_cpu_desc cpu;
    qmm_cpu_describe(NULL, &cpu);
    for (const qmm_probe *const *p = qmm_probes(); *p; p++)
        fprintf(f, "  %-15s %-5s %s%s\n", (*p)->name,
                (*p)->kind == QMM_PROBE_READ   ? "read"
                : (*p)->kind == QMM_PROBE_INT8 ? "int8"
                                               : "fp32",
                (*p)->method, ((*p)->required & ~cpu.features) ? " (not on this CPU)" : "");
    fprintf(f, "  int8: the best exact int8 multiply instruction of the CPU, alone, with enough independent\n"
               "  accumulator chains to fill its ports (vpdpbusd with VNNI, vpmaddubsw on AVX2, sdot / smmla /\n"
               "  smopa on Arm), its ops counted per instruction (2 per multiply-accumulate, as 2 m n k).\n"
               "  fp32: vfmadd231ps (fmla, fmopa) alone, 12 independent accumulators.\n"
               "  Memory read: every read variant above (one stream, or 2-4 interleaved streams per thread;\n"
               "  one thread per core), the best of all. Each run, every thread reads its own chunk of a buffer\n"
               "  of max(256 MiB, 8 x LLC) (2 MiB aligned, madvise(MADV_HUGEPAGE) where the OS grants it),\n"
               "  a different chunk each run, so reads come from memory.\n"
               "  Decode rows are compared with the read bandwidth; prefill rows with the peak of the\n"
               "  instruction their family uses (the best probe the family's required CPU features allow).\n");
}
