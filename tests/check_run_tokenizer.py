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

Then the regressions of linear time (issue 49): a word of 120,000 bytes (all
'a', then all spaces) tokenizes within LONG_TIMEOUT seconds, again as llama.cpp
does (the merges were quadratic: minutes); and a vocabulary-only copy of each
model whose tokenizer.ggml.token_type (then tokenizer.ggml.scores) is an array
of strings, written to a temporary directory, loads or is refused naming the
key within LOAD_TIMEOUT seconds (element i of a string array was found by
walking from the start: quadratic).
"""
import os
import subprocess
import sys
import tempfile

from gguf import GGUFReader, GGUFValueType, GGUFWriter
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

LONG_PROMPTS = ["a" * 120000, " " * 120000]  # under Linux's 128 KiB limit on one argument
LONG_TIMEOUT = 30
LOAD_TIMEOUT = 10


def short(text):
    return repr(text) if len(text) < 80 else f"<{len(text)} x {text[0]!r}>"


def ours(binary, model, text, timeout=None):
    try:
        r = subprocess.run([binary, "run", model, "-p", text, "--tokenize"], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"check_run_tokenizer: qmatmul run {model} -p {short(text)} --tokenize took over {timeout} s")
    if r.returncode != 0:
        sys.exit(f"check_run_tokenizer: qmatmul run {model} -p {short(text)} --tokenize failed ({r.returncode}):\n{r.stderr}")
    out = r.stdout.strip()
    return [int(t) for t in out.split(",")] if out else []


def vocab_copy(model, path, key):
    """The metadata of model (no tensors) with key's array rewritten as strings
    (added, one per token, if the model has none)."""
    reader = GGUFReader(model)
    writer = GGUFWriter(path, reader.fields["general.architecture"].contents())
    for name, field in reader.fields.items():
        if name.startswith("GGUF.") or name in ("general.architecture", "general.alignment", key):
            continue
        vtype = field.types[0]
        if vtype == GGUFValueType.ARRAY:
            writer.add_key_value(name, field.contents(), vtype, sub_type=field.types[-1])
        else:
            writer.add_key_value(name, field.contents(), vtype)
    n = len(reader.fields["tokenizer.ggml.tokens"].data)
    old = reader.fields[key].contents() if key in reader.fields else [0] * n
    writer.add_key_value(key, [str(x) for x in old], GGUFValueType.ARRAY, sub_type=GGUFValueType.STRING)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def check_string_arrays(binary, model, tmp):
    """0 if each copy loads (or is refused naming the key) within LOAD_TIMEOUT."""
    bad = 0
    for key in ("tokenizer.ggml.token_type", "tokenizer.ggml.scores"):
        path = os.path.join(tmp, "strings.gguf")
        vocab_copy(model, path, key)
        try:
            r = subprocess.run([binary, "run", path, "-p", "hello", "--tokenize"], capture_output=True, text=True,
                               timeout=LOAD_TIMEOUT)
        except subprocess.TimeoutExpired:
            print(f"  FAIL {model}: {key} as strings: no answer within {LOAD_TIMEOUT} s")
            bad += 1
            continue
        if r.returncode != 0 and key not in r.stderr:
            print(f"  FAIL {model}: {key} as strings: refused without naming the key ({r.returncode}):\n{r.stderr}")
            bad += 1
        else:
            what = r.stderr.strip() if r.returncode else f"loaded: {r.stdout.strip()}"
            print(f"check_run_tokenizer: {model}: {key} as strings: {what}")
    return bad


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
        for text in LONG_PROMPTS:
            want = llm.tokenize(text.encode(), add_bos=True, special=False)
            got = ours(binary, model, text, timeout=LONG_TIMEOUT)
            if got != want:
                failed += 1
                print(f"  FAIL {model}: {short(text)}: {len(got)} ids, llama.cpp {len(want)}, first difference at "
                      f"{next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))}")
        print(f"check_run_tokenizer: {model}: {len(LONG_PROMPTS)} words of 120,000 bytes tokenized within {LONG_TIMEOUT} s")
        with tempfile.TemporaryDirectory() as tmp:
            failed += check_string_arrays(binary, model, tmp)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
