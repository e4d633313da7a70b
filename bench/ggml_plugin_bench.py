#!/usr/bin/env python3
"""llama.cpp (llama-cpp-python) with and without qmatmul's ggml plugin: prompt and decode tokens per second.

usage: ggml_plugin_bench.py PLUGIN.so MODEL.gguf [MODEL.gguf ...] [--threads N] [--prompt 72] [--decode 32]
                            [--reps 3]

Each engine runs in a child process of its own (a loaded back end stays registered). Prompt: the first
--prompt tokens of a fixed text, evaluated as one batch into an empty cache (best of --reps). Decode: after
that prompt, --decode tokens one at a time, greedy (best of --reps). Prints a markdown table.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from check_ggml_plugin import child_json, load_plugin  # noqa: E402

TEXT = ("The quick brown fox jumps over the lazy dog. " * 40)


def child(args):
    if args.plugin:
        if not load_plugin(args.plugin):
            print(json.dumps({"error": "ggml_backend_load returned NULL"}))
            return 1
    import numpy as np
    from llama_cpp import Llama
    llm = Llama(model_path=args.model, n_ctx=512, n_batch=512, n_threads=args.threads, n_threads_batch=args.threads,
                verbose=False)
    ids = llm.tokenize(TEXT.encode(), add_bos=True)[:args.prompt]
    n_vocab = llm.n_vocab()
    best_p = best_d = float("inf")
    for _ in range(args.reps):
        llm.reset()
        t0 = time.perf_counter()
        llm.eval(ids)
        t1 = time.perf_counter()
        best_p = min(best_p, t1 - t0)
        tok = int(np.argmax(np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n_vocab,))))
        t0 = time.perf_counter()
        for _ in range(args.decode):
            llm.eval([tok])
            tok = int(np.argmax(np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n_vocab,))))
        best_d = min(best_d, time.perf_counter() - t0)
    print(json.dumps({"prompt": len(ids) / best_p, "decode": args.decode / best_d}), flush=True)
    return 0


def run(plugin, model, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--model", model, "--threads", str(args.threads),
           "--prompt", str(args.prompt), "--decode", str(args.decode), "--reps", str(args.reps)]
    if plugin:
        cmd += ["--plugin", plugin]
    return child_json(cmd, f"{'plugin' if plugin else 'plain'} run of {model}", 3600)[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plugin", nargs="?")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--prompt", type=int, default=72)
    ap.add_argument("--decode", type=int, default=32)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--model")
    ap.add_argument("--plugin", dest="plugin_opt")
    args = ap.parse_args()
    if args.child:
        args.plugin = args.plugin_opt
        return child(args)
    plugin = os.path.abspath(args.plugin)
    print(f"| model | prompt ({args.prompt} tokens) tok/s: llama.cpp | + QMM | ratio "
          f"| decode tok/s: llama.cpp | + QMM | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for m in args.models:
        a = run(None, m, args)
        b = run(plugin, m, args)
        print(f"| {os.path.basename(m)} | {a['prompt']:.1f} | {b['prompt']:.1f} | {b['prompt'] / a['prompt']:.2f}x "
              f"| {a['decode']:.1f} | {b['decode']:.1f} | {b['decode'] / a['decode']:.2f}x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
