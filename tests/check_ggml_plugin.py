#!/usr/bin/env python3
"""llama.cpp (llama-cpp-python) with and without qmatmul's ggml plugin.

usage: check_ggml_plugin.py PLUGIN.so MODEL.gguf [MODEL.gguf ...] [--threads N]

Each model runs twice in a child process of its own (a loaded back end
stays registered): plain llama.cpp, and llama.cpp after
ggml_backend_load(PLUGIN) on the package's own libggml.so. The plugin run
must log a QMM model buffer (its weights are packed by qmatmul), give the
last prompt position's logits within a normalised squared error of 1e-3 of
plain llama.cpp's, and generate the same 16 greedy tokens but for near-ties:
where the two first differ, the plugin's token must be within TIE logits of
llama.cpp's top-1 by llama.cpp's own scores (the same prefix, so the same
position), and both runs' logits there within STEP_NSE. Exits non-zero,
naming what differs.
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

PROMPT = ("import numpy as np\nimport matplotlib.pyplot as plt\n\nx = np.linspace(0, 10, 100)\ny = np.sin(x)\n\n"
          "plt.plot(x, y)\nplt.xlabel('x')\nplt.ylabel('sin(x)')\n")
N_GEN = 16
TIE = 0.5  # as tests/check_run_llama.py: rounding moves SmolLM2's top-2 margins by up to 0.39 logits
NSE = 1e-3
STEP_NSE = 1e-2


def nse(a, b):
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    return float(np.sum((a - b) ** 2) / max(np.sum(b ** 2), 1e-30))


def load_plugin(path):
    """ggml_backend_load on llama-cpp-python's own libggml.so, before the package is imported: importing
    llama_cpp has llama.cpp list the devices once, and a device registered later is never offered weights."""
    import importlib.util
    libdir = os.path.join(os.path.dirname(importlib.util.find_spec("llama_cpp").origin), "lib")
    ggml = ctypes.CDLL(os.path.join(libdir, "libggml.so"), mode=ctypes.RTLD_GLOBAL)
    ggml.ggml_backend_load.restype = ctypes.c_void_p
    ggml.ggml_backend_load.argtypes = [ctypes.c_char_p]
    return ggml.ggml_backend_load(path.encode())


def child(args):
    """One run: prints a JSON line, writes the step logits to args.out."""
    reg = None
    if args.plugin:
        reg = load_plugin(args.plugin)
        if not reg:
            print(json.dumps({"error": "ggml_backend_load returned NULL"}))
            return 1
    from llama_cpp import Llama
    llm = Llama(model_path=args.model, n_ctx=512, n_batch=512, n_threads=args.threads, n_threads_batch=args.threads,
                verbose=True)
    ids = llm.tokenize(PROMPT.encode(), add_bos=True)
    llm.eval(ids)
    n_vocab = llm.n_vocab()
    steps, toks = [], []
    for _ in range(N_GEN):
        logits = np.array(np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(n_vocab,)), dtype=np.float32)
        steps.append(logits)
        tok = int(np.argmax(logits))
        toks.append(tok)
        llm.eval([tok])
    np.save(args.out, np.stack(steps))
    print(json.dumps({"tokens": toks, "prompt": len(ids)}), flush=True)
    return 0


def child_json(cmd, what, timeout):
    """Runs a child that prints a JSON line last: (that object, its stderr); raises naming what failed."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        sys.stderr.write(p.stderr[-4000:])
        raise RuntimeError(f"{what} failed (exit {p.returncode})")
    return json.loads(lines[-1]), p.stderr


def run_child(plugin, model, threads, out):
    cmd = [sys.executable, __file__, "--child", "--model", model, "--threads", str(threads), "--out", out]
    if plugin:
        cmd += ["--plugin", plugin]
    res, log = child_json(cmd, f"{'plugin' if plugin else 'plain'} run of {model}", 900)
    res["log"] = log
    res["steps"] = np.load(out)
    return res


def check_model(plugin, model, threads):
    name = os.path.basename(model)
    with tempfile.TemporaryDirectory() as tmp:
        ref = run_child(None, model, threads, os.path.join(tmp, "ref.npy"))
        got = run_child(plugin, model, threads, os.path.join(tmp, "qmm.npy"))
    bad = []
    buffers = [l.strip() for l in got["log"].splitlines() if "model buffer size" in l]
    if not any("QMM" in l for l in buffers):
        bad.append(f"no QMM model buffer in llama.cpp's log ({buffers or 'no buffer lines'})")
    first = nse(got["steps"][0], ref["steps"][0])
    if first > NSE:
        bad.append(f"last prompt position: logits NSE {first:.2e} > {NSE:g}")
    if int(np.argmax(got["steps"][0])) != int(np.argmax(ref["steps"][0])):
        bad.append("last prompt position: a different top-1")
    agree = N_GEN
    for i, (a, b) in enumerate(zip(got["tokens"], ref["tokens"])):
        if a == b:
            continue
        agree = i
        margin = float(ref["steps"][i][b] - ref["steps"][i][a])
        step = nse(got["steps"][i], ref["steps"][i])
        if margin > TIE or step > STEP_NSE:
            bad.append(f"greedy token {i}: {a} against llama.cpp's {b} (margin {margin:.3f} logits, step NSE {step:.2e})")
        break
    status = "FAIL" if bad else "ok"
    print(f"check_ggml_plugin: {status:4} {name}: {', '.join(buffers) or '-'}; logits NSE {first:.2e}; "
          f"{agree}/{N_GEN} greedy tokens equal" + ("" if agree == N_GEN else " (then a near-tie)"))
    for b in bad:
        print(f"check_ggml_plugin:      {b}")
    return not bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plugin", nargs="?")
    ap.add_argument("models", nargs="*")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--model")
    ap.add_argument("--out")
    ap.add_argument("--plugin", dest="plugin_opt")
    args = ap.parse_args()
    if args.child:
        args.plugin = args.plugin_opt
        return child(args)
    plugin = os.path.abspath(args.plugin)
    ok = all([check_model(plugin, m, args.threads) for m in args.models])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
