#!/usr/bin/env python3
"""End-to-end accuracy of `qmatmul run` against llama.cpp's: mean KL divergence from the F32-weight model.

usage: check_run_kl.py QMATMUL --pair T MODEL_T.gguf MODEL_T_F32.gguf [--pair ...] [--threads N]

MODEL_T_F32 is MODEL_T with every matrix dequantized to F32 (tests/requantize_gguf.py IN OUT F32): the
same weights, exactly, without the quantized arithmetic. Fixed prompts (PROMPTS: prose, C code, a list, a
dialogue; tokenized by llama.cpp, 1,059 positions) run through both files on both engines, the logits of
every position kept (`qmatmul run --tokens ... --all-logits -n 1`; llama-cpp-python, logits_all=True).
Per engine and type the score is the mean over all positions of KL(softmax(F32-weight logits) ||
softmax(type-T logits)) in float64. The weights' own rounding is in neither term, and each engine's
attention, norms (and llama.cpp's F16 KV cache) are in both: what is left is the engine's arithmetic on
quantized weights, for Q4_0, Q4_1 and Q8_0 the per-32 8-bit quantization of the activations
(docs/formats.md; ggml: Q8_0 blocks, Q8_1 for Q4_1, with the scale, and Q8_1's d * sum(q), rounded to
fp16) and the fp32 block sums. A type fails if qmatmul's mean KL is above ALLOWANCE times llama.cpp's, or
if the two engines' F32-weight runs (the sanity column: KL(llama.cpp F32 || qmatmul F32)) differ by more
than F32_AGREE times the smaller of the type's two scores (then the runners differ, not the quantized
arithmetic). Ends with `N passed, M failed`; exit status 1 if any failed.

Measured (SmolLM2-135M-Instruct, Q4_1 as shipped, Q8_0 and Q4_0 requantized from it; 2 threads, AMD EPYC
with AVX-512 VNNI; llama-cpp-python 0.3.36). Two runs agree to every printed digit (both engines are
deterministic at a fixed thread count):

  type  qmatmul KL  llama.cpp KL  ratio  F32 runs KL  per prompt ratio
  Q8_0  2.9909e-03  2.8859e-03    1.036  6.2e-07      1.02 1.09 1.02 1.04
  Q4_0  3.5577e-03  3.4806e-03    1.022  7.9e-07      1.11 1.10 1.05 0.84
  Q4_1  3.3363e-03  3.2757e-03    1.019  6.1e-07      1.07 0.91 1.02 1.03

The ratio's spread is that of the prompt set, not noise. The two engines' type-T runs differ from each
other by a KL of 3.4e-3 (Q8_0) and 3.6e-3 (Q4_1), as much as each differs from its F32 run, while their
F32 runs differ by 6e-7: an ulp of difference upstream flips activation roundings downstream, so each
engine draws its own realization of the same rounding noise, and which one a position's KL favours is
luck (per-prompt ratios 0.84 to 1.11). Over these 1,059 positions a bootstrap over blocks of 25
positions gives the ratio a standard error of about 0.035 (95% intervals [0.99, 1.08] Q8_0, [0.96, 1.10]
Q4_0, [0.94, 1.08] Q4_1). On another set, 7 x 250 tokens of this repository's docs and code, the ratios
were 1.003, 1.008, 1.006; pooled (2,809 positions) 1.013, 1.013, 1.010, 95% intervals [0.97, 1.05], with
half the positions favouring either engine. As the quantizers predict: both round x / d half to even in
fp32 to the same q; ggml's fp16 scale (relative error up to 2^-11 while the block's amax is above
127 * 2^-14) adds, by estimate, well under 1% to the rounding noise power, below this resolution. So the
engines are equal to within a few percent, and qmatmul is not worse.

ALLOWANCE = 1.10 is about 1 + 3 standard errors: two equal engines exceed it with a probability of about
0.2% per type whenever a change on either side redraws the rounding realization, while an engine whose
arithmetic adds 10% or more of rounding noise power fails half the time or more, 17% nearly always. For
scale: llama.cpp with only its K cache rounded to Q8_0 in the Q8_0 run raises its Q8_0 KL by 39% (1.390x).
F32_AGREE = 0.01: the F32 runs' KL is 2e-4 to 3e-4 of the types' (a 40x margin); a real discrepancy
between the runners (a wrong RoPE, norm epsilon, attention mask) moves logits by far more.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from llama_cpp import Llama

PROMPTS = [
    # prose
    "The lighthouse keeper's log for the winter of 1887 survives in a single leather-bound volume, its pages "
    "foxed and water-stained at the corners. Most entries are brief: the direction of the wind, the state of "
    "the sea, the hours the lamp was lit and extinguished, the amount of oil consumed. Yet between these "
    "routine notes the keeper, a widower named Thomas Archer, occasionally allowed himself a sentence or two "
    "about something else entirely. On the fourteenth of January he wrote that a flock of starlings had "
    "sheltered in the gallery for three days, and that he had fed them crumbs from his own bread. In February "
    "a schooner ran aground on the northern reef, and he rowed out alone through heavy swell to bring four "
    "sailors ashore, an act he recorded in exactly nine words. Historians who have studied the volume note that "
    "his handwriting grows steadier as the season turns toward spring, as if the lengthening days had eased "
    "some private burden. When the relief keeper arrived in April, Archer handed over the key, walked down to "
    "the harbour, and took the morning ferry to the mainland. He never returned to the island, and the log "
    "ends with a careful inventory of lamp wicks, brass polish, and three unopened tins of sardines.",
    # code
    "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
    "/* A fixed-capacity ring buffer of bytes. */\n"
    "typedef struct {\n    unsigned char *data;\n    size_t capacity;\n    size_t head;\n    size_t count;\n} ring;\n\n"
    "int ring_init(ring *r, size_t capacity) {\n    r->data = malloc(capacity);\n"
    "    if (!r->data)\n        return -1;\n"
    "    r->capacity = capacity;\n    r->head = 0;\n    r->count = 0;\n    return 0;\n}\n\n"
    "size_t ring_write(ring *r, const unsigned char *src, size_t n) {\n    size_t written = 0;\n"
    "    while (written < n && r->count < r->capacity) {\n        size_t tail = (r->head + r->count) % r->capacity;\n"
    "        r->data[tail] = src[written++];\n        r->count++;\n    }\n    return written;\n}\n\n"
    "size_t ring_free(const ring *r) {\n    return r->capacity - r->count;\n}\n",
    # a list
    "Packing list for a four-day hiking trip in the mountains:\n\n"
    "Clothing\n- 2 pairs of hiking socks (wool)\n- 1 pair of liner socks\n- thermal base layer, top and bottom\n"
    "- fleece jacket\n- waterproof shell jacket with hood\n- rain trousers\n- sun hat and a warm beanie\n"
    "- lightweight gloves\n\nShelter and sleep\n- tent (2-person, 1.8 kg)\n- sleeping bag rated to -5 C\n"
    "- inflatable sleeping pad\n- small pillow or stuff sack filled with clothes\n\nKitchen\n"
    "- canister stove and one 230 g gas canister\n- titanium pot (750 ml) with lid\n- long-handled spoon\n"
    "- water filter and two 1-litre bottles\n- lighter and a spare box of matches\n\nFood (per day)\n"
    "1. Breakfast: oats with dried fruit and powdered milk\n2. Lunch: tortillas, hard cheese, salami\n"
    "3. Snacks: nuts, chocolate, energy bars\n4. Dinner: dehydrated meal, instant soup, tea\n\n"
    "Navigation and safety\n- paper map (1:25,000) and compass\n- headlamp with spare batteries\n"
    "- first-aid kit: plasters, blister tape, ibuprofen\n",
    # a dialogue
    "Student: Why does the sky look blue during the day but red at sunset?\n\n"
    "Teacher: Good question. Sunlight contains all the colours, and when it passes through the atmosphere it "
    "bumps into tiny molecules of nitrogen and oxygen. Those molecules scatter short wavelengths, like blue "
    "and violet, much more strongly than long wavelengths, like red and orange. This effect is called Rayleigh "
    "scattering, and its strength grows roughly with the fourth power of the frequency.\n\n"
    "Student: So the blue light is scattered all over the sky?\n\n"
    "Teacher: Exactly. Wherever you look, some of that scattered blue light reaches your eyes, so the whole "
    "sky appears blue. Violet is scattered even more, but the sun emits less of it, and our eyes are less "
    "sensitive to it.\n\n"
    "Student: And at sunset?\n\n"
    "Teacher: When the sun is low, its light travels through a much thicker slice of atmosphere before it "
    "reaches you. Along that long path most of the blue is scattered away to the sides, and what is left is "
    "mainly orange and red. Dust and smoke in the air can make the colours even deeper.\n\n"
    "Student: Does the same thing happen on Mars?\n",
]
N_CTX = 512  # every prompt fits

ALLOWANCE = 1.10  # qmatmul's mean KL / llama.cpp's, per type (see the docstring)
F32_AGREE = 0.01  # the F32 runs' mutual KL / the smaller of the type's two mean KLs


def tokenize(model):
    vocab = Llama(model_path=model, vocab_only=True, verbose=False)
    ids = [vocab.tokenize(p.encode(), add_bos=True, special=False) for p in PROMPTS]
    assert all(len(t) < N_CTX for t in ids), [len(t) for t in ids]
    return ids


def llama_logits(model, prompts, threads):
    """Per prompt, a (positions, n_vocab) float32 array of llama.cpp's logits."""
    llm = Llama(model_path=model, n_ctx=N_CTX, n_batch=N_CTX, n_threads=threads, n_threads_batch=threads,
                logits_all=True, verbose=False)
    out = []
    for ids in prompts:
        llm.reset()
        llm.eval(ids)
        out.append(np.array(llm.scores[: len(ids)], dtype=np.float32))
    llm.close()
    return out


def read_all_logits(path, n_rows):
    """The "all_logits" rows of a `qmatmul run --json` file, parsed row by row (json.load of 50M floats is
    slower and builds Python floats first)."""
    with open(path) as f:
        text = f.read()
    start = text.index("[", text.index('"all_logits"'))
    rows, pos = [], start + 1
    for _ in range(n_rows):
        a = text.index("[", pos)
        b = text.index("]", a)
        rows.append(np.fromstring(text[a + 1:b], dtype=np.float32, sep=","))
        pos = b + 1
    if text[pos:].lstrip()[:1] != "]":
        sys.exit(f"check_run_kl: {path}: more than {n_rows} rows of all_logits")
    return np.vstack(rows)


def qmatmul_logits(binary, models, prompts, threads):
    """Per model, per prompt, qmatmul's logits as llama_logits. Writing and parsing the JSON take most of
    the time (about 2.5 s each for 280 positions), single-threaded: the next run starts before the
    previous one's file is parsed."""
    jobs = [(m, i) for m in models for i in range(len(prompts))]
    out = {m: [None] * len(prompts) for m in models}
    with tempfile.TemporaryDirectory() as d:
        def start(j):
            model, i = jobs[j]
            args = [binary, "run", model, "--tokens", ",".join(map(str, prompts[i])), "-n", "1", "-t", str(threads),
                    "--json", os.path.join(d, f"{j}.json"), "--all-logits"]
            err = open(os.path.join(d, f"{j}.err"), "w+")
            return args, err, subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)

        running = start(0)
        try:
            for j, (model, i) in enumerate(jobs):
                args, err, proc = running
                running = None
                if proc.wait() != 0:
                    err.seek(0)
                    sys.exit(f"check_run_kl: {' '.join(args[:3])} ... failed ({proc.returncode}):\n{err.read()}")
                err.close()
                running = start(j + 1) if j + 1 < len(jobs) else None
                js = os.path.join(d, f"{j}.json")
                out[model][i] = read_all_logits(js, len(prompts[i]))
                os.remove(js)
        finally:
            if running:  # a failure while the next run was under way
                running[2].kill()
                running[2].wait()
                running[1].close()
    return [out[m] for m in models]


def kl_rows(ref, x):
    """KL(softmax(ref) || softmax(x)) per row, float64."""
    ref = ref.astype(np.float64)
    x = x.astype(np.float64)
    lp = ref - ref.max(axis=1, keepdims=True)
    lp -= np.log(np.exp(lp).sum(axis=1, keepdims=True))
    lq = x - x.max(axis=1, keepdims=True)
    lq -= np.log(np.exp(lq).sum(axis=1, keepdims=True))
    return np.sum(np.exp(lp) * (lp - lq), axis=1)


def mean_kl(refs, xs):
    """The mean over every position of every prompt, and the per-prompt means."""
    per = [kl_rows(r, x) for r, x in zip(refs, xs)]
    return float(np.concatenate(per).mean()), [float(p.mean()) for p in per]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("qmatmul")
    ap.add_argument("--pair", nargs=3, action="append", metavar=("T", "MODEL_T", "MODEL_T_F32"), required=True)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()

    prompts = tokenize(a.pair[0][1])
    print(f"check_run_kl: {len(prompts)} prompts, {sum(map(len, prompts))} positions "
          f"({', '.join(str(len(p)) for p in prompts)}), {a.threads} threads", flush=True)
    print(f"  mean KL(F32-weight run || type-T run) in nats; a type fails if ratio > {ALLOWANCE} "
          f"or F32 runs KL > {F32_AGREE} x the smaller")
    print(f"  {'type':<5} {'qmatmul KL':>11} {'llama.cpp KL':>12} {'ratio':>6}  {'F32 runs KL':>11}  per prompt ratio")
    passed = failed = 0
    for t, model, model_f32 in a.pair:
        t0 = time.perf_counter()
        ll_f32 = llama_logits(model_f32, prompts, a.threads)
        ll_t = llama_logits(model, prompts, a.threads)
        ll_kl, ll_per = mean_kl(ll_f32, ll_t)
        del ll_t
        qm_f32, qm_t = qmatmul_logits(a.qmatmul, [model_f32, model], prompts, a.threads)
        f32_kl, _ = mean_kl(ll_f32, qm_f32)
        del ll_f32
        qm_kl, qm_per = mean_kl(qm_f32, qm_t)
        del qm_f32, qm_t
        ratio = qm_kl / ll_kl if ll_kl > 0 else float("inf")
        per = " ".join(f"{q / lq:.2f}" if lq > 0 else "inf" for q, lq in zip(qm_per, ll_per))
        print(f"  {t:<5} {qm_kl:11.4e} {ll_kl:12.4e} {ratio:6.3f}  {f32_kl:11.4e}  {per}"
              f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
        bad = []
        if not ll_kl > 0 or not qm_kl > 0:
            bad.append("a KL of 0: the type-T run gave its F32 twin's logits (not a quantized model and its twin?)")
        elif ratio > ALLOWANCE:
            bad.append(f"qmatmul's mean KL is {ratio:.3f}x llama.cpp's (allowed {ALLOWANCE}x)")
        if not f32_kl <= F32_AGREE * min(qm_kl, ll_kl):
            bad.append(f"the F32-weight runs differ by a KL of {f32_kl:.3g}, over {F32_AGREE} of the type's")
        if bad:
            failed += 1
            print(f"    FAIL {t}: {'; '.join(bad)}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
