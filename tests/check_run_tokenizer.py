#!/usr/bin/env python3
"""`qmatmul run -p TEXT --tokenize` against llama.cpp's tokenizer (llama-cpp-python).

usage: check_run_tokenizer.py QMATMUL MODEL.gguf [MODEL.gguf ...]

For each model, every prompt below is tokenized by llama.cpp (the BOS token
the model asks for, no special-token parsing, as `qmatmul run -p` does) and
by qmatmul from the GGUF's own vocabulary; the ids must be identical. The
run stage passes gemma-3-270m (tokenizer.ggml.model = llama: SentencePiece,
byte fallback; an architecture `qmatmul run` refuses, but its tokenizer runs
before the model loads) and SmolLM2 (gpt2). Exits non-zero, naming the
prompts that differ.
"""
import subprocess
import sys

from llama_cpp import Llama

PROMPTS = [
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "  two leading spaces, and  two   inner ones ",
    "1234567 + 89 = 1234656?",
    "naïve café — Ærøskøbing, Zürich; 東京タワー; 🤖🦀",
    "line one\nline two\n\n\ttabbed",
    "def f(x):\n    return x ** 2  # square\n",
    "MiXeD cAsE and apostrophes: don't, we'll, it's",
    "\u0001\u007f control bytes",
    # runs of spaces and newlines: user-defined tokens in gemma's vocabulary,
    # split off before SentencePiece runs
    "x     y\n\n\nz \n \n  end",
]


def ours(binary, model, text):
    r = subprocess.run([binary, "run", model, "-p", text, "--tokenize"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"check_run_tokenizer: qmatmul run {model} -p {text!r} --tokenize failed ({r.returncode}):\n{r.stderr}")
    out = r.stdout.strip()
    return [int(t) for t in out.split(",")] if out else []


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, models = sys.argv[1], sys.argv[2:]
    failed = 0
    for model in models:
        llm = Llama(model_path=model, vocab_only=True, verbose=False)
        bad = 0
        for text in PROMPTS:
            want = llm.tokenize(text.encode(), add_bos=True, special=False)
            got = ours(binary, model, text)
            if got != want:
                bad += 1
                print(f"  FAIL {model}: {text!r}\n    llama.cpp {want}\n    qmatmul   {got}")
        print(f"check_run_tokenizer: {model}: {len(PROMPTS) - bad}/{len(PROMPTS)} prompts tokenized as llama.cpp does")
        failed += bad
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
